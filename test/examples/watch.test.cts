// The client watch (examples/client-watch.json) over drawn days: its Code nodes as imported, run
// through n8n's engine, with the service's answers and the data table stood in by drawn items and
// the table kept between runs from what "Remember the findings" writes (its own expressions).
// Each day's findings are those an independent model of the rules finds; a finding is alerted
// once, again only after it cleared and came back; a check that did not run clears nothing; a run
// with nothing new sends nothing; each alert is one client's, safe in its medium, and names the
// currency of its money. FC_EXAMPLE_RUNS sets the cases (npm test: 12; test:faults: 300).
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import {
	examplesLib,
	exampleNode,
	headerProblems,
	htmlProblems,
	htmlText,
	runSteps,
	slackProblems,
	slackText,
	type Step,
} from './compose.cjs';
import { address, amount, currency, hostile, isPrintableName, readable } from './drawn.cjs';

const FILE = 'client-watch.json';
const RUNS = Number(process.env.FC_EXAMPLE_RUNS ?? 12);
jest.setTimeout(Math.max(60_000, RUNS * 6_000));
const HOUR = 3_600_000;
const lib = examplesLib() as unknown as {
	figure: (v: unknown) => number | null;
	currencyCode: (v: unknown) => string;
};
const REMEMBER = (
	exampleNode(FILE, 'Remember the findings').parameters.columns as { value: Record<string, string> }
).value;

// --- what is drawn: clients (fixed) and what each day shows of them ---
const TIME_ZONES = [
	'UTC',
	'Australia/Sydney',
	'America/Denver',
	'Pacific/Kiritimati',
	'Nowhere/At_all',
	'',
];
const setting = fc.oneof(
	fc.constant(null),
	fc.integer({ min: 0, max: 60 }),
	fc.constantFrom('', 'abc', -5, '15'),
);
const clientArb = fc.record({
	client_name: fc.oneof(readable, hostile),
	account_name: fc.oneof(readable, hostile),
	send: fc.constantFrom(true, true, true, 'true', false, null),
	account_manager_email: address,
	currency,
	timezone: fc.constantFrom(...TIME_ZONES),
	monthly_budget: fc.oneof(fc.constant(null), fc.integer({ min: 100, max: 100_000 }), amount),
	pacing_over_pct: setting,
	pacing_under_pct: setting,
	stale_after_hours: setting,
	diagnostics_per_run: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 3 })),
	campaigns: fc.array(fc.record({ name: fc.oneof(readable, hostile), dailyBudget: amount }), {
		maxLength: 4,
	}),
});
const severity = fc.constantFrom('LOW', 'MEDIUM', 'HIGH', 'CRITICAL', 'unknown');
/** One day of one client: its account as listed (or missing), its spend, and its diagnostics. */
const dayArb = (campaigns: number) =>
	fc.record({
		listed: fc.constantFrom(true, true, true, false),
		connectionStatus: fc.constantFrom(
			'active',
			'active',
			'active',
			'token_expired',
			'disconnected',
		),
		hoursSinceSync: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constant(null)),
		spend: fc.oneof(fc.integer({ min: 0, max: 200_000 }), amount),
		diagnostics: fc.array(
			fc.record({
				failed: fc.boolean(),
				issues: fc.array(fc.record({ severity, title: fc.oneof(readable, hostile) }), {
					minLength: 1,
					maxLength: 3,
				}),
				recommendation: fc.oneof(readable, hostile),
			}),
			{ minLength: campaigns, maxLength: campaigns },
		),
	});
const worldArb = fc.array(clientArb, { minLength: 1, maxLength: 4 }).chain((clients) =>
	fc.record({
		clients: fc.constant(clients),
		days: fc.array(fc.tuple(...clients.map((c) => dayArb(c.campaigns.length))), {
			minLength: 2,
			maxLength: 4,
		}),
	}),
);
type Client = (typeof clientArb extends fc.Arbitrary<infer T> ? T : never) & { index: number };
type Day = typeof dayArb extends (n: number) => fc.Arbitrary<infer T> ? T : never;

const accountId = (c: Client) => `act_10${c.index}`;
const serviceId = (c: Client) => `svc_${c.index}`;
const campaignId = (c: Client, j: number) => `camp_${c.index}_${j}`;

/** A directory number as the sticky note says: empty, not a number or negative is the default. */
function settingOf(value: unknown, fallback: number): number {
	const n = lib.figure(value);
	return n === null || n < 0 ? fallback : n;
}

// --- the rules, written again from the sticky note ---
function expectedFindings(c: Client, day: Day, at: number, diagnosed: Set<string>) {
	const found = new Map<string, string>();
	const checks = new Set<string>([`${accountId(c)}|sync`]);
	const key = (kind: string, subject = '') => `${accountId(c)}|${kind}|${subject}`;
	if (!day.listed) found.set(key('account_missing'), 'sync');
	else if (day.connectionStatus !== 'active') found.set(key('not_connected'), 'sync');
	else if (day.hoursSinceSync === null || day.hoursSinceSync > settingOf(c.stale_after_hours, 30))
		found.set(key('stale_data'), 'sync');
	if (!day.listed || day.connectionStatus !== 'active') return { found, checks };
	const parts = Object.fromEntries(
		new Intl.DateTimeFormat('en-US', {
			timeZone: TIME_ZONES.slice(0, 4).includes(c.timezone) ? c.timezone : 'UTC',
			year: 'numeric',
			month: 'numeric',
			day: 'numeric',
		})
			.formatToParts(at)
			.map((p) => [p.type, Number(p.value)]),
	);
	const daysInMonth = new Date(Date.UTC(parts.year, parts.month, 0)).getUTCDate();
	const own = lib.figure(c.monthly_budget);
	const budgets = c.campaigns.map((k) => lib.figure(k.dailyBudget)).filter((b) => b !== null);
	const budget =
		own !== null && own > 0
			? own
			: budgets.length
				? budgets.reduce((s, b) => s + b, 0) * daysInMonth
				: null;
	const spend = lib.figure(day.spend);
	if (spend !== null && budget !== null && budget > 0) {
		checks.add(`${accountId(c)}|budget`);
		const pace = ((spend / 30) * daysInMonth) / budget;
		if (pace > 1 + settingOf(c.pacing_over_pct, 10) / 100) found.set(key('budget_over'), 'budget');
		else if (pace < 1 - settingOf(c.pacing_under_pct, 25) / 100)
			found.set(key('budget_under'), 'budget');
	}
	c.campaigns.forEach((_k, j) => {
		const d = day.diagnostics[j];
		if (!diagnosed.has(campaignId(c, j)) || d.failed) return;
		checks.add(`${accountId(c)}|risk:${campaignId(c, j)}`);
		if (d.issues.some((i) => i.severity === 'HIGH' || i.severity === 'CRITICAL'))
			found.set(key('campaign_risk', campaignId(c, j)), `risk:${campaignId(c, j)}`);
	});
	return { found, checks };
}

/** What the service lists and answers on a day, as the nodes would output it. */
function serviceItems(clients: Client[], day: Day[], at: number) {
	const accounts = clients
		.filter((c) => day[c.index].listed)
		.map((c) => {
			const d = day[c.index];
			return {
				id: serviceId(c),
				platformAccountId: accountId(c),
				name: c.account_name,
				currency: c.currency,
				timezone: c.timezone,
				connectionStatus: d.connectionStatus,
				...(d.hoursSinceSync === null
					? {}
					: // a minute short of the whole hours: the run's own clock is a little later
						{ lastSyncedAt: new Date(at - d.hoursSinceSync * HOUR + 60_000).toISOString() }),
				totalSpendLast30d: d.spend,
			};
		});
	const campaigns = clients.flatMap((c) =>
		c.campaigns.map((k, j) => ({
			id: campaignId(c, j),
			accountId: serviceId(c),
			name: k.name,
			status: 'ACTIVE',
			dailyBudget: k.dailyBudget,
		})),
	);
	return { accounts, campaigns };
}

function diagnosticItem(c: Client, j: number, d: Day['diagnostics'][number]): IDataObject {
	if (d.failed) return { error: 'The diagnostic could not be completed.' };
	return {
		id: `diag_${c.index}_${j}`,
		campaignId: campaignId(c, j),
		status: 'completed',
		riskScore: 80,
		issues: d.issues.map((i) => ({ ...i, description: 'd', riskScore: 80 })),
		recommendations: [{ priority: 1, title: d.recommendation, description: 'Do it.' }],
	};
}

test('a finding alerts once, again only after it cleared and came back; alerts are per client and safe', async () => {
	await fc.assert(
		fc.asyncProperty(worldArb, async ({ clients: drawn, days }) => {
			const clients: Client[] = drawn.map((c, index) => ({ ...c, index }));
			const directory = clients.map((c) => ({
				account_id: accountId(c),
				client_name: c.client_name,
				send: c.send,
				account_manager_email: c.account_manager_email,
				monthly_budget: c.monthly_budget,
				pacing_over_pct: c.pacing_over_pct,
				pacing_under_pct: c.pacing_under_pct,
				stale_after_hours: c.stale_after_hours,
				diagnostics_per_run: c.diagnostics_per_run,
			}));
			const watched = clients.filter((c) => String(c.send).trim().toLowerCase() === 'true');
			const table = new Map<string, IDataObject>();
			for (const day of days) {
				const at = Date.now();
				const { accounts, campaigns } = serviceItems(clients, day, at);
				const before: Step[] = [
					{ name: 'Client directory', items: directory },
					{ name: 'Findings so far', items: [...table.values()] },
					{ name: 'All ad accounts', items: accounts },
					{ name: 'Who to watch', code: 'Who to watch' },
					{ name: 'Active campaigns', items: campaigns },
					{ name: 'Campaigns to diagnose', code: 'Campaigns to diagnose' },
				];
				// The campaigns picked, then the day's run with their diagnostics.
				const picked = (await runSteps(FILE, before))['Campaigns to diagnose'] ?? [];
				const openBefore = new Set(
					[...table.values()].filter((r) => r.status === 'open').map((r) => r.finding_key),
				);
				for (const c of watched) {
					const mine = picked.filter((p) => p.account_id === accountId(c)).map((p) => p.id);
					const connected = day[c.index].listed && day[c.index].connectionStatus === 'active';
					const limit = Math.floor(settingOf(c.diagnostics_per_run, 2));
					expect(mine).toHaveLength(connected ? Math.min(limit, c.campaigns.length) : 0);
					// those with an open risk finding first
					const open = c.campaigns
						.map((_k, j) => campaignId(c, j))
						.filter((id) => openBefore.has(`${accountId(c)}|campaign_risk|${id}`));
					if (open.length >= mine.length) for (const id of mine) expect(open).toContain(id);
					else for (const id of open) expect(mine).toContain(id);
				}
				const diagnosed = new Set(picked.map((p) => String(p.id)));
				const out = await runSteps(FILE, [
					...before,
					{
						name: 'Diagnose the campaign',
						items: picked.map((p) => {
							const c = clients.find((k) => serviceId(k) === p.accountId)!;
							const j = Number(String(p.id).split('_')[2]);
							return diagnosticItem(c, j, day[c.index].diagnostics[j]);
						}),
					},
					{ name: 'Findings', code: 'Findings', after: 'Who to watch' },
					{ name: 'Alerts per client', code: 'Alerts per client' },
					{ name: 'Remember the findings', assign: REMEMBER, after: 'Findings' },
				]);

				// The model's findings, and what each should come to.
				const present = new Map<string, string>();
				const checks = new Set<string>();
				for (const c of watched) {
					const e = expectedFindings(c, day[c.index], at, diagnosed);
					e.found.forEach((check, key) => present.set(key, check));
					e.checks.forEach((check) => checks.add(check));
				}
				const expected = new Map<string, string>();
				for (const key of present.keys())
					expected.set(key, openBefore.has(key) ? 'still' : 'alert');
				for (const row of table.values()) {
					const key = String(row.finding_key);
					if (row.status !== 'open' || present.has(key)) continue;
					const [account, kind, subject] = key.split('|');
					const check = kind.startsWith('budget_')
						? 'budget'
						: kind === 'campaign_risk'
							? `risk:${subject}`
							: 'sync';
					if (checks.has(`${account}|${check}`)) expected.set(key, 'cleared');
				}
				const changes = out['Findings'] ?? [];
				expect(Object.fromEntries(changes.map((c) => [c.key, c.action]))).toEqual(
					Object.fromEntries(expected),
				);

				// One alert per client with something new, naming exactly its new findings.
				const alerts = out['Alerts per client'] ?? [];
				const newByClient = new Map<string, string[]>();
				for (const [key, action] of expected)
					if (action === 'alert')
						newByClient.set(key.split('|')[0], [
							...(newByClient.get(key.split('|')[0]) ?? []),
							key,
						]);
				expect(alerts.map((a) => a.account_id).sort()).toEqual([...newByClient.keys()].sort());
				for (const alert of alerts) {
					expect((alert.findings as string[]).sort()).toEqual(
						newByClient.get(String(alert.account_id))!.sort(),
					);
					const c = watched.find((k) => accountId(k) === alert.account_id)!;
					const email = alert.email as { to: string; subject: string; html: string; text: string };
					expect(htmlProblems(email.html)).toEqual([]);
					expect(headerProblems(email.subject)).toEqual([]);
					expect(slackProblems(String(alert.slack_text))).toEqual([]);
					expect(email.to).toMatch(/^[^\s,;<>]+@[^\s,;<>]+$/);
					if (isPrintableName(c.client_name) && Array.from(c.client_name).length <= 400) {
						expect(htmlText(email.html)).toContain(c.client_name);
						expect(slackText(String(alert.slack_text))).toContain(c.client_name);
					}
					// Money for the team names its currency by its code, or says it is not given.
					if ((alert.findings as string[]).some((k) => k.includes('|budget_'))) {
						const code = lib.currencyCode(c.currency);
						expect(email.text).toContain(code ? `${code}\u00a0` : '(currency not given)');
					}
				}

				// The table as "Remember the findings" leaves it.
				for (const row of out['Remember the findings'] ?? []) {
					expect(row.status).toBe(
						expected.get(String(row.finding_key)) === 'cleared' ? 'cleared' : 'open',
					);
					table.set(String(row.finding_key), row);
				}
				if (!changes.length) expect(out['Remember the findings']).toBeUndefined();
			}
		}),
		{ numRuns: RUNS },
	);
});

test('budget pacing: over or under past its thresholds, with the days left and money named by its code', () => {
	const watch = lib as unknown as {
		pacingFinding: (o: object) => { checked: boolean; finding?: IDataObject };
		findingSentence: (f: IDataObject) => string;
	};
	fc.assert(
		fc.property(
			fc.integer({ min: 0, max: 10_000_000 }).map((cents) => cents / 100),
			fc.integer({ min: 1, max: 1_000_000 }),
			fc.integer({ min: 0, max: 50 }),
			fc.integer({ min: 0, max: 50 }),
			fc.date({ min: new Date('2024-01-01'), max: new Date('2030-12-31'), noInvalidDate: true }),
			fc.constantFrom('USD', 'EUR', 'JPY', 'BHD', 'AUD', '', 'A$'),
			(spend, budget, over, under, at, code) => {
				const got = watch.pacingFinding({
					client: { monthly_budget: budget, pacing_over_pct: over, pacing_under_pct: under },
					account: { totalSpendLast30d: spend, timezone: 'UTC', currency: code },
					dailyBudgets: [],
					at: at.getTime(),
				});
				const days = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 0)).getUTCDate();
				const pace = (spend * days) / (30 * budget);
				// a pace within a rounding error of a threshold could fall either side of it
				fc.pre(
					Math.abs(pace - (1 + over / 100)) > 1e-9 && Math.abs(pace - (1 - under / 100)) > 1e-9,
				);
				const kind =
					pace > 1 + over / 100
						? 'budget_over'
						: pace < 1 - under / 100
							? 'budget_under'
							: undefined;
				expect(got.checked).toBe(true);
				expect(got.finding?.kind).toBe(kind);
				if (!got.finding) return;
				const figures = got.finding.figures as IDataObject;
				expect(figures.days_left).toBe(days - at.getUTCDate());
				const sentence = watch.findingSentence(got.finding);
				const valid = lib.currencyCode(code);
				if (valid) expect(sentence).toContain(`${valid}\u00a0`);
				else expect(sentence).toContain('(currency not given)');
				expect(sentence).not.toMatch(/[$€¥]/);
			},
		),
		{ numRuns: RUNS * 40 },
	);
});
