/**
 * n8n queue mode in miniature, on a fake clock: several processes (each its own RateLimiter, as
 * each n8n worker has its own pacer) send report generations on one key to one service limiter
 * (sandbox/limits.cts, the fake's own fixed windows), and meet only there. Each process lets its
 * writes take turns as pipeline.ts does (the head of the line waits for delayBeforeSend, sends,
 * and the next one may go at once), resends after a 429 as told by onRejected, and runs
 * `threads` executions whose items each send one POST after the previous one was answered.
 */
import { RateLimiter, type Bucket } from '../../nodes/shared/transport/rateLimiter';
import { Limiter } from '../../sandbox/limits.cjs';

export interface SimOptions {
	/** Executions per process, one list a process. */
	threads: number[];
	itemsEach: number;
	/** A service minute in real ms (bench: 0.05, so 3 000 ms). */
	timeScale: number;
	/** Longest time a request takes to reach the service, and again its answer to come back. */
	latencyMs: number;
	/** Longest delay before an execution starts. */
	startSpreadMs: number;
	seed: number;
	/** Each process tells its pacer how many requests its executions have still to send. */
	tellWork?: boolean;
}

export interface SimResult {
	accepted: number;
	rejected: number;
	/** When the last answer came, in windows from the start. */
	windows: number;
	/** The longest one request waited from joining the line to its acceptance, in windows. */
	longestWaitWindows: number;
	/** When each request was accepted and by which process, in ms from the start (in order). */
	acceptedAt: Array<{ at: number; process: number }>;
}

const BUCKETS: Bucket[] = ['write', 'generation'];

/** A small seeded generator (mulberry32), so a failing run can be replayed from its seed. */
function seeded(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export function simulateQueueMode(options: SimOptions): SimResult {
	const windowMs = 60_000 * options.timeScale;
	const random = seeded(options.seed);
	const clock = { at: 0, now: () => clock.at, random };
	const service = new Limiter(
		{ read: 120, write: 10, diagnosticRuns: 10, generations: 5, windowSeconds: 60 },
		options.timeScale,
	);
	let events: Array<{ at: number; order: number; run: () => void }> = [];
	let order = 0;
	const at = (time: number, run: () => void) => events.push({ at: time, order: order++, run });
	const latency = () => 1 + random() * options.latencyMs;
	const result: SimResult = {
		accepted: 0,
		rejected: 0,
		windows: 0,
		longestWaitWindows: 0,
		acceptedAt: [],
	};

	interface Request {
		attempt: number;
		joined: number;
		done: () => void;
	}
	options.threads.forEach((threads, process) => {
		const limiter = new RateLimiter({ windowMs, clock });
		if (options.tellWork) limiter.expect('generation', threads * options.itemsEach);
		const line: Request[] = [];
		let pumping = false;
		const pump = () => {
			pumping = false;
			while (line.length > 0) {
				const delay = limiter.delayBeforeSend(BUCKETS);
				if (delay > 0) {
					pumping = true;
					at(clock.at + delay, pump);
					return;
				}
				const request = line.shift() as Request;
				const sendNumber = limiter.onSent(BUCKETS);
				const arrive = clock.at + latency();
				at(arrive, () => {
					const taken = service.take('key', BUCKETS, arrive);
					at(arrive + latency(), () => {
						if (taken.ok) {
							result.accepted++;
							result.acceptedAt.push({ at: arrive, process });
							result.longestWaitWindows = Math.max(
								result.longestWaitWindows,
								(clock.at - request.joined) / windowMs,
							);
							limiter.onAccepted(BUCKETS, taken.remaining, sendNumber);
							if (options.tellWork) limiter.expect('generation', -1);
							request.done();
						} else {
							result.rejected++;
							const hintMs = taken.retryAfterSeconds * 1000 * options.timeScale;
							const wait = limiter.onRejected(BUCKETS, hintMs, ++request.attempt);
							at(clock.at + wait, () => join(request));
						}
					});
				});
			}
		};
		const join = (request: Request) => {
			line.push(request);
			if (!pumping) pump();
		};
		for (let t = 0; t < threads; t++) {
			let left = options.itemsEach;
			const next = () => {
				if (left-- > 0)
					join({ attempt: 0, joined: clock.at, done: () => at(clock.at + latency(), next) });
			};
			at(random() * options.startSpreadMs, next);
		}
	});

	while (events.length > 0) {
		events.sort((a, b) => a.at - b.at || a.order - b.order);
		const [next, ...rest] = events;
		events = rest;
		clock.at = next.at;
		next.run();
	}
	result.windows = clock.at / windowMs;
	return result;
}
