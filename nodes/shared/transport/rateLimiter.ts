import { backoffMs } from './retry';

/**
 * Pacing for the service's rate limits, which belong to the API key (fixed windows that open
 * with the first request counted), so every execution of this process on one key and Base URL
 * shares one KeyPacer, and requests count when sent. How processes of a queue-mode setup, which
 * meet only at the service, share a window (the opener fills it, the others learn from its
 * counts) is in docs/running-at-scale.md. Pure code: no HTTP, no timers.
 */
export type Bucket = 'read' | 'write' | 'generation' | 'diagnostic';

const BUCKET_LIMITS: Record<Bucket, number> = {
	read: 120,
	write: 10,
	diagnostic: 10,
	generation: 5,
};

/**
 * Buckets of at most this many requests a window are filled by the process that opened the
 * window; in larger ones (reads) every process takes what the count says is left.
 */
const SHARED_BY_OPENER = 10;

/**
 * The start of a window, as a share of it, in which its opener sends nothing more while other
 * processes are about: their first requests come then, and the opener's next count shows them.
 */
const GRACE_SHARE = 0.08;

/**
 * How long past a window's end a process with too little left to fill it holds its first request
 * (a share of a window): one with more work opens it, and this one comes within its GRACE_SHARE.
 */
const YIELD_SHARE = 0.04;

export interface Clock {
	now(): number;
	random(): number;
}

interface BucketState {
	/** What the service last said is left in the current window (`meta.remaining_requests`). */
	remaining?: number;
	/** Requests counted since we saw the window open, when the service did not say. */
	sent?: number;
	/**
	 * When we believe the current window ends: late, never early, for a window we opened; for one
	 * another process opened, dated from our send (early by at most our request's way there).
	 */
	resetAt?: number;
	/** Requests sent and not yet answered: counted against `remaining`, which predates them. */
	inFlight?: number;
	/** When the window's first request was sent, until an answer dates the window (`resetAt`). */
	provisional?: number;
	/** The send number (onSent) of the window's first request: older answers tell of older windows. */
	firstSend?: number;
	/** The send numbers of this window's requests, in order (what the service counted of ours). */
	sends?: number[];
	/** Requests of ours the service accepted in this window. */
	mine?: number;
	/** The most requests of other processes an answer of this window showed. */
	othersSeen?: number;
	/** Our first answer of the window showed no request before it: we opened it. */
	opener?: boolean;
	/** When the window before ended, as we believed: this one is due from then. */
	dueAt?: number;
}

/** The pacing state of one key's buckets. */
export class RateLimiter {
	/** Numbers the sends, so that a late answer cannot overwrite what a newer one told. */
	private sends = 0;

	/** Whether the last window this process spent showed other processes (queue mode) too. */
	private readonly sharedLately: Partial<Record<Bucket, boolean>> = {};

	/** Others' requests the last window we opened showed, or more if one we followed in did. */
	private readonly followers: Partial<Record<Bucket, number>> = {};

	/** Requests this process's executions said they have still to send (expect), by bucket. */
	private readonly expected: Partial<Record<Bucket, number>> = {};

	private readonly buckets: Record<Bucket, BucketState> = {
		read: {},
		write: {},
		diagnostic: {},
		generation: {},
	};

	constructor(private readonly options: { windowMs: number; clock: Clock }) {}

	/** How long to hold a request back so that it does not meet a spent window. */
	delayBeforeSend(buckets: Bucket[]): number {
		const now = this.options.clock.now();
		let until = now;
		for (const bucket of buckets) {
			const state = this.current(bucket, now);
			until = Math.max(until, this.sendableAt(bucket, state, now));
			// A window's first request goes alone: the others look again shortly for the count its
			// answer tells, for a twentieth of a window at most (a slow answer holds up nobody).
			const { provisional, inFlight = 0 } = state;
			const { windowMs } = this.options;
			if (provisional !== undefined && inFlight > 0 && bucket === buckets[buckets.length - 1])
				if (now < provisional + windowMs / 20) until = Math.max(until, now + windowMs / 200);
		}
		return until - now;
	}

	/** When the bucket may take one more request, as far as this window's counts tell. */
	private sendableAt(bucket: Bucket, state: BucketState, now: number): number {
		const { remaining, sent = 0, resetAt, inFlight = 0, othersSeen = 0, opener } = state;
		const { windowMs } = this.options;
		const windowEnd = resetAt ?? now;
		// Held for an answer's count: look again shortly, not at the window's end.
		const soon = now + windowMs / 200;
		if (remaining === undefined) {
			if (sent >= BUCKET_LIMITS[bucket]) return windowEnd;
			if (sent === 0 && state.dueAt !== undefined && this.leavesOpeningToOthers(bucket))
				return Math.max(now, state.dueAt + windowMs * YIELD_SHARE);
			return now;
		}
		if (BUCKET_LIMITS[bucket] > SHARED_BY_OPENER) return inFlight >= remaining ? windowEnd : now;
		if (inFlight >= remaining) return windowEnd;
		if (othersSeen > 0 && !opener) return windowEnd;
		// Alone, the opener fills its window at once; shared, it waits out GRACE_SHARE, then sends
		// one at a time, each count read before the next goes.
		const shared = othersSeen > 0 || this.sharedLately[bucket] === true;
		if (!shared) return now;
		const graceEnd = windowEnd - windowMs * (1 - GRACE_SHARE);
		if (now < graceEnd) return graceEnd;
		return inFlight > 0 ? soon : now;
	}

	/**
	 * Requests of the bucket that this process's executions have still to send (added before they
	 * send, each taken away once done). Never told is taken as plenty.
	 */
	expect(bucket: Bucket, change: number): void {
		this.expected[bucket] = Math.max(0, (this.expected[bucket] ?? 0) + change);
	}

	/** Whether this process, with others about, has too little left to fill a window it opened. */
	private leavesOpeningToOthers(bucket: Bucket): boolean {
		const expected = this.expected[bucket];
		const followers = this.followers[bucket] ?? 0;
		return (
			expected !== undefined &&
			followers > 0 &&
			this.sharedLately[bucket] === true &&
			expected < BUCKET_LIMITS[bucket] - followers
		);
	}

	/** A request sent: it counts against the window from now on, answered or not. */
	onSent(buckets: Bucket[]): number {
		const sendNumber = ++this.sends;
		for (const bucket of buckets) {
			const state = this.countInWindow(bucket, sendNumber);
			state.inFlight = (state.inFlight ?? 0) + 1;
			if (state.sends && state.sends.length < BUCKET_LIMITS[bucket]) state.sends.push(sendNumber);
		}
		return sendNumber;
	}

	/** Records a request sent with onSent that got no answer (it may or may not have counted). */
	onUnanswered(buckets: Bucket[]): void {
		for (const bucket of buckets) this.land(bucket);
	}

	/**
	 * An accepted request, with the count the service told (of the request's strictest bucket) and
	 * its send number. Answers come in any order: the lowest count of a window is kept, and one
	 * from a request sent before the window opened tells of the window before.
	 */
	onAccepted(buckets: Bucket[], remaining: number | undefined, sent?: number): void {
		const windowEnd = this.windowEnd();
		const told = buckets[buckets.length - 1];
		for (const bucket of buckets) {
			// A request not announced with onSent is counted now.
			if (!this.land(bucket)) this.countInWindow(bucket);
			// The first answer of a window dates it (the service opened it when the request arrived),
			// but for one another process opened: it keeps the date of our send, so that we are not
			// later to the next window than the others by our answer's time.
			const state = this.buckets[bucket];
			if (state.provisional !== undefined) {
				const openedByOthers =
					bucket === told &&
					BUCKET_LIMITS[told] <= SHARED_BY_OPENER &&
					remaining !== undefined &&
					sent === state.firstSend &&
					BUCKET_LIMITS[told] - remaining > 1;
				if (!openedByOthers) state.resetAt = Math.max(state.resetAt ?? 0, windowEnd);
				state.provisional = undefined;
			}
		}
		if (remaining === undefined) return;
		const state = this.buckets[told];
		if (sent !== undefined && state.firstSend !== undefined && sent < state.firstSend) return;
		state.mine = (state.mine ?? 0) + 1;
		// Others' requests counted before this answer: every one of ours sent in this window may
		// have been counted first (requests overtake each other), so never more than they took.
		const oursSoFar = state.sends ? state.sends.length : (state.mine ?? 1);
		const othersNow = BUCKET_LIMITS[told] - remaining - Math.max(oursSoFar, 1);
		state.othersSeen = Math.max(state.othersSeen ?? 0, othersNow);
		state.opener ??= othersNow <= 0;
		state.remaining = Math.min(state.remaining ?? remaining, remaining);
	}

	/** Counts a request in its window, opened now if none is known (provisionally at a send). */
	private countInWindow(bucket: Bucket, sendNumber?: number): BucketState {
		const state = this.current(bucket, this.options.clock.now());
		if (state.resetAt === undefined) {
			state.resetAt = this.windowEnd();
			state.sent = 0;
			state.provisional = sendNumber !== undefined ? this.options.clock.now() : undefined;
			state.firstSend = sendNumber;
			state.sends = [];
		}
		state.sent = (state.sent ?? 0) + 1;
		return state;
	}

	/**
	 * The bucket's state in its current window (one believed ended is forgotten, but for what is
	 * in flight and what it showed of the others). The check before a send and the count at the
	 * send both go through here, so a request sent as a window ends counts in the new one.
	 */
	private current(bucket: Bucket, now: number): BucketState {
		const state = this.buckets[bucket];
		if (state.resetAt !== undefined && state.resetAt <= now) {
			if (state.mine) this.sharedLately[bucket] = (state.othersSeen ?? 0) > 0;
			if (state.opener) this.followers[bucket] = state.othersSeen ?? 0;
			else if (state.mine)
				this.followers[bucket] = Math.max(this.followers[bucket] ?? 0, state.othersSeen ?? 0);
			this.buckets[bucket] = { inFlight: state.inFlight, dueAt: state.resetAt };
		}
		return this.buckets[bucket];
	}

	/** The end of a window opening now: late, never early (the service opened it after we sent). */
	private windowEnd(): number {
		return this.options.clock.now() + this.options.windowMs * 1.002 + 5;
	}

	/** One request of the bucket is no longer in flight; false when none was. */
	private land(bucket: Bucket): boolean {
		const state = this.buckets[bucket];
		if (!state.inFlight) return false;
		state.inFlight--;
		return true;
	}

	/**
	 * A 429: how long the rejected request waits. Never less than a jittered backoff floor, so
	 * "retry after 0 seconds" cannot turn into hammering; a longer retry time holds the buckets,
	 * plus a little jitter, so processes told the same time do not arrive in one burst.
	 */
	onRejected(buckets: Bucket[], hintMs: number | undefined, attempt: number): number {
		const { clock, windowMs } = this.options;
		const scale = windowMs / 60_000;
		const now = clock.now();
		// Equal jitter: half the backoff's ceiling (service ms) for sure, the other half at random.
		const ceiling = backoffMs(attempt, 1);
		const floor = (ceiling / 2 + (clock.random() * ceiling) / 2) * scale;
		const longerHint = hintMs === undefined || hintMs <= floor ? undefined : hintMs;
		for (const bucket of buckets) {
			this.land(bucket);
			// Refused: another process spends the key too (queue mode), whatever the counts showed.
			this.sharedLately[bucket] = true;
			// Nothing more of the bucket is sent until the longer hint, or the floor.
			const { inFlight, mine, othersSeen, opener } = this.current(bucket, now);
			this.buckets[bucket] = {
				remaining: 0,
				resetAt: now + (longerHint ?? floor),
				inFlight,
				mine,
				othersSeen,
				opener,
			};
		}
		if (longerHint === undefined) return floor;
		return longerHint + clock.random() * Math.min(2000 * scale, longerHint * 0.1 + 100 * scale);
	}
}

/**
 * A first-come, first-served turn for a key's writes, so that they wait for a spent window in
 * the order they came instead of racing. A turn covers pacing and sending, never the answer.
 */
class TurnQueue {
	private tail: Promise<void> = Promise.resolve();

	/** `turn` comes when every earlier holder released; call `release` once, turn or not. */
	join(): { turn: Promise<void>; release: () => void } {
		const previous = this.tail;
		let release!: () => void;
		const done = new Promise<void>((resolve) => (release = resolve));
		this.tail = previous.then(() => done);
		return { turn: previous, release };
	}
}

/** The pacing shared by every request of one key, whichever execution of this n8n sends it. */
export interface KeyPacer {
	limiter: RateLimiter;
	writes: TurnQueue;
	/**
	 * Requests in flight that identical ones of other executions share (single-flight), by body,
	 * with the very key they were sent with (pacers tell keys apart only by a hash).
	 */
	shared: Map<string, { apiKey: string; exchange: Promise<unknown> }>;
}

const pacers = new Map<string, KeyPacer>();
/** Keys seen by one process are few; the bound only keeps a long-lived process tidy. */
const MAX_PACERS = 64;

/**
 * The pacer of a key at a Base URL. The key itself is not kept: its FNV-1a hash tells keys
 * apart, and a collision would only make two keys share their pacing.
 */
export function pacerFor(
	baseUrl: string,
	apiKey: string,
	windowMs: number,
	clock: Clock,
): KeyPacer {
	const id = `${baseUrl}\n${fnv1a(apiKey)}\n${windowMs}`;
	let pacer = pacers.get(id);
	if (pacer) {
		// Most recently used last, so the oldest is the one let go.
		pacers.delete(id);
	} else {
		pacer = {
			limiter: new RateLimiter({ windowMs, clock }),
			writes: new TurnQueue(),
			shared: new Map(),
		};
		if (pacers.size >= MAX_PACERS) pacers.delete(pacers.keys().next().value as string);
	}
	pacers.set(id, pacer);
	return pacer;
}

function fnv1a(text: string): string {
	let hash = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		hash ^= text.charCodeAt(i);
		hash = Math.imul(hash, 0x01000193) >>> 0;
	}
	return hash.toString(16);
}
