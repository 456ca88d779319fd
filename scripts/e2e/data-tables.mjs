// n8n's data tables (n8n 2.x) through its REST API as the editor uses it, with the owner's session
// of a started server (n8n-instance.mjs start()): what a user does under Overview → Data tables.
//
//   const tables = await ensureDataTables(server, { weekly_report_emails: ['client_week', …] });
//   const rows = await dataTableRows(server, tables, 'weekly_report_emails');

/** The data tables the exactly-once examples use, with their string columns (see their sticky notes). */
export const EXAMPLE_DATA_TABLES = Object.freeze({
	weekly_report_emails: ['client_week', 'account_id', 'report_id', 'execution_id'],
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
 * Creates each table (name → string columns) in the owner's personal project unless a table of
 * that name exists. Returns { projectId, ids: Map(name → id) }.
 */
export async function ensureDataTables(server, tables) {
	const projectId = await personalProjectId(server);
	const existing = new Map((await listDataTables(server, projectId)).map((t) => [t.name, t.id]));
	const ids = new Map();
	for (const [name, columns] of Object.entries(tables)) {
		if (existing.has(name)) {
			ids.set(name, existing.get(name));
			continue;
		}
		const r = await server.request('POST', `/rest/projects/${projectId}/data-tables`, {
			name,
			columns: columns.map((column) => ({ name: column, type: 'string' })),
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
