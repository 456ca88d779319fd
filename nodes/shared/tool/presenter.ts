/**
 * The one presenter of what a model receives, answers and errors alike: its rules are
 * docs/agent-tools.md, The presenter and Errors.
 */
import type { IDataObject } from 'n8n-workflow';

import { errorTypeOf, retryAdviceOf } from '../errorTypes';
import { cut, type Redactor } from '../redaction';

export const MAX_TOOL_RESULT_CHARS = 12_000;
export const MAX_TOOL_ERROR_CHARS = 400;

/** A half of a surrogate pair without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `text` as well-formed Unicode: a model's API or an MCP client may refuse a whole answer for a
 * lone half of a surrogate pair. U+FFFD is one unit for one, so lengths do not change.
 */
export function wellFormed(text: string): string {
	return text.replace(LONE_SURROGATE, '\uFFFD');
}

interface ErrorLike {
	message?: unknown;
	description?: unknown;
	context?: { errorType?: unknown };
}

function sentence(text: string): string {
	const trimmed = text.trim().replace(/\s+/g, ' ');
	return trimmed === '' || /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** Room kept for the fix when what went wrong is long: a model needs the type, fix and retry. */
const MIN_FIX_CHARS = 80;

/**
 * The message a model reads: what, type, fix, retry. The type and the retry advice are always
 * whole. The texts were scrubbed when the error was built (errors.ts): no cut splits a secret.
 */
export function toolErrorMessage(error: ErrorLike): string {
	const type = errorTypeOf(error);
	const fix = typeof error.description === 'string' ? sentence(error.description) : '';
	const retry = ` Retry: ${retryAdviceOf(type)}.`;
	const typePart = ` (${type}).`;
	const whatRoom =
		MAX_TOOL_ERROR_CHARS - typePart.length - retry.length - (fix ? MIN_FIX_CHARS : 0);
	const what = cut(
		sentence(String(error.message ?? 'The tool failed')).replace(/\.$/, ''),
		whatRoom,
	);
	const head = `${what}${typePart}`;
	const room = MAX_TOOL_ERROR_CHARS - head.length - retry.length;
	const fixPart = fix && room > 10 ? cut(` Fix: ${fix}`, room) : '';
	return wellFormed(cut(`${head}${fixPart}${retry}`, MAX_TOOL_ERROR_CHARS));
}

/**
 * Rewrites an error for a model, in place: its message, and its description well-formed (under
 * Continue On Fail a tool's item carries it as `errorDescription`); keeps everything else.
 */
export function asToolError<E>(error: E): E {
	if (error && typeof error === 'object') {
		const target = error as unknown as ErrorLike & { message: string };
		target.message = toolErrorMessage(target);
		if (typeof target.description === 'string') target.description = wellFormed(target.description);
	}
	return error;
}

export type Scrub = Pick<Redactor, 'clip'>;

/** How much of a value is shown: characters of a text, entries of a list or object, levels. */
export interface Bounds {
	text: number;
	entries: number;
	depth: number;
}

/** A field of a record: a text or a number, or (a wrong type) a small look into what came. */
export const FIELD: Bounds = { text: 300, entries: 5, depth: 1 };

const thousands = (count: number) => String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** The note a clipped text ends with; a text clipped again keeps the first full length. */
const CLIP_NOTE = /…\[clipped: ([\d,]+) characters in all\]$/;

/** A text of the service, scrubbed whole, then within `max` characters saying how long it was. */
export function clipped(scrub: Scrub, text: string, max: number): string {
	// Scrubbed before anything is cut: a cut could leave a part of a secret no longer recognised.
	const whole = wellFormed(scrub.clip(text, Infinity));
	if (whole.length <= max) return whole;
	const earlier = CLIP_NOTE.exec(whole);
	const note = `…[clipped: ${earlier?.[1] ?? thousands(whole.length)} characters in all]`;
	const body = earlier ? whole.slice(0, earlier.index) : whole;
	return `${body.slice(0, Math.max(0, max - note.length)).replace(/[\uD800-\uDBFF]$/, '')}${note}`;
}

/** A copy of `value` within `bounds`; what is left out is said in its place. */
export function bounded(
	value: unknown,
	scrub: Scrub,
	bounds: Bounds,
	depth = 0,
): IDataObject[string] {
	if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
	if (value === undefined) return undefined;
	if (typeof value !== 'object') return clipped(scrub, String(value), bounds.text);
	const list = Array.isArray(value);
	const keys = list ? [] : Object.keys(value);
	const size = list ? value.length : keys.length;
	const kind = list ? 'entries' : 'fields';
	if (depth >= bounds.depth)
		return `[${list ? 'a list' : 'an object'} of ${thousands(size)} ${kind}, not shown]`;
	const more =
		size > bounds.entries ? `…[${thousands(size - bounds.entries)} more ${kind}]` : undefined;
	if (list) {
		const shown = value
			.slice(0, bounds.entries)
			.map((entry) => bounded(entry, scrub, bounds, depth + 1));
		return (more ? [...shown, more] : shown) as IDataObject[];
	}
	// fromEntries defines every name as data: a `__proto__` of the service sets no prototype.
	return Object.fromEntries([
		...keys
			.slice(0, bounds.entries)
			.map((key) => [
				clipped(scrub, key, 60),
				bounded((value as IDataObject)[key], scrub, bounds, depth + 1),
			]),
		...(more ? [['…', more]] : []),
	]) as IDataObject;
}

/**
 * Ever tighter bounds for a whole answer, tried in turn until it fits: the first leave an answer
 * the tool already shaped (a page of records, a report's inline content) as it is.
 */
const ANSWER_BOUNDS: readonly Bounds[] = [
	...[MAX_TOOL_RESULT_CHARS, 2_000, 400, 100].map((text) => ({ text, entries: 50, depth: 6 })),
	{ text: 60, entries: 10, depth: 3 },
	{ text: 60, entries: 3, depth: 2 },
];

/** Every tool's answer as the model receives it: bounded, within MAX_TOOL_RESULT_CHARS. */
export function presented(answer: IDataObject, scrub: Scrub): IDataObject {
	let shown: IDataObject = {};
	for (const bounds of ANSWER_BOUNDS) {
		shown = bounded(answer, scrub, bounds) as IDataObject;
		if (JSON.stringify(shown).length <= MAX_TOOL_RESULT_CHARS) break;
	}
	return shown;
}
