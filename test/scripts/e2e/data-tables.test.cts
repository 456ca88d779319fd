// The demo weeks `npm start` puts into `weekly_report_figures` (scripts/e2e/data-tables.mjs,
// demoFigureRows): the weeks just before the one the client-directory example reports on, in
// n8n's time zone, one row per active account and week, keyed as the example keys its own rows,
// marked as demo data, and with figures close enough to the sandbox's own reports that the first
// report is not held for review because of them. The e2e (test/e2e/editor-demo) runs the
// example over them in real n8n; this is the fast check of the rows themselves.
//
// The script is an ES module, which jest (CommonJS here) cannot import: each case runs it in a
// child Node.js process, which prints the rows as JSON.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { startFakeService, type FakeService } from '../../../sandbox/index.cjs';
import type { Account, Campaign } from '../../../sandbox/types.cjs';
import { post, waitFor } from '../../sandbox/helpers.cjs';

const ROOT = path.resolve(__dirname, '../../..');
const SCRIPT = path.join(ROOT, 'scripts/e2e/data-tables.mjs');

interface FigureRow {
	account_week: string;
	account_id: string;
	client_name: string;
	date_from: string;
	date_to: string;
	spend: number;
	conversions: number;
	roas: number;
	risk: string;
	currency: string;
	report_id: string;
}

type Options = { timeZone: string; now: string; weeks?: number; campaigns?: Campaign[] };
/** demoFigureRows(accounts, options) of each case, in one child process. */
function demoFigureRows(...cases: Array<[Account[], Options]>): FigureRow[][] {
	const program = `
		import { demoFigureRows } from ${JSON.stringify(SCRIPT)};
		const cases = JSON.parse(process.argv[1]);
		process.stdout.write(JSON.stringify(cases.map(([accounts, options]) =>
			demoFigureRows(accounts, { ...options, now: new Date(options.now) }))));
	`;
	const out = execFileSync(
		process.execPath,
		['--input-type=module', '-e', program, JSON.stringify(cases)],
		{ encoding: 'utf8' },
	);
	return JSON.parse(out) as FigureRow[][];
}

const DAY = 86_400_000;
const plusDays = (ymd: string, days: number) =>
	new Date(Date.parse(`${ymd}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
const weekday = (ymd: string) => new Date(`${ymd}T00:00:00Z`).getUTCDay(); // 0 Sunday, 1 Monday

describe('demo weeks of weekly_report_figures (npm start)', () => {
	let svc: FakeService;
	beforeAll(async () => {
		svc = await startFakeService({ timeScale: 0.01 });
	});
	afterAll(() => svc.stop());

	test('the example reports on the 7 days before today: the weeks seeded are the ones before those', () => {
		// demoFigureRows assumes this window; a change to the example must change the seeding too
		const example = JSON.parse(
			fs.readFileSync(
				path.join(ROOT, 'examples/weekly-client-report-email-directory.json'),
				'utf8',
			),
		) as { nodes: Array<{ name: string; parameters: Record<string, string> }> };
		const generate = example.nodes.find((n) => n.name === "Generate last week's report")!;
		expect(generate.parameters.dateStart).toBe(
			"={{ $today.minus({ days: 7 }).toFormat('yyyy-MM-dd') }}",
		);
		expect(generate.parameters.dateEnd).toBe(
			"={{ $today.minus({ days: 1 }).toFormat('yyyy-MM-dd') }}",
		);
	});

	test("on the example's Monday: 5 Monday-to-Sunday weeks per active account, the newest ending the Sunday before last week's Monday", () => {
		const accounts = svc.accounts();
		// 2026-11-30 is a Monday; 09:00 in New York
		const [rows] = demoFigureRows([
			accounts,
			{ timeZone: 'America/New_York', now: '2026-11-30T14:00:00Z', campaigns: svc.campaigns() },
		]);
		const active = accounts.filter((a) => a.connectionStatus === 'active');
		expect(active.length).toBeGreaterThanOrEqual(2);
		expect([...new Set(rows.map((r) => r.account_id))].sort()).toEqual(
			active.map((a) => a.platformAccountId).sort(),
		);
		for (const account of active) {
			const own = rows
				.filter((r) => r.account_id === account.platformAccountId)
				.sort((a, b) => a.date_from.localeCompare(b.date_from));
			expect(own.map((r) => [r.date_from, r.date_to])).toEqual([
				['2026-10-19', '2026-10-25'],
				['2026-10-26', '2026-11-01'],
				['2026-11-02', '2026-11-08'],
				['2026-11-09', '2026-11-15'],
				['2026-11-16', '2026-11-22'],
			]);
			for (const row of own) {
				expect([weekday(row.date_from), weekday(row.date_to)]).toEqual([1, 0]);
				expect(row.account_week).toBe(
					`${account.platformAccountId}:${row.date_from}..${row.date_to}`,
				);
				expect(row.client_name).toBe(account.name);
				expect(row.currency).toBe(account.currency);
				// the demo's mark: never a report ID of the service (rpt_…)
				expect(row.report_id.startsWith('demo-')).toBe(true);
				expect(['LOW', 'MEDIUM', 'HIGH', 'CRITICAL']).toContain(row.risk);
				expect(row.spend).toBeGreaterThan(0);
				expect(Number.isInteger(row.conversions)).toBe(true);
			}
		}
		expect(new Set(rows.map((r) => r.account_week)).size).toBe(rows.length);
	});

	test("today is n8n's today: the same instant is Sunday in New York and Monday in Sydney", () => {
		const accounts = svc.accounts();
		const now = '2026-11-30T03:00:00Z';
		const [newYork, sydney] = demoFigureRows(
			[accounts, { timeZone: 'America/New_York', now, weeks: 3 }],
			[accounts, { timeZone: 'Australia/Sydney', now, weeks: 3 }],
		);
		const newest = (rows: FigureRow[]) =>
			rows
				.map((r) => r.date_to)
				.sort()
				.at(-1);
		// New York: 2026-11-29, the example's week 2026-11-22..28, the newest demo week ends the 21st
		expect(newest(newYork)).toBe('2026-11-21');
		// Sydney: 2026-11-30, the example's week 2026-11-23..29, the newest demo week ends the 22nd
		expect(newest(sydney)).toBe('2026-11-22');
		const perAccount = newYork.filter((r) => r.account_id === newYork[0].account_id);
		expect(perAccount.map((r) => r.date_from)).toEqual(['2026-11-01', '2026-11-08', '2026-11-15']);
	});

	test("the sandbox's first report differs from the last demo week by less than the review's 50 %", async () => {
		// Several sandboxes (other campaigns, budgets and draws each): the report of the example's
		// week for each active account against the newest demo week of that account.
		const changes: Array<{ account: string; pct: number }> = [];
		const today = '2026-11-30';
		const fakes = await Promise.all(
			[1, 2, 3, 4, 5, 6, 7, 8].map((seed) =>
				startFakeService({ seed, timeScale: 0.001, limits: { write: 1000, generations: 1000 } }),
			),
		);
		try {
			const seeded = demoFigureRows(
				...fakes.map((fake): [Account[], Options] => [
					fake.accounts(),
					{ timeZone: 'UTC', now: `${today}T14:00:00Z`, campaigns: fake.campaigns() },
				]),
			);
			for (const [i, fake] of fakes.entries()) {
				for (const account of fake.accounts().filter((a) => a.connectionStatus === 'active')) {
					const res = await post(fake, '/v1/reports', {
						account_id: account.platformAccountId,
						title: 'Weekly performance',
						date_start: plusDays(today, -7),
						date_end: plusDays(today, -1),
					});
					expect(res.status).toBe(202);
					const report = await waitFor(() =>
						fake.reports().find((r) => r.id === res.body.data.id && r.status === 'completed'),
					);
					const last = seeded[i]
						.filter((r) => r.account_id === account.platformAccountId)
						.sort((a, b) => a.date_to.localeCompare(b.date_to))
						.at(-1)!;
					const pct = ((report.summary!.totalSpend - last.spend) / last.spend) * 100;
					changes.push({ account: `seed ${i + 1} ${account.name}`, pct });
					// and as the service writes it: 2 decimals of its currency
					expect(last.spend).toBe(Math.round(last.spend * 100) / 100);
				}
			}
		} finally {
			await Promise.all(fakes.map((fake) => fake.stop()));
		}
		expect(changes.length).toBeGreaterThanOrEqual(16);
		expect(changes.filter((c) => !(Math.abs(c.pct) < 50))).toEqual([]);
	});
});
