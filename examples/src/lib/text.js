// Text from outside (the client directory, the ad platform's names, report titles, currency codes,
// a model's words) written into what a client or the team reads. One rule per medium: HTML,
// Slack mrkdwn, an e-mail header, an e-mail address. Every example's Code node that writes such
// text takes these functions (scripts/examples/build.cjs copies them into the node's code), so
// the rule is the same wherever it is written. A library is plain declarations, no module: the
// tests read it as the Code node does (test/examples/compose.cts).

/** At most this many characters of one value from outside in a message (a name, a title). */
const MAX_VALUE = 500;

/**
 * The value as text that is valid Unicode: a lone surrogate (half of an emoji) becomes U+FFFD,
 * control characters other than tab and line breaks are dropped, and a value longer than `max`
 * characters is cut at a whole character with an ellipsis. null and undefined are empty.
 */
function plainText(value, max = MAX_VALUE) {
	if (value === null || value === undefined) return '';
	const text = String(value)
		.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
		.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g, '');
	const chars = Array.from(text);
	return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}

/** For HTML text and double-quoted attribute values: no tag, entity or attribute from data. */
function html(value, max = MAX_VALUE) {
	return plainText(value, max).replace(
		/[&<>"']/g,
		(c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c],
	);
}

/**
 * For Slack's mrkdwn: `&`, `<` and `>` are its control characters (a mention `<!channel>`, a
 * user `<@U…>`, a link `<https://…|…>`), written as the entities Slack reads back as the
 * characters. Line breaks become spaces, so a name cannot start a line of its own.
 */
function slack(value, max = MAX_VALUE) {
	return oneLine(value, max).replace(
		/[&<>]/g,
		(c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c],
	);
}

/**
 * One line: for an e-mail header (Subject) and any text that must not break a line. CR, LF and
 * the other line and paragraph separators become one space each run of them.
 */
function oneLine(value, max = MAX_VALUE) {
	return plainText(
		String(value ?? '').replace(/[\r\n\u0085\u2028\u2029\t\v\f]+/g, ' '),
		max,
	).trim();
}

/**
 * For n8n's Send and Wait (Send Email and Slack; the same in 1.85.3, 1.123.81 and 2.41.1): it
 * decodes `&amp;`, `&lt;`, `&gt;`, `&quot;` and `&#39;` once in its message and subject, turns
 * the two characters `\n` into a line break, then writes the message into its HTML e-mail (or
 * Slack's mrkdwn) as it is. So a text escaped for its medium has its `&` escaped once more here,
 * and a backslash before an `n` is kept from n8n: in HTML as the entity `&#92;`, in Slack (which
 * has no entity for it) with a word joiner (U+2060, not shown) between the two.
 */
function forSendAndWait(escaped, medium = 'html') {
	const text = String(escaped);
	// (a subject's `\n` stays as it is: n8n turns only the message's into a line break)
	const kept =
		medium === 'html'
			? text.replace(/\\/g, '&#92;')
			: medium === 'slack'
				? text.replace(/\\(?=n)/g, '\\\u2060')
				: text;
	return kept.replace(/&/g, '&amp;');
}

/** Slack's escaping of a text of several lines: each line as it is, its control characters escaped. */
function slackLines(value, max = MAX_VALUE) {
	return plainText(value, max)
		.split(/\r\n|\r|\n/)
		.map((line) =>
			line
				.replace(/[\u0085\u2028\u2029]/g, ' ')
				.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]),
		)
		.join('\n');
}

/**
 * One e-mail address, as the client directory gives it: `{ address }` when it is exactly one
 * plain address (local@domain), else `{ reason }` saying why it is refused. Empty is `{ address: '' }`.
 * A display name, a list, a line break or anything else is refused rather than sent elsewhere.
 */
function emailAddress(value) {
	const text = String(value ?? '').trim();
	if (text === '') return { address: '' };
	if (/[\r\n]/.test(text)) return { reason: 'has a line break' };
	if (/[,;]/.test(text) || (text.match(/@/g) ?? []).length > 1)
		return { reason: 'is more than one address' };
	if (text.length > 254) return { reason: 'is longer than 254 characters' };
	const match =
		/^([A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*)@((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63})$/.exec(
			text,
		);
	if (!match || match[1].length > 64) return { reason: 'is not an e-mail address' };
	return { address: text };
}
