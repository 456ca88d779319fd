// Generated cases over every composition of every example: names, titles, currencies, locales and
// figures drawn with markup, entities, quotes, CR/LF, RTL, emoji, lone surrogates, empty and huge
// values, run through n8n's engine and the examples' Code nodes as imported. What a client or the
// team reads holds only the templates' markup, reads each name back as given, no Slack control
// sequence and no header line break from data. FC_EXAMPLE_RUNS sets the cases a property
// (npm test: 12; test:faults: 300).
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { anyCodePoint } from '../harness/arbitraries.cjs';

import {
	exampleNode,
	headerProblems,
	htmlProblems,
	htmlText,
	isWellFormed,
	runSteps,
	sendAndWaitDecode,
	slackProblems,
	slackText,
	type Step,
} from './compose.cjs';
import { address, amount, currency, hostile, isPrintableName, locale, readable } from './drawn.cjs';

const RUNS = Number(process.env.FC_EXAMPLE_RUNS ?? 12);
jest.setTimeout(Math.max(60_000, RUNS * 2_000));

const DIRECTORY = 'weekly-client-report-email-directory.json';
const EXACTLY_ONCE = 'weekly-client-report-email-exactly-once.json';
// how "Keep for the day's digest" keeps a run's digest: its expression, as the example has it
const KEEP_DIGEST = String(
	(
		exampleNode(EXACTLY_ONCE, "Keep for the day's digest").parameters.columns as IDataObject & {
			value: IDataObject;
		}
	).value.digest,
);

// --- what is drawn ---
const day = fc.oneof(
	fc
		.date({ min: new Date('2020-01-01'), max: new Date('2030-12-31'), noInvalidDate: true })
		.map((d) => d.toISOString().slice(0, 10)),
	hostile,
);
const ACCOUNT = 'act_1001';
const risk = fc.oneof(fc.constantFrom('LOW', 'MEDIUM', 'HIGH', 'CRITICAL', undefined), hostile);
const report = fc.record({
	title: fc.oneof(hostile, readable),
	from: day,
	to: day,
	spend: amount,
	conversions: amount,
	roas: amount,
	risk,
});
const earlierRow = fc.record({
	from: day,
	to: day,
	spend: amount,
	roas: amount,
	conversions: amount,
	risk,
});
const client = fc.record({
	name: fc.oneof(readable, hostile),
	accountName: fc.oneof(readable, hostile),
	to: address,
	cc: address,
	currency,
	locale,
	review: fc.constantFrom('', 'true', 'false', true, false),
	manager: address,
	limit: fc.oneof(fc.constantFrom('', '10', '50', 'abc', '-5'), fc.integer({ min: 0, max: 500 })),
});
type Client = typeof client extends fc.Arbitrary<infer T> ? T : never;
type Report = typeof report extends fc.Arbitrary<infer T> ? T : never;
type Earlier = typeof earlierRow extends fc.Arbitrary<infer T> ? T : never;

/** A report as the service gives it, with the drawn title, dates and figures. */
const reportItem = (r: Report, id = 'rpt_1', accountId = ACCOUNT) =>
	({
		id,
		accountId,
		title: r.title,
		dateRange: { from: r.from, to: r.to },
		summary: {
			totalSpend: r.spend,
			totalConversions: r.conversions,
			avgRoas: r.roas,
			overallRiskLevel: r.risk,
		},
	}) as IDataObject;

/** The steps up to "Compare with last week" (and "Why review it" in the directory example). */
function clientSteps(
	file: string,
	c: Client,
	r: Report,
	earlier: Earlier[],
	accountId = ACCOUNT,
	reportId = 'rpt_now',
): Step[] {
	return [
		{
			name: 'Figures of earlier weeks',
			items: earlier.map((w, i) => ({
				account_week: `${accountId}:${w.from}..${w.to}`,
				account_id: accountId,
				date_from: w.from,
				date_to: w.to,
				spend: w.spend,
				conversions: w.conversions,
				roas: w.roas,
				risk: w.risk,
				currency: c.currency,
				report_id: `rpt_${i}`,
			})) as IDataObject[],
		},
		{
			name: 'Look up the client',
			items: [
				{
					account_id: accountId,
					account_name: c.accountName,
					currency: c.currency,
					client: {
						account_id: accountId,
						client_name: c.name,
						to_email: c.to,
						cc_email: c.cc,
						send: true,
						locale: c.locale,
						review: c.review,
						review_spend_change_pct: c.limit,
						account_manager_email: c.manager,
					},
				} as IDataObject,
			],
		},
		{ name: 'Who gets what', code: 'Who gets what' },
		{
			name: 'Wait for Ad Report',
			items: [reportItem(r, reportId, accountId)],
		},
		{ name: 'Compare with last week', code: 'Compare with last week' },
		...(file === DIRECTORY ? [{ name: 'Why review it', code: 'Why review it' }] : []),
	];
}

describe.each([DIRECTORY, EXACTLY_ONCE])('%s', (file) => {
	test('the client e-mail: only the template markup, each name read back, no header line break, one address each', async () => {
		await fc.assert(
			fc.asyncProperty(
				client,
				report,
				fc.array(earlierRow, { maxLength: 9 }),
				async (c, r, earlier) => {
					const out = await runSteps(file, clientSteps(file, c, r, earlier));
					const who = out['Who gets what'][0];
					const composed = out['Compare with last week'][0];
					const email = composed.email as Record<string, string>;
					expect(htmlProblems(email.html)).toEqual([]);
					expect(headerProblems(email.subject)).toEqual([]);
					expect(isWellFormed(email.text)).toBe(true);
					expect(email.text).not.toMatch(/\r/);
					// To and Cc: empty or exactly one plain address, and a skip whenever the directory's was not
					for (const [given, used] of [
						[c.to, email.to],
						[c.cc, email.cc],
					]) {
						expect(used).toMatch(/^([^\s,;<>"()@]+@[A-Za-z0-9.-]+)?$/);
						if (used) expect(used).toBe(String(given).trim());
					}
					if (!email.to) expect(who.skip_reason).not.toBe('');
					// names as given: the greeting, the title
					const greeted = isPrintableName(c.name)
						? c.name
						: String(c.name).trim() === '' && isPrintableName(c.accountName)
							? c.accountName
							: null;
					if (greeted !== null) {
						const name = greeted;
						expect(htmlText(email.html)).toContain(`Hello ${name},`);
						expect(email.text).toContain(`Hello ${name},`);
					}
					if (isPrintableName(r.title)) {
						expect(htmlText(email.html)).toContain(r.title);
						expect(email.subject).toBe(`Your weekly ad performance report: ${r.title}`);
					}
					if (file === DIRECTORY) {
						const review = out['Why review it'][0].review as {
							request: Record<string, string>;
							account_manager: string;
						};
						// as n8n's Send and Wait writes it: the e-mail's HTML, the Slack text, the Subject
						const emailed = `<p style="white-space: pre-line;">${sendAndWaitDecode(review.request.email)}</p>`;
						const slacked = sendAndWaitDecode(review.request.slack);
						const subject = sendAndWaitDecode(review.request.subject, 'subject');
						expect(htmlProblems(emailed)).toEqual([]);
						expect(slackProblems(slacked)).toEqual([]);
						expect(headerProblems(subject)).toEqual([]);
						expect(isWellFormed(review.request.text)).toBe(true);
						// each reads back as the request's text (Slack's lines as lines)
						expect(htmlText(emailed).trim()).toBe(review.request.text.trim());
						expect(slackText(slacked)).toBe(review.request.text.trim());
						if (greeted !== null) {
							expect(review.request.text).toContain(`The weekly report of ${greeted} (`);
							expect(subject).toContain(`the weekly report of ${greeted} (`);
						}
						expect(review.account_manager).toMatch(/^[^\s,;<>"()@]+@[A-Za-z0-9.-]+$/);
						// the team's money names its currency: a code, or says none was given
						const spendLine = /^Spend: (.*)$/m.exec(review.request.text)?.[1] ?? '';
						expect(spendLine).toMatch(
							/^(in the report|.*\b[A-Z]{3}\b.*|.*\(currency not given\).*)$/,
						);
					}
				},
			),
			{ numRuns: RUNS },
		);
	});

	test('the team digest: only the template markup, Slack text without control sequences, each name read back, one state per client and week', async () => {
		const clients = fc.array(
			fc.tuple(
				client,
				report,
				fc.boolean(),
				fc.constantFrom(
					'none',
					'waiting',
					'declined',
					'no answer',
					'approved',
					'approved and sent',
				),
			),
			{
				minLength: 1,
				maxLength: 3,
			},
		);
		await fc.assert(
			fc.asyncProperty(
				clients,
				fc.array(
					fc.tuple(
						fc.oneof(readable, hostile),
						fc.constantFrom('active', 'disconnected', 'token_expired'),
					),
					{ maxLength: 3 },
				),
				fc.array(
					fc.record({
						finding_key: fc.constantFrom('act_0|stale_data|', 'act_1|budget_over|', 'x'),
						account_id: fc.oneof(fc.constantFrom('act_0', 'act_1', 'act_77'), hostile),
						status: fc.constantFrom('open', 'open', 'cleared', '<b>open</b>'),
						sentence: fc.oneof(readable, hostile),
					}),
					{ maxLength: 4 },
				),
				async (drawn, accounts, findings) => {
					const composed: IDataObject[] = [];
					const whos: IDataObject[] = [];
					for (const [i, [c, r]] of drawn.entries()) {
						const out = await runSteps(
							file,
							clientSteps(file, { ...c, name: `[#${i}] ${c.name}` }, r, [], `act_${i}`, `rpt_${i}`),
						);
						whos.push(out['Who gets what'][0]);
						composed.push(out['Compare with last week'][0]);
					}
					const sent = drawn.flatMap(([, , wasSent], i) => (wasSent ? [i] : []));
					const steps = digestSteps(file, whos, composed, sent, accounts, findings);
					if (file === DIRECTORY)
						steps.push(
							{
								name: 'Reviews this week',
								items: drawn.flatMap(([, , , status], i) =>
									status === 'none'
										? []
										: [
												{
													client_week: `act_${i}:${String((composed[i].dateRange as IDataObject).from)}`,
													account_id: `act_${i}`,
													client_name: whos[i].client_name,
													reason: 'high risk',
													reviewer: 'am@agency.example',
													status,
													asked_at: new Date().toISOString(),
													decided_at: '',
												},
											],
								),
							},
							{ name: 'Add the reviews to the digest', code: 'Add the reviews to the digest' },
						);
					const out = await runSteps(file, steps);
					const digest = out[
						file === DIRECTORY ? 'Add the reviews to the digest' : 'Compose the team digest'
					][0] as Record<string, unknown>;
					const { htmlBody, text } = safeDigest(digest);
					// every sent client's name, as the directory gave it, reads back in each medium
					for (const i of sent) {
						const name = String(whos[i].client_name);
						if (!isPrintableName(name)) continue;
						expect(htmlText(htmlBody).includes(name) || Boolean(digest.all_well)).toBe(true);
						expect(text).toContain(name);
					}
					// the watch's open findings, each sentence as written, under one section
					const open = findings.filter((f) => f.status === 'open' && f.account_id);
					expect(text.includes('Open findings of the client watch')).toBe(open.length > 0);
					if (open.length) expect(digest.all_well).toBe(false);
					for (const f of open)
						if (isPrintableName(f.sentence) && Array.from(f.sentence).length <= 300) {
							expect(text).toContain(f.sentence);
							expect(htmlText(htmlBody)).toContain(f.sentence);
						}
					if (file === DIRECTORY) {
						// one state per client and week: a client is under Sent, or in one review section
						const states =
							(digest.reviews as Array<{ state: string; week: string; account_id: string }>) ?? [];
						const weeks = states.map((s) => `${s.account_id}:${s.week}`);
						expect(new Set(weeks).size).toBe(weeks.length);
						const sections = text.split('\n\n');
						for (const [i, [, , wasSent, status]] of drawn.entries()) {
							// (a week approved and sent is not e-mailed again by a run: not drawn together)
							if (wasSent && status === 'approved and sent') continue;
							const tag = `[#${i}]`;
							const listed = sections.filter(
								(s) => /^(Sent|Review before it goes)/.test(s.trim()) && s.includes(tag),
							);
							expect(listed.length).toBe(wasSent || status !== 'none' ? 1 : 0);
						}
					}
				},
			),
			{ numRuns: Math.max(5, Math.round(RUNS / 2)) },
		);
	});
});

/** The steps of a run's team digest: the clients of this run (as "Who gets what" and "Compare with last week" gave them), the ones e-mailed, the accounts. */
function digestSteps(
	file: string,
	whos: IDataObject[],
	composed: IDataObject[],
	sent: number[],
	accounts: Array<[string, string]>,
	findings: IDataObject[] = [],
): Step[] {
	const SENT = file === DIRECTORY ? 'What was sent' : 'Record the e-mail';
	return [
		{ name: 'Client directory', items: whos.map((w) => (w.client ?? {}) as IDataObject) },
		{ name: 'Who gets what', items: whos },
		{
			name: SENT,
			items: sent.map((i) => ({
				client_name: whos[i].client_name,
				account_id: `act_${i}`,
				report_id: `rpt_${i}`,
				client_week: `act_${i}:${String((composed[i].dateRange as IDataObject).from)}`,
			})),
		},
		{
			name: 'Run summary',
			items: [
				{
					sent: [],
					skipped: whos
						.filter((w) => w.skip_reason)
						.map((w) => ({
							client_name: w.client_name,
							account_id: w.account_id,
							reason: w.skip_reason,
						})),
				},
			],
		},
		{ name: 'Compare with last week', items: composed },
		{
			name: 'All ad accounts',
			items: accounts.map(([name, status], i) => ({
				name,
				platformAccountId: `act_9${i}`,
				connectionStatus: status,
			})),
		},
		// the client watch's table (an error item where the agency has no such table)
		{ name: 'Open findings of the watch', items: findings },
		{ name: 'Compose the team digest', code: 'Compose the team digest' },
		{ name: 'Could not generate', idle: true },
		{ name: 'Report failed or timed out', idle: true },
	];
}

/** A digest's HTML, text, Slack text and subject, each checked for what its medium may hold. */
function safeDigest(digest: Record<string, unknown>) {
	const [htmlBody, text, slack, subject] = ['html', 'text', 'slack_text', 'subject'].map((k) =>
		String(digest[k]),
	);
	expect(htmlProblems(htmlBody)).toEqual([]);
	expect(slackProblems(slack)).toEqual([]);
	expect(headerProblems(subject)).toEqual([]);
	expect(isWellFormed(text)).toBe(true);
	return { htmlBody, text, slack, subject };
}

test("exactly-once: the day's digest writes every kept run's digest out again from data, whatever the table holds", async () => {
	const run = fc.tuple(client, report, fc.oneof(readable, hostile));
	const junk = fc.oneof(
		fc.constantFrom(
			'not json',
			'{"html":"<script>x</script>","text":"t"}',
			'{"sections":"x"}',
			'null',
			'[]',
		),
		fc.string({ unit: anyCodePoint, maxLength: 30 }),
		fc
			.record({
				headline: hostile,
				sections: fc.array(
					fc.record({ key: hostile, title: hostile, lines: fc.array(hostile, { maxLength: 2 }) }),
					{ maxLength: 2 },
				),
			})
			.map((d) => JSON.stringify(d)),
	);
	await fc.assert(
		fc.asyncProperty(
			fc.array(run, { minLength: 1, maxLength: 3 }),
			fc.array(junk, { maxLength: 2 }),
			fc.constantFrom('UTC', 'Australia/Sydney', 'America/New_York'),
			async (runs, junkRows, zone) => {
				const kept: IDataObject[] = [];
				for (const [i, [c, r, account]] of runs.entries()) {
					const out = await runSteps(
						EXACTLY_ONCE,
						clientSteps(
							EXACTLY_ONCE,
							{ ...c, name: `[#${i}] ${c.name}` },
							r,
							[],
							`act_${i}`,
							`rpt_${i}`,
						),
					);
					const whos = out['Who gets what'];
					const digest = await runSteps(EXACTLY_ONCE, [
						...digestSteps(
							EXACTLY_ONCE,
							whos,
							out['Compare with last week'],
							[0],
							[[account, 'token_expired']],
						),
						{ name: 'Keep', assign: { digest: KEEP_DIGEST } },
					]);
					kept.push({
						digest_execution: 'pending',
						digest_day: '',
						run_at: new Date(Date.UTC(2026, 10, 23, 1 + i)).toISOString(),
						digest: digest.Keep[0].digest,
					});
				}
				const rows = [
					...kept,
					...junkRows.map((digest, i) => ({
						digest_execution: 'pending',
						digest_day: '',
						run_at: `2026-11-23T0${5 + i}:00:00Z`,
						digest,
					})),
				];
				const out = await runSteps(EXACTLY_ONCE, [
					{
						name: 'What time is it',
						items: [{ now: '2026-11-23T09:00:00Z', agency_zone: zone, by_hand: false }],
					},
					{ name: "Client's own week", items: [{ later_today: false }] },
					{ name: 'Compose the team digest', items: [{}] },
					{ name: "Parts of the day's digest", items: rows },
					{ name: "The day's digest", code: "The day's digest" },
				]);
				const day = out["The day's digest"][0];
				const { htmlBody, text, slack: slackBody } = safeDigest(day);
				// every kept run is in it, and every client e-mailed by one, by name
				for (const [i, [c]] of runs.entries()) {
					const name = `[#${i}] ${c.name}`;
					if (isPrintableName(name)) {
						expect(text).toContain(name);
						expect(htmlText(htmlBody)).toContain(name);
						expect(slackText(slackBody)).toContain(name);
					}
				}
			},
		),
		{ numRuns: Math.max(5, Math.round(RUNS / 2)) },
	);
});

describe('the other examples', () => {
	const account = fc.record({
		name: fc.oneof(readable, hostile),
		currency,
		platformAccountId: fc.oneof(fc.constant(ACCOUNT), hostile),
	});

	test('weekly e-mail (one address): only the template markup, the title read back, money with its currency', async () => {
		await fc.assert(
			fc.asyncProperty(account, report, async (a, r) => {
				const out = await runSteps('weekly-client-report-email.json', [
					{ name: 'Active client accounts', items: [a as IDataObject] },
					{ name: "Generate last week's report", items: [reportItem(r)] },
					{ name: 'Compose the e-mail', code: 'Compose the e-mail' },
				]);
				const email = out['Compose the e-mail'][0].email as Record<string, string>;
				expect(htmlProblems(email.html)).toEqual([]);
				expect(headerProblems(email.subject)).toEqual([]);
				if (isPrintableName(r.title)) expect(htmlText(email.html)).toContain(r.title);
				const spend = /^Spend: (.*)$/m.exec(email.text)?.[1] ?? '';
				if (typeof r.spend === 'number' && Number.isFinite(r.spend))
					expect(spend).not.toMatch(/^-?[\d.,]+$/);
			}),
			{ numRuns: RUNS },
		);
	});

	test('Slack risk level: no control sequence from data, the title read back, spend with its currency code', async () => {
		await fc.assert(
			fc.asyncProperty(account, report, async (a, r) => {
				const out = await runSteps('slack-report-risk-level.json', [
					{ name: 'Active client accounts', items: [a as IDataObject] },
					{ name: 'Wait for Ad Report', items: [reportItem(r)] },
					{ name: 'Compose the message', code: 'Compose the message' },
				]);
				const text = String(out['Compose the message'][0].slack_text);
				// the template's own mrkdwn: bold markers only; everything else escaped
				expect(slackProblems(text)).toEqual([]);
				if (isPrintableName(r.title)) expect(slackText(text)).toContain(r.title);
			}),
			{ numRuns: RUNS },
		);
	});

	test('token expired alert: the subject one line, the account name in it', async () => {
		await fc.assert(
			fc.asyncProperty(
				account,
				fc.oneof(hostile, fc.constantFrom('active', 'token_expired')),
				async (a, previous) => {
					const out = await runSteps('token-expired-alert.json', [
						{
							name: 'When an account connection changes',
							items: [
								{
									account: a,
									previousStatus: previous,
									currentStatus: 'token_expired',
								} as IDataObject,
							],
						},
						{ name: 'Compose the alert', code: 'Compose the alert' },
					]);
					const email = out['Compose the alert'][0].email as Record<string, string>;
					expect(headerProblems(email.subject)).toEqual([]);
					expect(isWellFormed(email.text)).toBe(true);
					if (isPrintableName(a.name))
						expect(email.subject).toBe(`Reconnect ${a.name}: its ad platform token expired`);
				},
			),
			{ numRuns: RUNS },
		);
	});
});
