/**
 * Rate-limit hints that would cause hammering, and waits that would blame the wrong party. A
 * 429 always waits at least a backoff floor (with jitter) and at most Max Wait When Rate
 * Limited; a write waiting for its turn behind other executions on the same key is bounded by
 * the same Max Wait, and its error says that it waited for them, not that the service refused.
 */
import { runWorkflow } from '../harness/run-workflow.cjs';
import { adNode, apiRequests, rl } from '../nodes/helpers.cjs';
import { errorText, runAttack, useHostileService } from './helpers.cjs';

const service = useHostileService();

function refuseWith(message: string | undefined, pathPrefix = '/v1/accounts') {
	service.fake.intercept({
		pathPrefix,
		respond: () => ({
			status: 429,
			json: { error: { type: 'rate_limit_error', ...(message ? { message } : {}) } },
		}),
	});
}

const rawRequest = (rateLimitWaitMinutes: string, maxAttempts = 10) => ({
	name: 'Raw Request',
	type: 'test.rawRequest',
	parameters: { method: 'GET', path: '/accounts', maxAttempts, rateLimitWaitMinutes },
});

describe('rate-limit hints have a floor', () => {
	test('"Retry after 0 seconds" for a whole Max Wait: a few requests, not thousands', async () => {
		refuseWith('Rate limit exceeded. Retry after 0 seconds.');
		// One service minute of waiting (0.6 s at the test's time scale). Without a floor this
		// sent hundreds of requests; with it (0.5-1 s, 1-2 s, 2-4 s … 30 s) at most about 8.
		const result = await runAttack(service, [rawRequest('1')]);
		const sent = apiRequests(service, { pathPrefix: '/v1/accounts' }).length;
		expect(result.error?.message).toMatch(
			/rate limit was exceeded for longer than this request may wait/,
		);
		expect(errorText(result)).toMatch(/still answering 429/);
		expect(sent).toBeGreaterThanOrEqual(3);
		expect(sent).toBeLessThanOrEqual(10);
	});

	test('a 429 without a hint backs off too, and stops at Max Attempts', async () => {
		refuseWith(undefined);
		const result = await runAttack(service, [rawRequest('1', 4)]);
		expect(result.error?.message).toMatch(/rate limit was exceeded/i);
		expect(apiRequests(service, { pathPrefix: '/v1/accounts' })).toHaveLength(4);
	});

	test('a hint longer than Max Wait fails at once, without waiting for it', async () => {
		refuseWith('Rate limit exceeded. Retry after 300 seconds.');
		const result = await runAttack(service, [rawRequest('1')]);
		expect(errorText(result)).toMatch(/still answering 429/);
		expect(apiRequests(service, { pathPrefix: '/v1/accounts' })).toHaveLength(1);
	});
});

describe('waiting for a turn on the key', () => {
	const generate = (account: string, title: string, waitMinutes?: number, items = 1) =>
		runWorkflow({
			credentials: service.credentials(),
			nodes: [
				{
					name: 'Set Items',
					type: 'test.setItems',
					parameters: {
						items: JSON.stringify(
							Array.from({ length: items }, (_, i) => ({ title: `${title} ${i + 1}` })),
						),
					},
				},
				adNode(
					{
						resource: 'report',
						operation: 'generate',
						accountId: rl(account),
						title: '={{ $json.title }}',
						dateStart: '2026-10-01',
						dateEnd: '2026-10-07',
						...(waitMinutes === undefined
							? {}
							: { requestOptions: { rateLimitWaitMinutes: waitMinutes } }),
					},
					{ continueOnFail: false },
				),
			],
		});

	test('a write is not held behind another execution’s slow answer: the turn ends when a request is sent (issue 26, item 1)', async () => {
		const accounts = service.fake.accounts();
		// The first execution's Generate POST takes 2 s to answer; the second may wait 0.5 service
		// minutes (0.3 s at the test's time scale) for its turn. Before, it waited for the slow
		// answer and failed with "waited for its turn behind other executions".
		service.fake.intercept({
			method: 'POST',
			pathPrefix: '/v1/reports',
			times: 1,
			respond: (_request, real) => ({ reply: real(), delayMs: 2_000 }),
		});
		service.fake.clearLog();
		const slow = generate(accounts[0].platformAccountId as string, 'Slow one');
		// Let the slow one be sent first.
		await new Promise((resolve) => setTimeout(resolve, 200));
		const started = Date.now();
		const held = await generate(accounts[1].platformAccountId as string, 'Held one', 0.5);
		const heldMs = Date.now() - started;
		const slowResult = await slow;
		expect(slowResult.error).toBeUndefined();
		expect(held.error).toBeUndefined();
		expect(heldMs).toBeLessThan(1_500);
		expect(service.fake.log.some((entry) => entry.status === 429)).toBe(false);
		const posts = apiRequests(service, { method: 'POST', pathPrefix: '/v1/reports' });
		expect(posts).toHaveLength(2);
	});

	test('a write held behind another execution’s write that waits for a spent window fails saying so, with no 429', async () => {
		const accounts = service.fake.accounts();
		service.fake.clearLog();
		// Six generations in one execution: the sixth waits (in its turn) for the next window,
		// 1 service minute (0.6 s at the test's time scale).
		const busy = generate(accounts[0].platformAccountId as string, 'Busy one', undefined, 6);
		const posts = () => apiRequests(service, { method: 'POST', pathPrefix: '/v1/reports' });
		while (posts().length < 5) await new Promise((resolve) => setTimeout(resolve, 10));
		await new Promise((resolve) => setTimeout(resolve, 100));
		// 0.2 service minutes = 0.12 s: less than the sixth's wait for the window.
		const held = await generate(accounts[1].platformAccountId as string, 'Held one', 0.2);
		const busyResult = await busy;
		expect(busyResult.error).toBeUndefined();
		expect(held.error?.message).toMatch(/waited for its turn behind other executions/);
		expect(`${held.error?.description}`).toMatch(/did not refuse this request/);
		expect(service.fake.log.some((entry) => entry.status === 429)).toBe(false);
		// It was never sent.
		expect(posts().filter((entry) => /Held one/.test(JSON.stringify(entry.body)))).toHaveLength(0);
	});
});
