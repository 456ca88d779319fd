/**
 * Days and wall-clock times in the workflow's time zone, as n8n's `$today` and `$now`. Node code
 * cannot import Luxon, so this reads zones through `Intl`, which Node.js carries in full.
 */

const formats = new Map<string, Intl.DateTimeFormat>();

/** The zone to compute in: the workflow's when Intl knows it, else UTC. */
export function knownZone(timeZone: string | undefined): string {
	if (!timeZone) return 'UTC';
	try {
		formatIn(timeZone);
		return timeZone;
	} catch {
		return 'UTC';
	}
}

function formatIn(timeZone: string): Intl.DateTimeFormat {
	const known = formats.get(timeZone);
	if (known) return known;
	const format = new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
		hour: '2-digit',
		minute: '2-digit',
		second: '2-digit',
	});
	formats.set(timeZone, format);
	return format;
}

/** The wall clock of `timeZone` at the instant `ms`, as the UTC milliseconds of that reading. */
function wallClockMs(ms: number, timeZone: string): number {
	const parts: Record<string, number> = {};
	for (const part of formatIn(timeZone).formatToParts(ms)) {
		if (part.type !== 'literal') parts[part.type] = Number(part.value);
	}
	const wholeSecond = Math.floor(ms / 1000) * 1000;
	return (
		Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second) +
		(ms - wholeSecond)
	);
}

/** The calendar day (YYYY-MM-DD) of the instant `ms` in `timeZone`. */
export function dayIn(ms: number, timeZone: string): string {
	return new Date(wallClockMs(ms, timeZone)).toISOString().slice(0, 10);
}

/**
 * The instant at which `timeZone`'s clock reads the wall time `wallMs` (a wall time written as
 * UTC milliseconds). In a DST gap the later offset is taken; in an overlap, the first instant.
 */
export function instantOfWallTime(wallMs: number, timeZone: string): number {
	const firstOffset = wallClockMs(wallMs, timeZone) - wallMs;
	const guess = wallMs - firstOffset;
	const secondOffset = wallClockMs(guess, timeZone) - guess;
	return secondOffset === firstOffset ? guess : wallMs - secondOffset;
}

/** The day `days` before today in `timeZone` (as `$today.minus({ days })` gives it). */
export function daysBeforeToday(days: number, timeZone: string): string {
	const today = Date.parse(`${dayIn(Date.now(), timeZone)}T00:00:00Z`);
	return new Date(today - days * 86_400_000).toISOString().slice(0, 10);
}
