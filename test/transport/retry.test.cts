import { fc, test as fcTest } from '@fast-check/jest';

import {
	backoffMs,
	decide,
	retryAfterMs,
	networkErrorCode,
	retryHintSeconds,
	type Seen,
} from '../../nodes/shared/transport/retry';

describe('retry policy', () => {
	test('the table: 429 and work under way are scheduled, 5xx unknown, other errors final', () => {
		const read = { resendable: true };
		const write = { resendable: false };
		expect(decide({ kind: 'answer', status: 200 }, write)).toBe('done');
		expect(decide({ kind: 'answer', status: 202 }, write)).toBe('done');
		expect(decide({ kind: 'answer', status: 429 }, write)).toBe('schedule');
		expect(decide({ kind: 'answer', status: 409, busy: true }, write)).toBe('schedule');
		for (const status of [500, 502, 503, 504]) {
			expect(decide({ kind: 'answer', status }, read)).toBe('retry');
			expect(decide({ kind: 'answer', status }, write)).toBe('search');
		}
		for (const status of [302, 400, 401, 403, 404, 409, 422, 501]) {
			expect(decide({ kind: 'answer', status }, read)).toBe('final');
		}
		expect(decide({ kind: 'unsent' }, write)).toBe('retry');
		expect(decide({ kind: 'refused' }, read)).toBe('final');
	});

	const seenArbitrary: fc.Arbitrary<Seen> = fc.oneof(
		fc.record({
			kind: fc.constant('answer' as const),
			status: fc.integer({ min: 100, max: 599 }),
			busy: fc.boolean(),
		}),
		fc.constantFrom<Seen>(
			{ kind: 'garbled' },
			{ kind: 'unsent' },
			{ kind: 'lost' },
			{ kind: 'refused' },
			{ kind: 'unexplained' },
		),
	);

	fcTest.prop([seenArbitrary])(
		'a request whose work must not be done twice is never resent blindly: whatever may have reached the service is looked for first',
		(seen) => {
			const forWrite = decide(seen, { resendable: false });
			const forRead = decide(seen, { resendable: true });
			// A read is never searched for; a write is resent only when nothing reached the service.
			expect(forRead).not.toBe('search');
			if (forWrite === 'retry') expect(seen.kind).toBe('unsent');
			// The two differ only where the work may have been done.
			if (forWrite !== forRead) expect([forWrite, forRead]).toEqual(['search', 'retry']);
			// A garbled or lost answer is never final: it is asked again or looked for.
			if (seen.kind === 'garbled' || seen.kind === 'lost') expect(forWrite).toBe('search');
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
