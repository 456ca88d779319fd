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
 * A Subject or Message for n8n's Send and Wait (Send Email, Slack), already written for its
 * medium (oneLine() for the subject, html() or slack() for the message). n8n's own "escapeHtml"
 * there turns `&amp;`, `&lt;`, `&gt;`, `&quot;` and `&#39;` back into the characters (measured in
 * 1.123.81 and 2.41.1), then writes the Message into its e-mail's HTML or Slack's mrkdwn as it
 * is: an escaped `&lt;img&gt;` would arrive as an element. Each `&` written `&amp;` comes back
 * as `&`, so n8n's step returns `text` exactly.
 */
function sendAndWait(text) {
	return String(text ?? '').replace(/&/g, '&amp;');
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
	const match = /^([A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*)@((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63})$/.exec(
		text,
	);
	if (!match || match[1].length > 64) return { reason: 'is not an e-mail address' };
	return { address: text };
}

