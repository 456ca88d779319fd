// @uses text money email
// This week's report beside the earlier weeks of the same account (data table
// weekly_report_figures, read once by "Figures of earlier weeks"): each figure's change from the
// week before, a chart of the last 8 weeks, and the client's e-mail (subject, text, HTML), in
// the client's locale and the account's currency. Every value from outside is escaped for where
// it is written; the e-mail nodes only send what this composes.
function code() {
	const who = $('Who gets what').item.json;
	const locale = who.locale || 'en-US';
	const currency = who.currency;
	const asMoney = (n) => money(n, { locale, currency });
	const now = $json.summary ?? {};
	const from = String($json.dateRange?.from ?? '');
	const to = String($json.dateRange?.to ?? '');
	const rows = $('Figures of earlier weeks')
		.all()
		.map((row) => row.json)
		.filter((row) => row.account_id === $json.accountId && row.report_id !== $json.id);

	// --- the change from the week before ---
	const before =
		rows
			.filter((row) => String(row.date_to) < from)
			.sort((a, b) => String(b.date_to).localeCompare(String(a.date_to)))[0] ??
		rows.find((row) => row.date_from === from && row.date_to === to) ??
		{};
	const first = !before.account_id;
	const lastWeek =
		!first &&
		String(before.date_to) < from &&
		DateTime.fromISO(from).diff(DateTime.fromISO(String(before.date_to)), 'days').days <= 8;
	const sameWeek = !first && before.date_from === from && before.date_to === to;
	const earlierRange = `${oneLine(before.date_from, 20)} – ${oneLine(before.date_to, 20)}`;
	const since = lastWeek
		? ' from last week'
		: sameWeek
			? " from this week's earlier report"
			: ` from ${earlierRange}`;
	const change = (value, previous, show) => {
		const a = figure(value);
		const b = figure(previous);
		if (a === null) return '';
		if (first || b === null) return '(first report)';
		if (a > b) return `▲ ${show(a - b)}${since}`;
		if (a < b) return `▼ ${show(b - a)}${since}`;
		return `same as${since.replace(' from ', ' ')}`;
	};
	const RISKS = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'];
	const riskNow = RISKS.includes(now.overallRiskLevel) ? now.overallRiskLevel : '';
	const riskBefore = RISKS.includes(before.risk) ? before.risk : '';
	const where = lastWeek
		? ' last week'
		: sameWeek
			? " in this week's earlier report"
			: ` in ${earlierRange}`;
	const riskChange = !riskNow
		? ''
		: first || !riskBefore
			? '(first report)'
			: RISKS.indexOf(riskNow) > RISKS.indexOf(riskBefore)
				? `▲ from ${riskBefore}${where}`
				: RISKS.indexOf(riskNow) < RISKS.indexOf(riskBefore)
					? `▼ from ${riskBefore}${where}`
					: `same as${since.replace(' from ', ' ')}`;
	const changes = {
		spend: change(now.totalSpend, before.spend, asMoney),
		conversions: change(now.totalConversions, before.conversions, (n) => count(n, locale)),
		roas: change(now.avgRoas, before.roas, (n) => ratio(n, locale)),
		risk: riskChange,
		compared_with: first
			? ''
			: lastWeek
				? `last week (${earlierRange})`
				: sameWeek
					? "this week's earlier report"
					: `the report of ${earlierRange}`,
		previous: first ? {} : before,
	};
	const figures = {
		spend: figure(now.totalSpend) === null ? '' : asMoney(now.totalSpend),
		conversions: figure(now.totalConversions) === null ? '' : count(now.totalConversions, locale),
		roas: figure(now.avgRoas) === null ? '' : `${ratio(now.avgRoas, locale)}×`,
	};
	// The team's view: clients' currencies mix in the digest, so money names its currency by code.
	const teamMoney = (n) => money(n, { locale: TEAM_LOCALE, currency, byCode: true });
	const team = {
		spend: figure(now.totalSpend) === null ? '' : teamMoney(now.totalSpend),
		spend_change: change(now.totalSpend, before.spend, teamMoney),
		roas: figure(now.avgRoas) === null ? '' : `${ratio(now.avgRoas, TEAM_LOCALE)}×`,
		roas_change: change(now.avgRoas, before.roas, (n) => ratio(n, TEAM_LOCALE)),
		risk: riskNow,
		risk_change: riskChange,
	};

	// --- the chart: table-cell bars with inline styles (no image, SVG or script) ---
	const earlier = rows
		.filter((row) => String(row.date_to) < from)
		.sort((a, b) => String(a.date_from).localeCompare(String(b.date_from)))
		.slice(-7);
	const weeks = [
		...earlier.map((row) => ({
			from: oneLine(row.date_from, 20),
			to: oneLine(row.date_to, 20),
			spend: figure(row.spend),
			roas: figure(row.roas),
		})),
		{ from, to, spend: figure(now.totalSpend), roas: figure(now.avgRoas) },
	].map((w) => ({
		...w,
		label: day(w.from, locale),
		spend_text: w.spend === null ? '–' : asMoney(w.spend),
		roas_text: w.roas === null ? '–' : `${ratio(w.roas, locale)}×`,
	}));
	let trend = { weeks, html: '', text: '' };
	if (weeks.length >= 2) {
		const top = (key) => Math.max(0, ...weeks.map((w) => w[key] ?? 0));
		const bar = (value, max, colour, kind) =>
			value === null || max <= 0 || value <= 0
				? '&nbsp;'
				: `<table role="presentation" width="${Math.max(2, Math.min(100, Math.round((value / max) * 100)))}%" cellpadding="0" cellspacing="0" border="0"><tr><td class="trend-${kind}" height="12" bgcolor="${colour}" style="height:12px;background-color:${colour};font-size:1px;line-height:1px;mso-line-height-rule:exactly">&nbsp;</td></tr></table>`;
		const cell = 'padding:3px 6px;border-bottom:1px solid #e4e7eb;';
		const body = weeks
			.map((w, i) => {
				const thisWeek = i === weeks.length - 1;
				const weight = thisWeek ? 'font-weight:bold;' : '';
				return `<tr><td style="${cell}${weight}white-space:nowrap;color:#52606d">${thisWeek ? 'This week' : html(w.label)}</td><td width="30%" style="${cell}">${bar(w.spend, top('spend'), thisWeek ? '#2b6cb0' : '#90cdf4', 'spend')}</td><td style="${cell}${weight}text-align:right;white-space:nowrap">${html(w.spend_text)}</td><td width="22%" style="${cell}">${bar(w.roas, top('roas'), thisWeek ? '#2f855a' : '#9ae6b4', 'roas')}</td><td style="${cell}${weight}text-align:right;white-space:nowrap">${html(w.roas_text)}</td></tr>`;
			})
			.join('');
		const head =
			'padding:3px 6px;border-bottom:2px solid #cbd2d9;color:#52606d;font-weight:normal;text-align:left';
		trend = {
			weeks,
			html: `<table role="presentation" class="trend" width="100%" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;margin:8px 0 16px;font-size:13px;max-width:600px"><tr><td colspan="5" style="padding:0 0 6px;font-size:15px;font-weight:bold;color:#1f2933">The last ${weeks.length} weeks</td></tr><tr><th style="${head}">Week from</th><th colspan="2" style="${head}">Spend</th><th colspan="2" style="${head}">ROAS</th></tr>${body}</table>`,
			text: `The last ${weeks.length} weeks (from ${weeks[0].label}):\nSpend: ${weeks.map((w) => w.spend_text).join(' · ')}\nROAS: ${weeks.map((w) => w.roas_text).join(' · ')}`,
		};
	}

	// --- the client's e-mail ---
	const email = {
		to: who.to,
		cc: who.cc,
		...weeklyEmail({
			name: who.client_name,
			title: oneLine($json.title),
			from: oneLine(from, 20),
			to: oneLine(to, 20),
			compared: changes.compared_with
				? `Each figure is compared with ${changes.compared_with}.`
				: 'This is the first report we keep figures for: from next week, each figure shows its change from the week before.',
			rows: [
				['Spend', figures.spend, changes.spend],
				['Conversions', figures.conversions, changes.conversions],
				['ROAS', figures.roas, changes.roas],
			],
			risk: riskNow,
			riskChange,
			chart: trend,
			summarised: Boolean($json.summary),
		}),
	};

	return {
		json: {
			...$json,
			client_name: who.client_name,
			currency: currencyCode(currency),
			change: changes,
			money: figures,
			team,
			trend,
			email,
		},
		binary: $input.item.binary,
	};
}
