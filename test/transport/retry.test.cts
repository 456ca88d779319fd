import {
	backoffMs,
	retryAfterMs,
	classifyStatus,
	networkErrorCode,
	retryHintSeconds,
} from '../../nodes/shared/transport/retry';

describe('retry policy', () => {
	test('statuses: 429 is scheduling, 5xx transient, other errors final', () => {
		expect(classifyStatus(200)).toBe('success');
		expect(classifyStatus(202)).toBe('success');
		expect(classifyStatus(429)).toBe('rateLimited');
		for (const status of [500, 502, 503, 504]) expect(classifyStatus(status)).toBe('serverError');
		for (const status of [302, 400, 401, 403, 404, 409, 422, 501]) {
			expect(classifyStatus(status)).toBe('final');
		}
	});

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
