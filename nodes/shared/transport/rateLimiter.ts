/**
 * Pacing for the service's rate limits. The limits belong to the API key (120 reads, 10
 * writes, 10 diagnostic runs and 5 report generations a minute, in fixed windows that open
 * with the first request counted), so the pacing belongs to the key too: every execution that
 * n8n runs in this process with the same key and Base URL shares one KeyPacer. This is what
 * keeps ten Monday-morning workflows on one key from stampeding the service: inside one
 * process they take turns to SEND (a turn ends when its request has left, never when it is
 * answered: only a window's first answer is waited for, for its count), requests are counted
 * when sent, and only the processes of an n8n queue-mode setup still meet at the service, each
 * taking its share of the remaining count, with peers guessed from that count and 429s.
 *
 * Pure code: no HTTP and no timers, so it is unit-tested with a fake clock.
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

	/**
	 * Records a request as it is sent: it counts against the window from now on, answered or
	 * not, so that the next turn-holder does not send into a window the unanswered ones spend.
	 */
	onSent(buckets: Bucket[]): number {
		const sendNumber = ++this.sends;
		for (const bucket of buckets) {
			const state = this.openWindow(bucket, sendNumber);
			state.sent = (state.sent ?? 0) + 1;
			state.inFlight = (state.inFlight ?? 0) + 1;
		}
		return sendNumber;
	}

	/** Records a request sent with onSent that got no answer (it may or may not have counted). */
	onUnanswered(buckets: Bucket[]): void {
		for (const bucket of buckets) this.land(bucket);
	}

	/**
	 * Records an accepted request. `remaining` is what the service reported; it counts against
	 * the strictest bucket of the request (the generation bucket for POST /v1/reports). `sent` is
	 * the request's number from onSent. Within a window the service's count only falls, but
	 * answers come back in any order and requests reach the service in another order than they
	 * were sent: so the lowest count told in the window is the one kept, and a higher one is never
	 * taken for a new window (our window's end, late and never early, says when one opens). A
	 * count from a request sent before the window opened tells of the window before.
	 */
	onAccepted(buckets: Bucket[], remaining: number | undefined, sent?: number): void {
		const windowEnd = this.windowEnd();
		for (const bucket of buckets) {
			// A request not announced with onSent is counted now.
			if (!this.land(bucket)) {
				const state = this.openWindow(bucket);
				state.sent = (state.sent ?? 0) + 1;
			}
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

	/**
	 * The window a request counts in, opened now if none is known: provisionally when the request
	 * is only being sent (its answer dates the window, see onAccepted).
	 */
	private openWindow(bucket: Bucket, sendNumber?: number): BucketState {
		const state = this.current(bucket, this.options.clock.now());
		if (state.resetAt === undefined) {
			state.resetAt = this.windowEnd();
			state.sent = 0;
			state.provisional = sendNumber !== undefined ? this.options.clock.now() : undefined;
			state.firstSend = sendNumber;
		}
		return state;
	}

	/**
	 * The bucket's state in its current window: a window we believe ended is forgotten (what is
	 * still in flight stays counted as in flight). Both the check before a send and the count at
	 * the send go through here, so a request sent the moment a wait for the next window ends
	 * counts in that new window, not in the spent one.
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

	/**
	 * The end of a window opening now. The service opened it when it counted its first request,
	 * after we sent it: ending our estimate a little after one window from now is late, never
	 * early.
	 */
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
	 * Records a 429 and returns how long the rejected request should wait. Every wait has a
	 * floor: an exponential backoff with jitter (at least half of 1 s, 2 s, 4 s … 30 s, service
	 * time, by the request's count of 429s), so a hint of "retry after 0 seconds", or none, can
	 * never turn into hammering. With a retry time from the service that is longer, every request
	 * of these buckets is held back until then (so requests of the same process do not meet the
	 * spent window again), and the rejected one waits that long plus a little jitter, so that
	 * processes told the same time do not arrive in one burst.
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
		if (hintMs === undefined || hintMs <= floor) {
			for (const bucket of buckets) this.hold(bucket, now + floor);
			return floor;
		}
		for (const bucket of buckets) this.hold(bucket, now + hintMs);
		return hintMs + clock.random() * Math.min(2000 * scale, hintMs * 0.1 + 100 * scale);
	}

	/** The service refused: nothing more of the bucket is sent until `until`. */
	private hold(bucket: Bucket, until: number): void {
		this.buckets[bucket] = {
			remaining: 0,
			resetAt: until,
			inFlight: this.buckets[bucket].inFlight,
		};
	}
}

/**
 * A first-come, first-served turn. Writes of one key take turns through it, so that when a
 * window is spent they wait in the order they came instead of racing for the next one. A turn
 * covers pacing and sending, never the answer (pipeline.ts releases it once the request left).
 */
export class TurnQueue {
	private tail: Promise<void> = Promise.resolve();

	/**
	 * Joins the queue. `turn` resolves when every earlier holder has released; `release` must be
	 * called exactly once, whether the turn came or not (a holder that gives up early releases
	 * at once and the queue keeps its order).
	 */
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
	 * Requests that identical requests of other executions share while they are in flight
	 * (single-flight, pipeline.ts), by request body. `apiKey` is the key they were sent with:
	 * the pacer tells keys apart by a hash, and only the very same key may share an answer.
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
