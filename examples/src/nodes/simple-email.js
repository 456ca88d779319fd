// @uses text money
// The weekly e-mail of one client account: the report's period and figures, in the account's
// currency ("Active client accounts"), with the report's title as the service gives it, escaped.
// Set LOCALE to how your clients read figures (de-DE: "1.540,00 €").
function code() {
	const LOCALE = 'en-US';
	const currency = $('Active client accounts').item.json.currency;
	const s = $json.summary ?? {};
	const inReport = 'in the attached report';
	const title = oneLine($json.title);
	const from = oneLine($json.dateRange?.from, 20);
	const to = oneLine($json.dateRange?.to, 20);
	const risk = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'].includes(s.overallRiskLevel)
		? s.overallRiskLevel
		: '';
	const figures = [
		['Period', `${from} – ${to}`],
		[
			'Spend',
			figure(s.totalSpend) === null ? inReport : money(s.totalSpend, { locale: LOCALE, currency }),
		],
		[
			'Conversions',
			figure(s.totalConversions) === null ? inReport : count(s.totalConversions, LOCALE),
		],
		['ROAS', figure(s.avgRoas) === null ? inReport : `${ratio(s.avgRoas, LOCALE)}×`],
	];
	const RISK_COLOURS = { LOW: '#2f855a', MEDIUM: '#b7791f', HIGH: '#c53030', CRITICAL: '#c53030' };
	const td = 'padding:6px 12px;border-bottom:1px solid #e4e7eb;';
	const row = (label, value) =>
		`<tr><td style="${td}color:#52606d">${label}</td><td style="${td}text-align:right;font-weight:bold">${value}</td></tr>`;
	const note = $json.summary
		? 'Spend, conversions and ROAS are the totals of the period; the report explains each campaign and its risks.'
		: 'This report came without a summary; its figures are in the attached PDF.';
	return {
		json: {
			...$json,
			email: {
				subject: oneLine(`Your weekly ad performance report: ${title}`, 250),
				text: [
					'Hello,',
					'',
					`here is how your ads did from ${from} to ${to}. The full report is attached as a PDF.`,
					'',
					...figures.slice(1).map(([label, value]) => `${label}: ${value}`),
					`Overall risk: ${risk || inReport}`,
					'',
					'Best regards,',
					'Your agency',
				].join('\n'),
				html: [
					'<div style="font-family:Arial,Helvetica,sans-serif;max-width:600px;color:#1f2933;line-height:1.5">',
					'<h2 style="margin:0 0 4px">Your weekly ad performance report</h2>',
					`<p style="margin:0 0 16px;color:#52606d">${html(title)}</p>`,
					'<p>Hello,</p>',
					`<p>here is how your ads did from ${html(from)} to ${html(to)}. The full report is attached as a PDF.</p>`,
					'<table style="border-collapse:collapse;margin:8px 0 16px;min-width:320px">',
					...figures.map(([label, value]) => row(label, html(value))),
					row(
						'Overall risk',
						`<span style="color:${RISK_COLOURS[risk] ?? '#52606d'}">${html(risk || inReport)}</span>`,
					),
					'</table>',
					`<p>${note}</p>`,
					'<p>Best regards,<br>Your agency</p>',
					'</div>',
				].join('\n'),
			},
		},
		binary: $input.item.binary,
	};
}
