// @uses text money watch
// Today's findings per client (budget pacing, stale data, campaign risk) against those the table
// `client_watch_findings` holds: one item per finding to alert, still open, or cleared. A check
// that could not run today (a campaign not diagnosed, an account without spend) clears nothing.
function code() {
	/** A node's items, or none when this run did not reach it (no connected client, no campaign). */
	const itemsOf = (name) => {
		try {
			return $(name).all();
		} catch {
			return [];
		}
	};
	const at = Date.now();
	const campaigns = itemsOf('Active campaigns').map((item) => item.json);
	const diagnostics = new Map(
		itemsOf('Diagnose the campaign')
			.map((item) => item.json)
			.filter((d) => d && d.status === 'completed' && d.campaignId)
			.map((d) => [d.campaignId, d]),
	);
	const stored = $('Findings so far')
		.all()
		.map((item) => item.json)
		.filter((row) => row.finding_key);
	const present = [];
	const checked = new Set();
	for (const { json: client } of $input.all()) {
		const { account, row } = client;
		const found = (finding) =>
			present.push({
				...finding,
				key: findingKey(client.account_id, finding.kind, finding.subject),
				account_id: client.account_id,
				client_name: client.client_name,
				manager_email: client.manager_email,
			});
		checked.add(`${client.account_id}|sync`);
		const sync = syncFinding({ client: row, account, at });
		if (sync) found(sync);
		if (!client.connected) continue;
		const own = campaigns.filter((c) => c.accountId === account.id);
		const pacing = pacingFinding({
			client: row,
			account,
			dailyBudgets: own.map((c) => figure(c.dailyBudget)).filter((b) => b !== null),
			at,
		});
		if (pacing.checked) checked.add(`${client.account_id}|budget`);
		if (pacing.finding) found(pacing.finding);
		for (const campaign of own) {
			const diagnostic = diagnostics.get(campaign.id);
			if (!diagnostic) continue;
			checked.add(`${client.account_id}|risk:${campaign.id}`);
			const risk = riskFinding({ campaign, diagnostic });
			if (risk) found(risk);
		}
	}
	const changedAt = new Date(at).toISOString();
	return findingChanges(present, checked, stored).map((change) => ({
		json: {
			...change,
			changed_at: changedAt,
			sentence: change.action === 'cleared' ? '' : findingSentence(change),
		},
	}));
}
