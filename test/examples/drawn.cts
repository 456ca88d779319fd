// What the example tests draw: names with markup, entities, quotes, CR/LF, RTL, emoji, lone
// surrogates, empty and huge values; currencies, locales, amounts and addresses as a directory or
// the service might hold them (test/examples/*.test.cts).
import fc from 'fast-check';

import { anyCodePoint } from '../harness/arbitraries.cjs';
import { isWellFormed } from './compose.cjs';

/** Control characters and line breaks: a name with any of them is not shown exactly as given. */
// eslint-disable-next-line no-control-regex -- the control characters are what it finds
export const CONTROL = /[\u0000-\u001F\u007F-\u009F\u0085\u2028\u2029]/;

export const TRICKY = [
	'Smith & Sons <Kids>',
	'<script>alert(1)</script>',
	'<img src=x onerror=alert(1)>',
	'"quoted" \'single\' `tick`',
	'&amp; &lt;b&gt; &#60;',
	'<!channel> <!here> <@U123> <#C1> <https://evil.example|click here>',
	'line one\r\nBcc: evil@evil.example',
	'\u2028para\u2029graph\u0085next',
	'\u202Efdp.exe\u202C',
	'😀 👍🏽 🇦🇺',
	'\uD83D',
	'\uDE00 half',
	'',
	'   ',
	'data:text/html,<b>x</b>',
	'*bold* _it_ ~s~ `code` > quote',
	'<svg onload=alert(1)>',
	'</td></tr></table><p style="x">',
	"{{ $json.secret }} ${'x'}",
	'עברית مرحبا ١٢٣',
	'\u0000\u0007\u001b[31m\u007f\u0085',
	'C:\\new\\name \\n \\\\n',
	'x'.repeat(5000),
];
/** Pieces of markup, entities and Slack control text that names are drawn from. */
export const PIECES = [
	'<',
	'>',
	'&',
	'"',
	"'",
	'a',
	' ',
	'!',
	'@',
	'|',
	';',
	'é',
	'😀',
	'&amp;',
	'&lt;',
	'<!here>',
];
export const hostile = fc.oneof(
	fc.constantFrom(...TRICKY),
	fc.string({ unit: anyCodePoint, maxLength: 40 }),
	fc
		.array(fc.constantFrom(...PIECES, '\r', '\n', '\u2028', '\uD800'), { maxLength: 30 })
		.map((p) => p.join('')),
);
/** A name that reads back exactly: any printable text, markup and entities included, one line, trimmed. */
export const readable = fc
	.oneof(
		fc.constantFrom(
			'Smith & Sons <Kids>',
			'<b>bold</b> & "Co"',
			'Acme <!channel> <https://x.example|x>',
			'Ünïcödé 😀 עברית',
			"O'Brien &amp; co",
		),
		fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
		fc
			.array(fc.constantFrom(...PIECES, 'Z'), { minLength: 1, maxLength: 20 })
			.map((p) => p.join('')),
	)
	.filter((s) => s === s.trim() && s !== '' && !CONTROL.test(s) && isWellFormed(s));
export const currency = fc.oneof(
	fc.constantFrom(
		'USD',
		'AUD',
		'EUR',
		'JPY',
		'GBP',
		'CHF',
		'BHD',
		'usd',
		'',
		'A$',
		'<b>',
		'US D',
		'XXX',
	),
	fc.string({ maxLength: 4 }),
	fc.constant(null),
);
export const locale = fc.constantFrom(
	'en-US',
	'de-DE',
	'fr-FR',
	'ar-EG',
	'he-IL',
	'ja-JP',
	'hi-IN',
	'',
	'xx',
	'<script>',
	undefined,
	'en-US-u-nu-arab',
	'de-CH',
);
export const amount = fc.oneof(
	fc.double({ min: -1e7, max: 1e9, noNaN: true }),
	fc.integer({ min: 0, max: 1e6 }),
	fc.constantFrom(null, undefined, '', '12.5', 'abc', 1e21, Number.NaN, Infinity, 0, -0.004),
);
export const address = fc.oneof(
	fc.emailAddress(),
	fc.constantFrom(
		'',
		'a@b.example, c@d.example',
		'a@b.example; c@d.example',
		'Client <a@b.example>',
		'a@b.example\r\nBcc: x@y.example',
		'not an address',
		'@x.example',
		'a@b',
		'a@@b.example',
	),
	hostile,
);
/** A name the test expects to read back unchanged: printable, one line, at most 500 characters. */
export function isPrintableName(s: unknown): s is string {
	return (
		typeof s === 'string' &&
		s.trim() !== '' &&
		s === s.trim() &&
		Array.from(s).length <= 500 &&
		!CONTROL.test(s) &&
		isWellFormed(s)
	);
}
