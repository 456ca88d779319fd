import type { IBinaryData, IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Secret } from './credentialRules';
import { ANSWER_LIMITS } from './limits';

/**
 * The one scrubber: everything a node hands to n8n passes it at the boundary (boundary.ts). It is
 * built once per execution from the credential's secrets (credentialRules.ts, secretsOf); the
 * transport and the boundary share it. What counts as a secret (a start of MIN_SECRET_CHARS of
 * its secret part, in any spelling, case and fold) and why: docs/security.md, "One scrubber at
 * the boundary".
 */
const REDACTED = '[redacted]';

/** user:password@ in any URL inside a text. */
const URL_USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi;

/** Fields of n8n's binary data that are not text: the file itself and n8n's own store id. */
const BINARY_CONTENT_FIELDS = new Set(['data', 'id']);

type Container = IDataObject | unknown[];

/** Characters of a secret, past its public head, that make a start of it count as the secret. */
export const MIN_SECRET_CHARS = 8;

/** A secret as scrubbed: the source of its shortest start that counts, and its patterns. */
interface SecretForm {
	/** Its characters, whitespace left out: the longest secret is scrubbed first. */
	length: number;
	/** The start that counts as it is written, letters in any case, whitespace anywhere inside. */
	start: string;
	/** For texts without escapes: as it is written, whitespace anywhere inside. */
	plain: RegExp;
	/** For texts with escapes: every character and fold in any spelling. */
	spelled: RegExp;
}

/** Characters that begin an escape of another character: percent, backslash, ampersand. */
const ESCAPE_STARTS = /[%\\&]/;

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** A hex number of at least `width` digits (the patterns ignore case, so `5F` is `5f` too). */
function hexPattern(code: number, width: number): string {
	return code.toString(16).padStart(width, '0');
}

/** HTML's named entities for the characters a key is made of beyond letters and digits. */
const NAMED_ENTITIES: Record<string, string[]> = {
	_: ['lowbar', 'UnderBar'],
	'-': ['hyphen', 'dash'],
	'.': ['period'],
	':': ['colon'],
	'/': ['sol'],
	'+': ['plus'],
	'=': ['equals'],
};

/** Its UTF-8 bytes (a lone surrogate has none: it cannot be sent, so it cannot come back). */
function utf8Of(character: string): number[] {
	const code = character.codePointAt(0)!;
	if (code < 0x80) return [code];
	try {
		return encodeURIComponent(character)
			.split('%')
			.slice(1)
			.map((byte) => parseInt(byte, 16));
	} catch {
		return [];
	}
}

/** One of several patterns. */
function anyOf(patterns: string[]): string {
	return patterns.length === 1 ? patterns[0] : `(?:${patterns.join('|')})`;
}

/**
 * Every spelling of one character a text may carry (docs/security.md lists them). A letter in
 * either case: the patterns ignore case, but an escape of `a` (`%61`) is not one of `A` (`%41`).
 */
function spellingsOf(character: string): string {
	const variants = [
		...new Set([character, character.toLowerCase(), character.toUpperCase()]),
	].filter((variant) => [...variant].length === 1);
	const codes = variants.map((variant) => variant.codePointAt(0)!);
	const hex = (width: number, below = Infinity) =>
		anyOf(codes.filter((code) => code < below).map((code) => hexPattern(code, width)));
	const percent = variants
		.map(utf8Of)
		.filter((bytes) => bytes.length > 0)
		.map((bytes) => bytes.map((byte) => `%(?:25)?${hexPattern(byte, 2)}`).join(''));
	const spellings = [
		escapeRegExp(character),
		...(percent.length > 0 ? [anyOf(percent)] : []),
		`\\\\{1,2}u\\{0*${hex(1)}\\}`,
		`&#0*${anyOf(codes.map(String))};?`,
		`&#[xX]0*${hex(1)};?`,
		...(NAMED_ENTITIES[character] ?? []).map((name) => `&${name};`),
	];
	if (codes.some((code) => code <= 0xffff)) spellings.push(`\\\\{1,2}u${hex(4, 0x10000)}`);
	if (codes.some((code) => code <= 0xff)) spellings.push(`\\\\{1,2}x${hex(2, 0x100)}`);
	return `(?:${spellings.join('|')})`;
}

/**
 * What may fold a secret between two of its characters: whitespace, as it is or escaped. Written
 * out, not built with spellingsOf: it stands between every two characters of a secret, and the
 * pattern's size is what compiling it costs. No literal alternative beside `\s`: a run of spaces
 * could then match in 2^n ways, and a failed match would try them all.
 */
const FOLD = String.raw`(?:\s|\\{1,2}(?:[nrt]|u00(?:20|0[9ad]|a0)|x(?:20|0[9ad]|a0)|u\{0*(?:20|[9ad]|a0)\})|%(?:25)?(?:20|0[9ad]|c2%(?:25)?a0)|&#(?:0*(?:32|9|1[03]|160)|x0*(?:20|[9ad]|a0));?|&(?:tab|newline|nbsp);)`;

/**
 * A secret's forms, from its public head and the rest (whitespace left out of both: in a secret it
 * is read as a fold like any other). What counts: MIN_SECRET_CHARS or more of the rest, with or
 * without the head before it; a rest shorter than that only whole, with its head.
 */
function formOf(head: string[], rest: string[]): SecretForm {
	const alone = rest.length >= MIN_SECRET_CHARS;
	const required = alone ? rest.slice(0, MIN_SECRET_CHARS) : [...head, ...rest];
	const pattern = (spell: (character: string) => string, gap: string): RegExp => {
		let more = '';
		for (let index = rest.length - 1; alone && index >= MIN_SECRET_CHARS; index--) {
			more = `(?:${gap}${spell(rest[index])}${more})?`;
		}
		const before = alone && head.length > 0 ? `(?:${head.map(spell).join(gap)}${gap})?` : '';
		return new RegExp(before + required.map(spell).join(gap) + more, 'gi');
	};
	return {
		length: head.length + rest.length,
		start: required.map(escapeRegExp).join('\\s*'),
		plain: pattern(escapeRegExp, '\\s*'),
		spelled: pattern(spellingsOf, `${FOLD}*`),
	};
}

/** Characters of `text` without its whitespace, each one whole (a two-unit one too). */
function charactersOf(text: string): string[] {
	return [...text.replace(/\s/g, '')];
}

/**
 * Objects `clean` looks at before it suspects a cycle (it remembers none) and leaves the value to
 * the copying walk, which does: a 50,000-record listing is about 150,000.
 */
const MAX_OBJECTS_WITHOUT_MEMORY = 2_000_000;

/**
 * Sets an own data property. Assigning `__proto__` (the one accessor on Object.prototype) would
 * change the prototype: it is defined instead, so it stays data, as JSON.parse made it.
 */
function setOwn(target: IDataObject, key: string, value: unknown): void {
	if (key === '__proto__') {
		Object.defineProperty(target, key, {
			value,
			enumerable: true,
			writable: true,
			configurable: true,
		});
	} else {
		target[key] = value as IDataObject[string];
	}
}

/** Values kept as they are: no text inside them that a JSON answer could have put there. */
function isOpaque(value: object): boolean {
	return value instanceof Date || ArrayBuffer.isView(value) || value instanceof ArrayBuffer;
}

/** `text` cut to `max` characters with an ellipsis, never inside a two-unit character. */
export function cut(text: string, max: number): string {
	if (text.length <= max) return text;
	return max > 1 ? `${text.slice(0, max - 1).replace(/[\uD800-\uDBFF]$/, '')}…` : '';
}

/**
 * In an answer's JSON text (no backslash in it), a `%` or `&` begins an escape of a character only
 * before these: a hex digit (`%5F`), or `#` or a name (`&#95;`, `&lowbar;`).
 */
const ESCAPES_IN_JSON_TEXT: Array<[string, RegExp]> = [
	['%', /[0-9a-fA-F]/],
	['&', /[#a-zA-Z]/],
];

/** Most property names remembered clean (a hostile answer may send endless distinct ones). */
const MAX_CLEAN_KEYS = 1_000;

export class Redactor {
	private readonly secrets: SecretForm[];
	/** A secret's start as it is written (any case, folded by whitespace); no secret, no match. */
	private readonly starts: RegExp;
	/** An escape, an @ (a user name in an address) or a secret's start: what needs scrubbing. */
	private readonly suspect: RegExp;

	/** Property names found clean: records of a listing repeat theirs on every record. */
	private readonly cleanKeys = new Set<string>();

	/** Records parsed from an answer with nothing to scrub in it (vouch): `clean` passes them. */
	private readonly vouched = new WeakSet<object>();

	constructor(secrets: Secret[]) {
		const forms = new Map<string, SecretForm>();
		for (const secret of secrets) {
			const head = charactersOf(secret.value.slice(0, secret.publicHead));
			const rest = charactersOf(secret.value.slice(secret.publicHead));
			// Shorter strings would scrub ordinary words; a key is at least 37 characters.
			if (head.length + rest.length < MIN_SECRET_CHARS) continue;
			const id = `${head.length}:${head.join('')}${rest.join('')}`;
			if (!forms.has(id)) forms.set(id, formOf(head, rest));
		}
		// Longest first, so a secret that begins another is never replaced inside it first.
		this.secrets = [...forms.values()].sort((a, b) => b.length - a.length);
		const starts = this.secrets.map((form) => form.start);
		this.starts = new RegExp(starts.length > 0 ? starts.join('|') : '[^\\s\\S]', 'i');
		this.suspect = new RegExp([ESCAPE_STARTS.source, '@', ...starts].join('|'), 'i');
	}

	text(value: string): string {
		// One search for the many texts that need nothing. Without escapes, a secret is as it is
		// written (any case, folded by whitespace), and its start is what `suspect` looks for.
		if (!this.suspect.test(value)) return value;
		const escaped = ESCAPE_STARTS.test(value);
		let text = value.replace(URL_USERINFO, `$1${REDACTED}@`);
		for (const form of this.secrets) {
			text = text.replace(escaped ? form.spelled : form.plain, REDACTED);
		}
		return text;
	}

	/**
	 * Vouches for the records JSON.parse made of an answer's `text` when the text holds nothing to
	 * scrub: without a backslash in it, every string and name parsed from it is a piece of it, so
	 * its texts need not be searched one by one (docs/performance.md). Only the records of `data`
	 * are vouched for: nothing writes to them after parsing.
	 */
	vouch(text: string, value: unknown): void {
		if (value === null || typeof value !== 'object' || !this.holdsNothing(text)) return;
		const data = (value as IDataObject).data;
		for (const record of Array.isArray(data) ? data : [data])
			if (record !== null && typeof record === 'object') this.vouched.add(record);
	}

	/** Whether an answer's JSON text holds nothing to scrub (searched for each mark, at speed). */
	private holdsNothing(text: string): boolean {
		if (text.includes('\\') || text.includes('@')) return false;
		if (this.starts.test(text)) return false;
		for (const [mark, escape] of ESCAPES_IN_JSON_TEXT)
			for (let at = text.indexOf(mark); at !== -1; at = text.indexOf(mark, at + 1))
				if (escape.test(text.charAt(at + 1))) return false;
		return true;
	}

	/**
	 * A text of the service cut to `max` characters (a hostile service can send megabytes), after
	 * scrubbing, so a secret is never cut into a start too short to recognise.
	 */
	clip(value: string, max: number = ANSWER_LIMITS.serviceTextChars): string {
		return cut(this.text(value), max);
	}

	/**
	 * A JSON-like value with every string and property name scrubbed: itself when there is nothing
	 * to scrub, else a copy (dates and byte arrays kept; cycles end: see walk).
	 */
	value<T>(value: T): T {
		return this.copies([value])[0] as T;
	}

	/** Scrubbed copies of many values in one walk, or the values themselves when they are clean. */
	private copies(values: unknown[]): unknown[] {
		return this.clean(values) ? values : this.walk(values);
	}

	/**
	 * Whether the values are plain JSON data with nothing to scrub, output as they are: almost
	 * every answer is, and copying it anyway was most of a long listing's cost.
	 */
	private clean(values: unknown[]): boolean {
		const pending: object[] = [values];
		let budget = MAX_OBJECTS_WITHOUT_MEMORY;
		for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
			if (--budget < 0) return false;
			if (this.vouched.has(next)) continue;
			const isList = Array.isArray(next);
			if (!isList) {
				const prototype = Object.getPrototypeOf(next) as unknown;
				if (prototype !== Object.prototype && prototype !== null) return false;
			}
			const record = next as Record<string, unknown>;
			const keys = isList ? undefined : Object.keys(record);
			const length = keys ? keys.length : (next as unknown[]).length;
			for (let index = 0; index < length; index++) {
				const key = keys ? keys[index] : index;
				if (keys && !this.cleanKeys.has(key as string)) {
					if (this.text(key as string) !== key) return false;
					if (this.cleanKeys.size < MAX_CLEAN_KEYS) this.cleanKeys.add(key as string);
				}
				const entry = record[key];
				if (typeof entry === 'string') {
					if (this.text(entry) !== entry) return false;
				} else if (entry !== null && typeof entry === 'object' && !isOpaque(entry)) {
					pending.push(entry);
				}
			}
		}
		return true;
	}

	/** The copying walk: a value met twice is copied once, so a cycle ends. */
	private walk(values: unknown[]): unknown[] {
		const pending: Array<[source: object, target: Container]> = [];
		const copies = new Map<object, Container>();
		const copyOf = (entry: unknown): unknown => {
			if (typeof entry === 'string') return this.text(entry);
			if (entry === null || typeof entry !== 'object' || isOpaque(entry)) return entry;
			let target = copies.get(entry);
			if (target === undefined) {
				target = Array.isArray(entry) ? [] : {};
				copies.set(entry, target);
				pending.push([entry, target]);
			}
			return target;
		};
		const roots = values.map(copyOf);
		for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
			const [source, target] = next;
			if (Array.isArray(source)) {
				const list = target as unknown[];
				for (let index = 0; index < source.length; index++) list.push(copyOf(source[index]));
			} else {
				const record = source as IDataObject;
				const copy = target as IDataObject;
				for (const key of Object.keys(record)) setOwn(copy, this.text(key), copyOf(record[key]));
			}
		}
		return roots;
	}

	/**
	 * Output items as they leave a node: the JSON and every text of the binary metadata scrubbed;
	 * the file's bytes, n8n's id of its stored copy and the item's own fields (pairedItem) kept.
	 */
	items(items: INodeExecutionData[]): INodeExecutionData[] {
		const jsons = this.copies(items.map((item) => item.json)) as IDataObject[];
		return items.map((item, index) => {
			if (jsons[index] === item.json && !item.binary && !item.error) return item;
			const scrubbed: INodeExecutionData = { ...item, json: jsons[index] };
			if (item.binary) scrubbed.binary = this.binary(item.binary);
			if (item.error) scrubbed.error = this.error(item.error);
			return scrubbed;
		});
	}

	private binary(binary: Record<string, IBinaryData>): Record<string, IBinaryData> {
		const copy: Record<string, IBinaryData> = {};
		for (const [property, file] of Object.entries(binary)) {
			const scrubbed: IDataObject = {};
			for (const [field, entry] of Object.entries(file as unknown as IDataObject)) {
				setOwn(scrubbed, field, BINARY_CONTENT_FIELDS.has(field) ? entry : this.value(entry));
			}
			setOwn(copy as IDataObject, this.text(property), scrubbed);
		}
		return copy;
	}

	/**
	 * Scrubs an error in place: every own field but n8n's copy of the node; the cause, which may
	 * hold the whole request with its headers, is dropped.
	 */
	error<E>(error: E): E {
		if (!error || typeof error !== 'object') return error;
		const target = error as Record<string, unknown>;
		Reflect.deleteProperty(target, 'cause');
		for (const key of Object.getOwnPropertyNames(target)) {
			if (key === 'node') continue;
			try {
				const entry = target[key];
				if (typeof entry === 'string' || (entry && typeof entry === 'object'))
					setOwn(target as IDataObject, key, this.value(entry));
			} catch {
				// A field that cannot be read or replaced cannot be scrubbed: it goes.
				Reflect.deleteProperty(target, key);
			}
		}
		return error;
	}
}
