// End-to-end: the client watch (examples/client-watch.json) in real n8n (latest line), run with
// the editor's Execute workflow button as a user does. Three clients of the directory: one over
// its budget, one whose data is stale, one with campaigns the sandbox scores at critical risk. The
// first run e-mails the account manager one alert per client naming each finding (and composes
// one Slack message per client), the second sends nothing, and after the budget finding clears
// (the directory's budget raised) and comes back (lowered again), it is alerted once more.
//
// The alert as the inbox shows it, 600 px wide, is saved for docs/images/ (demo.mjs: docsImages) for
// the README; the canvas after the first run to .e2e-out/ (E2E_OUT).
//
// Env: E2E_EDITOR_LINES (default latest) · E2E_BROWSER=0 skips it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';

import { executeWorkflowInEditor, screenshotUrl } from '../../scripts/e2e/browser.mjs';
import {
	DEMO_ACCOUNT_MANAGER,
	dataTableRows,
	ensureDataTables,
	EXAMPLE_DATA_TABLES,
	insertDataTableRows,
	updateDataTableRows,
} from '../../scripts/e2e/data-tables.mjs';
import {
	browserSkip,
	docsImages,
	editorLines,
	lastRun,
	outDir,
	outputOf,
	readExample,
	useDemo,
} from './demo.mjs';

const WATCH = readExample('client-watch.json');
const HOUR = 3_600_000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

for (const line of editorLines) {
	describe(`the client watch, in n8n ${line}`, { skip: browserSkip }, () => {
		const demo = useDemo(line, {
			prepare: (d) => d.n8n.importWorkflows([WATCH]),
			ready: async (d) => {
				d.tables = await ensureDataTables(d.server, EXAMPLE_DATA_TABLES);
			},
		});

		/** Runs the watch with Execute workflow; resolves with its run data and the e-mails it sent. */
		async function watchRun(screenshotPath) {
			const { server, browser, mail } = demo;
			const before = mail.messages.length;
			await executeWorkflowInEditor({ ...server, browser, workflowId: WATCH.id, screenshotPath });
			const runData = await lastRun(server, WATCH.id);
			const output = (node) => outputOf(runData, node);
			const alerts = output('Alerts per client');
			// the e-mails of this run: as many as its alerts, then a moment for any stray one
			await mail.waitForMessage(() => mail.messages.length >= before + alerts.length, 30_000);
			await sleep(1_000);
			return { output, alerts, emails: mail.messages.slice(before) };
		}

		test('one alert per client and finding, nothing the second time, again after it cleared and came back', async () => {
			const { fake, mail, server, browser, tables } = demo;
			const oak = await fake.addAccount({ name: 'Oak & Pine <Outfitters>', currency: 'AUD' });
			const stale = await fake.addAccount({ name: 'Birch Dental', currency: 'GBP' });
			const risky = await fake.addAccount({ name: 'Maple Gym', currency: 'USD' });
			const state = (await fake.state()).data;
			const account = (a) => state.accounts.find((x) => x.id === a.id);
			for (const campaign of state.campaigns) {
				const riskScore = campaign.accountId === risky.id ? 96 : 10;
				await fake.control('PUT', `/__fake/campaigns/${campaign.id}/risk`, { riskScore });
			}
			await fake.control('PUT', `/__fake/accounts/${stale.id}/synced`, {
				at: new Date(Date.now() - 50 * HOUR).toISOString(),
			});
			const onPace = (a) => Math.ceil((account(a).totalSpendLast30d / 30) * 31);
			const overBudget = Math.round(account(oak).totalSpendLast30d / 2);
			const row = (a, monthly_budget) => ({
				account_id: a.platformAccountId,
				client_name: a.name,
				to_email: 'client@clients.example',
				send: true,
				account_manager_email: DEMO_ACCOUNT_MANAGER,
				monthly_budget,
			});
			await insertDataTableRows(server, tables, 'clients', [
				row(oak, overBudget),
				row(stale, onPace(stale)),
				row(risky, onPace(risky)),
			]);

			// the first run: one alert per client, each naming its findings
			const first = await watchRun(path.join(outDir, `client-watch-run-${line}.png`));
			const alertOf = (emails, a) => emails.filter((m) => m.subject?.endsWith(` for ${a.name}`));
			for (const [a, finding, word] of [
				[
					oak,
					/Over-pacing: at the last 30 days' rate \(AUD\u00a0[\d,.]+\) the month comes to AUD/,
					'Over-pacing',
				],
				[stale, /Stale data: last synced (49|50) hours ago/, 'Stale data'],
				[
					risky,
					/Campaign "[^"]+" at critical risk \(score 96\): .+ \(critical\)\. First: /,
					'at critical risk',
				],
			]) {
				const mine = alertOf(first.emails, a);
				assert.equal(
					mine.length,
					1,
					`${a.name}: ${JSON.stringify(first.emails.map((m) => m.subject))}`,
				);
				assert.deepEqual(mine[0].to, [DEMO_ACCOUNT_MANAGER]);
				assert.match(mine[0].text, finding);
				// and one Slack message per client, composed alike (the Slack node is off until set up)
				const slack = first.alerts.find((x) => x.account_id === a.platformAccountId).slack_text;
				assert.ok(slack.includes(word), slack);
			}
			assert.equal(first.emails.length, 3);
			// the name with markup is text in the e-mail and Slack
			const oakAlert = alertOf(first.emails, oak)[0];
			assert.ok(oakAlert.html.includes('Oak &amp; Pine &lt;Outfitters&gt;'));
			assert.ok(!/<Outfitters>/.test(oakAlert.html));
			const oakSlack = first.alerts.find((x) => x.account_id === oak.platformAccountId).slack_text;
			assert.ok(oakSlack.includes('Oak &amp; Pine &lt;Outfitters&gt;'), oakSlack);
			const findings = await dataTableRows(server, tables, 'client_watch_findings');
			const open = findings.filter((f) => f.status === 'open');
			assert.deepEqual([...new Set(open.map((f) => f.kind))].sort(), [
				'budget_over',
				'campaign_risk',
				'stale_data',
			]);
			// at most the 2 diagnostics a run of its campaigns (diagnostics_per_run's default)
			assert.ok(open.filter((f) => f.kind === 'campaign_risk').length <= 2);
			await screenshotUrl({
				url: `${mail.inboxUrl}messages/${alertOf(first.emails, risky)[0].id}/html`,
				browser,
				viewport: { width: 600, height: 700 },
				fullPage: true,
				screenshotPath: path.join(docsImages, 'client-watch-alert.png'),
			});

			// the second run: the same findings, nothing new, nothing sent
			const second = await watchRun();
			assert.equal(second.emails.length, 0, JSON.stringify(second.emails.map((m) => m.subject)));
			assert.deepEqual(second.alerts, []);

			// the budget raised: the finding clears, quietly
			await updateDataTableRows(server, tables, 'clients', ['account_id', oak.platformAccountId], {
				monthly_budget: onPace(oak),
			});
			const third = await watchRun();
			assert.equal(third.emails.length, 0);
			assert.deepEqual(
				third
					.output('Findings')
					.filter((f) => f.action === 'cleared')
					.map((f) => f.kind),
				['budget_over'],
			);

			// and lowered again: it comes back, and is alerted once more
			await updateDataTableRows(server, tables, 'clients', ['account_id', oak.platformAccountId], {
				monthly_budget: overBudget,
			});
			const fourth = await watchRun();
			assert.deepEqual(
				fourth.emails.map((m) => m.subject),
				[`Client watch: 1 new finding(s) for ${oak.name}`],
			);
			assert.match(fourth.emails[0].text, /Over-pacing/);
		});
	});
}
