// @uses text money watch
// One alert per client with new findings, for its account manager (the team's address when the
// directory names none) and Slack; nothing when nothing is new.
function code() {
	const TEAM = 'team@your-agency.example';
	const changes = $input.all().map((item) => item.json);
	const clients = new Map();
	for (const change of changes) {
		if (change.action !== 'alert') continue;
		const client = clients.get(change.account_id) ?? { ...change, findings: [] };
		client.findings.push(change);
		clients.set(change.account_id, client);
	}
	return [...clients.values()].map((client) => {
		const others = changes.filter(
			(c) => c.account_id === client.account_id && c.action === 'still',
		).length;
		const alert = watchAlert({
			clientName: client.client_name,
			accountId: client.account_id,
			findings: client.findings,
			others,
		});
		return {
			json: {
				account_id: client.account_id,
				findings: client.findings.map((f) => f.key),
				email: {
					to: client.manager_email || TEAM,
					subject: alert.subject,
					text: alert.text,
					html: alert.html,
				},
				slack_text: alert.slack,
			},
		};
	});
}
