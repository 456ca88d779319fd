/**
 * The key's spellings (issue 39, item 6): its public head in any letter case, its secret part
 * alone, the key folded by whitespace anywhere inside it, each mixed with every escape the
 * scrubber knows. fast-check draws a key in the credential's format, which part of it a text
 * holds (the whole, a start of head + 8 or more, the secret part alone from 8 characters), the
 * case of every letter (the head in capitals, all in capitals or small letters, mixed), folds
 * between characters (spaces, tabs, line breaks, CRLF, a no-break space; as they are or escaped,
 * JSON's `\n` among them) and an escape per character, and puts it among surrounding text, in
 * values and property names at several depths. Decoded by a reference decoder and with its
 * whitespace taken out, no text left holds the secret part's first 8 characters in any case. And
 * ordinary text, near misses of the key included, comes out as it went in.
 */
import type { IDataObject } from 'n8n-workflow';

import fc from 'fast-check';

import { secretsOf } from '../../nodes/shared/credentialRules';
import { MIN_SECRET_CHARS, Redactor } from '../../nodes/shared/redaction';
import { spell } from './spellings.cjs';

const HEAD = 'service_live_'.length;

/** A key as the credential takes it: `service_live_` or `service_test_`, 24+ letters and digits. */
const keyArbitrary = fc
	.tuple(fc.constantFrom('live', 'test'), fc.stringMatching(/^[A-Za-z0-9]{24,40}$/))
	.map(([mode, secret]) => `service_${mode}_${secret}`);

/** The longest key keyArbitrary draws: one drawn choice per character of any part of it. */
const LONGEST = HEAD + 40;

const FOLDS = [' ', '\t', '\n', '\r\n', '\u00a0'];

/** A fold between two characters: which whitespace, and its spelling (form and hex case). */
const foldArbitrary = fc.tuple(
	fc.nat({ max: FOLDS.length - 1 }),
	fc.integer({ min: -4, max: 9 }),
	fc.boolean(),
);

/** Per character: its letter case when mixed, its spelling, the folds after it. */
const characterArbitrary = fc.record({
	upper: fc.boolean(),
	form: fc.integer({ min: -8, max: 8 }),
	hexUpper: fc.boolean(),
	folds: fc.oneof(
		{ weight: 5, arbitrary: fc.constant<Array<[number, number, boolean]>>([]) },
		{ weight: 1, arbitrary: fc.array(foldArbitrary, { minLength: 1, maxLength: 3 }) },
	),
});

const spellingArbitrary = fc.record({
	part: fc.constantFrom('whole', 'start', 'secret part'),
	/** For a start or the secret part alone: how many characters past the shortest that counts. */
	extra: fc.nat({ max: 40 }),
	letterCase: fc.constantFrom('as it is', 'head in capitals', 'capitals', 'small', 'mixed'),
	/** Only characters as they are and folds of spaces: a text JSON carries without a backslash. */
	unescaped: fc.boolean(),
	characters: fc.array(characterArbitrary, { minLength: LONGEST, maxLength: LONGEST }),
});
type Spelling = typeof spellingArbitrary extends fc.Arbitrary<infer T> ? T : never;

/** The part of `key` a spelling names, each letter in its case. */
function partOf(key: string, spelling: Spelling): string[] {
	const part =
		spelling.part === 'whole'
			? key
			: spelling.part === 'start'
				? key.slice(0, Math.min(key.length, HEAD + MIN_SECRET_CHARS + spelling.extra))
				: key.slice(HEAD, Math.min(key.length, HEAD + MIN_SECRET_CHARS + spelling.extra));
	const headHere = spelling.part === 'secret part' ? 0 : HEAD;
	return [...part].map((character, index) => {
		switch (spelling.letterCase) {
			case 'head in capitals':
				return index < headHere ? character.toUpperCase() : character;
			case 'capitals':
				return character.toUpperCase();
			case 'small':
				return character.toLowerCase();
			case 'mixed':
				return spelling.characters[index].upper ? character.toUpperCase() : character.toLowerCase();
			default:
				return character;
		}
	});
}

/** The part of the key a spelling names, spelled and folded as it says. */
function spelled(key: string, spelling: Spelling): string {
	const characters = partOf(key, spelling);
	return characters
		.map((character, index) => {
			const { form, hexUpper, folds } = spelling.characters[index];
			const written = spell(character, spelling.unescaped ? 0 : Math.max(0, form), hexUpper);
			if (index === characters.length - 1) return written;
			const gaps = folds.map(([which, foldForm, foldUpper]) =>
				spelling.unescaped
					? [' ', '\u00a0'][which % 2]
					: [...FOLDS[which]]
							.map((space) => spell(space, Math.max(0, foldForm), foldUpper))
							.join(''),
			);
			return written + gaps.join('');
		})
		.join('');
}

const NAMED_DECODED: Record<string, string> = {
	lowbar: '_',
	UnderBar: '_',
	Tab: '\t',
	NewLine: '\n',
	nbsp: '\u00a0',
};

/** A code point as a character, or the text it was read from when it is none. */
const character = (code: number, text: string) =>
	code <= 0x10ffff ? String.fromCodePoint(code) : text;

/** Every decoding a reader of the text might apply, until nothing changes. */
function decoded(text: string): string {
	let current = text;
	for (let round = 0; round < 6; round++) {
		const next = current
			.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
				try {
					return decodeURIComponent(run);
				} catch {
					return run.replace(/%(..)/g, (_, code: string) =>
						String.fromCharCode(parseInt(code, 16)),
					);
				}
			})
			.replace(/\\+u\{([0-9a-fA-F]+)\}/g, (all, code: string) => character(parseInt(code, 16), all))
			.replace(/\\+u([0-9a-fA-F]{4})/g, (_, code: string) =>
				String.fromCharCode(parseInt(code, 16)),
			)
			.replace(/\\+x([0-9a-fA-F]{2})/g, (_, code: string) =>
				String.fromCharCode(parseInt(code, 16)),
			)
			.replace(/\\+([nrt])/g, (_, code: string) => ({ n: '\n', r: '\r', t: '\t' })[code]!)
			.replace(/&#[xX]([0-9a-fA-F]+);?/g, (all, code: string) => character(parseInt(code, 16), all))
			.replace(/&#(\d+);?/g, (all, code: string) => character(Number(code), all))
			.replace(/&(lowbar|UnderBar|Tab|NewLine|nbsp);/g, (_, name: string) => NAMED_DECODED[name]);
		if (next === current) break;
		current = next;
	}
	return current;
}

/** Every string in a value, property names included, found without recursion. */
function stringsIn(value: unknown): string[] {
	const found: string[] = [];
	const pending = [value];
	while (pending.length > 0) {
		const current = pending.pop();
		if (typeof current === 'string') found.push(current);
		else if (current !== null && typeof current === 'object')
			for (const [name, entry] of Object.entries(current)) {
				found.push(name);
				pending.push(entry);
			}
	}
	return found;
}

/**
 * The texts in which a recognisable spelling of the key is left: its secret part's first 8
 * characters (in the key, its secret part and head + 8 alike), in any case, once the text is
 * decoded (or as it is) and its whitespace taken out.
 */
function leaks(value: unknown, key: string): string[] {
	const start = key.slice(HEAD, HEAD + MIN_SECRET_CHARS).toLowerCase();
	return stringsIn(value).filter((text) =>
		[text, decoded(text)].some((form) => form.replace(/\s/g, '').toLowerCase().includes(start)),
	);
}

/** Text around a spelling: words, and characters that begin escapes or are whitespace. */
const around = fc.oneof(
	fc.stringMatching(/^[a-z %&\\#;:=/?.\n\t]{0,12}$/),
	fc.array(fc.stringMatching(/^[A-Za-z]{1,8}$/), { maxLength: 4 }).map((words) => words.join(' ')),
);

const PLACES = ['value', 'name', 'deep value', 'deep name', 'list'] as const;

/** An object holding each text at its place, among fields with nothing to scrub. */
function holding(texts: Array<{ text: string; place: (typeof PLACES)[number] }>): IDataObject {
	const value: IDataObject = { id: 'rec_1', name: 'Spring sale' };
	texts.forEach(({ text, place }, index) => {
		if (place === 'value') value[`v${index}`] = text;
		else if (place === 'name') value[text] = index;
		else if (place === 'deep value') value[`d${index}`] = { a: [{ b: { c: text } }] };
		else if (place === 'deep name') value[`n${index}`] = [{ x: { [text]: { y: index } } }];
		else value[`l${index}`] = ['x', text];
	});
	return value;
}

const placedArbitrary = fc.record({
	spelling: spellingArbitrary,
	before: around,
	after: around,
	place: fc.constantFrom(...PLACES),
});

describe('Redactor: the key in capitals, its secret part alone, folded over lines', () => {
	test('no spelling of the key is left, in any value or property name', () => {
		fc.assert(
			fc.property(
				keyArbitrary,
				fc.array(placedArbitrary, { minLength: 1, maxLength: 3 }),
				(key, placed) => {
					const texts = placed.map(({ spelling, before, after, place }) => ({
						text: `${before}${spelled(key, spelling)}${after}`,
						place,
					}));
					const redactor = new Redactor(secretsOf({ apiKey: key }));
					const input = holding(texts);
					expect({ texts, left: leaks(redactor.value(input), key) }).toEqual({ texts, left: [] });
					// The text on its own, as a message or a file name is scrubbed.
					for (const { text } of texts) expect(leaks([redactor.text(text)], key)).toEqual([]);
				},
			),
			{ numRuns: 150 },
		);
	});

	test('an answer vouched for (Redactor.vouch) leaves as the full scrub leaves it', () => {
		fc.assert(
			fc.property(keyArbitrary, placedArbitrary, fc.boolean(), (key, placed, holdsKey) => {
				const text = holdsKey
					? `${placed.before}${spelled(key, placed.spelling)}${placed.after}`
					: placed.before;
				const json = JSON.stringify({
					data: [{ id: 'rec_0', name: 'Spring sale' }, holding([{ text, place: placed.place }])],
					pagination: { page: 1, page_size: 100, total: 2, hasMore: false },
				});
				const items = (value: unknown) =>
					(value as { data: IDataObject[] }).data.map((record) => ({ json: record }));
				const vouching = new Redactor(secretsOf({ apiKey: key }));
				const parsed = JSON.parse(json) as unknown;
				vouching.vouch(json, parsed);
				const output = vouching.items(items(parsed)).map((item) => item.json);
				const scrubbed = new Redactor(secretsOf({ apiKey: key }))
					.items(items(JSON.parse(json)))
					.map((item) => item.json);
				expect(output).toEqual(scrubbed);
				expect({ text, left: leaks(output, key) }).toEqual({ text, left: [] });
			}),
			{ numRuns: 100 },
		);
	});

	test('ordinary text, and near misses of the key, come out as they went in', () => {
		/** Text a record or a message holds: words, numbers, escapes, line breaks. */
		const ordinary = fc
			.array(
				fc.oneof(
					fc.stringMatching(/^[A-Za-z]{1,12}$/),
					fc.stringMatching(/^[0-9]{1,6}$/),
					fc.constantFrom('50%', '%20', '&amp;', '&#95;', '\\n', '\\u005f', 'a_b', '-', '.'),
				),
				{ maxLength: 20 },
			)
			.chain((words) =>
				fc
					.array(fc.constantFrom(' ', '  ', '\n', '\r\n', '\t'), {
						minLength: words.length,
						maxLength: words.length,
					})
					.map((spaces) => words.map((word, index) => word + spaces[index]).join('')),
			);
		/** Less than counts: the head in any case with up to 7 secret characters, 7 of them alone. */
		const nearMiss = (key: string, chars: number, upper: boolean) => {
			const head = upper ? key.slice(0, HEAD).toUpperCase() : key.slice(0, HEAD);
			return [`${head}${key.slice(HEAD, HEAD + chars)}.`, `${key.slice(HEAD, HEAD + chars)}.`];
		};
		fc.assert(
			fc.property(
				keyArbitrary,
				keyArbitrary,
				ordinary,
				fc.nat({ max: MIN_SECRET_CHARS - 1 }),
				fc.boolean(),
				(key, otherKey, text, chars, upper) => {
					const redactor = new Redactor(secretsOf({ apiKey: key }));
					for (const sample of [
						text,
						...nearMiss(key, chars, upper).map((miss) => `${text} ${miss} ${text}`),
						`${text} ${otherKey} ${otherKey.toUpperCase()}`,
						'Keys start with service_live_ or SERVICE_TEST_ and 24 letters and digits.',
					]) {
						expect(redactor.text(sample)).toBe(sample);
						expect(redactor.value({ [sample]: sample })).toEqual({ [sample]: sample });
					}
				},
			),
			{ numRuns: 100 },
		);
	});

	test('examples: capitals, the secret part alone, a key over two lines, escaped and folded', () => {
		const key = 'service_live_abcdefghijklmnopqrstuvwxyz012345';
		const redactor = new Redactor(secretsOf({ apiKey: key }));
		const secret = key.slice(HEAD);
		for (const text of [
			`key ${key.toUpperCase()}!`,
			`key SERVICE_LIVE_${secret}!`,
			`key ${secret}!`,
			`key ${secret.slice(0, MIN_SECRET_CHARS)}!`,
			`key service_live_abcd\n  efgh${secret.slice(8)}!`,
			`key service_live_abcd\r\n\tefghijklmnop qrstuvwxyz012345!`,
			`key service_live_abcd%0A%20%20efgh${secret.slice(8)}!`,
			`key service_live_abcd\\nefgh${secret.slice(8)}!`,
			`key SERVICE&#95;LIVE&#95;ABCD&#10;EFGH${secret.slice(8)}!`,
		])
			expect(redactor.text(text)).toBe('key [redacted]!');
	});

	test('a key typed in capitals: its head is public too, so a message naming the head is kept', () => {
		const key = 'SERVICE_LIVE_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345';
		const redactor = new Redactor(secretsOf({ apiKey: key }));
		const hint =
			'A key starts with service_live_ or service_test_ followed by 24 letters and digits.';
		expect(redactor.text(hint)).toBe(hint);
		expect(redactor.text(`key service_live_abcdefghij`)).toBe('key [redacted]');
	});
});
