/**
 * How a text may spell one character (docs/security.md, the scrubber): shared by the scrubber's
 * tests, which draw keys spelled character by character.
 */
export const hex = (code: number, width: number, upper: boolean) => {
	const digits = code.toString(16).padStart(width, '0');
	return upper ? digits.toUpperCase() : digits;
};

export const NAMED: Record<string, string> = {
	_: '&lowbar;',
	'\t': '&Tab;',
	'\n': '&NewLine;',
	'\u00a0': '&nbsp;',
};
export const SHORT: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** One spelling of a character: `form` 0 as it is, 1–8 an escape, 9 JSON's short escape. */
export function spell(character: string, form: number, upper: boolean): string {
	const code = character.codePointAt(0)!;
	const bytes = [...new TextEncoder().encode(character)];
	switch (form) {
		case 1:
			return bytes.map((byte) => `%${hex(byte, 2, upper)}`).join('');
		case 2:
			return bytes.map((byte) => `%25${hex(byte, 2, upper)}`).join('');
		case 3:
			return `\\u${hex(code, 4, upper)}`;
		case 4:
			return `\\\\u${hex(code, 4, upper)}`;
		case 5:
			return `\\x${hex(code, 2, upper)}`;
		case 6:
			return `&#${code};`;
		case 7:
			return `&#x${hex(code, 1, upper)};`;
		case 8:
			return NAMED[character] ?? `\\u{${hex(code, 1, upper)}}`;
		case 9:
			return SHORT[character] ?? character;
		default:
			return character;
	}
}
