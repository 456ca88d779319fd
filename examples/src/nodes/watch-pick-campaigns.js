// @uses text money watch
// The campaigns diagnosed in this run, per client: those with a risk finding still open first (to
// see whether it cleared), then the largest daily budgets, up to the client's
// `diagnostics_per_run` (the service runs 10 diagnostics a minute per key: 50 clients at 2 each
// take about 10 minutes, which the node paces without a 429).
function code() {
	const byAccount = new Map();
	for (const { json: campaign } of $input.all()) {
		if (!campaign.id) continue;
		const list = byAccount.get(campaign.accountId) ?? [];
		list.push(campaign);
		byAccount.set(campaign.accountId, list);
	}
	const openRisk = new Set(
		$('Findings so far')
			.all()
			.map((item) => item.json)
			.filter((row) => row.status === 'open' && row.kind === 'campaign_risk')
			.map((row) => String(row.subject)),
	);
	const picked = [];
	for (const { json: client } of $('Who to watch').all()) {
		if (!client.connected) continue;
		const campaigns = [...(byAccount.get(client.account.id) ?? [])].sort(
			(a, b) =>
				Number(openRisk.has(b.id)) - Number(openRisk.has(a.id)) ||
				(figure(b.dailyBudget) ?? 0) - (figure(a.dailyBudget) ?? 0),
		);
		for (const campaign of campaigns.slice(0, client.diagnostics_per_run))
			picked.push({ json: { ...campaign, account_id: client.account_id } });
	}
	return picked;
}
