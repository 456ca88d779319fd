// End-to-end: the package as a user installs it (npm pack → <userFolder>/.n8n/nodes) loads in
// real n8n, on every installed line (latest 2.x under Node 24, newest 1.x under Node 20).
//
//   node scripts/e2e/install-n8n.mjs            # once; minutes when cold, ~2 s when cached
//   node --test --test-concurrency=1 test/e2e/*.test.mjs
//
// Env: E2E_LINES=latest,1.x,oldest (default all three) · E2E_TARBALL=<tgz> (skip build + pack) ·
//      E2E_BROWSER=0 (skip driving the editor in Debian's Chromium) ·
//      E2E_OUT=<dir> for screenshots (default .e2e-out/, git-ignored).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packPackage, REPO_ROOT } from '../../scripts/e2e/pack.mjs';
import { createInstance } from '../../scripts/e2e/n8n-instance.mjs';
import { installedLine } from '../../scripts/e2e/install-n8n.mjs';

const PKG = 'n8n-nodes-ad-performance';
const NODE_TYPES = ['adPerformance', 'adPerformanceWaitForReport', 'adPerformanceTrigger'].map(
	(n) => `${PKG}.${n}`,
);
const lines = (process.env.E2E_LINES ?? 'latest,1.x,oldest')
	.split(',')
	.map((s) => s.trim())
	.filter(Boolean);
const outDir = path.resolve(process.env.E2E_OUT ?? path.join(REPO_ROOT, '.e2e-out'));

let tarball = process.env.E2E_TARBALL;
before(async () => {
	if (!tarball)
		tarball = (await packPackage({ outDir: fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-pack-')) }))
			.tarball;
});

for (const line of lines) {
	describe(`n8n ${line}`, () => {
		let n8n;
		let server;
		before(async () => {
			installedLine(line); // throws with the install command when the line is missing
			n8n = await createInstance({ line, packageTarball: tarball });
		});
		after(async () => {
			await n8n?.dispose();
		});

		test('export:nodes lists our node types with SVG icons shipped in the package', async () => {
			const nodes = await n8n.exportNodes();
			for (const type of NODE_TYPES) {
				const d = nodes.find((n) => n.name === type);
				assert.ok(d, `${type} not loaded by n8n ${n8n.version}`);
				const icon = d.iconUrl ?? d.icon;
				const urls = typeof icon === 'string' ? [icon] : Object.values(icon ?? {});
				assert.ok(urls.length, `${type} has no icon`);
				for (const u of urls) {
					assert.match(String(u), new RegExp(`^icons/${PKG}/dist/.+\\.svg$`));
					const file = path.join(n8n.package.dir, String(u).replace(`icons/${PKG}/`, ''));
					assert.ok(fs.existsSync(file), `${u} is not in the package (${file})`);
				}
			}
		});

		test('the server serves the credential type and the nodes', async () => {
			server = await n8n.start();
			const creds = await server.request('GET', '/types/credentials.json');
			assert.equal(creds.status, 200);
			const cred = creds.json.find((c) => c.name === 'adPerformanceApi');
			assert.ok(cred, 'adPerformanceApi not served');
			for (const p of ['apiKey', 'baseUrl', 'apiVersion'])
				assert.ok(
					cred.properties.some((x) => x.name === p),
					`credential lacks ${p}`,
				);
			const types = await server.request('GET', '/types/nodes.json');
			assert.equal(types.status, 200);
			for (const type of NODE_TYPES)
				assert.ok(
					types.json.some((n) => n.name === type),
					`${type} not in /types/nodes.json`,
				);
		});

		test(
			'editor: node creator finds Ad Performance, Resource options and our icon',
			{ skip: process.env.E2E_BROWSER === '0' && 'E2E_BROWSER=0' },
			async () => {
				const { inspectNodeInEditor } = await import('../../scripts/e2e/browser.mjs');
				server ??= await n8n.start();
				fs.mkdirSync(outDir, { recursive: true });
				const r = await inspectNodeInEditor({
					...server,
					displayName: 'Ad Performance',
					screenshotPath: path.join(outDir, `ndv-ad-performance-${line}.png`),
				});
				assert.deepEqual(
					r.resourceOptions?.filter((o) => o !== 'Custom API Call'),
					['Account', 'Campaign', 'Diagnostic', 'Report'],
				);
				assert.ok(r.icon.isImg, `icon is not our SVG: ${JSON.stringify(r.icon)}`);
				assert.match(r.icon.src, /adPerformance\.svg$/);
			},
		);
	});
}
