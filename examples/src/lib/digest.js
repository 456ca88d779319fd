// The team digest written out for each medium from its parts: a headline and sections of lines
// (plain text, one line each). The e-mail's text part takes them as they are, its HTML part and
// Slack escape every line; a section may bring its own HTML, built with html() (the portfolio's
// bars). When all is well, the e-mail shows only what was sent, the portfolio and the sections
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
				`<h3 style="margin:16px 0 4px">${html(s.title, DIGEST_LINE)}</h3>${s.html ?? `<ul style="margin:0">${s.lines.map((l) => `<li>${html(l, DIGEST_LINE)}</li>`).join('')}</ul>`}`,
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
