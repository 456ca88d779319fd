// The client's weekly e-mail: one template for every example that sends one (the client
// directory, exactly once, the review's approved e-mail, the simple weekly e-mail). Its parts are
// plain text, escaped here for the HTML part; figures come formatted (lib/money.js).

/**
 * `{ subject, text, html }` of the weekly e-mail. `name`: whom it greets ('' for "Hello,");
 * `compared`: the sentence on what each figure is compared with ('' for none); `rows`: [label,
 * value, change?] after the period; `risk`: LOW … CRITICAL or ''; `chart`: the trend's HTML and
 * text ('' for none); `summarised`: whether the report came with its figures.
 */
function weeklyEmail({
	name,
	title,
	from,
	to,
	compared,
	rows,
	risk,
	riskChange,
	chart,
	summarised,
}) {
	const inReport = 'in the attached report';
	const intro = `here is how your ads did from ${from} to ${to}. The full report is attached as a PDF.`;
	const td = 'padding:6px 12px;border-bottom:1px solid #e4e7eb;';
	const row = (label, valueHtml, change) =>
		`<tr><td style="${td}color:#52606d">${html(label)}</td><td style="${td}text-align:right;font-weight:bold">${valueHtml}${change === undefined ? '' : `<br><span style="font-weight:normal;font-size:13px;color:#52606d">${html(change)}</span>`}</td></tr>`;
	const after = (text) => (text ? ` ${text}` : '');
	return {
		subject: oneLine(`Your weekly ad performance report: ${title}`, 250),
		text: [
			`Hello${after(name)},`,
			'',
			`${intro}${after(compared)}`,
			'',
			...rows.map(([label, value, change]) => `${label}: ${value || inReport}${after(change)}`),
			`Overall risk: ${risk || inReport}${after(riskChange)}${chart?.text ? `\n\n${chart.text}` : ''}`,
			'',
			'Best regards,',
			'Your agency',
		].join('\n'),
		html: [
			'<div style="font-family:Arial,Helvetica,sans-serif;max-width:600px;color:#1f2933;line-height:1.5">',
			'<h2 style="margin:0 0 4px">Your weekly ad performance report</h2>',
			`<p style="margin:0 0 16px;color:#52606d">${html(title)}</p>`,
			`<p>Hello${after(html(name))},</p>`,
			`<p>${html(intro)}${after(html(compared))}</p>`,
			'<table style="border-collapse:collapse;margin:8px 0 16px;min-width:320px">',
			row('Period', html(`${from} – ${to}`)),
			...rows.map(([label, value, change]) => row(label, html(value || inReport), change)),
			row(
				'Overall risk',
				`<span style="color:${RISK_COLOURS[risk] ?? '#52606d'}">${html(risk || inReport)}</span>`,
				riskChange,
			),
			'</table>',
			chart?.html ?? '',
			`<p>${summarised ? 'Spend, conversions and ROAS are the totals of the period; the report explains each campaign and its risks.' : 'This report came without a summary; its figures are in the attached PDF.'}</p>`,
			'<p>Best regards,<br>Your agency</p>',
			'</div>',
		].join('\n'),
	};
}
