#!/usr/bin/env node
// `npm start`: the demo. Checks its ports, builds and packs this package, starts the offline
// sandbox service on 127.0.0.1:4010 and a mail catcher (SMTP on 2525, web inbox on
// http://127.0.0.1:4011), installs the latest n8n into a cache outside the clone (first run
// only, with progress), loads the package into a kept n8n user folder exactly as a user install
// does, imports the sandbox, SMTP and MCP-token credentials and the example workflows once, and
// starts n8n on http://127.0.0.1:5678 with an owner account, the examples' data tables (the client
// directory filled from the sandbox's accounts, the weekly figures with demo weeks before last
// week) and the MCP server example published. Ctrl-C stops n8n gracefully, then the sandbox and
// the mail catcher.
//
// Env: SANDBOX_PORT (4010), N8N_PORT_DEMO (5678), MAIL_SMTP_PORT (2525), MAIL_INBOX_PORT (4011).
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

import {
	DEMO_ACCOUNT_MANAGER,
	DEMO_FIGURE_WEEKS,
	EXAMPLE_DATA_TABLES,
	ensureDataTables,
	fillDemoClientDirectory,
	fillDemoFigures,
} from './e2e/data-tables.mjs';
import { cacheRoot, ensureLine } from './e2e/install-n8n.mjs';
import { createInstance } from './e2e/n8n-instance.mjs';
import { packPackage, REPO_ROOT } from './e2e/pack.mjs';
import { startMailCatcher } from './mail/mail-catcher.mjs';

const SANDBOX_PORT = Number(process.env.SANDBOX_PORT ?? 4010);
const N8N_PORT = Number(process.env.N8N_PORT_DEMO ?? 5678);
const MAIL_SMTP_PORT = Number(process.env.MAIL_SMTP_PORT ?? 2525);
const MAIL_INBOX_PORT = Number(process.env.MAIL_INBOX_PORT ?? 4011);
const say = (line) => process.stdout.write(`[start] ${line}\n`);

/** Whether something already listens on 127.0.0.1:port. */
function portInUse(port) {
	return new Promise((resolve) => {
		const probe = net.createServer();
		probe.once('error', () => resolve(true));
		probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(false)));
	});
}

async function checkPorts() {
	for (const [port, variable, what] of [
		[SANDBOX_PORT, 'SANDBOX_PORT', 'the sandbox service'],
		[N8N_PORT, 'N8N_PORT_DEMO', 'n8n'],
		[MAIL_SMTP_PORT, 'MAIL_SMTP_PORT', 'the mail catcher (SMTP)'],
		[MAIL_INBOX_PORT, 'MAIL_INBOX_PORT', 'the mail catcher inbox'],
	]) {
		if (await portInUse(port)) {
			process.stderr.write(
				`[start] Port ${port} (for ${what}) is in use. Stop what uses it, or choose another port: ${variable}=${port + 1} npm start\n`,
			);
			process.exit(1);
		}
	}
}

async function startSandbox() {
	const tsx = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
	const child = spawn(tsx, ['sandbox/cli.cts', '--json', '--port', String(SANDBOX_PORT), '--time-scale', '1'], {
		cwd: REPO_ROOT,
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	running.sandbox = child;
	const info = await new Promise((resolve, reject) => {
		readline.createInterface({ input: child.stdout }).once('line', (line) => resolve(JSON.parse(line)));
		child.once('exit', (code) => reject(new Error(`the sandbox exited (${code})`)));
	});
	return { ...info, child };
}

/** What is running, so that a stop (Ctrl-C or a failed start) ends each of them once. */
const running = { n8n: undefined, sandbox: undefined, mail: undefined };
let stopping;
function stopAll(exitCode) {
	stopping ??= (async () => {
		say('stopping…');
		// n8n first and gracefully (SIGTERM, then SIGKILL after 15 s), so that its next start
		// does not report a crashed session; then the sandbox.
		await running.n8n?.stop().catch(() => {});
		if (running.sandbox && running.sandbox.exitCode === null) {
			running.sandbox.kill('SIGTERM');
			await new Promise((resolve) => running.sandbox.once('exit', resolve));
		}
		await running.mail?.close().catch(() => {});
		say('stopped.');
		process.exit(exitCode);
	})();
	return stopping;
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void stopAll(0));

/**
 * Imports the sandbox credential and each example once: later starts keep what the user changed
 * and add only examples that are new. What was imported is recorded in the user folder.
 */
async function importOnce(n8n, userFolder, sandbox, mail) {
	const recordFile = path.join(userFolder, 'demo-imported.json');
	const record = fs.existsSync(recordFile)
		? JSON.parse(fs.readFileSync(recordFile, 'utf8'))
		: { credentials: [], workflows: [] };
	const save = () => fs.writeFileSync(recordFile, JSON.stringify(record, null, 2) + '\n');
	if (!record.credentials.includes('adperf-sandbox')) {
		await n8n.importCredentials([
			{ id: 'adperf-sandbox', name: 'Ad Performance sandbox', type: 'adPerformanceApi', data: { apiKey: sandbox.keys.live, baseUrl: sandbox.url, apiVersion: '2026-03-01' } },
		]);
		record.credentials.push('adperf-sandbox');
		save();
	}
	// The examples send e-mail with the credential `smtp-agency`: in the demo it is the catcher.
	if (record.mailSmtpPort !== mail.smtpPort) {
		await n8n.importCredentials([
			{ id: 'smtp-agency', name: 'Demo mail catcher (SMTP)', type: 'smtp', data: mail.credentialData() },
		]);
		record.mailSmtpPort = mail.smtpPort;
		save();
	}
	// The MCP server example authenticates its clients with the bearer token `mcp-bearer`.
	// The token is kept in the user folder's record too, so that each start can print it.
	if (!record.credentials.includes('mcp-bearer')) {
		record.mcpToken = crypto.randomBytes(24).toString('hex');
		await n8n.importCredentials([
			{ id: 'mcp-bearer', name: 'Ad Performance MCP token', type: 'httpBearerAuth', data: { token: record.mcpToken } },
		]);
		record.credentials.push('mcp-bearer');
		save();
	}
	const examplesDir = path.join(REPO_ROOT, 'examples');
	const added = [];
	for (const [index, file] of fs.readdirSync(examplesDir).filter((f) => f.endsWith('.json')).sort().entries()) {
		if (record.workflows.includes(file)) continue;
		const workflow = JSON.parse(fs.readFileSync(path.join(examplesDir, file), 'utf8'));
		await n8n.importWorkflow({ ...workflow, id: workflow.id ?? `adperfExample${index + 1}` });
		record.workflows.push(file);
		added.push(file);
		save();
	}
	say(added.length ? `imported ${added.length} example workflow(s): ${added.join(', ')}` : 'examples already imported (your changes are kept)');
}

/**
 * Done once, through the running server, as a user would in the editor: the examples' data
 * tables (the client directory filled from the sandbox's accounts and the weekly figures with
 * demo weeks, each while it is empty), the exactly-once example's recovery workflow published
 * (an Error Workflow runs only when published) and the MCP server example published (its URL
 * answers only then). The examples' IDs are kept on import, so the weekly workflow's Error
 * Workflow setting already names the recovery.
 */
async function prepareExamples(n8n, server, userFolder, sandbox) {
	const recordFile = path.join(userFolder, 'demo-imported.json');
	const record = JSON.parse(fs.readFileSync(recordFile, 'utf8'));
	const tables = await ensureDataTables(server, EXAMPLE_DATA_TABLES);
	const state = await (await fetch(`${sandbox.url}/__fake/state`)).json();
	const added = await fillDemoClientDirectory(server, tables, state.data.accounts);
	if (added) say(`client directory: ${added} clients, each with its own demo address`);
	// earlier weeks, so that the first Execute already shows each figure's change and the chart
	const demoWeeks = await fillDemoFigures(server, tables, state.data);
	if (demoWeeks.rows)
		say(`weekly_report_figures: ${demoWeeks.weeks} earlier weeks of demo figures for each of ${demoWeeks.accounts} clients (report_id demo-…); delete those rows (Overview → Data tables) to keep only your own runs' figures`);
	const save = () => fs.writeFileSync(recordFile, JSON.stringify(record, null, 2) + '\n');
	if (record.workflows.includes('weekly-report-recovery.json') && !record.recoveryPublished) {
		await n8n.publishWorkflow('adperfWeeklyRecovery');
		record.recoveryPublished = true;
		save();
	}
	// The review before it goes is a sub-workflow: scheduled runs of the weekly workflow call only
	// published ones.
	if (record.workflows.includes('weekly-report-review.json') && !record.reviewPublished) {
		await n8n.publishWorkflow('adperfWeeklyReview');
		record.reviewPublished = true;
		save();
	}
	// Published as the editor's Publish button does (the server runs), so that its URL answers.
	if (record.workflows.includes('ad-performance-mcp-server.json') && !record.mcpServerPublished) {
		await n8n.publishWorkflow('adperfMcpServer');
		record.mcpServerPublished = true;
		save();
	}
	return { mcpUrl: `${server.baseUrl}/mcp/ad-performance`, mcpToken: record.mcpToken };
}

async function main() {
	await checkPorts();
	const userFolder = path.join(path.dirname(cacheRoot()), 'start-user');
	fs.mkdirSync(userFolder, { recursive: true });
	// The kept user folder keeps its credentials, so it keeps its encryption key too.
	const keyFile = path.join(userFolder, 'demo-encryption-key');
	if (!fs.existsSync(keyFile)) fs.writeFileSync(keyFile, crypto.randomBytes(24).toString('hex'));
	const encryptionKey = fs.readFileSync(keyFile, 'utf8').trim();

	say('building and packing the package…');
	const { tarball } = await packPackage({ outDir: fs.mkdtempSync(path.join(os.tmpdir(), 'adperf-start-')) });
	say('starting the sandbox service…');
	const sandbox = await startSandbox();
	say(`sandbox: ${sandbox.url}`);
	running.mail = await startMailCatcher({ smtpPort: MAIL_SMTP_PORT, webPort: MAIL_INBOX_PORT });
	say(`mail catcher: SMTP on 127.0.0.1:${running.mail.smtpPort}, inbox ${running.mail.inboxUrl}`);
	say('making sure n8n is installed (the first run installs it: about 11 minutes and 4 GB on 2 cores)…');
	await ensureLine('latest', { log: (line) => say(line) });

	const n8n = await createInstance({ line: 'latest', packageTarball: tarball, userFolder, encryptionKey, keep: true });
	running.n8n = n8n;
	await importOnce(n8n, userFolder, sandbox, running.mail);
	say('starting n8n…');
	const server = await n8n.start({ port: N8N_PORT, timeoutMs: 180_000 });
	const mcp = await prepareExamples(n8n, server, userFolder, sandbox);

	process.stdout.write(`
  n8n with the Ad Performance nodes is running.

    Open:      ${server.baseUrl}
    Log in:    ${server.email}
    Password:  ${server.password}

    Inbox:     ${running.mail.inboxUrl}   (every e-mail n8n sends lands here)

  Already there: the credentials "Ad Performance sandbox" (the offline sandbox at
  ${sandbox.url}) and "Demo mail catcher (SMTP)", the data table "clients" (one row per
  sandbox account, each with its own demo address and locale), the table "weekly_report_figures"
  (each week's figures per account; it starts with a few earlier weeks of demo data, report_id
  demo-…, until you delete those rows) and the example workflows. Try "Weekly client report e-mail
  (client directory)": open it and click Execute workflow. About 25 seconds later the inbox has
  one e-mail per active client account, at that client's address, each with its PDF report
  attached, every figure's change from last week and a chart of the last ${DEMO_FIGURE_WEEKS + 1} weeks
  (the demo weeks and this one), and one team digest (sent, skipped, failed, high risk, accounts to reconnect);
  "Run summary" lists who was sent what and who was skipped and why. A report at high or
  critical risk is held for review: the approval request goes to ${DEMO_ACCOUNT_MANAGER};
  click Approve and send in the inbox and the client gets it. The sandbox behaves like the real
  service: reports take 10–20 s, rate limits apply.

    MCP server (published):  ${mcp.mcpUrl}
    Header:                  Authorization: Bearer ${mcp.mcpToken ?? '(the token of the credential "Ad Performance MCP token")'}

  n8n's log: ${server.logFile}
  Press Ctrl-C to stop n8n, the sandbox and the mail catcher.
`);
}

main().catch((error) => {
	const cause = error?.cause?.message ? ` (${error.cause.message})` : '';
	process.stderr.write(`[start] failed: ${error?.message ?? error}${cause}\n`);
	void stopAll(1);
});
