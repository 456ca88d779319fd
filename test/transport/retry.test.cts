import { fc, test as fcTest } from '@fast-check/jest';

import {
	backoffMs,
	decide,
	inRound,
	retryAfterMs,
	networkErrorCode,
	retryHintSeconds,
	type Seen,
} from '../../nodes/shared/transport/retry';

describe('retry policy', () => {
	test('the table: 429 and work under way are scheduled, 5xx unknown, other errors final', () => {
		const read = { resendable: true };
		const write = { resendable: false };
		const answer = (status: number, more: Partial<Seen> = {}): Seen =>
			({ kind: 'answer', status, from: 'service', ...more }) as Seen;
		expect(decide(answer(200), write)).toBe('done');
		expect(decide(answer(202), write)).toBe('done');
		expect(decide(answer(429), write)).toBe('schedule');
		expect(decide(answer(409, { notYet: true }), write)).toBe('wait');
		for (const status of [500, 502, 503, 504]) {
			expect(decide(answer(status), read)).toBe('retry');
			expect(decide(answer(status), write)).toBe('search');
		}
		for (const status of [302, 400, 401, 403, 404, 409, 422, 501]) {
			expect(decide(answer(status), read)).toBe('final');
		}
		expect(decide({ kind: 'unsent' }, write)).toBe('retry');
		expect(decide({ kind: 'refused' }, read)).toBe('final');
		// A file: 206 Partial Content is a part, not the file; another origin's 429 is not the key's.
		expect(decide(answer(206), { ...read, file: true })).toBe('retry');
		expect(decide(answer(429, { from: 'elsewhere', retryAfter: true }), read)).toBe('wait');
		expect(decide(answer(429, { from: 'elsewhere' }), read)).toBe('retry');
		expect(decide(answer(503, { from: 'elsewhere', retryAfter: true }), read)).toBe('wait');
	});

	const seenArbitrary: fc.Arbitrary<Seen> = fc.oneof(
		fc.record({
			kind: fc.constant('answer' as const),
			status: fc.integer({ min: 100, max: 599 }),
			from: fc.constantFrom('service' as const, 'elsewhere' as const),
			notYet: fc.boolean(),
			retryAfter: fc.boolean(),
		}),
		fc.constantFrom<Seen>(
			{ kind: 'garbled' },
			{ kind: 'unsent' },
			{ kind: 'lost' },
			{ kind: 'refused' },
			{ kind: 'unexplained' },
		),
	);
	const declaredArbitrary = fc.record({ resendable: fc.boolean(), file: fc.boolean() });

	fcTest.prop([seenArbitrary, fc.boolean()])(
		'a request whose work must not be done twice is never resent blindly: whatever may have reached the service is looked for first',
		(seen, file) => {
			const forWrite = decide(seen, { resendable: false, file });
			const forRead = decide(seen, { resendable: true, file });
			// A read is never searched for; a write is resent only when nothing reached the service.
			expect(forRead).not.toBe('search');
			if (forWrite === 'retry')
				expect(
					seen.kind === 'unsent' || (seen.kind === 'answer' && seen.from === 'elsewhere'),
				).toBe(true);
			// The two differ only where the work may have been done.
			if (forWrite !== forRead) expect([forWrite, forRead]).toEqual(['search', 'retry']);
			// A garbled or lost answer is never final: it is asked again or looked for.
			if (seen.kind === 'garbled' || seen.kind === 'lost') expect(forWrite).toBe('search');
		},
	);

	fcTest.prop([seenArbitrary, declaredArbitrary])(
		'origins: only the service schedules the key; a file is only a whole 200; "not yet" waits, never fails',
		(seen, declared) => {
			const decision = decide(seen, declared);
			if (decision === 'schedule')
				expect(seen).toMatchObject({ kind: 'answer', status: 429, from: 'service' });
			if (decision === 'done') {
				expect(seen.kind).toBe('answer');
				if (declared.file) expect(seen).toMatchObject({ status: 200 });
			}
			if (seen.kind !== 'answer') return;
			const success = seen.status >= 200 && seen.status < 300;
			if (seen.notYet && !success) expect(decision).toBe('wait');
			if (decision === 'wait')
				expect(seen.notYet || (seen.from === 'elsewhere' && seen.retryAfter)).toBe(true);
			// A file's other 2xx (206, 204) is garbled: asked again or looked for, never stored.
			if (declared.file && success && seen.status !== 200)
				expect(decision).toBe(declared.resendable ? 'retry' : 'search');
		},
	);

	fcTest.prop([
		seenArbitrary,
		declaredArbitrary,
		fc.record({ lastAttempt: fc.boolean(), waitTooLong: fc.boolean(), named: fc.boolean() }),
	])(
		'the round: nothing is tried again past Max Attempts or past its wait bound, yet a lost write is always looked for',
		(seen, declared, round) => {
			const decision = decide(seen, declared);
			const next = inRound(decision, round);
			if (round.lastAttempt || round.waitTooLong) expect(next).not.toBe('retry');
			if (round.waitTooLong) expect(['schedule', 'wait', 'search']).not.toContain(next);
			// A search is made in every round; on the last one it ends the run after it.
			if (decision === 'search') expect(['search', 'lastSearch']).toContain(next);
			// A 429 that named no wait is a failed attempt: on the last one, final.
			if (decision === 'schedule' && round.lastAttempt && !round.named) expect(next).toBe('final');
			// Done and final are what they are, whatever the round.
			if (decision === 'done' || decision === 'final') expect(next).toBe(decision);
			// With attempts left and time for the wait, the table's decision stands.
			if (!round.lastAttempt && !round.waitTooLong) expect(next).toBe(decision);
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
