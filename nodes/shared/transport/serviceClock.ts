import { describeDuration } from './boundedReader';

/**
 * The service's clock, as one execution sees it: how fast its durations run and what time it
 * shows. Everything that compares n8n's time with the service's timestamps asks this class.
 *
 * Speed. A service second is a second, except in the offline sandbox, which may run faster
 * (the credential's hidden `timeScale`) so that tests do not take real minutes; honoured only
 * for a Base URL on this machine, so a sandbox's credential never hurries against a real service.
 *
 * Time shown. Record times are written by the service's clock, which may be minutes (or, with a
 * time-zone bug, hours) off n8n's. Its `Date` header and n8n's clock each make a reading, which
 * the record times bound (readings()); readings that disagree answer every question together,
 * and where they differ the answer is "unsure", never a guess.
 */
export class ServiceClock {
	/** Real milliseconds per service millisecond: 1, or less for a sped-up local sandbox. */
	readonly speed: number;

	/** (service − n8n) according to the Date headers, intersected over every answer. */
	private dateOffset: OffsetRange | undefined;
	/** Date headers that contradicted each other: the header is not a clock to go by. */
	private dateBroken = false;
	/** (service − n8n) according to record times: at least `lo`, at most `hi`. */
	private readonly recordOffset: OffsetRange = { lo: -Infinity, hi: Infinity };

	/** When the last request that got an answer was sent (n8n time). */
	lastAnsweredSendAt: number | undefined;

	constructor(baseUrl: string, timeScale: unknown) {
		const scale = Number(timeScale ?? 1);
		this.speed =
			isLoopbackUrl(baseUrl) && Number.isFinite(scale) && scale > 0 && scale <= 1 ? scale : 1;
	}

	/** A duration of service time (the figures the service documents) in real milliseconds. */
	realMs(serviceMs: number): number {
		return serviceMs * this.speed;
	}

	/** A real duration in service milliseconds (for messages that quote the service's units). */
	serviceMs(realMs: number): number {
		return realMs / this.speed;
	}

	/** An answer's `Date` header: written after `sentAt`, before `receivedAt`, it bounds both ways. */
	observeExchange(dateHeader: string | undefined, sentAt: number, receivedAt: number): void {
		this.lastAnsweredSendAt = sentAt;
		const time = serviceTime(dateHeader);
		if (time === undefined || this.dateBroken) return;
		// An HTTP date has whole seconds: the moment it stands for is up to 999 ms later.
		const previous = this.dateOffset ?? { lo: -Infinity, hi: Infinity };
		const lo = Math.max(previous.lo, time.earliest - receivedAt);
		const hi = Math.min(previous.hi, time.latest - sentAt);
		if (lo > hi + AGREEMENT_MS) {
			this.dateBroken = true;
			this.dateOffset = undefined;
			return;
		}
		this.dateOffset = lo <= hi ? { lo, hi } : { lo: hi, hi: lo };
	}

	/** A time in a record, written before the service answered at `receivedAt` (a lower bound). */
	observeRecordTime(value: unknown, receivedAt: number): void {
		const time = serviceTime(value);
		if (time !== undefined)
			this.recordOffset.lo = Math.max(this.recordOffset.lo, time.earliest - receivedAt);
	}

	/** A record our request created, so no older than its send at `sentAt` (an upper bound). */
	observeCreation(value: unknown, sentAt: number): void {
		const time = serviceTime(value);
		if (time !== undefined)
			this.recordOffset.hi = Math.min(this.recordOffset.hi, time.latest - sentAt);
	}

	/**
	 * The earliest time the service can show at `hostMs`: "created after" it misses nothing.
	 * `ownRequest`: the question is what our own lost request created (see readings()).
	 */
	lowerBound(hostMs: number, ownRequest = false): number {
		return Math.min(...this.readings(ownRequest).map((reading) => hostMs + reading.lo));
	}

	/**
	 * Whether the service's clock has not reached `serviceMs` (a time it wrote) at `hostMs`, by its
	 * own word: its Date header once an answer carried one (never n8n's clock against it), else
	 * any standing reading; before any answer, nothing says so.
	 */
	notYetReached(serviceMs: number, hostMs: number): boolean {
		if (this.lastAnsweredSendAt === undefined) return false;
		const readings = this.readings();
		const own = readings.filter((reading) => reading.source === 'date');
		return (own.length > 0 ? own : readings).some((reading) => serviceMs > hostMs + reading.hi);
	}

	/**
	 * Whether a record created at the service time `created` was created before or after the n8n
	 * moment `hostMs`; "after" includes the same instant, within a reading's precision (a second).
	 */
	placeCreation(
		created: ServiceTimeRange,
		hostMs: number,
		ownRequest = false,
	): 'before' | 'after' | 'unsure' {
		const places = this.readings(ownRequest).map((reading) => {
			if (created.latest < hostMs + reading.lo) return 'before';
			// The margin is a range, not one reading's precision: inside it, either could be true.
			const afterFrom = reading.hi - (reading.source === 'margin' ? HOST_WIDTH_MS : Infinity);
			return created.latest < hostMs + afterFrom ? 'unsure' : 'after';
		});
		return places.every((place) => place === places[0]) ? places[0] : 'unsure';
	}

	/** How the standing readings leave a creation's place unsure, in words, or undefined. */
	disagreement(ownRequest = false): string | undefined {
		const readings = this.readings(ownRequest);
		const margin = readings.find((reading) => reading.source === 'margin');
		const los = readings.filter((reading) => reading !== margin).map((reading) => reading.lo);
		const spread = Math.max(...los) - Math.min(...los);
		if (spread >= AGREEMENT_MS)
			return `its Date header and n8n's clock differ by about ${describeDuration(spread)}, and its records do not say which is right`;
		const width = margin ? Math.max(margin.hi - HOST_WIDTH_MS, ...los) - margin.lo : 0;
		if (width < AGREEMENT_MS) return undefined;
		return this.dateOffset
			? `its records do not confirm its Date header, so the clock they are stamped by is known only to within ${describeDuration(width)} of it`
			: `no answer has carried a usable Date header, so the service's time is known only to within ${describeDuration(width)} of n8n's`;
	}

	/**
	 * The readings of (service − n8n): once the records confirm the Date header, it alone stands.
	 * Else one that the record times contradict is moved to the nearest offset they allow (a Date
	 * header an hour behind fresh records reads "as late as the records say"), unless the records
	 * contradict every reading, or themselves: then the records lie, and the readings stand.
	 *
	 * Until the records confirm the Date header, the clock they are stamped by may be as far off
	 * as CLOCK_SKEW_MARGIN_MS (no Date header read yet; a header written by a proxy whose clock is
	 * not the records'). A third reading, the margin, says so: "before" only beyond it, as far back
	 * as the newest record allows; "after" by the readings the records meet, else only beyond the
	 * range the records allow. It stands while no Date header is read, and for `ownRequest`, where
	 * a wrong "before" sends a request again: a report inside it is "unsure", never made twice.
	 */
	private readings(ownRequest = false): Reading[] {
		if (this.dateOffset && this.recordsConfirmDate(this.dateOffset))
			return [{ source: 'date', ...this.dateOffset }];
		const readings: Reading[] = [{ source: 'n8n', ...HOST_READING }];
		if (this.dateOffset) readings.push({ source: 'date', ...this.dateOffset });
		const margin: Reading | undefined =
			this.dateOffset && !ownRequest
				? undefined
				: { source: 'margin', lo: -CLOCK_SKEW_MARGIN_MS, hi: CLOCK_SKEW_MARGIN_MS };
		const { lo, hi } = this.recordOffset;
		const believed =
			!this.recordsLie() && [...readings, margin].some((r) => r && this.recordsMeet(r));
		const anyMet = believed && readings.some((reading) => this.recordsMeet(reading));
		const standing = readings.map((reading) => {
			if (!believed || this.recordsMeet(reading)) return reading;
			const nearest = reading.hi < lo ? lo : hi;
			return { source: reading.source, lo: nearest, hi: nearest };
		});
		if (!margin) return standing;
		const least = Math.min(
			...standing.map((r) => r.lo),
			believed ? Math.max(margin.lo, lo) : margin.lo,
		);
		const most =
			believed && !anyMet
				? Math.max(least, Math.min(margin.hi, hi))
				: Math.max(...standing.map((r) => r.hi));
		return [...standing, { source: 'margin', lo: least, hi: most }];
	}

	/** The record times allow an offset in `reading` (within the agreement slack). */
	private recordsMeet(reading: OffsetRange): boolean {
		const { lo, hi } = this.recordOffset;
		return lo <= reading.hi + AGREEMENT_MS && hi >= reading.lo - AGREEMENT_MS;
	}

	/** The record times contradict themselves: none of them is a clock to go by. */
	private recordsLie(): boolean {
		return this.recordOffset.lo > this.recordOffset.hi + AGREEMENT_MS;
	}

	/**
	 * The newest record is stamped as late as the header says (within whole-second slack), none
	 * later, and none our request created older. Only a record stamped at the very second a lying
	 * header names confirms it; old or new records alone confirm nothing.
	 */
	private recordsConfirmDate(date: OffsetRange): boolean {
		return this.recordOffset.lo >= date.lo - AGREEMENT_MS && this.recordsMeet(date);
	}
}

interface OffsetRange {
	lo: number;
	hi: number;
}

/** 'margin': how far off the records' clock may be while they confirm no reading. */
type Reading = OffsetRange & { source: 'n8n' | 'date' | 'margin' };

/** n8n's own clock as a reading: within a second of the service's. */
const HOST_READING: OffsetRange = { lo: -1_000, hi: 1_000 };
const HOST_WIDTH_MS = HOST_READING.hi - HOST_READING.lo;
/** Slack when comparing readings: whole-second stamps and the moment a record is written. */
const AGREEMENT_MS = 2_000;

/** A service timestamp: the earliest and latest moment it can stand for, given its precision. */
interface ServiceTimeRange {
	earliest: number;
	latest: number;
}

/**
 * A timestamp the service wrote (ISO 8601 in records, an HTTP date in headers). One without
 * milliseconds stands for a whole second (or minute, or day): its latest moment is that later.
 */
export function serviceTime(value: unknown): ServiceTimeRange | undefined {
	if (typeof value !== 'string' || value.length > 64) return undefined;
	const earliest = Date.parse(value);
	if (!Number.isFinite(earliest)) return undefined;
	const fraction = /\d[T ]\d\d:\d\d:\d\d[.,](\d+)/.exec(value);
	let precision = 86_400_000;
	if (fraction) precision = 10 ** Math.max(0, 3 - fraction[1].length);
	else if (/\d\d:\d\d:\d\d/.test(value)) precision = 1_000;
	else if (/\d\d:\d\d/.test(value)) precision = 60_000;
	return { earliest, latest: earliest + precision - 1 };
}

function isLoopbackUrl(url: string): boolean {
	let host: string;
	try {
		host = new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, '');
	} catch {
		return false;
	}
	return (
		host === 'localhost' ||
		host.endsWith('.localhost') ||
		host === '::1' ||
		/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
	);
}

/**
 * How far a record may be listed later than its timestamp says (an index that lags, a coarse
 * `from` filter): filters on the service's timestamps are widened by this below the readings.
 */
export const CLOCK_SKEW_MARGIN_MS = 5 * 60_000;
