import { fc, test as fcTest } from '@fast-check/jest';

import {
	backoffMs,
	decide,
	retryAfterMs,
	networkErrorCode,
	retryHintSeconds,
	type Declared,
	type Round,
	type Seen,
} from '../../nodes/shared/transport/retry';

/** A round with attempts and time to spare, unless told otherwise. */
function roundOf(more: Partial<Round> = {}): Round {
	return {
		failures: 0,
		maxAttempts: 5,
		scheduled: 0,
		notYet: 0,
		rateLimitDeadline: Date.now() + 3_600_000,
		realMs: (ms) => ms,
		...more,
	};
}

describe('retry policy', () => {
	test('the table: 429 and work under way are scheduled, 5xx unknown, other errors final', () => {
		const read = { resendable: true };
		const write = { resendable: false };
		const answer = (status: number, more: Partial<Seen> = {}): Seen =>
			({ kind: 'answer', status, from: 'service', ...more }) as Seen;
		const kindOf = (seen: Seen, declared: Declared) => decide(seen, declared, roundOf()).kind;
		expect(kindOf(answer(200), write)).toBe('done');
		expect(kindOf(answer(202), write)).toBe('done');
		expect(kindOf(answer(429, { rateLimitMs: 1_000 }), write)).toBe('scheduled');
		expect(kindOf(answer(409, { notYet: true }), write)).toBe('notYet');
		for (const status of [500, 502, 503, 504]) {
			expect(kindOf(answer(status), read)).toBe('retry');
			expect(kindOf(answer(status), write)).toBe('ambiguous');
		}
		for (const status of [302, 400, 401, 403, 404, 409, 422, 501]) {
			expect(kindOf(answer(status), read)).toBe('final');
		}
		expect(kindOf({ kind: 'unsent' }, write)).toBe('retry');
		expect(kindOf({ kind: 'refused' }, read)).toBe('final');
		// A file: 206 Partial Content is a part, not the file; another origin's 429 is not the key's.
		expect(kindOf(answer(206), { ...read, file: true })).toBe('retry');
		const elsewhere = { from: 'elsewhere' as const, retryAfterMs: 5_000 };
		expect(kindOf(answer(429, elsewhere), read)).toBe('notYet');
		expect(kindOf(answer(429, { from: 'elsewhere' }), read)).toBe('retry');
		expect(kindOf(answer(503, elsewhere), read)).toBe('notYet');
		// The service's 503 that says when it is back is waited for so long, at least.
		const back = decide(answer(503, { retryAfterMs: 7_000 }), read, roundOf());
		expect(back).toMatchObject({ kind: 'retry', last: false });
		expect((back as { waitMs: number }).waitMs).toBeGreaterThanOrEqual(7_000);
	});

	const seenArbitrary: fc.Arbitrary<Seen> = fc.oneof(
		fc.record({
			kind: fc.constant('answer' as const),
			status: fc.integer({ min: 100, max: 599 }),
			from: fc.constantFrom('service' as const, 'elsewhere' as const),
			notYet: fc.boolean(),
			retryAfterMs: fc.option(fc.nat({ max: 7_200_000 }), { nil: undefined }),
			rateLimitMs: fc.nat({ max: 7_200_000 }),
			hinted: fc.boolean(),
		}),
		fc.constantFrom<Seen>(
			{ kind: 'garbled' },
			{ kind: 'unsent' },
			{ kind: 'lost' },
			{ kind: 'refused' },
			{ kind: 'unexplained' },
		),
	);
	const declaredArbitrary = fc.record({
		resendable: fc.boolean(),
		file: fc.boolean(),
		notYet: fc.record({
			pollMs: fc.nat({ max: 60_000 }),
			until: fc.integer({ min: -60_000, max: 3_600_000 }).map((ms) => Date.now() + ms),
		}),
	});
	const roundArbitrary = fc
		.record({
			maxAttempts: fc.integer({ min: 1, max: 10 }),
			spent: fc.nat({ max: 10 }),
			notYet: fc.nat({ max: 20 }),
			rateLimitLeftMs: fc.integer({ min: -1_000, max: 3_600_000 }),
		})
		.map(({ maxAttempts, spent, notYet, rateLimitLeftMs }) =>
			roundOf({
				maxAttempts,
				failures: Math.min(spent, maxAttempts - 1),
				notYet,
				rateLimitDeadline: Date.now() + rateLimitLeftMs,
			}),
		);

	fcTest.prop([seenArbitrary, fc.boolean(), roundArbitrary])(
		'a request whose work must not be done twice is never resent blindly: whatever may have reached the service is looked for first',
		(seen, file, round) => {
			const forWrite = decide(seen, { resendable: false, file }, round).kind;
			const forRead = decide(seen, { resendable: true, file }, round).kind;
			// A read is never searched for; a write is resent only when nothing reached the service.
			expect(forRead).not.toBe('ambiguous');
			if (forWrite === 'retry')
				expect(
					seen.kind === 'unsent' || (seen.kind === 'answer' && seen.from === 'elsewhere'),
				).toBe(true);
			// The two differ only where the work may have been done.
			if (forWrite !== forRead) expect([forWrite, forRead]).toEqual(['ambiguous', 'retry']);
			// A garbled or lost answer is never final: it is asked again or looked for.
			if (seen.kind === 'garbled' || seen.kind === 'lost') expect(forWrite).toBe('ambiguous');
		},
	);

	fcTest.prop([seenArbitrary, declaredArbitrary, roundArbitrary])(
		'origins: only the service schedules the key; a file is only a whole 200; "not yet" waits, never fails',
		(seen, declared, round) => {
			const decision = decide(seen, declared, round);
			if (decision.kind === 'scheduled')
				expect(seen).toMatchObject({ kind: 'answer', status: 429, from: 'service' });
			if (decision.kind === 'done') {
				expect(seen.kind).toBe('answer');
				if (declared.file) expect(seen).toMatchObject({ status: 200 });
			}
			if (seen.kind !== 'answer') return;
			const success = seen.status >= 200 && seen.status < 300;
			const boundLeft = declared.notYet.until > Date.now() + (seen.retryAfterMs ?? 0);
			if (seen.notYet && !success && boundLeft) expect(decision.kind).toBe('notYet');
			if (decision.kind === 'notYet')
				expect(seen.notYet || (seen.from === 'elsewhere' && !!seen.retryAfterMs)).toBe(true);
			// A file's other 2xx (206, 204) is garbled: asked again or looked for, never stored.
			if (declared.file && success && seen.status !== 200)
				expect(decision.kind).toBe(declared.resendable ? 'retry' : 'ambiguous');
		},
	);

	fcTest.prop([seenArbitrary, declaredArbitrary, roundArbitrary])(
		'the round: nothing is tried again past Max Attempts or past its wait bound, and no wait is shorter than asked',
		(seen, declared, round) => {
			// Read before deciding: decide's own clock is no earlier (a loaded machine is slow).
			const before = Date.now();
			const decision = decide(seen, declared, round);
			const lastAttempt = round.failures + 1 >= round.maxAttempts;
			const rateLimitLeftMs = round.rateLimitDeadline - before;
			if (decision.kind === 'retry' || decision.kind === 'ambiguous') {
				if (lastAttempt) expect(decision.last).toBe(true);
				// A service's 503 may say when it is back: waited for, or the last try when too late.
				const asked = seen.kind === 'answer' && seen.status === 503 ? (seen.retryAfterMs ?? 0) : 0;
				if (asked > 0 && asked > rateLimitLeftMs) expect(decision.last).toBe(true);
				expect(decision.waitMs).toBeGreaterThanOrEqual(asked);
			}
			if (decision.kind === 'scheduled' && seen.kind === 'answer') {
				expect(decision.waitMs).toBe(seen.rateLimitMs);
				expect(before + decision.waitMs).toBeLessThanOrEqual(round.rateLimitDeadline);
				// A 429 that named no wait is a failed attempt: on the last one, final.
				expect(decision.countsAsFailure).toBe(!seen.hinted);
				if (lastAttempt) expect(seen.hinted).toBe(true);
			}
			if (decision.kind === 'notYet' && seen.kind === 'answer') {
				expect(decision.waitMs).toBeGreaterThanOrEqual(seen.retryAfterMs ?? 0);
				expect(before + decision.waitMs).toBeLessThanOrEqual(declared.notYet.until);
			}
			// Done and final are what the table says, whatever the round.
			if (seen.kind !== 'answer' || seen.status < 429 || seen.status === 501)
				if (seen.kind !== 'answer' || !seen.notYet)
					expect(['done', 'final'].includes(decision.kind)).toBe(
						['done', 'final'].includes(decide(seen, declared, roundOf()).kind),
					);
		},
	);

	test('backoff is full jitter under an exponential, capped ceiling', () => {
		expect(backoffMs(1, 0.999)).toBeLessThan(1000);
		expect(backoffMs(3, 0.999)).toBeLessThan(4000);
		expect(backoffMs(3, 0.999)).toBeGreaterThan(3900);
		expect(backoffMs(30, 1)).toBe(30_000);
		expect(backoffMs(2, 0)).toBe(0);
	});

	test('the 429 hint is read when present and ignored when absurd', () => {
		expect(retryHintSeconds('Rate limit exceeded. Retry after 12 seconds.')).toBe(12);
		expect(retryHintSeconds('retry in 1.5s')).toBe(1.5);
		expect(retryHintSeconds('Retry after 99999 seconds')).toBeUndefined();
		expect(retryHintSeconds('slow down')).toBeUndefined();
		expect(retryHintSeconds(undefined)).toBeUndefined();
	});

	test('network errors are found however they were wrapped', () => {
		expect(networkErrorCode({ code: 'ECONNRESET' })).toBe('ECONNRESET');
		expect(networkErrorCode({ cause: { message: 'socket hang up' } })).toBe('ECONNRESET');
		expect(networkErrorCode(new Error('timeout of 5ms exceeded'))).toBe('ETIMEDOUT');
		expect(networkErrorCode(new Error('aborted'))).toBe('ECONNRESET');
		expect(networkErrorCode(new Error('Cannot read properties of undefined'))).toBeUndefined();
	});
});

describe('Retry-After (RFC 9110)', () => {
	const date = 'Fri, 20 Nov 2026 12:00:00 GMT';
	const now = Date.parse(date);
	test('seconds, or an HTTP date read against the answer’s own Date header', () => {
		expect(retryAfterMs('120', undefined, now)).toBe(120_000);
		expect(retryAfterMs(' 0 ', undefined, now)).toBe(0);
		expect(retryAfterMs('Fri, 20 Nov 2026 12:01:30 GMT', date, now)).toBe(90_000);
		// n8n's clock an hour off the service's: the header pair still says 90 s.
		expect(retryAfterMs('Fri, 20 Nov 2026 12:01:30 GMT', date, now + 3_600_000)).toBe(90_000);
		// Without a Date header: against n8n's clock.
		expect(retryAfterMs('Fri, 20 Nov 2026 12:00:10 GMT', undefined, now)).toBe(10_000);
	});

	test.each([
		undefined,
		'',
		'-5',
		'1.5',
		'soon',
		'99999999999',
		'Mon, 01 Jan 3000 00:00:00 GMT',
		'x'.repeat(100),
	])('absurd or garbage (%s): none, so the backoff floor applies', (value) => {
		expect(retryAfterMs(value, date, now)).toBeUndefined();
	});

	test('a date in the past: none to wait, the floor applies', () => {
		expect(retryAfterMs('Fri, 20 Nov 2026 11:59:00 GMT', date, now)).toBeUndefined();
	});
});
