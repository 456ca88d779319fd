/**
 * Pacing for the service's rate limits, which belong to the API key (fixed windows that open
 * with the first request counted), so every execution of this process on one key and Base URL
 * shares one KeyPacer: they take turns to SEND (a turn ends when its request has left; only a
 * window's first answer is waited for, for its count) and requests count when sent. Processes
 * of a queue-mode setup meet only at the service: each takes its share of the remaining count,
 * with its peers guessed from that count and from 429s. Pure code: no HTTP, no timers.
 */
export type Bucket = 'read' | 'write' | 'generation' | 'diagnostic';

const BUCKET_LIMITS: Record<Bucket, number> = {
	read: 120,
	write: 10,
	diagnostic: 10,
	generation: 5,
};

export interface Clock {
	now(): number;
	random(): number;
}

/** The shortest wait after a 429, in service ms, before jitter (the floor's first ceiling). */
export const MIN_429_WAIT_MS = 1_000;
/** The longest backoff ceiling after repeated 429s without a longer hint, in service ms. */
const MAX_429_BACKOFF_MS = 30_000;

interface BucketState {
	/** What the service last said is left in the current window (`meta.remaining_requests`). */
	remaining?: number;
	/** Requests counted since we saw the window open, when the service did not say. */
	sent?: number;
	/** When we believe the current window ends; later than the service's, never earlier. */
	resetAt?: number;
	/** Requests sent and not yet answered: counted against `remaining`, which predates them. */
	inFlight?: number;
	/** When the window's first request was sent, until an answer dates the window (`resetAt`). */
	provisional?: number;
	/** The send number (onSent) of the window's first request: older answers tell of older windows. */
	firstSend?: number;
}

/** The pacing state of one key's buckets. */
export class RateLimiter {
	/** Numbers the sends, so that a late answer cannot overwrite what a newer one told. */
	private sends = 0;

	/** How many other processes (queue mode) we guess spend each bucket too (onAccepted). */
	private readonly peers: Partial<Record<Bucket, number>> = {};

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
			const { remaining, sent = 0, resetAt, inFlight = 0, provisional } = this.current(bucket, now);
			// Other processes on the key (queue mode) spend the same count: take only our share.
			const share = Math.floor((remaining ?? 0) / ((this.peers[bucket] ?? 0) + 1));
			const spent = remaining !== undefined ? inFlight >= share : sent >= BUCKET_LIMITS[bucket];
			if (spent && resetAt !== undefined) until = Math.max(until, resetAt);
			// A window's first request goes alone: the others look again shortly for the count its
			// answer tells, for a twentieth of a window at most (a slow answer holds up nobody).
			const { windowMs } = this.options;
			const firstOut =
				provisional !== undefined && inFlight > 0 && now < provisional + windowMs / 20;
			if (firstOut && bucket === buckets[buckets.length - 1])
				until = Math.max(until, now + windowMs / 200);
		}
		return until - now;
	}

	/** A request sent: it counts against the window from now on, answered or not. */
	onSent(buckets: Bucket[]): number {
		const sendNumber = ++this.sends;
		for (const bucket of buckets) {
			const state = this.countInWindow(bucket, sendNumber);
			state.inFlight = (state.inFlight ?? 0) + 1;
		}
		return sendNumber;
	}

	/** Records a request sent with onSent that got no answer (it may or may not have counted). */
	onUnanswered(buckets: Bucket[]): void {
		for (const bucket of buckets) this.land(bucket);
	}

	/**
	 * An accepted request, with the count the service told (`remaining`, of the request's
	 * strictest bucket) and its send number. Answers come back, and requests arrive, in any
	 * order: the lowest count told in a window is kept, a higher one never taken for a new window
	 * (our window's end, late and never early, says when one opens), and a count from a request
	 * sent before the window opened tells of the window before.
	 */
	onAccepted(buckets: Bucket[], remaining: number | undefined, sent?: number): void {
		const windowEnd = this.windowEnd();
		for (const bucket of buckets) {
			// A request not announced with onSent is counted now.
			if (!this.land(bucket)) this.countInWindow(bucket);
			// The first answer of a window dates it: the service opened it when the request
			// arrived, which may be well after it was sent (a new connection).
			const state = this.buckets[bucket];
			if (state.provisional !== undefined) {
				state.resetAt = Math.max(state.resetAt ?? 0, windowEnd);
				state.provisional = undefined;
			}
		}
		if (remaining === undefined) return;
		const told = buckets[buckets.length - 1];
		const state = this.buckets[told];
		if (sent !== undefined && state.firstSend !== undefined && sent < state.firstSend) return;
		// Counted before the window's first request of ours: another process spends the key too (a
		// 429 tells of more, onRejected); the guess fades in windows where neither is seen.
		const seen = remaining < BUCKET_LIMITS[told] - 1 ? 1 : 0;
		if (sent === state.firstSend && state.remaining === undefined)
			this.peers[told] = Math.max(seen, (this.peers[told] ?? 0) - 0.1);
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
		}
		state.sent = (state.sent ?? 0) + 1;
		return state;
	}

	/**
	 * The bucket's state in its current window (one believed ended is forgotten, but for what is
	 * in flight). The check before a send and the count at the send both go through here, so a
	 * request sent as a wait for the next window ends counts in that new window.
	 */
	private current(bucket: Bucket, now: number): BucketState {
		const state = this.buckets[bucket];
		if (state.resetAt !== undefined && state.resetAt <= now) {
			// The service counted no more than we sent: alone in that window, the guess halves.
			if (BUCKET_LIMITS[bucket] - (state.remaining ?? 0) <= (state.sent ?? 0))
				this.peers[bucket] = (this.peers[bucket] ?? 0) / 2;
			this.buckets[bucket] = { inFlight: state.inFlight };
		}
		return this.buckets[bucket];
	}

	/** The end of a window opening now: late, never early (the service opened it after we sent). */
	private windowEnd(): number {
		return this.options.clock.now() + this.options.windowMs * 1.01 + 5;
	}

	/** One request of the bucket is no longer in flight; false when none was. */
	private land(bucket: Bucket): boolean {
		const state = this.buckets[bucket];
		if (!state.inFlight) return false;
		state.inFlight--;
		return true;
	}

	/**
	 * A 429: how long the rejected request waits. Never less than a backoff floor with jitter (at
	 * least half of 1 s, 2 s, 4 s … 30 s, service time), so "retry after 0 seconds" cannot turn into
	 * hammering. A longer retry time holds the buckets until then, and the rejected request waits
	 * it plus a little jitter, so processes told the same time do not arrive in one burst.
	 */
	onRejected(buckets: Bucket[], hintMs: number | undefined, attempt: number): number {
		const { clock, windowMs } = this.options;
		const scale = windowMs / 60_000;
		const now = clock.now();
		for (const bucket of buckets) this.land(bucket);
		const told = buckets[buckets.length - 1]; // refused: more peers than we guessed
		this.peers[told] = Math.min((this.peers[told] ?? 0) + 1, BUCKET_LIMITS[told] - 1);
		const ceiling = Math.min(MAX_429_BACKOFF_MS, MIN_429_WAIT_MS * 2 ** Math.max(0, attempt - 1));
		// Equal jitter: half the ceiling for sure, the other half at random.
		const floor = (ceiling / 2 + (clock.random() * ceiling) / 2) * scale;
		const longerHint = hintMs === undefined || hintMs <= floor ? undefined : hintMs;
		// The service refused: nothing more of the buckets is sent until the longer hint, or floor.
		for (const bucket of buckets) {
			const { inFlight } = this.buckets[bucket];
			this.buckets[bucket] = { remaining: 0, resetAt: now + (longerHint ?? floor), inFlight };
		}
		if (longerHint === undefined) return floor;
		return longerHint + clock.random() * Math.min(2000 * scale, longerHint * 0.1 + 100 * scale);
	}
}

/**
 * A first-come, first-served turn for a key's writes, so that they wait for a spent window in
 * the order they came instead of racing. A turn covers pacing and sending, never the answer.
 */
export class TurnQueue {
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
