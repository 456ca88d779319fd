// End-to-end: the newcomer's path of `npm start`, driven in the real editor (Debian's Chromium):
// the node creator finds every node under "Ad Performance"; the weekly e-mail examples run from
// the editor's Execute workflow button and deliver their e-mails with the PDFs to the mail
// catcher: the simple one, and (n8n 2.x) the client-directory one, set up as `npm start` sets it
// up (data table `clients` filled from the sandbox's accounts, `weekly_report_figures` with demo
// weeks), each client's e-mail at its own address, an HTML body with the figures, each figure's
// change from the last demo week and the chart on the first run, skipped clients named in the
// run summary; with the demo weeks deleted, run again a week later with the sandbox's figures
// changed, each figure with its change from last week, and the team digest (e-mail, and the text
// its Slack node is given) naming the skipped, failed and high-risk clients and the accounts to
// reconnect; the exactly-once example run twice e-mails each client once and sends one digest
// per run; the agent examples (chat, MCP server) import and publish. Screenshots go to
// .e2e-out/ (E2E_OUT); those the README shows (the directory example on the canvas, the Generate
// node's panel, the demo inbox) go to docsImages (demo.mjs; E2E_DOCS_IMAGES=docs/images refreshes docs/images/).
//
// Env: E2E_EDITOR_LINES (default latest; the editor path is checked on the line `npm start`
//      uses) · E2E_BROWSER=0 skips it.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import {
	executeWorkflowInEditor,
	login,
	openNodeInWorkflow,
	screenshotUrl,
	searchNodeCreator,
} from '../../scripts/e2e/browser.mjs';
import {
	CLIENT_DIRECTORY_TABLE,
	DEMO_FIGURE_WEEKS,
	DEMO_REPORT_ID_PREFIX,
	deleteDemoFigures,
	demoClientRows,
	ensureDataTables,
	EXAMPLE_DATA_TABLES,
	dataTableRows,
	fillDemoClientDirectory,
	fillDemoFigures,
	insertDataTableRows,
	updateDataTableRows,
} from '../../scripts/e2e/data-tables.mjs';
import {
	browserSkip as skip,
	docsImages,
	editorLines as lines,
	lastRun,
	outDir,
	outputOf,
	readExample,
	useDemo,
} from './demo.mjs';

const MCP_TOKEN = 'e2e-mcp-token-0123456789abcdef';
const DIRECTORY = readExample('weekly-client-report-email-directory.json');
const EXACTLY_ONCE = readExample('weekly-client-report-email-exactly-once.json');
/** The directory example reading its own table, for the run with skipped clients. */
const DIRECTORY_SKIPS = {
	...DIRECTORY,
	id: 'adperfDirectorySkips',
	name: `${DIRECTORY.name}: skips`,
	nodes: DIRECTORY.nodes.map((n) =>
		n.name === 'Client directory'
			? {
					...n,
					parameters: {
						...n.parameters,
						dataTableId: { __rl: true, mode: 'name', value: 'clients_skips' },
					},
				}
			: n,
	),
};
/**
 * The directory example as it ran `weeks` weeks ago: Generate asks for the week before (the
 * Monday schedule's run of that week); every other node is the example's. Its figures are the
 * earlier weeks of the example's next runs (last week's: the "last week" of each change).
 */
const directoryWeeksAgo = (weeks, id, label) => ({
	...DIRECTORY,
	id,
	name: `${DIRECTORY.name}: ${label}`,
	nodes: DIRECTORY.nodes.map((n) =>
		n.name === "Generate last week's report"
			? {
					...n,
					parameters: {
						...n.parameters,
						dateStart: n.parameters.dateStart.replace('days: 7', `days: ${7 * (weeks + 1)}`),
						dateEnd: n.parameters.dateEnd.replace('days: 1', `days: ${7 * weeks + 1}`),
					},
				}
			: n,
	),
});
const DIRECTORY_LAST_WEEK = directoryWeeksAgo(1, 'adperfDirectoryLastWeek', 'last week');
const DIRECTORY_TWO_WEEKS_AGO = directoryWeeksAgo(2, 'adperfDirectoryTwoWeeksAgo', 'two weeks ago');
assert.notEqual(
	JSON.stringify(DIRECTORY_LAST_WEEK.nodes),
	JSON.stringify(DIRECTORY.nodes),
	'the last-week variant moves the date range',
);
/** Where the examples' team digest goes (E-mail the team → To Email). */
const TEAM_ADDRESS = DIRECTORY.nodes.find((n) => n.name === 'E-mail the team').parameters.toEmail;
const AGENT_EXAMPLES = ['chat-with-your-ad-accounts.json', 'ad-performance-mcp-server.json'].map(
	readExample,
);

/** The single item of the directory example's "Run summary" in the workflow's latest execution. */
async function lastRunSummary(server, workflowId) {
	const items = outputOf(await lastRun(server, workflowId), 'Run summary');
	assert.equal(items.length, 1, 'Run summary outputs one item');
	return items[0];
}

/** A client's e-mails (not the team's digest). */
const clientMessages = (mail) => mail.messages.filter((m) => m.toHeader !== TEAM_ADDRESS);

/**
 * How an e-mail writes money, counts and ratios: the account's currency in the client's locale
 * (Intl.NumberFormat, as the user's n8n does: "$3,934.59", "1.540,00 AU$"; the simple example's
 * locale is en-US). What the team reads (the digest) can mix clients' currencies: en-US, the
 * currency by its code ("AUD 1,540.00"), teamFormat.
 */
const formatIn = (locale, currency, { byCode = false } = {}) => ({
	money: (n) =>
		new Intl.NumberFormat(locale, {
			style: 'currency',
			currency,
			currencyDisplay: byCode ? 'code' : 'symbol',
		}).format(n),
	count: (n) => new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(n),
	ratio: (n) =>
		new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(n),
});

/** The team's figures (digest): en-US, money with the currency's code. */
const teamFormat = (currency) => formatIn('en-US', currency, { byCode: true });

/**
 * What a client's e-mail must say of a figure's change, worked out from the two reports' figures
 * as the service gave them: ▲/▼ and the difference (written by `show`), or "same as last week".
 */
function expectedChange(now, before, show) {
	if (now > before) return `▲ ${show(now - before)} from last week`;
	if (now < before) return `▼ ${show(before - now)} from last week`;
	return 'same as last week';
}

/** The bars of an e-mail's trend chart: one per week for spend, one per week for ROAS. */
const trendBars = (html) => ({
	spend: html.match(/class="trend-spend"/g)?.length ?? 0,
	roas: html.match(/class="trend-roas"/g)?.length ?? 0,
});

/** Every e-mail HTML body checked (size in bytes), for the run's figures. */
const checkedHtml = [];
/**
 * What every example e-mail's HTML must be for Gmail, Outlook (Word engine) and Apple Mail: no
 * SVG, no script, no `data:` image (most clients block them), and under 100 KB (Gmail clips a
 * message at 102 KB).
 */
function assertMailClientSafe(message) {
	if (!message.html) return;
	const label = `${message.subject} to ${message.toHeader}`;
	assert.doesNotMatch(message.html, /<svg/i, `${label}: SVG`);
	assert.doesNotMatch(message.html, /<script/i, `${label}: script`);
	assert.doesNotMatch(message.html, /\bsrc\s*=\s*["']?\s*data:/i, `${label}: data: image`);
	assert.doesNotMatch(message.html, /url\(\s*["']?\s*data:/i, `${label}: data: image in a style`);
	const bytes = Buffer.byteLength(message.html);
	assert.ok(bytes <= 100 * 1024, `${label}: ${bytes} bytes of HTML`);
	checkedHtml.push({ subject: message.subject, to: message.toHeader, bytes });
}
const RISK_ORDER = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'];
function expectedRiskChange(now, before) {
	const d = RISK_ORDER.indexOf(now) - RISK_ORDER.indexOf(before);
	return d > 0
		? `▲ from ${before} last week`
		: d < 0
			? `▼ from ${before} last week`
			: 'same as last week';
}

/**
 * Asserts that an e-mail carries a report's figures in its HTML body and its text alternative,
 * written as `format` (formatIn(locale, currency)) writes them.
 */
function assertFigures(message, report, label, format) {
	const s = report.summary;
	const figures = [
		report.dateRange.from,
		report.dateRange.to,
		format.money(s.totalSpend),
		format.count(s.totalConversions),
		format.ratio(s.avgRoas),
		s.overallRiskLevel,
	];
	assert.ok(message.html, `${label}: no HTML body`);
	assert.match(message.html, /<table/, `${label}: the HTML body has no table`);
	for (const figure of figures) {
		assert.ok(message.html.includes(figure), `${label}: ${figure} not in the HTML body`);
		assert.ok(message.text?.includes(figure), `${label}: ${figure} not in the plain text`);
	}
	assert.doesNotMatch(message.html, /sent automatically with n8n/i, `${label}: n8n attribution`);
}
for (const line of lines) {
	describe(`the npm start path in the editor of n8n ${line}`, { skip }, () => {
		const demo = useDemo(line, {
			// What `npm start` imports: the sandbox credential, the catcher as the examples' SMTP
			// credential (both by useDemo), and the example itself, unchanged; and the agent
			// examples' credentials: a model that is never called, the MCP token.
			credentials: [
				{
					id: 'openai-agency',
					name: 'OpenAI account',
					type: 'openAiApi',
					data: { apiKey: 'sk-e2e-never-called' },
				},
				{
					id: 'mcp-bearer',
					name: 'Ad Performance MCP token',
					type: 'httpBearerAuth',
					data: { token: MCP_TOKEN },
				},
			],
			prepare: async ({ n8n }) => {
				// one `n8n import:workflow` for all (each n8n CLI call boots n8n, 4-6 s)
				await n8n.importWorkflows([
					readExample('weekly-client-report-email.json'),
					...(n8n.version.startsWith('2.')
						? [
								DIRECTORY,
								DIRECTORY_SKIPS,
								DIRECTORY_LAST_WEEK,
								DIRECTORY_TWO_WEEKS_AGO,
								EXACTLY_ONCE,
								...AGENT_EXAMPLES,
							]
						: []),
				]);
			},
			ready: async ({ fake, n8n, server }) => {
				if (!n8n.version.startsWith('2.')) return;
				// what `npm start` does: the examples' data tables, the directory filled from the sandbox
				tables = await ensureDataTables(server, {
					...EXAMPLE_DATA_TABLES,
					clients_skips: CLIENT_DIRECTORY_TABLE.clients,
				});
				// the review before it goes off: these runs check the e-mails sent at once (the review
				// has test/e2e/review.test.mjs)
				await fillDemoClientDirectory(server, tables, (await fake.state()).data.accounts, {
					review: false,
				});
				// and the demo weeks of the figures, so that the first run has a chart
				const seeded = await fillDemoFigures(server, tables, (await fake.state()).data);
				assert.equal(seeded.weeks, DEMO_FIGURE_WEEKS);
				assert.ok(seeded.accounts >= 2, `demo weeks for ${seeded.accounts} accounts`);
			},
		});
		let fake;
		let mail;
		let n8n;
		let server;
		let browser;
		let tables;
		before(() => ({ fake, mail, n8n, server, browser } = demo));
		const needs2x = () => !n8n.version.startsWith('2.') && `n8n ${n8n.version} is not 2.x`;
		// every e-mail a test caught, before the next test clears the catcher
		afterEach(() => {
			for (const message of mail?.messages ?? []) assertMailClientSafe(message);
		});
		after(async () => {
			if (checkedHtml.length)
				fs.writeFileSync(
					path.join(outDir, `email-html-${line}.json`),
					JSON.stringify(
						{
							messages: checkedHtml.length,
							largestBytes: Math.max(...checkedHtml.map((m) => m.bytes)),
							checked: checkedHtml,
						},
						null,
						2,
					),
				);
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

		test('the weekly example runs from the editor: one e-mail with its PDF and figures per active account', async () => {
			const weekly = readExample('weekly-client-report-email.json');
			mail.clear();
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
				// the account's currency, written en-US (the example's LOCALE)
				const account = active.find((a) => title === `Weekly performance – ${a.name}`);
				assert.ok(account, `no active account for ${title}`);
				assertFigures(message, report, title, formatIn('en-US', account.currency));
			}
			const inbox = await (await fetch(mail.inboxUrl)).text();
			assert.match(inbox, new RegExp(`Demo inbox: ${active.length} message`));
		});

		test("the npm start walk-through: the client-directory example e-mails each client at its own address, with the figures, their change from the demo's last week and the chart, and sums up the run", async (t) => {
			if (needs2x()) return t.skip(needs2x());
			mail.clear();
			const accounts = (await fake.state()).data.accounts;
			const directory = demoClientRows(accounts);
			// what npm start put in the figures table: the demo weeks, nothing else yet
			const demoWeeks = await dataTableRows(server, tables, 'weekly_report_figures');
			assert.ok(demoWeeks.length > 0);
			for (const row of demoWeeks) assert.ok(row.report_id.startsWith(DEMO_REPORT_ID_PREFIX));
			await executeWorkflowInEditor({
				...server,
				browser,
				workflowId: DIRECTORY.id,
				screenshotPath: path.join(docsImages, 'weekly-directory-run.png'),
			});
			const summary = await lastRunSummary(server, DIRECTORY.id);
			const active = accounts.filter((a) => a.connectionStatus === 'active');
			await mail.waitForMessage(() => mail.messages.length >= active.length + 1, 30_000);
			assert.equal(clientMessages(mail).length, active.length, 'one e-mail per active account');
			// and one to the team: the digest
			const digests = mail.messages.filter((m) => m.toHeader === TEAM_ADDRESS);
			assert.equal(digests.length, 1, 'one team digest');
			for (const account of accounts.filter((a) => a.connectionStatus !== 'active'))
				assert.match(
					digests[0].text,
					new RegExp(
						`${account.name} \\(${account.platformAccountId}\\): (token expired|disconnected)`,
					),
					`the digest does not ask to reconnect ${account.name}`,
				);
			const reports = (await fake.state()).data.reports;
			for (const account of active) {
				const row = directory.find((r) => r.account_id === account.platformAccountId);
				const message = mail.messages.find((m) => m.toHeader === row.to_email);
				assert.ok(message, `no e-mail to ${row.to_email} (${account.name})`);
				assert.deepEqual(message.to, [row.to_email], `${account.name}: only its own address`);
				const sent = summary.sent.find((s) => s.account_id === account.platformAccountId);
				assert.ok(sent, `${account.name} is not among the sent: ${JSON.stringify(summary)}`);
				assert.equal(sent.to, row.to_email);
				const report = reports.find((r) => r.id === sent.report_id);
				assert.equal(message.subject, `Your weekly ad performance report: ${report.title}`);
				assert.match(message.html, new RegExp(`Hello ${account.name},`));
				// money in the account's currency, written in the client's locale (demo: by time zone)
				const format = formatIn(row.locale, account.currency);
				assertFigures(message, report, account.name, format);
				// the first run already compares with last week, the newest demo week, and charts the
				// demo weeks and this one (seeded from n8n's today: no midnight in n8n's time zone
				// between the seeding and this run)
				const demo = demoWeeks
					.filter((r) => r.account_id === account.platformAccountId)
					.sort((a, b) => a.date_from.localeCompare(b.date_from));
				assert.equal(demo.length, DEMO_FIGURE_WEEKS, `${account.name}: demo weeks`);
				const before = demo.at(-1);
				const dayAfter = new Date(Date.parse(`${before.date_to}T00:00:00Z`) + 86_400_000);
				assert.equal(report.dateRange.from, dayAfter.toISOString().slice(0, 10));
				const s = report.summary;
				const lines = [
					`Spend: ${format.money(s.totalSpend)} ${expectedChange(s.totalSpend, before.spend, format.money)}`,
					`Conversions: ${format.count(s.totalConversions)} ${expectedChange(s.totalConversions, before.conversions, format.count)}`,
					`ROAS: ${format.ratio(s.avgRoas)}× ${expectedChange(s.avgRoas, before.roas, format.ratio)}`,
					`Overall risk: ${s.overallRiskLevel} ${expectedRiskChange(s.overallRiskLevel, before.risk)}`,
					`Each figure is compared with last week (${before.date_from} – ${before.date_to}).`,
				];
				for (const line of lines)
					assert.ok(
						message.text.includes(line),
						`${account.name}: "${line}" not in ${message.text}`,
					);
				assert.doesNotMatch(message.text, /first report/);
				assert.doesNotMatch(message.html, /first report/);
				const bars = Math.min(8, demo.length + 1);
				assert.deepEqual(trendBars(message.html), { spend: bars, roas: bars }, account.name);
				const weeks = [...demo.map((r) => [r.spend, r.roas]), [s.totalSpend, s.avgRoas]];
				assert.match(message.text, new RegExp(`The last ${bars} weeks \\(from `));
				const trendText = `Spend: ${weeks.map(([spend]) => format.money(spend)).join(' · ')}\nROAS: ${weeks.map(([, roas]) => `${format.ratio(roas)}×`).join(' · ')}`;
				assert.ok(
					message.text.includes(trendText),
					`${account.name}: "${trendText}" not in ${message.text}`,
				);
				// the digest's portfolio: one line per client, its ROAS week by week and its risk, in
				// the team's figures
				const team = teamFormat(account.currency);
				const arrow = s.avgRoas > before.roas ? '▲' : s.avgRoas < before.roas ? '▼' : '=';
				const portfolioLine = `${account.name}: ROAS ${weeks.map(([, roas]) => `${team.ratio(roas)}×`).join(' → ')} ${arrow} · spend ${team.money(s.totalSpend)} · risk ${s.overallRiskLevel}`;
				assert.ok(
					digests[0].text.includes(portfolioLine),
					`"${portfolioLine}" not in ${digests[0].text}`,
				);
				const expected = await fake.download(report.id);
				assert.equal(message.attachments.length, 1);
				assert.ok(message.attachments[0].content.equals(expected.bytes), `${account.name}: PDF`);
			}
			assert.equal(new Set(clientMessages(mail).map((m) => m.toHeader)).size, active.length);
			// the directory's other accounts are not connected: named, with the reason
			assert.deepEqual(
				summary.skipped.map((s) => `${s.client_name}: ${s.reason}`).sort(),
				accounts
					.filter((a) => a.connectionStatus !== 'active')
					.map((a) => `${a.name}: account not connected`)
					.sort(),
			);
			const inbox = await screenshotUrl({
				url: mail.inboxUrl,
				browser,
				screenshotPath: path.join(docsImages, 'demo-inbox.png'),
			});
			assert.match(inbox, new RegExp(`Demo inbox: ${active.length + 1} message`));
			for (const account of active)
				assert.ok(
					inbox.includes(
						directory.find((r) => r.account_id === account.platformAccountId).to_email,
					),
					`the inbox does not show ${account.name}'s address`,
				);
			const panel = await openNodeInWorkflow({
				...server,
				browser,
				workflowId: DIRECTORY.id,
				nodeName: "Generate last week's report",
				screenshotPath: path.join(docsImages, 'generate-node-panel.png'),
			});
			// the panel of our node (select values are inputs, not text): its own fields
			for (const label of [
				"Generate last week's report",
				'Ad Account',
				'Title',
				'Start Date',
				'End Date',
				'Additional Fields',
			])
				assert.ok(
					panel.includes(label),
					`the panel does not show "${label}": ${panel.slice(0, 500)}`,
				);
		});

		test('the client-directory example skips clients switched off, without an address or not in the directory, and names them in its summary', async (t) => {
			if (needs2x()) return t.skip(needs2x());
			const [noAddress, missing, newClient] = [
				await fake.addAccount({ name: 'Nordic Bikes' }),
				await fake.addAccount({ name: 'Olive Kitchen' }),
				await fake.addAccount({ name: 'Pine Legal' }),
			];
			// the demo weeks deleted, as the user would once their own runs have weeks to show: what
			// follows is the figures table of real runs only (the walk-through's this week)
			const figures = await dataTableRows(server, tables, 'weekly_report_figures');
			const demoRows = figures.filter((r) => r.report_id.startsWith(DEMO_REPORT_ID_PREFIX));
			assert.ok(demoRows.length > 0);
			assert.equal(await deleteDemoFigures(server, tables), demoRows.length);
			assert.deepEqual(
				(await dataTableRows(server, tables, 'weekly_report_figures')).map((r) => r.account_week),
				figures.filter((r) => !demoRows.includes(r)).map((r) => r.account_week),
			);
			const accounts = (await fake.state()).data.accounts;
			const byName = (name) => accounts.find((a) => a.name === name);
			const acme = byName('Acme Outdoor');
			const delta = byName('Delta Fitness');
			const rows = demoClientRows(
				accounts.filter((a) => a.id !== missing.id),
				{ review: false },
			).map((row) => {
				if (row.account_id === acme.platformAccountId)
					return { ...row, cc_email: 'account-manager@your-agency.example' };
				if (row.account_id === delta.platformAccountId) return { ...row, send: false };
				if (row.account_id === noAddress.platformAccountId) return { ...row, to_email: '' };
				return row;
			});
			await insertDataTableRows(server, tables, 'clients_skips', rows);
			mail.clear();
			await executeWorkflowInEditor({
				...server,
				browser,
				workflowId: DIRECTORY_SKIPS.id,
				screenshotPath: path.join(outDir, `weekly-directory-skips-${line}.png`),
			});
			const summary = await lastRunSummary(server, DIRECTORY_SKIPS.id);
			const expectedSent = [acme, newClient];
			await mail.waitForMessage(() => mail.messages.length >= expectedSent.length + 1, 30_000);
			assert.equal(clientMessages(mail).length, expectedSent.length, JSON.stringify(summary));
			for (const account of expectedSent) {
				const row = rows.find((r) => r.account_id === account.platformAccountId);
				const message = mail.messages.find((m) => m.toHeader === row.to_email);
				assert.ok(message, `no e-mail to ${row.to_email}`);
				assert.equal(message.cc, row.cc_email || undefined);
				assert.deepEqual(message.to.sort(), [row.to_email, row.cc_email].filter(Boolean).sort());
			}
			// run again this week: Acme's figures against its report of the walk-through's run, and
			// said so; the new client has nothing to compare with
			const again = (account) =>
				mail.messages.find(
					(m) =>
						m.toHeader === rows.find((r) => r.account_id === account.platformAccountId).to_email,
				).text;
			assert.match(again(acme), /Each figure is compared with this week's earlier report\./);
			assert.match(
				again(acme),
				/ROAS: \d+\.\d\d× (▲ \d+\.\d\d from|▼ \d+\.\d\d from|same as) this week's earlier report/,
			);
			// the same week again is no earlier week: still no chart
			const html = (account) =>
				mail.messages.find(
					(m) =>
						m.toHeader === rows.find((r) => r.account_id === account.platformAccountId).to_email,
				).html;
			assert.deepEqual(trendBars(html(acme)), { spend: 0, roas: 0 });
			assert.equal(again(newClient).match(/\(first report\)/g)?.length, 4);
			assert.deepEqual(
				summary.sent.map((s) => s.client_name).sort(),
				expectedSent.map((a) => a.name).sort(),
			);
			const skipped = Object.fromEntries(summary.skipped.map((s) => [s.client_name, s.reason]));
			assert.deepEqual(skipped, {
				'Delta Fitness': 'switched off',
				'Nordic Bikes': 'no e-mail address',
				'Olive Kitchen': 'not in the directory',
				...Object.fromEntries(
					accounts
						.filter((a) => a.connectionStatus !== 'active')
						.map((a) => [a.name, 'account not connected']),
				),
			});
		});

		test('a week later, with the figures changed: each client e-mail shows every change from last week, and the team digest (e-mail and Slack text) names the skipped, failed and high-risk clients and the accounts to reconnect', async (t) => {
			if (needs2x()) return t.skip(needs2x());
			const started = Date.now();
			// one more client in the directory, whose report will fail this week
			const quarry = await fake.addAccount({ name: 'Quarry Tools' });
			await insertDataTableRows(
				server,
				tables,
				'clients',
				demoClientRows([quarry], { review: false }),
			);
			const accounts = (await fake.state()).data.accounts;
			const byName = (name) => accounts.find((a) => a.name === name);
			const acme = byName('Acme Outdoor');
			const delta = byName('Delta Fitness');
			// Delta's e-mails in German, as the directory's locale column says
			await updateDataTableRows(
				server,
				tables,
				'clients',
				['account_id', delta.platformAccountId],
				{
					locale: 'de-DE',
				},
			);
			const directory = (await dataTableRows(server, tables, 'clients')).filter(
				(r) => r.account_id,
			);
			const inDirectory = (a) => directory.some((r) => r.account_id === a.platformAccountId);
			const active = accounts.filter((a) => a.connectionStatus === 'active');

			// two weeks ago: the first week of each client's chart
			const twoWeeksAgoFigures = {
				[acme.id]: { totalSpend: 500, totalConversions: 20, avgRoas: 2.5 },
				[delta.id]: { totalSpend: 1200, totalConversions: 30, avgRoas: 3 },
				[quarry.id]: { totalSpend: 200, totalConversions: 8, avgRoas: 1.5 },
			};
			for (const [id, summary] of Object.entries(twoWeeksAgoFigures))
				await fake.setNextReports(id, { summary });
			await executeWorkflowInEditor({
				...server,
				browser,
				workflowId: DIRECTORY_TWO_WEEKS_AGO.id,
				screenshotPath: path.join(outDir, `weekly-directory-two-weeks-ago-${line}.png`),
			});
			await lastRun(server, DIRECTORY_TWO_WEEKS_AGO.id);
			await mail.waitForMessage(
				() => mail.messages.some((m) => m.toHeader === TEAM_ADDRESS),
				30_000,
			);
			for (const message of mail.messages) assertMailClientSafe(message);

			const lastWeekFigures = {
				[acme.id]: { totalSpend: 1000, totalConversions: 40, avgRoas: 3.5 },
				[delta.id]: { totalSpend: 1600, totalConversions: 25, avgRoas: 2.4 },
				[quarry.id]: { totalSpend: 300, totalConversions: 10, avgRoas: 2 },
			};
			for (const [id, summary] of Object.entries(lastWeekFigures))
				await fake.setNextReports(id, { summary });

			// last week's run (the Monday before): every client in the directory gets its report
			const reportsBefore = new Set((await fake.state()).data.reports.map((r) => r.id));
			mail.clear();
			await executeWorkflowInEditor({
				...server,
				browser,
				workflowId: DIRECTORY_LAST_WEEK.id,
				screenshotPath: path.join(outDir, `weekly-directory-last-week-${line}.png`),
			});
			const first = await lastRun(server, DIRECTORY_LAST_WEEK.id);
			const lastWeek = new Map(
				outputOf(first, 'Compare with last week').map((r) => [r.accountId, r]),
			);
			const sentLastWeek = active.filter(inDirectory);
			assert.deepEqual(
				[...lastWeek.keys()].sort(),
				sentLastWeek.map((a) => a.platformAccountId).sort(),
				'last week: a report for each connected client in the directory',
			);
			for (const r of lastWeek.values()) assert.ok(!reportsBefore.has(r.id));
			await mail.waitForMessage(() => mail.messages.length >= sentLastWeek.length + 1, 30_000);
			for (const message of mail.messages) assertMailClientSafe(message);
			// last week's e-mails: two weeks in their chart
			for (const message of clientMessages(mail))
				assert.deepEqual(trendBars(message.html), { spend: 2, roas: 2 }, message.toHeader);

			// this week: Acme does better, Delta falls to a critical ROAS, Quarry's report fails.
			// (A report still generating at the Wait's Timeout takes the same path, the Wait's error
			// item, but the example's Timeout is 300 real seconds.)
			await fake.setNextReports(acme.id, {
				summary: { totalSpend: 1250.5, totalConversions: 35, avgRoas: 3.91 },
			});
			await fake.setNextReports(delta.id, {
				summary: { totalSpend: 1540, totalConversions: 25, avgRoas: 0.8 },
			});
			await fake.setNextReports(quarry.id, {
				error: {
					type: 'generation_failed',
					message: 'Report generation failed: the ad platform returned no insights for the period.',
				},
			});
			mail.clear();
			await executeWorkflowInEditor({
				...server,
				browser,
				workflowId: DIRECTORY.id,
				screenshotPath: path.join(outDir, `weekly-directory-week-over-week-${line}.png`),
			});
			for (const account of [acme, delta, quarry]) await fake.setNextReports(account.id, {});
			const second = await lastRun(server, DIRECTORY.id);
			const thisWeek = new Map(
				outputOf(second, 'Compare with last week').map((r) => [r.accountId, r]),
			);
			assert.deepEqual(
				[...thisWeek.keys()].sort(),
				[acme, delta].map((a) => a.platformAccountId).sort(),
				'this week: reports for Acme and Delta only',
			);
			const sentNow = sentLastWeek.filter((a) => a.id !== quarry.id);
			await mail.waitForMessage(() => mail.messages.length >= sentNow.length + 1, 60_000);
			assert.equal(clientMessages(mail).length, sentNow.length, 'no e-mail for the failed');

			// the client e-mails: every figure with its change, against the figures of last week's report
			const expectedSigns = {
				[acme.name]: { spend: '▲', conversions: '▼', roas: '▲', risk: 'same' },
				[delta.name]: { spend: '▼', conversions: 'same', roas: '▼', risk: '▲' },
			};
			const serviceReports = (await fake.state()).data.reports;
			for (const account of sentNow) {
				const row = directory.find((r) => r.account_id === account.platformAccountId);
				const message = mail.messages.find((m) => m.toHeader === row.to_email);
				assert.ok(message, `no e-mail to ${row.to_email}`);
				const now = serviceReports.find((r) => r.id === thisWeek.get(account.platformAccountId).id);
				const before = serviceReports.find(
					(r) => r.id === lastWeek.get(account.platformAccountId).id,
				);
				assert.ok(now.dateRange.from > before.dateRange.to, 'last week is the week before');
				const format = formatIn(row.locale, account.currency);
				assertFigures(message, now, account.name, format);
				const s = now.summary;
				const b = before.summary;
				const lines = {
					spend: `Spend: ${format.money(s.totalSpend)} ${expectedChange(s.totalSpend, b.totalSpend, format.money)}`,
					conversions: `Conversions: ${format.count(s.totalConversions)} ${expectedChange(s.totalConversions, b.totalConversions, format.count)}`,
					roas: `ROAS: ${format.ratio(s.avgRoas)}× ${expectedChange(s.avgRoas, b.avgRoas, format.ratio)}`,
					risk: `Overall risk: ${s.overallRiskLevel} ${expectedRiskChange(s.overallRiskLevel, b.overallRiskLevel)}`,
				};
				for (const [figure, line] of Object.entries(lines)) {
					assert.ok(
						message.text.includes(line),
						`${account.name}: "${line}" not in ${message.text}`,
					);
					const change = line.slice(line.search(/▲|▼|same as/));
					assert.ok(message.html.includes(change), `${account.name}: "${change}" not in the HTML`);
					const sign = expectedSigns[account.name]?.[figure];
					if (sign)
						assert.ok(
							change.startsWith(sign),
							`${account.name}: ${figure} should be ${sign} as the sandbox was set: ${line}`,
						);
				}
				assert.ok(
					message.text.includes(
						`Each figure is compared with last week (${before.dateRange.from} – ${before.dateRange.to}).`,
					),
				);
				assert.doesNotMatch(message.text, /first report/);
				// the chart: two weeks ago, last week and this week, a bar each for spend and ROAS
				assert.deepEqual(trendBars(message.html), { spend: 3, roas: 3 }, account.name);
				const weeks = [twoWeeksAgoFigures[account.id], b, s];
				const trendText = `Spend: ${weeks.map((w) => format.money(w.totalSpend)).join(' · ')}\nROAS: ${weeks.map((w) => `${format.ratio(w.avgRoas)}×`).join(' · ')}`;
				assert.ok(
					message.text.includes(trendText),
					`${account.name}: "${trendText}" not in ${message.text}`,
				);
				for (const w of weeks) assert.ok(message.html.includes(format.money(w.totalSpend)));
			}
			// money as money, in the client's locale: Acme in en-US, Delta in de-DE
			const textTo = (account) =>
				mail.messages.find(
					(m) =>
						m.toHeader ===
						directory.find((r) => r.account_id === account.platformAccountId).to_email,
				);
			assert.ok(textTo(acme).text.includes('Spend: $1,250.50 ▲ $250.50 from last week'));
			assert.ok(
				textTo(delta).text.includes('Spend: 1.540,00\u00a0AU$ ▼ 60,00\u00a0AU$ from last week'),
			);
			assert.ok(textTo(delta).text.includes('ROAS: 0,80× ▼ 1,60 from last week'));
			assert.ok(
				textTo(delta).text.includes(
					'Spend: 1.200,00\u00a0AU$ · 1.600,00\u00a0AU$ · 1.540,00\u00a0AU$',
				),
				textTo(delta).text,
			);
			// what a client sees, at 600 px wide: the chart and the money (README picture: Acme)
			for (const [account, file] of [
				[acme, path.join(docsImages, 'client-email-trend.png')],
				[delta, path.join(outDir, `client-email-trend-de-DE-${line}.png`)],
			]) {
				const shown = await screenshotUrl({
					url: `${mail.inboxUrl}messages/${textTo(account).id}/html`,
					browser,
					viewport: { width: 600, height: 900 },
					fullPage: true,
					screenshotPath: file,
				});
				assert.match(shown, /The last 3 weeks/);
				const format = formatIn(
					directory.find((r) => r.account_id === account.platformAccountId).locale,
					account.currency,
				);
				assert.ok(
					shown.includes(format.money(thisWeek.get(account.platformAccountId).summary.totalSpend)),
					`${account.name}: the rendered e-mail does not show its spend: ${shown}`,
				);
			}

			// the figures table: one row per account and week, this week's upserted (the walk-through
			// and this run both ran this week), holding this week's figures
			const figureRows = await dataTableRows(server, tables, 'weekly_report_figures');
			for (const account of sentNow) {
				const now = thisWeek.get(account.platformAccountId);
				const key = `${account.platformAccountId}:${now.dateRange.from}..${now.dateRange.to}`;
				const rows = figureRows.filter((r) => r.account_week === key);
				assert.equal(rows.length, 1, `${key}: ${rows.length} rows`);
				assert.equal(rows[0].spend, now.summary.totalSpend);
				assert.equal(rows[0].roas, now.summary.avgRoas);
				assert.equal(rows[0].report_id, now.id);
			}

			// the team digest: one e-mail, the composed item, and the Slack node's input
			const digestMails = mail.messages.filter((m) => m.toHeader === TEAM_ADDRESS);
			assert.equal(digestMails.length, 1, 'one digest per run');
			const [digest] = digestMails;
			const composed = outputOf(second, 'Compose the team digest');
			assert.equal(composed.length, 1, 'one composed message');
			const [message] = composed;
			assert.equal(digest.subject, message.subject);
			assert.equal(digest.text.trim(), message.text.trim());
			assert.equal(message.all_well, false);
			assert.deepEqual(message.sent.sort(), sentNow.map((a) => a.name).sort());
			// the failed report, with the reason the service gave and what to do
			const failed = Object.fromEntries(message.failed.map((f) => [f.client_name, f.reason]));
			assert.deepEqual(Object.keys(failed), [quarry.name]);
			assert.match(failed[quarry.name], /no insights for the period/);
			assert.ok(
				digest.text.includes(
					`${quarry.name} (${quarry.platformAccountId}): ${failed[quarry.name]}`,
				),
				`the failure is not in the digest: ${digest.text}`,
			);
			// high or critical risk this week: Delta, with spend, ROAS and their change
			const deltaNow = thisWeek.get(delta.platformAccountId);
			assert.deepEqual(
				message.at_risk.map((r) => r.client_name),
				[acme, delta]
					.filter((a) =>
						['HIGH', 'CRITICAL'].includes(
							thisWeek.get(a.platformAccountId).summary.overallRiskLevel,
						),
					)
					.map((a) => a.name),
			);
			assert.ok(message.at_risk.some((r) => r.client_name === delta.name));
			// in the team's figures (en-US, the currency's code), whatever the client's locale (de-DE)
			const deltaTeam = teamFormat(delta.currency);
			const dn = deltaNow.summary;
			const db = lastWeek.get(delta.platformAccountId).summary;
			const deltaLine = `${delta.name}: ${dn.overallRiskLevel} ${expectedRiskChange(dn.overallRiskLevel, db.overallRiskLevel)} · spend ${deltaTeam.money(dn.totalSpend)} ${expectedChange(dn.totalSpend, db.totalSpend, deltaTeam.money)} · ROAS ${deltaTeam.ratio(dn.avgRoas)}× ${expectedChange(dn.avgRoas, db.avgRoas, deltaTeam.ratio)}`;
			assert.ok(
				digest.text.includes(deltaLine),
				`"${deltaLine}" not in the digest: ${digest.text}`,
			);
			assert.match(
				deltaLine,
				/▲ from MEDIUM last week · spend AUD\u00a01,540\.00 ▼ AUD\u00a060\.00 from last week · ROAS 0\.80× ▼ 1\.60 from last week/,
			);
			// accounts to reconnect, with where to do it
			const disconnected = accounts.filter((a) => a.connectionStatus !== 'active');
			assert.deepEqual(
				message.to_reconnect.map((a) => `${a.client_name}: ${a.status}`).sort(),
				disconnected.map((a) => `${a.name}: ${a.connectionStatus}`).sort(),
			);
			assert.match(
				digest.text,
				/Accounts to reconnect \(\d+\), in the service's dashboard, by someone with Admin or Advertiser access/,
			);
			// skipped, by reason: not in the directory, account not connected
			const expectedSkipped = [
				...active.filter((a) => !inDirectory(a)).map((a) => `${a.name}: not in the directory`),
				...disconnected.filter(inDirectory).map((a) => `${a.name}: account not connected`),
			];
			assert.deepEqual(
				message.skipped.map((s) => `${s.client_name}: ${s.reason}`).sort(),
				expectedSkipped.sort(),
			);
			for (const reason of new Set(message.skipped.map((s) => s.reason))) {
				const names = message.skipped.filter((s) => s.reason === reason).map((s) => s.client_name);
				assert.ok(
					digest.text.includes(`- ${reason}: ${names.join(', ')}`),
					`skipped for ${reason} not listed: ${digest.text}`,
				);
			}
			assert.ok(digest.html.includes(`${delta.name}: ${deltaNow.summary.overallRiskLevel}`));
			// the portfolio: one line per client reported, its ROAS week by week and its risk
			assert.deepEqual(
				message.portfolio.map((p) => p.client_name).sort(),
				sentNow.map((a) => a.name).sort(),
			);
			assert.ok(
				digest.text.includes(
					`${delta.name}: ROAS 3.00× → 2.40× → 0.80× ▼ · spend AUD\u00a01,540.00 · risk ${deltaNow.summary.overallRiskLevel}`,
				),
				digest.text,
			);
			assert.ok(
				digest.text.includes(
					`${acme.name}: ROAS 2.50× → 3.50× → 3.91× ▲ · spend USD\u00a01,250.50 · risk ${thisWeek.get(acme.platformAccountId).summary.overallRiskLevel}`,
				),
				digest.text,
			);
			assert.equal(digest.html.match(/class="spark"/g)?.length, 3 * sentNow.length);
			const digestShown = await screenshotUrl({
				url: `${mail.inboxUrl}messages/${digest.id}/html`,
				browser,
				viewport: { width: 600, height: 900 },
				fullPage: true,
				screenshotPath: path.join(docsImages, 'team-digest.png'),
			});
			assert.match(digestShown, /Portfolio: ROAS week by week/);
			assert.ok(digestShown.includes('AUD\u00a01,540.00'), digestShown);
			assert.ok(digestShown.includes('USD\u00a01,250.50'), digestShown);

			// Slack: one message per run, the composed text (with the reviews, none here) is the
			// input of "Post the digest to Slack"
			const slackNode = DIRECTORY.nodes.find((n) => n.name === 'Post the digest to Slack');
			assert.equal(slackNode.type, 'n8n-nodes-base.slack');
			assert.deepEqual(
				DIRECTORY.connections['Add the reviews to the digest'].main[0].map((c) => c.node).sort(),
				['E-mail the team', 'Post the digest to Slack'],
			);
			const slackRun = second['Post the digest to Slack']?.[0];
			assert.ok(slackRun, 'the Slack node ran (disabled: it passes its input on)');
			assert.equal(slackRun.source?.[0]?.previousNode, 'Add the reviews to the digest');
			const slackInput = outputOf(second, 'Post the digest to Slack');
			assert.equal(slackInput.length, 1, 'one Slack message per run');
			const slackText = slackInput[0].slack_text;
			assert.equal(slackNode.parameters.text, '={{ $json.slack_text }}');
			assert.match(slackText, /^\*Weekly client reports /);
			for (const name of [quarry.name, delta.name, ...disconnected.map((a) => a.name)])
				assert.ok(slackText.includes(name), `${name} not in the Slack text: ${slackText}`);
			assert.ok(slackText.includes(`• ${deltaLine}`));
			assert.ok(slackText.includes(`Sent: ${sentNow.length}`));
			const acmeMail = mail.messages.find(
				(m) =>
					m.toHeader === directory.find((r) => r.account_id === acme.platformAccountId).to_email,
			);
			t.diagnostic(`${acme.name}'s e-mail:\n${acmeMail.text}`);
			t.diagnostic(`the team digest: ${digest.subject}\n${digest.text}`);
			t.diagnostic(`Slack text:\n${slackText}`);
			t.diagnostic(`two runs and their checks took ${Math.round((Date.now() - started) / 1000)} s`);
		});

		test('the exactly-once example, run twice: its clients e-mailed once, each run one team digest, the second naming them already e-mailed this week', async (t) => {
			if (needs2x()) return t.skip(needs2x());
			const accounts = (await fake.state()).data.accounts;
			const directory = (await dataTableRows(server, tables, 'clients')).filter(
				(r) => r.account_id,
			);
			const expected = accounts.filter(
				(a) =>
					a.connectionStatus === 'active' &&
					directory.some((r) => r.account_id === a.platformAccountId && r.send && r.to_email),
			);
			assert.ok(expected.length >= 2, 'clients to e-mail');
			const run = async (label) => {
				mail.clear();
				await executeWorkflowInEditor({
					...server,
					browser,
					workflowId: EXACTLY_ONCE.id,
					screenshotPath: path.join(outDir, `weekly-exactly-once-${label}-${line}.png`),
				});
				const runData = await lastRun(server, EXACTLY_ONCE.id);
				const [digest] = outputOf(runData, 'Compose the team digest');
				await mail.waitForMessage(
					() => mail.messages.some((m) => m.toHeader === TEAM_ADDRESS),
					60_000,
				);
				return {
					runData,
					digest,
					clients: clientMessages(mail),
					team: mail.messages.filter((m) => m.toHeader === TEAM_ADDRESS),
				};
			};

			const figuresBefore = await dataTableRows(server, tables, 'weekly_report_figures');
			const first = await run('first');
			assert.deepEqual(
				first.clients.map((m) => m.toHeader).sort(),
				expected
					.map((a) => directory.find((r) => r.account_id === a.platformAccountId).to_email)
					.sort(),
				'first run: one e-mail per client',
			);
			assert.equal(first.team.length, 1, 'first run: one digest');
			assert.deepEqual(first.digest.sent.sort(), expected.map((a) => a.name).sort());
			for (const m of first.clients) assert.match(m.text, /ROAS: \d+[.,]\d\d× \S/, m.text);
			// each chart: the earlier weeks of the figures table, and this week
			for (const r of outputOf(first.runData, 'Compare with last week')) {
				const earlierWeeks = new Set(
					figuresBefore
						.filter((f) => f.account_id === r.accountId && f.date_to < r.dateRange.from)
						.map((f) => f.date_from),
				).size;
				const m = first.clients.find(
					(c) => c.toHeader === directory.find((d) => d.account_id === r.accountId).to_email,
				);
				const bars = earlierWeeks ? Math.min(8, earlierWeeks + 1) : 0;
				assert.deepEqual(trendBars(m.html), { spend: bars, roas: bars }, r.client_name);
			}
			const figures = new Set(
				(await dataTableRows(server, tables, 'weekly_report_figures')).map((r) => r.account_week),
			);
			for (const r of outputOf(first.runData, 'Compare with last week'))
				assert.ok(
					figures.has(`${r.accountId}:${r.dateRange.from}..${r.dateRange.to}`),
					`${r.client_name}: no figures row`,
				);

			const second = await run('again');
			assert.equal(second.clients.length, 0, 'a re-run e-mails no client again');
			assert.equal(second.team.length, 1, 'the re-run sends its own digest');
			assert.deepEqual(second.digest.sent, []);
			assert.deepEqual(
				second.digest.skipped
					.filter((s) => s.reason === 'already e-mailed this week')
					.map((s) => s.client_name)
					.sort(),
				expected.map((a) => a.name).sort(),
			);
			assert.ok(
				second.team[0].text.includes(
					`- already e-mailed this week: ${second.digest.skipped
						.filter((s) => s.reason === 'already e-mailed this week')
						.map((s) => s.client_name)
						.join(', ')}`,
				),
				second.team[0].text,
			);
			const emailed = await dataTableRows(server, tables, 'weekly_report_emails');
			for (const account of expected)
				assert.equal(
					emailed.filter((r) => r.account_id === account.platformAccountId).length,
					1,
					`${account.name}: one e-mail record`,
				);
		});

		test('page after page signs in: more editor pages in a minute than n8n takes form logins (5 a minute per e-mail)', async () => {
			const signIns = [];
			for (let i = 0; i < 7; i++) {
				const context = await browser.newContext();
				try {
					const page = await context.newPage();
					signIns.push(await login(page, server));
					assert.ok(
						!new URL(page.url()).pathname.includes('/signin'),
						`page ${i + 1} is still on ${page.url()}`,
					);
				} finally {
					await context.close();
				}
			}
			assert.deepEqual(
				signIns.map((s) => s.refusals),
				[0, 0, 0, 0, 0, 0, 0],
				`no login refused for too many attempts: ${JSON.stringify(signIns)}`,
			);
			assert.ok(
				signIns.filter((s) => s.via === 'form').length <= 1,
				`the pages reuse the session: ${JSON.stringify(signIns)}`,
			);
		});

		test('the agent examples (chat, MCP server) import and publish; the MCP server wants its bearer token', async (t) => {
			if (needs2x()) return t.skip(needs2x());
			// as the editor's Publish button does; refused with n8n's message otherwise
			for (const wf of AGENT_EXAMPLES) await n8n.publishWorkflow(wf.id);
			const url = new URL(`${server.baseUrl}/mcp/ad-performance`);
			const anonymous = await fetch(url, {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					accept: 'application/json, text/event-stream',
				},
				body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
			});
			assert.equal(
				anonymous.status,
				403,
				'a request without the token is refused (n8n answers 403)',
			);
			const client = new Client({ name: 'e2e', version: '1.0.0' });
			await client.connect(
				new StreamableHTTPClientTransport(url, {
					requestInit: { headers: { authorization: `Bearer ${MCP_TOKEN}` } },
				}),
			);
			try {
				const { tools } = await client.listTools();
				assert.equal(tools.length, 10, tools.map((x) => x.name).join(', '));
			} finally {
				await client.close();
			}
		});
	});
}
