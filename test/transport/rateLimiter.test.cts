import { fc, test as fcTest } from '@fast-check/jest';

import { pacerFor, RateLimiter, type Bucket } from '../../nodes/shared/transport/rateLimiter';
import { Limiter } from '../../sandbox/limits.cjs';
import { simulateQueueMode } from './pacerSim.cjs';

function fakeClock(start = 1_000_000, random = 0.5) {
	const clock = { at: start, now: () => clock.at, random: () => random };
	return clock;
}

describe('rate limiter (pure, fake clock)', () => {
	test('a spent window holds requests back until it ends', () => {
		const clock = fakeClock();
		const limiter = new RateLimiter({ windowMs: 60_000, clock });
		limiter.onAccepted(['write', 'generation'], 0);
		const delay = limiter.delayBeforeSend(['write', 'generation']);
		expect(delay).toBeGreaterThan(59_000);
		expect(delay).toBeLessThanOrEqual(60_000 * 1.01 + 5);
		// Reads are in another bucket and go at once.
		expect(limiter.delayBeforeSend(['read'])).toBe(0);
		clock.at += delay;
		expect(limiter.delayBeforeSend(['write', 'generation'])).toBe(0);
	});

	test('a 429 with a retry time holds the bucket until then and waits a little longer', () => {
		const clock = fakeClock(1_000_000, 1);
		const limiter = new RateLimiter({ windowMs: 60_000, clock });
		const wait = limiter.onRejected(['write', 'generation'], 12_000, 1);
		expect(wait).toBeGreaterThan(12_000);
		expect(wait).toBeLessThanOrEqual(14_000);
		expect(limiter.delayBeforeSend(['write', 'generation'])).toBe(12_000);
	});

	test('every 429 waits at least a floor that grows: a hint of 0 seconds or none never means at once', () => {
		for (const hint of [undefined, 0, 1]) {
			const clock = fakeClock(0, 0);
			const limiter = new RateLimiter({ windowMs: 60_000, clock });
			const waits = [1, 2, 3, 6, 20].map((attempt) => limiter.onRejected(['read'], hint, attempt));
			// Equal jitter with the random part at 0: exactly half of 1 s, 2 s, 4 s, 30 s, 30 s.
			expect(waits).toEqual([500, 1_000, 2_000, 15_000, 15_000]);
			// The bucket is held for the floor too, so other requests of the process wait with it.
			expect(limiter.delayBeforeSend(['read'])).toBe(15_000);
		}
	});

	test('the floor is in service time: a sped-up sandbox clock scales it', () => {
		const limiter = new RateLimiter({ windowMs: 600, clock: fakeClock(0, 0) });
		expect(limiter.onRejected(['read'], 0, 1)).toBe(5);
	});

	test('without a retry time it backs off exponentially with jitter', () => {
		const limiter = new RateLimiter({ windowMs: 60_000, clock: fakeClock(0, 0.999) });
		const waits = [1, 2, 3, 4, 10].map((attempt) =>
			limiter.onRejected(['read'], undefined, attempt),
		);
		expect(waits[0]).toBeLessThan(1_000);
		expect(waits[1]).toBeLessThan(2_000);
		expect(waits[3]).toBeGreaterThan(7_000);
		expect(waits[4]).toBeLessThanOrEqual(30_000);
	});
});

describe('requests count when sent, not when answered', () => {
	test('a window’s first request goes alone; then 4 in flight, none answered: the 6th waits for the window', () => {
		const clock = fakeClock();
		const limiter = new RateLimiter({ windowMs: 60_000, clock });
		const first = limiter.onSent(['write', 'generation']);
		// The others look again shortly, for the count the first one's answer tells.
		expect(limiter.delayBeforeSend(['write', 'generation'])).toBe(300);
		expect(limiter.delayBeforeSend(['read'])).toBe(0);
		limiter.onAccepted(['write', 'generation'], 4, first);
		for (let i = 0; i < 4; i++) {
			expect(limiter.delayBeforeSend(['write', 'generation'])).toBe(0);
			limiter.onSent(['write', 'generation']);
		}
		expect(limiter.delayBeforeSend(['write', 'generation'])).toBeGreaterThan(59_000);
	});

	test('a first request not answered lets the next go alone; a slow answer holds up the others briefly', () => {
		const clock = fakeClock();
		const limiter = new RateLimiter({ windowMs: 60_000, clock });
		limiter.onSent(['write', 'generation']);
		limiter.onUnanswered(['write', 'generation']);
		expect(limiter.delayBeforeSend(['write', 'generation'])).toBe(0);
		limiter.onSent(['write', 'generation']);
		expect(limiter.delayBeforeSend(['write', 'generation'])).toBe(300);
		// A slow answer holds up the others a twentieth of a window at most; then they count.
		clock.at += 3_000;
		for (let i = 0; i < 3; i++) {
			expect(limiter.delayBeforeSend(['write', 'generation'])).toBe(0);
			limiter.onSent(['write', 'generation']);
		}
		expect(limiter.delayBeforeSend(['write', 'generation'])).toBeGreaterThan(50_000);
	});

	test('the service’s remaining count is lowered by the requests still in flight', () => {
		const clock = fakeClock();
		const limiter = new RateLimiter({ windowMs: 60_000, clock });
		const first = limiter.onSent(['write', 'generation']);
		limiter.onSent(['write', 'generation']);
		limiter.onSent(['write', 'generation']);
		// The first answer says 2 left; two more are in flight, so none is.
		limiter.onAccepted(['write', 'generation'], 2, first);
		expect(limiter.delayBeforeSend(['write', 'generation'])).toBeGreaterThan(59_000);
	});

	test('a late answer’s count does not overwrite what a newer one told', () => {
		const clock = fakeClock();
		const limiter = new RateLimiter({ windowMs: 60_000, clock });
		const older = limiter.onSent(['write', 'generation']);
		const newer = limiter.onSent(['write', 'generation']);
		limiter.onAccepted(['write', 'generation'], 0, newer);
		// The slow, older answer arrives last with a count from before: still spent.
		limiter.onAccepted(['write', 'generation'], 3, older);
		expect(limiter.delayBeforeSend(['write', 'generation'])).toBeGreaterThan(59_000);
	});
});

describe('processes that meet only at the service (queue mode)', () => {
	const generation: Bucket[] = ['write', 'generation'];
	/** Sends while the limiter lets go at once (at most 10), none answered yet: how many went. */
	const sendWhileFree = (limiter: RateLimiter) => {
		const sent: number[] = [];
		while (limiter.delayBeforeSend(generation) === 0 && sent.length < 10)
			sent.push(limiter.onSent(generation));
		return sent;
	};

	// The service may count a window's requests in any order: they overtake each other on the
	// way. Whatever the order, every count is ours alone, and each window is filled in parallel.
	const countOrders = fc.array(fc.shuffledSubarray([0, 1, 2, 3], { minLength: 4, maxLength: 4 }), {
		minLength: 3,
		maxLength: 3,
	});
	fcTest.prop([countOrders])(
		'alone (each first answer shows no other request), the window is filled in parallel, whatever order the service counted its requests in',
		(orders) => {
			const clock = fakeClock();
			const limiter = new RateLimiter({ windowMs: 60_000, clock });
			for (const order of [...orders, [3, 2, 1, 0]]) {
				limiter.onAccepted(generation, 4, limiter.onSent(generation));
				const more = sendWhileFree(limiter);
				expect(more).toHaveLength(4);
				// order[i]: what was left after the i-th request sent, as the service counted it.
				more.forEach((sent, i) => limiter.onAccepted(generation, order[i], sent));
				clock.at += 61_000;
			}
		},
	);

	fcTest.prop([
		fc.integer({ min: 0, max: 4 }),
		fc.option(fc.integer({ min: 0, max: 8 }), { nil: undefined }),
	])(
		'a process with fewer reports to come than a window would give its opener leaves opening it to the others, alone it never does',
		(othersBefore, toCome) => {
			const clock = fakeClock();
			const limiter = new RateLimiter({ windowMs: 60_000, clock });
			if (toCome !== undefined) limiter.expect('generation', toCome + 1);
			// A window in which `othersBefore` requests of other processes were counted before ours.
			const first = limiter.onSent(generation);
			clock.at += 100;
			limiter.onAccepted(generation, 4 - othersBefore, first);
			if (toCome !== undefined) limiter.expect('generation', -1);
			const due = clock.at + limiter.delayBeforeSend(generation);
			clock.at = due;
			// An opener takes what the others' first requests leave: 5 less the others it expects.
			const leaves = toCome !== undefined && othersBefore > 0 && toCome < 5 - othersBefore;
			// It comes 4% of a window late, within the opener's first 8%.
			expect(limiter.delayBeforeSend(generation)).toBe(leaves ? 2_400 : 0);
			// Past that, it sends its first request: as one of the others, or as the opener.
			clock.at += 2_400;
			expect(limiter.delayBeforeSend(generation)).toBe(0);
		},
	);

	test('a window another process opened: this process sends its one request and no more in it', () => {
		const clock = fakeClock();
		const limiter = new RateLimiter({ windowMs: 60_000, clock });
		// The first answer tells 2 left: 2 requests of others were counted before ours.
		limiter.onAccepted(generation, 2, limiter.onSent(generation));
		expect(sendWhileFree(limiter)).toHaveLength(0);
		expect(limiter.delayBeforeSend(generation)).toBeGreaterThan(59_000);
		// The next window it opens itself: it fills it, one request at a time now that it has
		// seen others (each answer's count is read before the next goes), once the window's first
		// 8% (when the others' first requests come) is past.
		clock.at += 61_000;
		limiter.onAccepted(generation, 4, limiter.onSent(generation));
		clock.at += 5_000;
		let left = 4;
		const order: number[] = [];
		while (left > 0) {
			const sent = sendWhileFree(limiter);
			expect(sent).toHaveLength(1);
			// Another process's first request lands between two of ours.
			left -= order.length === 1 ? 2 : 1;
			order.push(left);
			limiter.onAccepted(generation, Math.max(0, left), sent[0]);
		}
		expect(order).toEqual([3, 1, 0]);
		expect(sendWhileFree(limiter)).toHaveLength(0);
	});

	test('held only for an answer’s count, it looks again shortly, not at the window’s end', () => {
		const clock = fakeClock();
		const limiter = new RateLimiter({ windowMs: 60_000, clock });
		limiter.onAccepted(generation, 2, limiter.onSent(generation)); // others seen: shared
		clock.at += 61_000;
		limiter.onAccepted(generation, 4, limiter.onSent(generation)); // opened by us
		clock.at += 5_000; // past the window's first 8%, the others' firsts' time
		const [second] = sendWhileFree(limiter);
		expect(limiter.delayBeforeSend(generation)).toBe(300);
		limiter.onAccepted(generation, 3, second);
		expect(limiter.delayBeforeSend(generation)).toBe(0);
	});

	test('a window another process opened is dated from our send, one it opened from our answer', () => {
		const clock = fakeClock();
		const limiter = new RateLimiter({ windowMs: 60_000, clock });
		const sentAt = clock.at;
		const first = limiter.onSent(generation);
		clock.at += 2_000; // a slow answer
		limiter.onAccepted(generation, 2, first); // others were counted first
		expect(clock.at + limiter.delayBeforeSend(generation)).toBeLessThanOrEqual(
			sentAt + 60_000 * 1.002 + 5,
		);
		clock.at = sentAt + 70_000;
		const opened = limiter.onSent(generation);
		clock.at += 2_000;
		limiter.onAccepted(generation, 4, opened);
		limiter.onSent(generation);
		limiter.onAccepted(generation, 0, undefined);
		expect(clock.at + limiter.delayBeforeSend(generation)).toBeGreaterThanOrEqual(
			clock.at + 60_000,
		);
	});

	test('its opener, with others about, sends no more in the window’s first 8%, so that its next count includes their first requests', () => {
		const clock = fakeClock();
		const limiter = new RateLimiter({ windowMs: 60_000, clock });
		// A window it opened, in which 2 first requests of others were counted.
		limiter.onAccepted(generation, 4, limiter.onSent(generation));
		limiter.onAccepted(generation, 1, limiter.onSent(generation));
		clock.at += 61_000;
		const opened = limiter.onSent(generation);
		clock.at += 20;
		limiter.onAccepted(generation, 4, opened);
		// Held until the first 8% of the window (dated from the answer, late) is over.
		const held = limiter.delayBeforeSend(generation);
		expect(held).toBeGreaterThan(4_800 - 20);
		expect(held).toBeLessThanOrEqual(4_800 + 60_000 * 0.002 + 5);
		clock.at += held;
		// Then one at a time: the others' 2 firsts came in the meantime, and the count says so.
		const [second] = sendWhileFree(limiter);
		expect(sendWhileFree(limiter)).toHaveLength(0);
		limiter.onAccepted(generation, 1, second);
		const [third] = sendWhileFree(limiter);
		limiter.onAccepted(generation, 0, third);
		expect(limiter.delayBeforeSend(generation)).toBeGreaterThan(50_000);
	});

	test('a 429 holds the buckets until the retry time the service gave, then the window opens', () => {
		const clock = fakeClock(0, 0);
		const limiter = new RateLimiter({ windowMs: 60_000, clock });
		limiter.onAccepted(generation, 1, limiter.onSent(generation));
		limiter.onSent(generation);
		limiter.onRejected(generation, 20_000, 1);
		expect(limiter.delayBeforeSend(generation)).toBe(20_000);
		clock.at += 20_000;
		expect(limiter.delayBeforeSend(generation)).toBe(0);
	});
});

describe('turns and pacers', () => {
	test('turns come in the order they were joined, and a holder that gives up keeps the order', async () => {
		const queue = pacerFor('https://turns.example.com', 'key', 60_000, fakeClock()).writes;
		const order: string[] = [];
		const a = queue.join();
		const b = queue.join();
		const c = queue.join();
		void c.turn.then(() => order.push('c'));
		void b.turn.then(() => order.push('b'));
		await a.turn;
		order.push('a');
		b.release(); // b gives up before its turn came
		a.release();
		await c.turn;
		await Promise.resolve();
		expect(order).toEqual(['a', 'b', 'c']);
	});

	test('one pacer per key and Base URL; the key itself is not what is stored', () => {
		const clock = fakeClock();
		const key = 'service_live_abcdefghijklmnopqrstuvwx';
		const first = pacerFor('https://api.example.com', key, 60_000, clock);
		expect(pacerFor('https://api.example.com', key, 60_000, clock)).toBe(first);
		expect(pacerFor('https://api.example.com', `${key}y`, 60_000, clock)).not.toBe(first);
		expect(pacerFor('https://other.example.com', key, 60_000, clock)).not.toBe(first);
	});
});

describe('generated schedules against the fake service’s own fixed windows', () => {
	// Senders obey delayBeforeSend; requests reach the service (sandbox/limits.cts, the fake's
	// limiter) a little after they are sent (up to 1% of a window: the pacer's margin) and are
	// answered later still, in any order. The service must never have to refuse one.
	const WINDOW_MS = 60_000;
	type Step =
		| { kind: 'tick'; ms: number }
		| { kind: 'send'; bucket: 'read' | 'generation'; arriveMs: number; answerMs: number };
	const step = fc.oneof(
		fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 40_000 }) }),
		fc.record({
			kind: fc.constant('send' as const),
			bucket: fc.constantFrom('read' as const, 'generation' as const),
			arriveMs: fc.integer({ min: 0, max: WINDOW_MS / 100 }),
			answerMs: fc.integer({ min: 0, max: 20_000 }),
		}),
	);

	fcTest.prop([fc.array(step, { minLength: 1, maxLength: 400 })], { numRuns: 150 })(
		'no request the pacer lets go meets a spent window',
		(steps: Step[]) => {
			const clock = fakeClock(0);
			const limiter = new RateLimiter({ windowMs: WINDOW_MS, clock });
			const service = new Limiter(
				{ read: 120, write: 10, diagnosticRuns: 10, generations: 5, windowSeconds: 60 },
				1,
			);
			type Pending = { at: number; run: () => void };
			let pending: Pending[] = [];
			const advanceTo = (t: number) => {
				for (;;) {
					pending.sort((a, b) => a.at - b.at);
					const next = pending[0];
					if (!next || next.at > t) break;
					pending = pending.slice(1);
					clock.at = next.at;
					next.run();
				}
				clock.at = t;
			};
			for (const s of steps) {
				if (s.kind === 'tick') {
					advanceTo(clock.at + s.ms);
					continue;
				}
				const buckets: Bucket[] = s.bucket === 'read' ? ['read'] : ['write', 'generation'];
				const delay = limiter.delayBeforeSend(buckets);
				if (delay > 0) advanceTo(clock.at + delay);
				if (limiter.delayBeforeSend(buckets) > 0) continue;
				const sendNumber = limiter.onSent(buckets);
				const arriveAt = clock.at + s.arriveMs;
				pending.push({
					at: arriveAt,
					run: () => {
						const taken = service.take('key', buckets, arriveAt);
						expect(taken.ok).toBe(true);
						const remaining = taken.ok ? taken.remaining : undefined;
						pending.push({
							at: arriveAt + s.answerMs,
							run: () => limiter.onAccepted(buckets, remaining, sendNumber),
						});
					},
				});
			}
			advanceTo(clock.at + 10 * WINDOW_MS);
		},
	);
});

describe('generated queue-mode runs: processes with their own pacers meet at one service limiter', () => {
	// pacerSim.cts: each process paces on its own (RateLimiter), sends as pipeline.ts does and
	// resends after a 429 as told; they meet only at the fake's own fixed windows.
	const run = fc.record({
		threads: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 4 }),
		itemsEach: fc.integer({ min: 3, max: 8 }),
		latencyMs: fc.integer({ min: 1, max: 100 }),
		startSpreadMs: fc.integer({ min: 0, max: 1_000 }),
		seed: fc.integer(),
		tellWork: fc.boolean(),
	});

	fcTest.prop([run], { numRuns: 60 })(
		'every report is made; alone no 429, with peers at most one 429 for two accepted',
		(options) => {
			const result = simulateQueueMode({ ...options, timeScale: 0.05 });
			const total = options.threads.reduce((sum, threads) => sum + threads, 0) * options.itemsEach;
			expect(result.accepted).toBe(total);
			// Never more than one window past the fewest the generations need, counted from the
			// last execution's start (up to a third of a window late), with each window opening a
			// little after the last ended (1%) and the last one filled one request at a time (5
			// round trips). 6,000 runs: none beyond, the closest 0.10 of a window inside.
			const windowMs = 3_000;
			const bound =
				Math.ceil(total / 5) * 1.01 +
				1 +
				options.startSpreadMs / windowMs +
				(10 * options.latencyMs) / windowMs;
			expect(result.windows).toBeLessThanOrEqual(bound);
			if (options.threads.length === 1) expect(result.rejected).toBe(0);
			// Measured over 6,000 generated runs: 0.055 on the whole, the worst run 0.29 (before
			// the opener waited for the others' firsts: 0.085 and 0.35; before the opener filled
			// the window: 0.13 and 0.39; before any sharing about 0.9).
			else expect(result.rejected / result.accepted).toBeLessThanOrEqual(0.5);
		},
	);

	test('the bench’s shape (10 executions x 6 reports on 1, 2 and 4 workers): the generation bound, few 429s', () => {
		for (const threads of [[10], [5, 5], [3, 3, 2, 2]]) {
			let accepted = 0;
			let rejected = 0;
			let windows = 0;
			for (let seed = 1; seed <= 20; seed++) {
				const result = simulateQueueMode({
					threads,
					itemsEach: 6,
					latencyMs: 30,
					startSpreadMs: 300,
					timeScale: 0.05,
					seed,
					tellWork: true,
				});
				accepted += result.accepted;
				rejected += result.rejected;
				windows += result.windows;
			}
			expect(accepted).toBe(20 * 60);
			// The bound: 60 generations at 5 a window take (60 - 1) / 5 windows. Measured (20 seeds,
			// each process telling its pacer the work to come, as the nodes do): 0.95, 0.96 and
			// 0.99 of it; 1.00, 1.02 and 1.05 POSTs a report. Before the opener waited for the
			// others' firsts and a process with little left let another open: 0.95, 1.00 and 1.00;
			// 1.00, 1.02 and 1.12 (0.88 429s an accepted request with 4 workers before each
			// process took its share, 0.16 with shares).
			expect(windows / 20 / ((60 - 1) / 5)).toBeLessThanOrEqual(1.05);
			expect(rejected / accepted).toBeLessThanOrEqual(threads.length === 1 ? 0 : 0.1);
		}
	});
});
