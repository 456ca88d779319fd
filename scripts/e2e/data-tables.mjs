// n8n's data tables (n8n 2.x) through its REST API as the editor uses it, with the owner's session
// of a started server (n8n-instance.mjs start()): what a user does under Overview → Data tables.
//
//   const tables = await ensureDataTables(server, { weekly_report_emails: ['client_week', …] });
//   const rows = await dataTableRows(server, tables, 'weekly_report_emails');
//   await insertDataTableRows(server, tables, 'clients', demoClientRows(accounts));
//
// A column is a name (a string column) or { name, type } (type: string, number, boolean, date).

/**
 * The client directory of the weekly directory example: one row per ad account (its ad platform
 * ID `act_…`), the client's name, To, optional Cc, whether to send at all, the locale its
 * e-mail's figures are written in (`de-DE`; empty: `en-US`); for the exactly-once example,
 * optionally the client's time zone, send day and hour. Review before it
 * goes: `review` (empty = on), `review_spend_change_pct` (empty = 50) and
 * `account_manager_email` (who approves; empty = the team's address).
 */
export const CLIENT_DIRECTORY_TABLE = Object.freeze({
	clients: [
		'account_id',
		'client_name',
		'to_email',
		'cc_email',
		{ name: 'send', type: 'boolean' },
		'locale',
		// the exactly-once example's own Monday per client: empty = the account's zone, Monday, 8
		'timezone',
		'send_day',
		{ name: 'send_hour', type: 'number' },
		{ name: 'review', type: 'boolean' },
		{ name: 'review_spend_change_pct', type: 'number' },
		'account_manager_email',
		// the client watch: empty = the defaults of its sticky note
		{ name: 'monthly_budget', type: 'number' },
		{ name: 'pacing_over_pct', type: 'number' },
		{ name: 'pacing_under_pct', type: 'number' },
		{ name: 'stale_after_hours', type: 'number' },
		{ name: 'diagnostics_per_run', type: 'number' },
	],
});

/** The demo's account manager: approval requests of the review before it goes go there. */
export const DEMO_ACCOUNT_MANAGER = 'account-manager@your-agency.example';

/**
 * The data tables the examples use, with their columns (see their sticky notes): those of the
 * exactly-once examples, the client directory and the weekly figures (week over week).
 */
export const EXAMPLE_DATA_TABLES = Object.freeze({
	...CLIENT_DIRECTORY_TABLE,
	weekly_report_emails: ['client_week', 'account_id', 'report_id', 'execution_id'],
	// each week's figures per account (key `<act_ id>:<from>..<to>`): the e-mails' week over week
	weekly_report_figures: [
		'account_week',
		'account_id',
		'client_name',
		'date_from',
		'date_to',
		{ name: 'spend', type: 'number' },
		{ name: 'conversions', type: 'number' },
		{ name: 'roas', type: 'number' },
		'risk',
		'currency',
		'report_id',
	],
	// each run's team digest until the day's digest carries it (once per agency day)
	weekly_report_digests: [
		'execution_id',
		'run_at',
		'agency_day',
		'digest',
		'digest_execution',
		'digest_day',
	],
	// review before it goes: one row per client and week (`<act_ id>:<from>`), its status
	weekly_report_reviews: [
		'client_week',
		'account_id',
		'client_name',
		'report_id',
		'reason',
		'reviewer',
		'status',
		'asked_at',
		'decided_at',
		'execution_id',
	],
	// the client watch: one row per finding (`<act_ id>|<kind>|<subject>`), open or cleared
	client_watch_findings: [
		'finding_key',
		'account_id',
		'client_name',
		'kind',
		'subject',
		'severity',
		'sentence',
		'status',
		'opened_at',
		'checked_at',
		'cleared_at',
	],
	weekly_report_recoveries: [
		'failed_execution_id',
		'failed_workflow_id',
		'failed_error',
		'recovery_execution_id',
	],
});

async function personalProjectId(server) {
	const r = await server.request('GET', '/rest/projects/personal');
	if (r.status !== 200)
		throw new Error(`GET /rest/projects/personal answered ${r.status}: ${r.text.slice(0, 300)}`);
	return r.json.data.id;
}

async function listDataTables(server, projectId) {
	const r = await server.request('GET', `/rest/projects/${projectId}/data-tables?skip=0&take=100`);
	// Unreadable: creating a table that exists then fails with n8n's own message.
	if (r.status !== 200) return [];
	const body = r.json.data;
	return Array.isArray(body) ? body : (body?.data ?? []);
}

/**
 * Adds the columns a table made by an earlier version lacks (a kept `npm start` folder: the
 * client directory before its `locale` column). Rows and other columns stay as they are.
 */
async function addMissingColumns(server, projectId, id, columns) {
	const r = await server.request('GET', `/rest/projects/${projectId}/data-tables/${id}/columns`);
	if (r.status !== 200) return;
	const have = new Set((Array.isArray(r.json.data) ? r.json.data : []).map((c) => c.name));
	for (const column of columns) {
		const wanted = typeof column === 'string' ? { name: column, type: 'string' } : column;
		if (have.has(wanted.name)) continue;
		const added = await server.request(
			'POST',
			`/rest/projects/${projectId}/data-tables/${id}/columns`,
			wanted,
		);
		if (added.status !== 200)
			throw new Error(
				`adding column ${wanted.name} answered ${added.status}: ${added.text.slice(0, 300)}`,
			);
	}
}

/**
 * Creates each table (name → columns) in the owner's personal project unless a table of
 * that name exists; an existing one gets the columns it lacks. Returns
 * { projectId, ids: Map(name → id) }.
 */
export async function ensureDataTables(server, tables) {
	const projectId = await personalProjectId(server);
	const existing = new Map((await listDataTables(server, projectId)).map((t) => [t.name, t.id]));
	const ids = new Map();
	for (const [name, columns] of Object.entries(tables)) {
		if (existing.has(name)) {
			ids.set(name, existing.get(name));
			await addMissingColumns(server, projectId, existing.get(name), columns);
			continue;
		}
		const r = await server.request('POST', `/rest/projects/${projectId}/data-tables`, {
			name,
			columns: columns.map((column) =>
				typeof column === 'string' ? { name: column, type: 'string' } : column,
			),
		});
		// 409: a table of that name exists after all (the list above could not be read)
		if (r.status === 409) continue;
		if (r.status !== 200)
			throw new Error(`creating data table ${name} answered ${r.status}: ${r.text.slice(0, 300)}`);
		ids.set(name, r.json.data.id);
	}
	return { projectId, ids };
}

/** Every row of a table made by ensureDataTables, oldest first. */
export async function dataTableRows(server, { projectId, ids }, name) {
	const rows = [];
	for (let skip = 0; ; skip += 100) {
		const r = await server.request(
			'GET',
			`/rest/projects/${projectId}/data-tables/${ids.get(name)}/rows?skip=${skip}&take=100&sortBy=id:asc`,
		);
		if (r.status !== 200)
			throw new Error(`reading data table ${name} answered ${r.status}: ${r.text.slice(0, 300)}`);
		rows.push(...r.json.data.data);
		if (r.json.data.data.length < 100) return rows;
	}
}

/** Adds rows (objects of column → value) to a table made by ensureDataTables. */
export async function insertDataTableRows(server, { projectId, ids }, name, rows) {
	if (!rows.length) return;
	const r = await server.request(
		'POST',
		`/rest/projects/${projectId}/data-tables/${ids.get(name)}/insert`,
		{ data: rows, returnType: 'count' },
	);
	if (r.status !== 200)
		throw new Error(
			`adding rows to data table ${name} answered ${r.status}: ${r.text.slice(0, 300)}`,
		);
}

/**
 * Changes the rows whose `column` equals `value` (only the columns in `data`), as the editor's
 * table view does.
 */
export async function updateDataTableRows(server, { projectId, ids }, name, [column, value], data) {
	const r = await server.request(
		'PATCH',
		`/rest/projects/${projectId}/data-tables/${ids.get(name)}/rows`,
		{ filter: { type: 'and', filters: [{ columnName: column, condition: 'eq', value }] }, data },
	);
	if (r.status !== 200)
		throw new Error(`updating data table ${name} answered ${r.status}: ${r.text.slice(0, 300)}`);
}

/**
 * The locale a demo client's e-mail is written in, from its account's time zone: what an agency
 * would put in the directory's `locale` column for a client there.
 */
const DEMO_LOCALES = Object.freeze({
	'Europe/Paris': 'fr-FR',
	'Europe/Berlin': 'de-DE',
	'Europe/London': 'en-GB',
	'Australia/Sydney': 'en-AU',
	'America/Toronto': 'en-CA',
});

/**
 * The demo's client directory: every sandbox account, each with a distinct demo address
 * (`<client-name>@clients.example`), sending switched on, the locale of its time zone (en-US
 * when not listed above), and the review before it goes on (`review: false` switches it off)
 * with the demo's account manager.
 * @param {{ platformAccountId: string, name: string, timezone?: string }[]} accounts
 * @param {{ review?: boolean }} [options]
 */
export function demoClientRows(accounts, { review = true } = {}) {
	const used = new Set();
	return accounts.map((account) => {
		const base =
			account.name
				.toLowerCase()
				.normalize('NFKD')
				.replace(/[^a-z0-9]+/g, '-')
				.replace(/^-|-$/g, '') || 'client';
		let local = base;
		for (let n = 2; used.has(local); n++) local = `${base}-${n}`;
		used.add(local);
		// the client watch's budget: the first connected account over-paces (its 30 days' spend
		// is 1.6 times its budget), the others spend at their budget's pace
		const spend = Number(account.totalSpendLast30d) || 0;
		const overPacing =
			account === accounts.find((a) => a.connectionStatus === 'active' && a.totalSpendLast30d > 0);
		return {
			account_id: account.platformAccountId,
			client_name: account.name,
			monthly_budget: spend > 0 ? Math.round(overPacing ? spend / 1.6 : (spend / 30) * 31) : null,
			to_email: `${local}@clients.example`,
			cc_email: '',
			send: true,
			locale: DEMO_LOCALES[account.timezone] ?? 'en-US',
			review,
			review_spend_change_pct: 50,
			account_manager_email: DEMO_ACCOUNT_MANAGER,
		};
	});
}

/**
 * Fills the client directory from the sandbox's accounts when it is empty (a kept user folder
 * keeps the user's rows). Returns the number of rows added. `options` as demoClientRows.
 */
export async function fillDemoClientDirectory(server, tables, accounts, options) {
	if ((await dataTableRows(server, tables, 'clients')).length > 0) return 0;
	const rows = demoClientRows(accounts, options);
	await insertDataTableRows(server, tables, 'clients', rows);
	return rows.length;
}

/** How many earlier weeks the demo's figures table starts with: the chart then has 6 weeks. */
export const DEMO_FIGURE_WEEKS = 5;

/**
 * What marks a demo week in `weekly_report_figures`: its `report_id` starts with it (a real row
 * holds the service's report ID, `rpt_…`), so a user can tell those rows apart and delete them.
 * No column of its own: the examples create and upsert that table with a fixed set of columns.
 */
export const DEMO_REPORT_ID_PREFIX = 'demo-';

/** The day (YYYY-MM-DD) an instant falls on in a time zone. */
function dayIn(timeZone, instant) {
	const parts = Object.fromEntries(
		new Intl.DateTimeFormat('en-US', {
			timeZone,
			year: 'numeric',
			month: '2-digit',
			day: '2-digit',
		})
			.formatToParts(instant)
			.map((part) => [part.type, part.value]),
	);
	return `${parts.year}-${parts.month}-${parts.day}`;
}

const plusDays = (ymd, days) =>
	new Date(Date.parse(`${ymd}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** A PRNG drawn from a text (FNV-1a, then mulberry32): the same account and day, the same figures. */
function randomFrom(text) {
	let seed = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) seed = Math.imul(seed ^ text.charCodeAt(i), 0x01000193);
	return () => {
		seed = (seed + 0x6d2b79f5) | 0;
		let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const round2 = (n) => Math.round(n * 100) / 100;
/** The service's risk level of a ROAS (as the sandbox gives it, sandbox/state.cts riskFromRoas). */
const riskOfRoas = (roas) =>
	roas >= 3 ? 'LOW' : roas >= 2 ? 'MEDIUM' : roas >= 1 ? 'HIGH' : 'CRITICAL';

/**
 * Demo rows for `weekly_report_figures`, so that the directory example's first run already has
 * earlier weeks to compare with and chart: for each active account (those the example reports
 * on), `weeks` consecutive 7-day weeks ending the day before the example's own week. The example
 * asks for `$today` minus 7 days to `$today` minus 1 (Monday to Sunday on its Monday run), with
 * `$today` in n8n's time zone, so `timeZone` must be n8n's and `now` the day it runs on.
 *
 * The figures are near what the sandbox's report of such a week gives (sandbox/state.cts,
 * createReport): its spend is 6/30 of each campaign's 30-day spend (the range's days counted from
 * `from` to `to`), or of 3 days' budget for a campaign without any (archived, deleted), each
 * ±20 %; its ROAS a spend-weighted mean of 0.6–6 per campaign (about 3.3), its conversions about
 * 1 per 26 of spend. Each week moves a little from the one before, and every week stays within
 * 12 % of that average spend: the first report then differs from the last demo week by well under
 * the review's default limit of 50 % (the review before it goes would otherwise hold the demo's
 * first e-mails for a change the demo made up).
 *
 * @param {{ id: string, platformAccountId: string, name: string, currency: string,
 *   connectionStatus: string, totalSpendLast30d?: number }[]} accounts
 * @param {{ timeZone: string, now?: Date, weeks?: number,
 *   campaigns?: { accountId: string, status: string, dailyBudget: number }[] }} options
 */
export function demoFigureRows(
	accounts,
	{ timeZone, now = new Date(), weeks = DEMO_FIGURE_WEEKS, campaigns = [] },
) {
	const today = dayIn(timeZone, now);
	// the example's week starts 7 days before today; demo week k (1 = the newest) k weeks earlier
	const reportFrom = plusDays(today, -7);
	const rows = [];
	for (const account of accounts.filter((a) => a.connectionStatus === 'active')) {
		const unspent = campaigns
			.filter((c) => c.accountId === account.id && ['ARCHIVED', 'DELETED'].includes(c.status))
			.reduce((sum, c) => sum + c.dailyBudget * 3, 0);
		const weekly = ((Number(account.totalSpendLast30d) || 0) + unspent) * (6 / 30) || 500;
		const random = randomFrom(`${account.platformAccountId}:${reportFrom}`);
		const between = (low, high) => low + (high - low) * random();
		let level = between(0.9, 1.06);
		let roas = between(2.7, 3.9);
		for (let k = weeks; k >= 1; k--) {
			const from = plusDays(reportFrom, -7 * k);
			const to = plusDays(from, 6);
			const spend = round2(weekly * level);
			const weekRoas = round2(roas);
			rows.push({
				account_week: `${account.platformAccountId}:${from}..${to}`,
				account_id: account.platformAccountId,
				client_name: account.name,
				date_from: from,
				date_to: to,
				spend,
				conversions: Math.round(spend / between(22, 30)),
				roas: weekRoas,
				risk: riskOfRoas(weekRoas),
				currency: account.currency,
				report_id: `${DEMO_REPORT_ID_PREFIX}${account.platformAccountId}-${from}`,
			});
			level = Math.min(1.12, Math.max(0.88, level * between(0.93, 1.08)));
			roas = Math.min(4.5, Math.max(2.2, roas + between(-0.35, 0.35)));
		}
	}
	return rows;
}

/**
 * The time zone n8n's expressions use for `$today` (its GENERIC_TIMEZONE; the examples set no
 * zone of their own), from the settings the editor reads.
 */
export async function n8nTimeZone(server) {
	const r = await server.request('GET', '/rest/settings');
	const zone = r.json?.data?.timezone;
	if (r.status !== 200 || typeof zone !== 'string' || !zone)
		throw new Error(`GET /rest/settings gave no time zone: ${r.status} ${r.text.slice(0, 300)}`);
	return zone;
}

/**
 * Fills `weekly_report_figures` with demo weeks (demoFigureRows, in n8n's time zone, from today)
 * when it is empty, so that the directory example's first run shows each figure's change and
 * the chart; a table with any row (the user's own runs, or demo weeks of an earlier start) is
 * left alone. `sandbox` is the sandbox's state (`/__fake/state`'s data: accounts and
 * campaigns). Returns { rows, accounts, weeks } of what was added, rows 0 when nothing was.
 */
export async function fillDemoFigures(server, tables, sandbox, { weeks = DEMO_FIGURE_WEEKS } = {}) {
	if ((await dataTableRows(server, tables, 'weekly_report_figures')).length > 0)
		return { rows: 0, accounts: 0, weeks };
	const rows = demoFigureRows(sandbox.accounts, {
		timeZone: await n8nTimeZone(server),
		weeks,
		campaigns: sandbox.campaigns,
	});
	await insertDataTableRows(server, tables, 'weekly_report_figures', rows);
	return { rows: rows.length, accounts: new Set(rows.map((r) => r.account_id)).size, weeks };
}

/** Deletes the demo weeks (DEMO_REPORT_ID_PREFIX) from `weekly_report_figures`, as a user would. */
export async function deleteDemoFigures(server, { projectId, ids }) {
	const filter = {
		type: 'and',
		filters: [{ columnName: 'report_id', condition: 'like', value: `${DEMO_REPORT_ID_PREFIX}%` }],
	};
	const r = await server.request(
		'DELETE',
		`/rest/projects/${projectId}/data-tables/${ids.get('weekly_report_figures')}/rows?filter=${encodeURIComponent(JSON.stringify(filter))}&returnData=true`,
	);
	if (r.status !== 200)
		throw new Error(`deleting the demo weeks answered ${r.status}: ${r.text.slice(0, 300)}`);
	return Array.isArray(r.json?.data) ? r.json.data.length : 0;
}
