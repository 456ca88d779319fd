/**
 * The sandbox's clock speed (the credential's hidden timeScale) is honoured only for a Base URL
 * on this machine: a credential carried over from the sandbox must never make the nodes wait
 * less than the real service asks.
 */
import { ServiceClock, serviceTime } from '../../nodes/shared/transport/serviceClock';
import { resolveHostNames } from '../attacks/helpers.cjs';
import { adNode, run, useFakeService } from '../nodes/helpers.cjs';

describe('ServiceClock', () => {
	test.each([
		['http://127.0.0.1:4010', 0.01],
		['http://127.8.9.10', 0.01],
		['http://localhost:4010', 0.01],
		['http://sandbox.localhost:4010', 0.01],
		['http://[::1]:4010', 0.01],
	])('%s (loopback): the sandbox speed %s is honoured', (baseUrl, speed) => {
		const clock = new ServiceClock(baseUrl, speed);
		expect(clock.realMs(60_000)).toBe(60_000 * speed);
		expect(clock.serviceMs(clock.realMs(60_000))).toBe(60_000);
	});

	test.each([
		'https://api.adperformance.example',
		'http://10.0.0.5:4010',
		'http://192.168.1.20',
		'http://127.0.0.1.example.com',
		'http://localhost.example.com',
		'not a url',
	])('%s (not loopback): service time is real time, whatever the credential says', (baseUrl) => {
		expect(new ServiceClock(baseUrl, 0.01).realMs(60_000)).toBe(60_000);
	});

	test.each([0, -1, 2, Number.NaN, 'abc', undefined, null])('a speed of %s is ignored', (speed) => {
		expect(new ServiceClock('http://127.0.0.1:4010', speed).realMs(1_000)).toBe(1_000);
	});
});

describe('a 429 asking to wait 2 seconds, with a credential that says timeScale 0.01', () => {
	const service = useFakeService({ timeScale: 0.01 });
	const SERVICE_NAME = 'api.adperformance.example';
	let restoreNames: () => void;
	beforeAll(() => {
		restoreNames = resolveHostNames({ [SERVICE_NAME]: '127.0.0.1' });
	});
	afterAll(() => restoreNames());
	afterEach(() => service.fake.clearIntercepts());

	/** The gap between the 429 and the request that followed it, in the fake's log. */
	async function gapAfter429(baseUrl: string | undefined): Promise<number> {
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/accounts',
			times: 1,
			respond: () => ({
				status: 429,
				json: {
					error: {
						type: 'rate_limit_error',
						message: 'Rate limit exceeded. Retry after 2 seconds.',
					},
				},
			}),
		});
		const result = await run(
			service,
			[adNode({ resource: 'account', operation: 'getAll', returnAll: false, limit: 1 })],
			{ credentials: baseUrl ? { baseUrl, timeScale: 0.01 } : { timeScale: 0.01 } },
		);
		expect(result.error).toBeUndefined();
		const requests = service.fake.log.filter((entry) => entry.path === '/v1/accounts');
		expect(requests.map((entry) => entry.status)).toEqual([429, 200]);
		return requests[1].at - requests[0].at;
	}

	test('a Base URL that is not on this machine waits the whole 2 seconds', async () => {
		const gap = await gapAfter429(`http://${SERVICE_NAME}:${new URL(service.fake.url).port}`);
		expect(gap).toBeGreaterThanOrEqual(2_000);
	});

	test('the local sandbox (127.0.0.1) waits 2 service seconds at its speed: 20 ms', async () => {
		const gap = await gapAfter429(undefined);
		expect(gap).toBeLessThan(2_000);
	});
});

describe('ServiceClock readings of the service’s time', () => {
	const S = Date.parse('2026-11-20T12:00:00.000Z');
	const MINUTE = 60_000;
	const HOUR = 60 * MINUTE;
	const DAY = 24 * HOUR;
	const httpDate = (ms: number) => new Date(ms).toUTCString();
	const at = (ms: number) => ({ earliest: ms, latest: ms });

	/** A clock that saw one exchange sent at S, answered 50 ms later, with this Date header. */
	function clockWithDate(serviceMs: number | undefined) {
		const clock = new ServiceClock('https://api.example.com', 1);
		clock.observeExchange(serviceMs === undefined ? undefined : httpDate(serviceMs), S, S + 50);
		return clock;
	}

	test('timestamps stand for their whole precision', () => {
		expect(serviceTime('2026-11-20T12:00:00.123Z')).toEqual({ earliest: S + 123, latest: S + 123 });
		expect(serviceTime('2026-11-20T12:00:00Z')).toEqual({ earliest: S, latest: S + 999 });
		expect(serviceTime(httpDate(S))).toEqual({ earliest: S, latest: S + 999 });
		expect(serviceTime('2026-11-20T12:00Z')).toEqual({ earliest: S, latest: S + 59_999 });
		for (const bad of [undefined, 42, '', 'yesterday', 'x'.repeat(100)])
			expect(serviceTime(bad)).toBeUndefined();
	});

	test('a Date header that agrees with n8n: one answer, before or after, to the second', () => {
		const clock = clockWithDate(S);
		expect(clock.placeCreation(at(S - 2_500), S)).toBe('before');
		expect(clock.placeCreation(at(S + 10), S)).toBe('after');
		expect(clock.disagreement()).toBeUndefined();
		expect(clock.lowerBound(S)).toBeGreaterThanOrEqual(S - 1_100);
	});

	test('a service 30 minutes behind, by its Date header and its records: filters reach back that far', () => {
		const clock = clockWithDate(S - HOUR / 2);
		clock.observeRecordTime(new Date(S - HOUR / 2 - 1_000).toISOString(), S + 50);
		expect(clock.lowerBound(S)).toBeLessThanOrEqual(S - HOUR / 2);
		expect(clock.lowerBound(S)).toBeGreaterThan(S - HOUR / 2 - 2_000);
		// Its Date header and its newest record agree: they are the service's clock (issue 26,
		// item 5), so a report created just now by that clock was created after S, not n8n's
		// "half an hour ago"; and one from before S by that clock is before.
		expect(clock.placeCreation(at(S - HOUR / 2 + 10), S)).toBe('after');
		expect(clock.placeCreation(at(S - HOUR / 2 - 2_500), S)).toBe('before');
		expect(clock.disagreement()).toBeUndefined();
	});

	test('a Date header an hour ahead of records that match n8n: unsure between them, never a guess', () => {
		const clock = clockWithDate(S + HOUR);
		clock.observeRecordTime(new Date(S - 500).toISOString(), S + 50);
		expect(clock.placeCreation(at(S + 10), S)).toBe('unsure');
		expect(clock.placeCreation(at(S - 5_000), S)).toBe('before');
		expect(clock.placeCreation(at(S + HOUR + 5_000), S)).toBe('after');
		expect(clock.lowerBound(S)).toBeLessThanOrEqual(S);
	});

	test('a Date header a day behind fresh records reads as late as the records, not a day ago', () => {
		const clock = clockWithDate(S - 24 * HOUR);
		clock.observeRecordTime(new Date(S - 3_000).toISOString(), S + 50);
		expect(clock.lowerBound(S)).toBeGreaterThan(S - 5_000);
	});

	test('records that contradict every reading are what lies: a record stamped tomorrow moves nothing', () => {
		const clock = clockWithDate(S);
		clock.observeRecordTime(new Date(S + 24 * HOUR).toISOString(), S + 50);
		expect(clock.lowerBound(S)).toBeLessThanOrEqual(S);
		expect(clock.notYetReached(S + HOUR, S)).toBe(true);
		expect(clock.notYetReached(S - 60_000, S)).toBe(false);
	});

	test('a time the service wrote is judged by its own clock: three days ahead of n8n’s is reached', () => {
		// Before any answer nothing says the service has not reached a time it wrote.
		expect(new ServiceClock('https://api.example.com', 1).notYetReached(S + 3 * DAY, S)).toBe(
			false,
		);
		// No record confirms the header (an empty list), so n8n's clock stands beside it for
		// searches (lowerBound), but not for a time the service's own clock wrote.
		const clock = clockWithDate(S + 3 * DAY);
		expect(clock.lowerBound(S)).toBeLessThanOrEqual(S);
		expect(clock.notYetReached(S + 3 * DAY - 5 * MINUTE, S)).toBe(false);
		expect(clock.notYetReached(S + 3 * DAY + HOUR, S)).toBe(true);
	});

	test('Date headers that contradict each other are not a clock: n8n’s is the guess, within the margin', () => {
		const clock = clockWithDate(S + HOUR);
		clock.observeExchange(httpDate(S - HOUR), S + 100, S + 150);
		expect(clock.placeCreation(at(S + 10), S)).toBe('after');
		expect(clock.placeCreation(at(S - 90_000), S)).toBe('unsure');
		expect(clock.disagreement()).toMatch(/no answer has carried a usable Date header/);
		expect(clock.lastAnsweredSendAt).toBe(S + 100);
	});

	test('no Date header yet: searches reach back the whole margin, and a creation inside it is unsure', () => {
		const clock = clockWithDate(undefined);
		expect(clock.lowerBound(S)).toBe(S - 5 * MINUTE);
		expect(clock.placeCreation(at(S + 10), S)).toBe('after');
		// A service 90 s behind: what this send created carries a time n8n's guess puts before it.
		expect(clock.placeCreation(at(S - 90_000), S)).toBe('unsure');
		expect(clock.placeCreation(at(S - 6 * MINUTE), S)).toBe('before');
		// n8n's guess still decides whether a cursor is ahead of the service (the trigger).
		expect(clock.notYetReached(S + 60_000, S)).toBe(true);
		expect(clock.disagreement()).toMatch(/known only to within 5 min/);
	});

	test('no Date header, and records that show the service 90 s behind: they narrow the margin', () => {
		const clock = clockWithDate(undefined);
		clock.observeRecordTime(new Date(S - 90_000).toISOString(), S + 50);
		clock.observeCreation(new Date(S - 90_000 + 20).toISOString(), S);
		expect(clock.lowerBound(S)).toBeGreaterThan(S - 92_000);
		expect(clock.placeCreation(at(S - 90_000 + 30), S)).toBe('after');
		expect(clock.placeCreation(at(S - 95_000), S)).toBe('before');
		expect(clock.disagreement()).toBeUndefined();
	});

	test('no Date header, and records that show the service at least 88 s ahead: between that and the margin, unsure', () => {
		const clock = clockWithDate(undefined);
		clock.observeRecordTime(new Date(S + 88_000).toISOString(), S + 50);
		// Stamped 88 s after n8n's send: this send's report on a service 88 s ahead, or another
		// execution's from before it on one 90 s ahead. The records cannot say which.
		expect(clock.placeCreation(at(S + 88_000), S)).toBe('unsure');
		expect(clock.placeCreation(at(S + 80_000), S)).toBe('before');
		expect(clock.placeCreation(at(S + 5 * MINUTE), S)).toBe('after');
		expect(clock.lowerBound(S)).toBeGreaterThan(S + 87_000);
	});

	test('records 90 s behind a Date header that agrees with n8n: our own request’s search reaches them, and is unsure', () => {
		const clock = clockWithDate(S);
		// Nothing listed yet: the search for what our lost request created looks back the margin.
		expect(clock.lowerBound(S, true)).toBe(S - 5 * MINUTE);
		expect(clock.lowerBound(S)).toBeGreaterThanOrEqual(S - 1_100);
		clock.observeRecordTime(new Date(S - 90_000).toISOString(), S + 50);
		expect(clock.placeCreation(at(S - 90_000), S, true)).toBe('unsure');
		expect(clock.disagreement(true)).toMatch(/records do not confirm its Date header/);
		// Other questions (Reuse's window, the trigger) go by the Date header.
		expect(clock.placeCreation(at(S - 90_000), S)).toBe('before');
		expect(clock.disagreement()).toBeUndefined();
		// A fresh record confirms the header: then it alone is the clock, for every question.
		clock.observeRecordTime(new Date(S + 20).toISOString(), S + 50);
		expect(clock.placeCreation(at(S - 90_000), S, true)).toBe('before');
		expect(clock.lowerBound(S, true)).toBeGreaterThanOrEqual(S - 1_100);
	});

	test('a report our own request created bounds the service from above: n8n’s reading falls', () => {
		const clock = clockWithDate(S - HOUR / 2);
		clock.observeCreation(new Date(S - HOUR / 2 + 20).toISOString(), S);
		// Both readings now agree the service is half an hour behind.
		expect(clock.placeCreation(at(S - HOUR / 2 + 30), S)).toBe('after');
		expect(clock.placeCreation(at(S - HOUR / 2 - 5_000), S)).toBe('before');
	});
});
