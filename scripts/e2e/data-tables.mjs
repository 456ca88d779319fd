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
		return {
			account_id: account.platformAccountId,
			client_name: account.name,
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
