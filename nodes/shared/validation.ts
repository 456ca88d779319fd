import type { INode } from 'n8n-workflow';

import { fieldError, type FieldName } from './errors';

/**
 * Input checks that run before any request: what we already know the service would refuse
 * costs the user no request and gets a message that names the field and the fix.
 */
export class InputValidator {
	constructor(
		private readonly node: INode,
		private readonly itemIndex: number,
	) {}

	fail(field: FieldName, problem: string, fix: string): never {
		throw fieldError(this.node, field, problem, fix, this.itemIndex);
	}

	/** A non-empty string (numbers are accepted as their text); nothing else. */
	text(
		field: FieldName,
		value: unknown,
		options: { maxLength?: number; required?: boolean } = {},
	): string {
		const { maxLength = 1000, required = true } = options;
		if (value === undefined || value === null || value === '') {
			if (!required) return '';
			this.fail(field, 'is empty', `Enter a value for ${field}.`);
		}
		if (typeof value !== 'string' && typeof value !== 'number') {
			this.fail(
				field,
				`must be text, but the value is ${describeType(value)}`,
				`Make ${field} a plain text value (check the expression).`,
			);
		}
		const text = String(value).trim();
		if (text === '' && required) this.fail(field, 'is empty', `Enter a value for ${field}.`);
		if (text.length > maxLength) {
			this.fail(
				field,
				`is ${text.length} characters long, more than ${maxLength}`,
				`Shorten ${field} to at most ${maxLength} characters.`,
			);
		}
		return text;
	}

	/** An id with a type prefix, e.g. `camp_…`; only letters, digits, `_` and `-` after it. */
	id(field: FieldName, value: unknown, prefix: string, example: string): string {
		const text = this.text(field, value, { maxLength: 200 });
		if (!text.startsWith(prefix)) {
			this.fail(
				field,
				`"${clip(text)}" is not a valid ID`,
				`It must start with ${prefix}, for example ${example}.`,
			);
		}
		if (!/^[A-Za-z0-9_-]+$/.test(text) || text.length === prefix.length) {
			this.fail(
				field,
				`"${clip(text)}" contains characters an ID cannot have`,
				`An ID is ${prefix} followed by letters, digits, _ or - (no spaces, slashes or dots), for example ${example}.`,
			);
		}
		return text;
	}

	reportId(field: FieldName, value: unknown): string {
		return this.id(field, value, 'rpt_', 'rpt_4k9x2m7q1z8w3h5j');
	}

	campaignId(field: FieldName, value: unknown): string {
		return this.id(field, value, 'camp_', 'camp_8h2k4m9x1z7q');
	}

	diagnosticId(field: FieldName, value: unknown): string {
		return this.id(field, value, 'diag_', 'diag_3m8k2x9q1z7w');
	}

	/** A service account id or an ad platform account id; both start with `act_`. */
	accountId(field: FieldName, value: unknown): string {
		return this.id(field, value, 'act_', 'act_123456789012345');
	}

	/** An ad platform account id: `act_` followed by digits. */
	platformAccountId(field: FieldName, value: unknown): string {
		const text = this.text(field, value, { maxLength: 200 });
		if (!/^act_\d+$/.test(text)) {
			this.fail(
				field,
				`"${clip(text)}" is not an ad platform account ID`,
				'Use the ad platform account ID, act_ followed by digits (for example act_123456789012345), or pick the account from the list.',
			);
		}
		return text;
	}

	/** A calendar date `YYYY-MM-DD` (a full ISO timestamp is cut to its date). */
	date(field: FieldName, value: unknown): string {
		let text: string | undefined;
		if (typeof value === 'string') text = value.trim();
		else if (value instanceof Date && !Number.isNaN(value.getTime())) text = value.toISOString();
		else if (
			value &&
			typeof value === 'object' &&
			typeof (value as { toISODate?: unknown }).toISODate === 'function'
		) {
			text = String((value as { toISODate: () => string }).toISODate());
		}
		if (text === undefined || text === '') {
			this.fail(
				field,
				value === undefined || value === ''
					? 'is empty'
					: `must be a date, but the value is ${describeType(value)}`,
				`Enter ${field} as YYYY-MM-DD, for example 2026-03-01.`,
			);
		}
		const match = /^(\d{4})-(\d{2})-(\d{2})(?:$|T)/.exec(text);
		if (!match)
			this.fail(
				field,
				`"${clip(text)}" is not a date in the form YYYY-MM-DD`,
				`Enter ${field} as YYYY-MM-DD, for example 2026-03-01.`,
			);
		const [, y, m, d] = match;
		const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
		if (
			date.getUTCFullYear() !== Number(y) ||
			date.getUTCMonth() !== Number(m) - 1 ||
			date.getUTCDate() !== Number(d)
		) {
			this.fail(
				field,
				`${y}-${m}-${d} is not a real calendar date`,
				`Enter an existing date as YYYY-MM-DD.`,
			);
		}
		return `${y}-${m}-${d}`;
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

	/** Two ISO 8601 moments of a filter (timestamp): the first not after the second. */
	timestampOrder(fromField: FieldName, from: string, toField: FieldName, to: string) {
		if (Date.parse(from) > Date.parse(to)) {
			this.fail(
				fromField,
				`${from} is after ${toField} ${to}`,
				`Set ${fromField} to a moment before ${toField}.`,
			);
		}
	}

	/** An ISO 8601 date or timestamp for a list filter. */
	timestamp(field: FieldName, value: unknown): string {
		const text = this.text(field, value, { maxLength: 64 });
		if (
			!/^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text) ||
			Number.isNaN(Date.parse(text))
		) {
			this.fail(
				field,
				`"${clip(text)}" is not an ISO 8601 date`,
				`Enter ${field} as YYYY-MM-DD or a full timestamp such as 2026-03-01T00:00:00Z.`,
			);
		}
		// Date.parse rolls 2026-02-30 over into March: the day itself must exist.
		this.date(field, text.slice(0, 10));
		return text;
	}

	/** Campaign ids as an array or a comma-separated string; at most 20 (docs/service-notes.md, Report requests). */
	campaignIds(field: FieldName, value: unknown): string[] {
		let list: unknown[];
		if (Array.isArray(value)) list = value;
		else if (typeof value === 'string') list = value.split(',');
		else
			this.fail(
				field,
				`must be a list of campaign IDs, but the value is ${describeType(value)}`,
				'Give campaign IDs as an array or a comma-separated text like camp_abc,camp_def.',
			);
		const ids = list
			.map((entry) => (typeof entry === 'string' ? entry.trim() : entry))
			.filter((entry) => entry !== '');
		if (ids.length > 20) {
			this.fail(
				field,
				`has ${ids.length} campaign IDs, more than 20`,
				'A report covers at most 20 campaigns. Split them over several reports.',
			);
		}
		return ids.map((id, index) =>
			this.id(`${field} (entry ${index + 1})`, id, 'camp_', 'camp_8h2k4m9x1z7q'),
		);
	}

	/** One of `allowed`, in any letter case (a model may write `active` for `ACTIVE`); the listed spelling comes back. */
	oneOf<T extends string>(field: FieldName, value: unknown, allowed: readonly T[]): T {
		const match =
			typeof value === 'string'
				? allowed.find((option) => option.toLowerCase() === value.trim().toLowerCase())
				: undefined;
		if (match === undefined) {
			this.fail(
				field,
				`"${clip(String(value))}" is not allowed`,
				`Use one of: ${allowed.join(', ')}.`,
			);
		}
		return match;
	}

	/** A whole number within bounds (page limits, attempts, seconds). */
	integer(field: FieldName, value: unknown, min: number, max: number): number {
		const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
		if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
			this.fail(
				field,
				`${clip(String(value))} is not a whole number from ${min} to ${max}`,
				`Set ${field} to a whole number from ${min} to ${max}.`,
			);
		}
		return number;
	}

	/** A number of seconds within bounds (fractions allowed). */
	seconds(field: FieldName, value: unknown, min: number, max: number): number {
		return this.finiteNumber(field, value, min, max, 'seconds');
	}

	/** A number of minutes within bounds (fractions allowed). */
	minutes(field: FieldName, value: unknown, min: number, max: number): number {
		return this.finiteNumber(field, value, min, max, 'minutes');
	}

	/** A size in MB within bounds (fractions allowed), e.g. Max File Size. */
	megabytes(field: FieldName, value: unknown, min: number, max: number): number {
		return this.finiteNumber(field, value, min, max, 'MB');
	}

	/** Expressions can yield NaN, Infinity, words or objects: none of them may pass as a number. */
	private finiteNumber(field: FieldName, value: unknown, min: number, max: number, unit: string) {
		const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
		if (typeof number !== 'number' || !Number.isFinite(number) || number < min || number > max) {
			this.fail(
				field,
				`${clip(String(value))} is not a number of ${unit} from ${min} to ${max}`,
				`Set ${field} to a number from ${min} to ${max}.`,
			);
		}
		return number;
	}

	color(field: FieldName, value: unknown): string {
		const text = this.text(field, value, { maxLength: 7 });
		if (!/^#[0-9a-fA-F]{6}$/.test(text)) {
			this.fail(
				field,
				`"${clip(text)}" is not a color in the form #rrggbb`,
				'Enter the color as # followed by six hex digits, for example #1a73e8.',
			);
		}
		return text;
	}

	url(field: FieldName, value: unknown): string {
		const text = this.text(field, value, { maxLength: 2000 });
		let parsed: URL | undefined;
		try {
			parsed = new URL(text);
		} catch {
			parsed = undefined;
		}
		if (!parsed || !/^https?:$/.test(parsed.protocol)) {
			this.fail(
				field,
				`"${clip(text)}" is not a web address`,
				'Enter a full address starting with https://, for example https://example.com/logo.png.',
			);
		}
		return text;
	}
}

function describeType(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'object') return 'an object';
	if (typeof value === 'boolean') return `the boolean ${value}`;
	return `a ${typeof value}`;
}

function clip(text: string): string {
	return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
