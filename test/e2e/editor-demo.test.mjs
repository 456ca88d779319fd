// End-to-end: the newcomer's path of `npm start`, driven in the real editor (Debian's Chromium):
// the node creator finds every node under "Ad Performance", and the weekly e-mail example runs
// from the editor's Execute workflow button and delivers one e-mail with its PDF per active
// account to the mail catcher. Screenshots go to .e2e-out/ (E2E_OUT).
//
// Env: E2E_LINES (default latest; the editor path is checked on the line `npm start` uses) ·
//      E2E_BROWSER=0 skips it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import {
	executeWorkflowInEditor,
	launchBrowser,
	searchNodeCreator,
} from '../../scripts/e2e/browser.mjs';
import { installedLine } from '../../scripts/e2e/install-n8n.mjs';
import { createInstance } from '../../scripts/e2e/n8n-instance.mjs';
import { packPackage, REPO_ROOT } from '../../scripts/e2e/pack.mjs';
import { startMailCatcher } from '../../scripts/mail/mail-catcher.mjs';
import { startFakeProcess } from '../../scripts/e2e/sandbox-process.mjs';

const skip = process.env.E2E_BROWSER === '0' && 'E2E_BROWSER=0';
const lines = (process.env.E2E_EDITOR_LINES ?? 'latest')
	.split(',')
	.map((s) => s.trim())
	.filter(Boolean);
const outDir = path.resolve(process.env.E2E_OUT ?? path.join(REPO_ROOT, '.e2e-out'));
const TIME_SCALE = 0.02;

for (const line of lines) {
	describe(`the npm start path in the editor of n8n ${line}`, { skip }, () => {
		let fake;
		let mail;
		let n8n;
		let server;
		let browser;
		before(async () => {
			installedLine(line);
			fs.mkdirSync(outDir, { recursive: true });
			const { tarball } = await packPackage({
				outDir: fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-pack-')),
			});
			fake = await startFakeProcess({ timeScale: TIME_SCALE });
			mail = await startMailCatcher();
			n8n = await createInstance({ line, packageTarball: tarball });
			// What `npm start` imports: the sandbox credential, the catcher as the examples' SMTP
			// credential, and the example itself, unchanged.
			await n8n.importCredentials([
				{
					id: 'adperf-sandbox',
					name: 'Ad Performance sandbox',
					type: 'adPerformanceApi',
					data: fake.credentialData(),
				},
				{
					id: 'smtp-agency',
					name: 'Demo mail catcher (SMTP)',
					type: 'smtp',
					data: mail.credentialData(),
				},
			]);
			const weekly = JSON.parse(
				fs.readFileSync(
					path.join(REPO_ROOT, 'examples', 'weekly-client-report-email.json'),
					'utf8',
				),
			);
			await n8n.importWorkflow(weekly);
			server = await n8n.start();
			browser = await launchBrowser();
		});
		after(async () => {
			await browser?.close().catch(() => {});
			await n8n?.dispose();
			await mail?.close();
			await fake?.stop();
		});

		test('the node creator lists the Wait node for "Ad Performance" (the trigger is in the "Ad Performance" entry)', async () => {
			const names = await searchNodeCreator({
				...server,
				browser,
				query: 'Ad Performance',
				screenshotPath: path.join(outDir, `creator-search-ad-performance-${line}.png`),
			});
			// n8n lists a node and its trigger as one entry named after the node.
			for (const name of ['Ad Performance', 'Wait for Ad Report']) {
				assert.ok(
					names.includes(name),
					`"${name}" not listed for "Ad Performance": ${JSON.stringify(names)}`,
				);
			}
		});

		test('after a trigger, the "Ad Performance" entry among the actions describes the actions too', async () => {
			const items = await searchNodeCreator({
				...server,
				browser,
				query: 'Ad Performance',
				workflowId: 'adperfWeeklyMail',
				withDescriptions: true,
				screenshotPath: path.join(outDir, `creator-actions-after-trigger-${line}.png`),
			});
			const entry = items.find((item) => item.startsWith('Ad Performance\n'));
			assert.ok(entry, JSON.stringify(items));
			assert.match(entry, /Generate AI ad performance reports/);
		});

		test('the weekly example runs from the editor: one e-mail with its PDF per active account', async () => {
			const weekly = JSON.parse(
				fs.readFileSync(
					path.join(REPO_ROOT, 'examples', 'weekly-client-report-email.json'),
					'utf8',
				),
			);
			await executeWorkflowInEditor({
				...server,
				browser,
				workflowId: weekly.id,
				screenshotPath: path.join(outDir, `weekly-example-run-${line}.png`),
			});
			const executions = await server.request(
				'GET',
				`/rest/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: weekly.id }))}`,
			);
			const results = executions.json?.data?.results ?? executions.json?.data ?? [];
			assert.equal(
				results[0]?.status,
				'success',
				`execution: ${JSON.stringify(results[0]).slice(0, 400)}`,
			);

			const active = (await fake.state()).data.accounts.filter(
				(a) => a.connectionStatus === 'active',
			);
			assert.ok(active.length > 0);
			await mail.waitForMessage(() => mail.messages.length >= active.length, 30_000);
			assert.equal(mail.messages.length, active.length);
			const reports = (await fake.state()).data.reports;
			for (const message of mail.messages) {
				const title = message.subject.replace(/^Your weekly ad performance report: /, '');
				const report = reports.find((r) => r.title === title);
				assert.ok(report, `no report titled ${title}`);
				assert.equal(message.attachments.length, 1);
				const expected = await fake.download(report.id);
				assert.ok(
					message.attachments[0].content.equals(expected.bytes),
					`${title}: the attachment is not the report`,
				);
				assert.match(message.attachments[0].filename, /\.pdf$/);
			}
			const inbox = await (await fetch(mail.inboxUrl)).text();
			assert.match(inbox, new RegExp(`Demo inbox: ${active.length} message`));
		});
	});
}
