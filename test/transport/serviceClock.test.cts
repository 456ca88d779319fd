/**
 * The sandbox's clock speed (the credential's hidden timeScale) is honoured only for a Base URL
 * on this machine: a credential carried over from the sandbox must never make the nodes wait
 * less than the real service asks.
 */
import { ServiceClock } from '../../nodes/shared/transport/serviceClock';
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
