import type { INode } from 'n8n-workflow';

import { dayIn, instantOfWallTime, knownZone } from './calendar';
import { ArgumentName, fieldError, type FieldName } from './errors';
import { cut } from './redaction';

/**
 * The one reader of each kind of value, on the node, the tool and the trigger alike: the forms
 * each takes and what it sends are in docs/input-values.md. A reader of the field and value alone
 * is a bound property: a read passes it as it is.
 */
export class InputValidator {
	/** The workflow's time zone, in which days are counted (calendar.ts). */
	readonly timeZone: string;

	/**
	 * `toolSettings`, in a tool call: which names are the tool node's settings. Whose value is
	 * wrong is decided by the source, not by a name's type (a derived name such as "argument
	 * campaignIds (entry 2)" is a string): in a tool call every field but a setting is the model's.
	 */
	constructor(
		private readonly node: INode,
		private readonly itemIndex: number,
		timeZone?: string,
		private readonly toolSettings?: (name: string) => boolean,
	) {
		this.timeZone = knownZone(timeZone);
	}

	fail(field: FieldName, problem: string, fix: string): never {
		const byModel =
			field instanceof ArgumentName ||
			(this.toolSettings !== undefined && !this.toolSettings(String(field)));
		throw fieldError(this.node, field, problem, fix, this.itemIndex, byModel);
	}

	/** A string (numbers are accepted as their text); nothing else. Blanks never reach it (read). */
	text(field: FieldName, value: unknown, { maxLength }: { maxLength: number }): string {
		if (value !== undefined && value !== null && !['string', 'number'].includes(typeof value)) {
			this.fail(
				field,
				`must be text, but the value is ${describeType(value)}`,
				`Make ${field} a plain text value (check the expression).`,
			);
		}
		const text = String(value ?? '').trim();
		if (text.length > maxLength) {
			this.fail(
				field,
				`is ${text.length} characters long, more than ${maxLength}`,
				`Shorten ${field} to at most ${maxLength} characters.`,
			);
		}
		return text;
	}

	/** An id of a `kind` (IDS): its prefix, then only letters, digits, `_` and `-`. */
	id(field: FieldName, value: unknown, kind: keyof typeof IDS): string {
		const [prefix, example] = IDS[kind];
		const text = this.text(field, value, { maxLength: 200 });
		if (!text.startsWith(prefix)) {
			this.fail(
				field,
				`"${brief(text)}" is not a valid ID`,
				`It must start with ${prefix}, for example ${example}.`,
			);
		}
		if (!/^[A-Za-z0-9_-]+$/.test(text) || text.length === prefix.length) {
			this.fail(
				field,
				`"${brief(text)}" contains characters an ID cannot have`,
				`An ID is ${prefix} followed by letters, digits, _ or - (no spaces, slashes or dots), for example ${example}.`,
			);
		}
		return text;
	}

	/** An ad platform account id: `act_` followed by digits. */
	platformAccountId(field: FieldName, value: unknown): string {
		const text = this.text(field, value, { maxLength: 200 });
		if (!/^act_\d+$/.test(text)) {
			this.fail(
				field,
				`"${brief(text)}" is not an ad platform account ID`,
				'Use the ad platform account ID, act_ followed by digits (for example act_123456789012345), or pick the account from the list.',
			);
		}
		return text;
	}

	/** A calendar day, `YYYY-MM-DD`: a moment counts as its day in the workflow's time zone. */
	readonly date = (field: FieldName, value: unknown): string => {
		const time = this.timeOf(field, value, 'date');
		return 'instant' in time ? dayIn(time.instant, this.timeZone) : time.day;
	};

	/**
	 * A moment for a list filter, as ISO 8601 UTC text: text without a zone is a wall time of the
	 * workflow's time zone; a day alone is its first moment, or its last with `dayMeans: 'end'`.
	 */
	dateTime(field: FieldName, value: unknown, dayMeans: 'start' | 'end' = 'start'): string {
		const time = this.timeOf(field, value, 'dateTime');
		if ('instant' in time) return new Date(time.instant).toISOString();
		const wall = time.wallMs + (time.dayOnly && dayMeans === 'end' ? 86_400_000 - 1 : 0);
		return new Date(instantOfWallTime(wall, this.timeZone)).toISOString();
	}

	/** What a date or date-time field was given: an instant, or a wall time without a zone. */
	private timeOf(
		field: FieldName,
		value: unknown,
		kind: 'date' | 'dateTime',
	): { instant: number } | { day: string; wallMs: number; dayOnly: boolean } {
		const example =
			kind === 'date'
				? `Enter ${field} as YYYY-MM-DD (for example 2026-03-01) or an expression such as {{ $today.minus({ days: 7 }) }}.`
				: `Enter ${field} as a date or moment (for example 2026-03-01 or 2026-03-01T00:00:00Z), or an expression such as {{ $now.minus({ days: 7 }) }}.`;
		if (isDateTimeObject(value)) {
			if (!value.isValid) this.fail(field, 'is an invalid date (the expression gave one)', example);
			return { instant: value.toMillis() };
		}
		if (Object.prototype.toString.call(value) === '[object Date]') {
			const instant = (value as Date).getTime();
			if (Number.isNaN(instant)) this.fail(field, 'is an invalid date (Invalid Date)', example);
			return { instant };
		}
		if (typeof value !== 'string') {
			this.fail(field, `must be a date, but the value is ${describeType(value)}`, example);
		}
		const text = value.trim();
		const match = ISO_TIME.exec(text);
		if (!match) {
			this.fail(
				field,
				`"${brief(text)}" is not a date in the form YYYY-MM-DD${kind === 'dateTime' ? ' or an ISO 8601 moment' : ''}`,
				example,
			);
		}
		const [, y, mo, d, h = '00', mi = '00', s = '00', fraction = '', zone] = match;
		const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
		const wallMs = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s, ms);
		if (new Date(wallMs).toISOString().slice(0, 10) !== `${y}-${mo}-${d}`) {
			this.fail(field, `${y}-${mo}-${d} is not a real calendar date`, example);
		}
		if (+h > 23 || +mi > 59 || +s > 59) {
			this.fail(field, `"${brief(text)}" is not a real time of day`, example);
		}
		if (zone === undefined)
			return { day: `${y}-${mo}-${d}`, wallMs, dayOnly: match[4] === undefined };
		if (zone === 'Z' || zone === 'z') return { instant: wallMs };
		const [, sign, zh, zm = '00'] = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
		const offsetMs = (Number(zh) * 60 + Number(zm)) * 60_000 * (sign === '-' ? -1 : 1);
		return { instant: wallMs - offsetMs };
	}

	/** Start strictly before end, at most 90 days apart (docs/service-notes.md, Report requests). */
	dateRange(startField: FieldName, start: string, endField: FieldName, end: string) {
		const days = (Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / 86_400_000;
		if (days <= 0) {
			this.fail(
				startField,
				`${start} is not before ${endField} ${end}`,
				`Set ${startField} to a day before ${endField}.`,
			);
		}
		if (days > 90) {
			this.fail(
				endField,
				`the range ${start} to ${end} is ${days} days, more than 90`,
				'A report covers at most 90 days. Shorten the range or split it into several reports.',
			);
		}
	}

	/** Two moments of a filter (dateTime's ISO text): the first not after the second. */
	dateTimeOrder(fromField: FieldName, from: string, toField: FieldName, to: string) {
		if (Date.parse(from) > Date.parse(to)) {
			this.fail(
				fromField,
				`${from} is after ${toField} ${to}`,
				`Set ${fromField} to a moment before ${toField}.`,
			);
		}
	}

	/** Campaign IDs, at most 20 (docs/service-notes.md, Report requests). */
	readonly campaignIds = (field: FieldName, value: unknown): string[] => {
		let list: unknown[] | undefined;
		const fix =
			'Give campaign IDs as a list, a comma-separated text like camp_abc,camp_def, or a JSON list like ["camp_abc","camp_def"].';
		if (Array.isArray(value)) list = value;
		else if (typeof value === 'string' && value.trim().startsWith('[')) {
			try {
				const parsed: unknown = JSON.parse(value);
				if (Array.isArray(parsed)) list = parsed;
			} catch {
				list = undefined;
			}
			if (!list) this.fail(field, `"${brief(value.trim())}" is not a valid JSON list`, fix);
		} else if (typeof value === 'string') list = value.split(',');
		else
			this.fail(
				field,
				`must be a list of campaign IDs, but the value is ${describeType(value)}`,
				fix,
			);
		const ids = list
			.map((entry) => (typeof entry === 'string' ? entry.trim() : entry))
			.filter((entry) => entry !== '' && entry !== null && entry !== undefined);
		// The empty list means every campaign: a list of only empty entries is refused instead.
		if (ids.length === 0 && list.length > 0) {
			this.fail(
				field,
				`every entry of the list is empty (${list.length} entr${list.length === 1 ? 'y' : 'ies'} of null, undefined or blank text)`,
				'Give at least one campaign ID, or leave the field out (an empty text) for every campaign of the account.',
			);
		}
		if (ids.length > 20) {
			this.fail(
				field,
				`has ${ids.length} campaign IDs, more than 20`,
				'A report covers at most 20 campaigns. Split them over several reports.',
			);
		}
		return ids.map((id, index) => this.id(`${field} (entry ${index + 1})`, id, 'campaign'));
	};

	/** One of `allowed`, in any letter case (a model may write `active` for `ACTIVE`). */
	oneOf<T extends string>(field: FieldName, value: unknown, allowed: readonly T[]): T {
		const match =
			typeof value === 'string'
				? allowed.find((option) => option.toLowerCase() === value.trim().toLowerCase())
				: undefined;
		if (match === undefined) {
			this.fail(
				field,
				`"${brief(String(value))}" is not allowed`,
				`Use one of: ${allowed.join(', ')}.`,
			);
		}
		return match;
	}

	/** A whole number within bounds. */
	integer(field: FieldName, value: unknown, min: number, max: number): number {
		const number = numberOf(value);
		if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
			this.fail(
				field,
				`${brief(String(value))} is not a whole number from ${min} to ${max}`,
				`Set ${field} to a whole number from ${min} to ${max}.`,
			);
		}
		return number;
	}

	/** A number of `unit`, fractions allowed; NaN, Infinity, words or objects never pass as one. */
	number(field: FieldName, value: unknown, min: number, max: number, unit: string): number {
		const number = numberOf(value);
		if (typeof number !== 'number' || !Number.isFinite(number) || number < min || number > max) {
			this.fail(
				field,
				`${brief(String(value))} is not a number of ${unit} from ${min} to ${max}`,
				`Set ${field} to a number from ${min} to ${max}.`,
			);
		}
		return number;
	}

	/** A switch, in the forms n8n's own type validation reads; never a silent default. */
	readonly boolean = (field: FieldName, value: unknown): boolean => {
		if (typeof value === 'boolean') return value;
		const text = typeof value === 'string' ? value.trim().toLowerCase() : value;
		if (text === 'true' || text === '1' || text === 1) return true;
		if (text === 'false' || text === '0' || text === 0) return false;
		return this.fail(
			field,
			`must be true or false, but the value is ${typeof value === 'string' ? `"${brief(value)}"` : describeType(value)}`,
			`Switch ${field} on or off, or make its expression give true or false.`,
		);
	};

	/** A colour `#rrggbb`, lower case; `#rgb` and the six digits without `#` are taken too. */
	readonly color = (field: FieldName, value: unknown): string => {
		const text = this.text(field, value, { maxLength: 7 });
		const hex = /^#?([0-9a-fA-F]{6}|[0-9a-fA-F]{3})$/.exec(text)?.[1];
		if (hex === undefined) {
			this.fail(
				field,
				`"${brief(text)}" is not a color in the form #rrggbb`,
				'Enter the color as # followed by six hex digits, for example #1a73e8.',
			);
		}
		const six = hex.length === 3 ? [...hex].map((digit) => digit + digit).join('') : hex;
		return `#${six.toLowerCase()}`;
	};

	readonly url = (field: FieldName, value: unknown): string => {
		const text = this.text(field, value, { maxLength: 2000 });
		if (!URL.canParse(text) || !/^https?:$/.test(new URL(text).protocol)) {
			this.fail(
				field,
				`"${brief(text)}" is not a web address`,
				'Enter a full address starting with https://, for example https://example.com/logo.png.',
			);
		}
		return text;
	};
}

/** The prefix of each kind of id, and an example of one. */
const IDS = {
	report: ['rpt_', 'rpt_4k9x2m7q1z8w3h5j'],
	campaign: ['camp_', 'camp_8h2k4m9x1z7q'],
	diagnostic: ['diag_', 'diag_3m8k2x9q1z7w'],
	account: ['act_', 'act_123456789012345'],
} as const;

/** `YYYY-MM-DD`, optionally with a time (`T` or a space) and a zone (`Z`, `+02:00`, `-0500`). */
const ISO_TIME =
	/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** A Luxon DateTime, recognised by shape: n8n may hand over one from another copy of Luxon. */
function isDateTimeObject(value: unknown): value is { isValid: boolean; toMillis(): number } {
	return (
		typeof value === 'object' &&
		value !== null &&
		typeof (value as { toMillis?: unknown }).toMillis === 'function' &&
		typeof (value as { isValid?: unknown }).isValid === 'boolean'
	);
}

/** A number, or numeric text read as n8n reads it (`Number`); anything else as it is. */
function numberOf(value: unknown): unknown {
	return typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
}

/** What a value is, in a few words: never the value itself. */
export function describeType(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'object') return 'an object';
	if (typeof value === 'boolean') return `the boolean ${value}`;
	return `a ${typeof value}`;
}

/** A value quoted in a message, shortened. */
const brief = (text: string) => cut(text, 60);
