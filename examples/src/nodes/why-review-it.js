// @uses text money
// Whether this client's report waits for the account manager before it goes (high or critical
// risk, or spend moved more than the client's limit from last week; column `review` off: never),
// and the request the account manager gets ("Send it for review" → weekly-report-review.json).
// The request is plain text (subject, text); `send_and_wait` is the same written for n8n's Send
// and Wait nodes, which write their Message into their HTML or Slack's mrkdwn without escaping
// it (see sendAndWait() in lib/text.js).
const TEAM = 'team@your-agency.example';
const who = $('Who gets what').item.json;
const c = who.client ?? {};
const on = !['false', '0', 'no', 'off'].includes(String(c.review ?? '').trim().toLowerCase());
const limitText = String(c.review_spend_change_pct ?? '').trim();
const limit = figure(limitText) ?? 50;
const risk = $json.summary?.overallRiskLevel ?? '';
const spendNow = figure($json.summary?.totalSpend);
const spendBefore = figure($json.change?.previous?.spend);
const pct = spendNow !== null && spendBefore !== null && spendBefore > 0 ? ((spendNow - spendBefore) / spendBefore) * 100 : null;
const reasons = [
	['HIGH', 'CRITICAL'].includes(risk) ? `${risk.toLowerCase()} risk` : '',
	pct !== null && Math.abs(pct) > limit
		? `spend ${pct > 0 ? '+' : '-'}${Math.abs(pct).toFixed(0)}% from last week (limit ${limit}%)`
		: '',
].filter(Boolean);
// An account manager's address that is not one address: the request goes to the team instead.
const manager = emailAddress(c.account_manager_email);
const reviewer = manager.address || TEAM;
const reviewerNote = manager.reason
	? ` (account_manager_email "${oneLine(c.account_manager_email, 80)}" ${manager.reason}: asked the team)`
	: '';
const reason = reasons.join(', ') + (reasons.length ? reviewerNote : '');
const name = who.client_name;
const account = oneLine($json.accountId, 40);
const period = `${oneLine($json.dateRange?.from, 20)} – ${oneLine($json.dateRange?.to, 20)}`;
const team = $json.team ?? {};
const after = (text) => (text ? ` ${text}` : '');
const request = {
	subject: oneLine(`Review before it goes: the weekly report of ${name} (${reasons.join(', ')})`, 250),
	text: [
		`The weekly report of ${name} (${account}) for ${period} is held until you approve it, because of: ${reason}.`,
		'',
		`Spend: ${team.spend || 'in the report'}${after(team.spend_change)}`,
		`ROAS: ${team.roas || 'in the report'}${after(team.roas_change)}`,
		`Overall risk: ${team.risk || 'in the report'}${after(team.risk_change)}`,
		'',
		`Approve and send: the client (${who.to}) gets the weekly e-mail with the PDF now.`,
		'Hold it: nothing is sent. With no answer within 24 hours it is held too. The team digest lists it either way.',
	].join('\n'),
};
// The whole request, never cut: each value in it was cut to its own length above.
const WHOLE = 100000;
request.send_and_wait = {
	subject: sendAndWait(request.subject),
	// n8n turns the two characters `\n` of a Message into a line break: a backslash is an entity
	email: sendAndWait(html(request.text, WHOLE).replace(/\\/g, '&#92;')),
	slack: sendAndWait(
		request.text
			.split('\n')
			.map((line) => slack(line, WHOLE))
			.join('\n'),
	),
};
return {
	json: {
		...$json,
		review: {
			needed: on && reasons.length > 0,
			reason,
			account_manager: reviewer,
			client_week: `${$json.accountId}:${$json.dateRange?.from}`,
			to: who.to,
			cc: who.cc,
			client_name: name,
			request,
		},
	},
	binary: $input.item.binary,
};
