// The team digest written out for each medium from its parts: a headline and sections of lines
// (plain text, one line each), and the portfolio's figures. Parts are data, never markup: the
// e-mail's text part takes the lines as they are, its HTML part and Slack escape every line, and
// the portfolio's bars are drawn here from its numbers. So a digest kept in a data table and
// written out later ("The day's digest") is escaped where it is written, like any other. When all is well, the e-mail shows only what was sent, the portfolio and the sections
// marked `always`, and Slack one line.

/** A whole line of the digest (names joined): escaped like a name, never cut. */
const DIGEST_LINE = 100000;

/** The digest's "Sent" section: the clients e-mailed, on one line. */
function sentSection(names) {
	return {
		key: 'sent',
		title: `Sent (${names.length})`,
		count: names.length,
		lines: names.length ? [names.join(', ')] : ['none'],
	};
}

/** A row of small bars: a client's ROAS week by week, as table cells with inline styles (no image, no SVG). */
function sparkline(weeks) {
	const roas = weeks.map((w) => figure(w?.roas)).filter((n) => n !== null);
	const top = Math.max(0, ...roas);
	if (roas.length < 2 || top <= 0) return '';
	const bars = roas.map((value, i) => {
		const height = Math.max(2, Math.min(24, Math.round((Math.max(0, value) / top) * 24)));
		const colour = i === roas.length - 1 ? '#2f855a' : '#9ae6b4';
		return `<td valign="bottom" style="padding:0 1px 0 0"><table role="presentation" cellpadding="0" cellspacing="0" border="0"><tr><td class="spark" width="7" height="${height}" bgcolor="${colour}" style="width:7px;height:${height}px;background-color:${colour};font-size:1px;line-height:1px;mso-line-height-rule:exactly">&nbsp;</td></tr></table></td>`;
	});
	return `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="height:24px"><tr>${bars.join('')}</tr></table>`;
}

/** The portfolio: one row per client, its name, ROAS bars and figures, its risk; every text escaped. */
function portfolioHtml(portfolio) {
	const cell = 'padding:4px 8px;border-bottom:1px solid #e4e7eb;';
	const rows = portfolio
		.filter((p) => p && typeof p === 'object')
		.map((p) => {
			const risk = String(p.risk ?? '');
			return `<tr><td style="${cell}font-weight:bold">${html(p.client_name)}</td><td style="${cell}">${sparkline(Array.isArray(p.roas_weeks) ? p.roas_weeks : [])}</td><td style="${cell}text-align:right;white-space:nowrap">ROAS ${html(p.roas || '–')} ${html(p.arrow)}</td><td style="${cell}text-align:right;white-space:nowrap">${html(p.spend || '–')}</td><td style="${cell}font-weight:bold;color:${RISK_COLOURS[risk] ?? '#52606d'}">${html(risk || '–')}</td></tr>`;
		});
	return `<table role="presentation" class="portfolio" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;font-size:13px;width:100%;max-width:600px">${rows.join('')}</table>`;
}

/**
 * A digest's parts as they were stored (a data table row's JSON): only what renderDigest reads,
 * each of the expected kind, every line one line of text; null when they are not a digest's.
 */
function storedDigest(part) {
	if (!part || typeof part !== 'object' || !Array.isArray(part.sections)) return null;
	const sections = part.sections
		.filter((s) => s && typeof s === 'object')
		.map((s) => ({
			key: oneLine(s.key, 40),
			title: oneLine(s.title, DIGEST_LINE),
			count: figure(s.count) ?? 0,
			lines: (Array.isArray(s.lines) ? s.lines : []).map((l) => oneLine(l, DIGEST_LINE)),
			...(Array.isArray(s.portfolio) ? { portfolio: s.portfolio } : {}),
			...(s.always === true ? { always: true } : {}),
		}));
	return {
		headline: oneLine(part.headline, DIGEST_LINE),
		sections,
		allWell: part.all_well === true,
	};
}

function renderDigest({ headline, sections, allWell }) {
	const shown = allWell
		? sections.filter((s) => s.key === 'sent' || s.key === 'portfolio' || s.always)
		: sections;
	const text = [
		headline,
		...shown.map((s) => `\n${s.title}:\n${s.lines.map((l) => `- ${l}`).join('\n')}`),
	].join('\n');
	const body = [
		'<div style="font-family:Arial,Helvetica,sans-serif;max-width:600px;color:#1f2933;line-height:1.5">',
		`<p style="font-weight:bold">${html(headline, DIGEST_LINE)}</p>`,
		...shown.map(
			(s) =>
				`<h3 style="margin:16px 0 4px">${html(s.title, DIGEST_LINE)}</h3>${Array.isArray(s.portfolio) ? portfolioHtml(s.portfolio) : `<ul style="margin:0">${s.lines.map((l) => `<li>${html(l, DIGEST_LINE)}</li>`).join('')}</ul>`}`,
		),
		'</div>',
	].join('\n');
	const sent = sections.find((s) => s.key === 'sent');
	const slackText = allWell
		? slack(headline, DIGEST_LINE)
		: [
				`*${slack(headline, DIGEST_LINE)}*`,
				...sections
					.filter((s) => s.key !== 'sent')
					.map(
						(s) =>
							`\n*${slack(s.title, DIGEST_LINE)}*\n${s.lines.map((l) => `• ${slack(l, DIGEST_LINE)}`).join('\n')}`,
					),
				`\nSent: ${sent?.count ?? 0}`,
			].join('\n');
	return { text, html: body, slack_text: slackText };
}
