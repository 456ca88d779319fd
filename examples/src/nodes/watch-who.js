// @uses text money watch
// Who the watch looks at today: each client of the directory with `send` on, its ad account as the
// service lists it (any connection status, so one that is not connected is a finding too), who
// hears of its findings, and how many of its campaigns may be diagnosed in this run.
function code() {
	const accounts = new Map($input.all().map((item) => [item.json.platformAccountId, item.json]));
	const clients = [];
	for (const { json: row } of $('Client directory').all()) {
		if (!row.account_id || String(row.send).trim().toLowerCase() !== 'true') continue;
		const account = accounts.get(row.account_id) ?? null;
		const manager = emailAddress(row.account_manager_email);
		clients.push({
			json: {
				account_id: String(row.account_id),
				client_name: oneLine(row.client_name) || oneLine(account?.name) || String(row.account_id),
				manager_email: manager.address || '',
				row,
				account,
				connected: account?.connectionStatus === 'active',
				diagnostics_per_run: Math.floor(setting(row, 'diagnostics_per_run')),
			},
		});
	}
	return clients;
}
