// The set-up the editor suites share (editor-demo, review, hostile-names): the lines and folders
// their environment names, the examples as saved, and n8n with the packed package, the sandbox
// and the mail catcher as `npm start` runs them, started before a suite's tests and stopped after.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { launchBrowser } from '../../scripts/e2e/browser.mjs';
import { ensureDataTables, EXAMPLE_DATA_TABLES } from '../../scripts/e2e/data-tables.mjs';
import { installedLine } from '../../scripts/e2e/install-n8n.mjs';
import { createInstance, demoCredentials, executionRun } from '../../scripts/e2e/n8n-instance.mjs';
import { packPackage, REPO_ROOT } from '../../scripts/e2e/pack.mjs';
import { startMailCatcher } from '../../scripts/mail/mail-catcher.mjs';
import { startFakeProcess } from '../../scripts/e2e/sandbox-process.mjs';

export const browserSkip = process.env.E2E_BROWSER === '0' && 'E2E_BROWSER=0';
export const editorLines = (process.env.E2E_EDITOR_LINES ?? 'latest')
	.split(',')
	.map((s) => s.trim())
	.filter(Boolean);
export const outDir = path.resolve(process.env.E2E_OUT ?? path.join(REPO_ROOT, '.e2e-out'));
// The pictures the README and docs show: written under .e2e-out/ so that a run leaves the
// committed ones alone; E2E_DOCS_IMAGES=docs/images refreshes those on purpose.
export const docsImages = path.resolve(
	process.env.E2E_DOCS_IMAGES ?? path.join(outDir, 'docs-images'),
);
/** A service minute is 1.2 s: reports finish within a run from the editor. */
export const TIME_SCALE = 0.02;

export const readExample = (file) =>
	JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'examples', file), 'utf8'));

// n8n's approval links ignore bots (the `isbot` check of its Send and Wait webhook), and headless
// Chromium's own user agent says HeadlessChrome: the inbox is opened as the desktop browser a
// person uses.
export const DESKTOP_CHROME =
	'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/**
 * n8n of `line` with the packed package, the sandbox (as a process) and the mail catcher, for a
 * describe block: started in a `before` hook and stopped in an `after` hook. The demo's
 * credentials (the sandbox's, the catcher as SMTP) and `credentials` are imported; `prepare`
 * imports the suite's workflows before n8n starts, `ready` sets up what needs it running. The
 * returned object holds `fake`, `mail`, `n8n`, `server` and `browser` once `before` has run.
 */
export function useDemo(line, { credentials = [], prepare, ready } = {}) {
	const demo = {};
	before(async () => {
		installedLine(line);
		fs.mkdirSync(outDir, { recursive: true });
		fs.mkdirSync(docsImages, { recursive: true });
		// E2E_TARBALL: a tarball packed once for the run (`.ci/run`), as package-loads takes it.
		const tarball =
			process.env.E2E_TARBALL ??
			(await packPackage({ outDir: fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-pack-')) })).tarball;
		demo.fake = await startFakeProcess({ timeScale: TIME_SCALE });
		demo.mail = await startMailCatcher();
		demo.n8n = await createInstance({ line, packageTarball: tarball });
		await demo.n8n.importCredentials([...demoCredentials(demo.fake, demo.mail), ...credentials]);
		await prepare?.(demo);
		demo.server = await demo.n8n.start();
		await ready?.(demo);
		demo.browser = await launchBrowser();
	});
	after(async () => {
		await demo.browser?.close().catch(() => {});
		await demo.n8n?.dispose();
		await demo.mail?.close();
		await demo.fake?.stop();
	});
	return demo;
}

/**
 * The client-directory example with its review workflow, as `npm start` sets them up: imported,
 * the examples' data tables made (`demo.tables`), and the review published, since the directory
 * example calls only a published sub-workflow.
 */
export function useReviewDemo(line, { directory, review }) {
	return useDemo(line, {
		prepare: (demo) => demo.n8n.importWorkflows([directory, review]),
		ready: async (demo) => {
			demo.tables = await ensureDataTables(demo.server, EXAMPLE_DATA_TABLES);
			await demo.n8n.publishWorkflow(review.id);
		},
	});
}

/** A workflow's executions as the REST API lists them, newest first. */
export async function executions(server, workflowId) {
	const r = await server.request(
		'GET',
		`/rest/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId }))}`,
	);
	return r.json?.data?.results ?? r.json?.data ?? [];
}

/** The run data of the workflow's latest execution, which must have succeeded. */
export async function lastRun(server, workflowId) {
	const [latest] = await executions(server, workflowId);
	assert.equal(latest?.status, 'success', `execution: ${JSON.stringify(latest).slice(0, 400)}`);
	return (await executionRun(server, latest.id)).resultData.runData;
}

/** The output items (json) of a node's first run in an execution's run data. */
export const outputOf = (runData, node) =>
	(runData[node]?.[0]?.data?.main?.[0] ?? []).map((i) => i.json);
