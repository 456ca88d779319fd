import {
	backoffMs,
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
