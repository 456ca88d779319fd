// @uses text money
// One Slack message per client report: its title, period, overall risk, spend (with its
// currency's code: the channel sees every client's) and ROAS. Every value from the service is
// escaped for Slack's mrkdwn, so a name can neither mention a channel nor become a link.
function code() {
	const currency = $('Active client accounts').item.json.currency;
	const s = $json.summary ?? {};
	const risk = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'].includes(s.overallRiskLevel)
		? s.overallRiskLevel
		: 'not given';
	const spend =
		figure(s.totalSpend) === null ? '–' : money(s.totalSpend, { currency, byCode: true });
	const roas = figure(s.avgRoas) === null ? '–' : `${ratio(s.avgRoas)}×`;
	return {
		json: {
			...$json,
			slack_text: `*${slack($json.title)}* (${slack($json.dateRange?.from, 20)} – ${slack($json.dateRange?.to, 20)})\nOverall risk: *${risk}* · Spend: ${slack(spend)} · ROAS: ${slack(roas)}`,
		},
	};
}
