/**
 * Attack 8: cancellation. Every request stops when the execution is cancelled (the Stop
 * button), whichever helper sends it: the key-carrying requests to the service and the plain
 * downloads from another origin (a CDN), which n8n gives no cancel signal of its own.
 */
import { adNode, run, stopAfterMark, WAIT_NODE } from '../nodes/helpers.cjs';
import { useHostileService } from './helpers.cjs';

const service = useHostileService({ downloadOrigin: 'foreign' });

describe('cancelling stops every request', () => {
	test('Wait for Ad Report: a hanging download from another origin stops at Stop, and the next item’s never starts', async () => {
		const reports = service.fake.addReports(2, { status: 'completed' });
		// Stop while the first download hangs.
		const { mark, stop } = stopAfterMark(500);
		service.fake.intercept({
			origin: 'foreign',
			respond: (_request, real) => {
				mark();
				return { reply: real(), delayMs: 7_000 };
			},
		});
		const result = await run(
			service,
			[{ name: 'Wait', type: WAIT_NODE, parameters: { pollIntervalSeconds: 0.2 } }],
			{ items: reports.map((report) => ({ id: report.id })), cancelWhen: stop },
		);
		const foreign = service.fake.log.filter((entry) => entry.origin === 'foreign');
		// One download started; the hang was cut at Stop, far from its 7 s.
		expect(foreign).toHaveLength(1);
		expect(result.durationMs).toBeLessThan(4_000);
		// Nothing more reaches either origin after the run has ended.
		const requestsAtEnd = service.fake.log.length;
		await new Promise((resolve) => setTimeout(resolve, 1_000));
		expect(service.fake.log.length).toBe(requestsAtEnd);
		expect(result.items.some((item) => item.binary !== undefined)).toBe(false);
	});

	test('a hanging request to the service stops at Stop', async () => {
		// Stop while the request hangs.
		const { mark, stop } = stopAfterMark(400);
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/accounts',
			respond: (_request, real) => {
				mark();
				return { reply: real(), delayMs: 7_000 };
			},
		});
		const result = await run(
			service,
			[adNode({ resource: 'account', operation: 'getAll', returnAll: true })],
			{ cancelWhen: stop },
		);
		expect(result.durationMs).toBeLessThan(4_000);
		expect(service.fake.log.filter((entry) => entry.path === '/v1/accounts')).toHaveLength(1);
	});

	test('a wait for the rate limit stops at Stop', async () => {
		// Stop while the node waits out the 429.
		const { mark, stop } = stopAfterMark(400);
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/accounts',
			respond: () => {
				mark();
				return {
					status: 429,
					json: {
						error: {
							type: 'rate_limit_error',
							message: 'Rate limit exceeded. Retry after 600 seconds.',
						},
					},
				};
			},
		});
		const result = await run(
			service,
			[adNode({ resource: 'account', operation: 'getAll', returnAll: true })],
			{ cancelWhen: stop, credentials: { timeScale: 1 } },
		);
		expect(result.durationMs).toBeLessThan(4_000);
		expect(service.fake.log.filter((entry) => entry.path === '/v1/accounts')).toHaveLength(1);
	});
});
