/**
 * Rate-limit hints that would cause hammering, and waits that would blame the wrong party. A
 * 429 always waits at least a backoff floor (with jitter) and at most Max Wait When Rate
 * Limited; a write waiting for its turn behind other executions on the same key is bounded by
 * the same Max Wait, and its error says that it waited for them, not that the service refused.
 */
import { runWorkflow } from '../harness/run-workflow.cjs';
import { adNode, apiRequests, generateParameters, rl } from '../nodes/helpers.cjs';
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

/**
 * The counts below are of requests within one service minute of waiting. At 0.05 that minute
 * is 3 s, long beside a request's round trip on a busy machine (at the suite's 0.01 it is
 * 0.6 s, of which slow round trips could take most and leave room for fewer requests).
 */
const MINUTE_OF_3_S = { credentials: { timeScale: 0.05 } };

describe('rate-limit hints have a floor', () => {
	test('"Retry after 0 seconds" for a whole Max Wait: a few requests, not thousands', async () => {
		refuseWith('Rate limit exceeded. Retry after 0 seconds.');
		// One service minute of waiting. Without a floor this sent hundreds of requests; with it
		// (0.5-1 s, 1-2 s, 2-4 s … 30 s) at most about 8.
		const result = await runAttack(service, [rawRequest('1')], MINUTE_OF_3_S);
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
		const result = await runAttack(service, [rawRequest('1', 4)], MINUTE_OF_3_S);
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

/**
 * Attack (issue 26, class 8): HTTP's own hints. A proxy or load balancer in front of the service
 * answers 503 with Retry-After (maintenance), or the service answers 429 with it: the client
 * waits as told (seconds or an HTTP date), within Max Wait When Rate Limited; an absurd value
 * (negative, garbage, years) is ignored and the backoff floor applies.
 */
describe('Retry-After on 429 and 503', () => {
	function answerOnce(status: number, retryAfter: string) {
		service.fake.intercept({
			pathPrefix: '/v1/accounts',
			times: 1,
			respond: () => ({
				status,
				headers: { 'Retry-After': retryAfter },
				json: {
					error: {
						type: status === 429 ? 'rate_limit_error' : 'service_unavailable',
						message: status === 429 ? 'Slow down.' : 'Down for maintenance.',
					},
				},
			}),
		});
	}
	const gapMs = () => {
		const sent = apiRequests(service, { pathPrefix: '/v1/accounts' });
		expect(sent).toHaveLength(2);
		return sent[1].at - sent[0].at;
	};

	test.each<[string, number, () => string]>([
		['503, Retry-After in seconds', 503, () => '60'],
		['503, Retry-After as an HTTP date', 503, () => new Date(Date.now() + 61_000).toUTCString()],
		['429, Retry-After in seconds (and no hint in the message)', 429, () => '60'],
	])(
		'%s: waited as told (60 service s = 0.6 s here), then answered',
		async (_name, status, value) => {
			answerOnce(status, value());
			const result = await runAttack(service, [rawRequest('15')]);
			expect(result.error).toBeUndefined();
			expect(gapMs()).toBeGreaterThanOrEqual(550);
		},
	);

	test.each(['-5', 'soon', '99999999999', 'Mon, 01 Jan 3000 00:00:00 GMT'])(
		'503 with an absurd Retry-After (%s): the backoff floor applies, not the value',
		async (value) => {
			answerOnce(503, value);
			const result = await runAttack(service, [rawRequest('15')]);
			expect(result.error).toBeUndefined();
			// A backoff of at most 1 service second: 10 ms here (plus the exchange).
			expect(gapMs()).toBeLessThan(400);
		},
	);

	test('503 with a Retry-After longer than Max Wait: fails at once, without waiting for it', async () => {
		answerOnce(503, '300');
		const started = Date.now();
		const result = await runAttack(service, [rawRequest('1')]);
		expect(result.error?.message).toMatch(/503|unavailable|maintenance/i);
		expect(apiRequests(service, { pathPrefix: '/v1/accounts' })).toHaveLength(1);
		expect(Date.now() - started).toBeLessThan(1_000);
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
					generateParameters({
						accountId: rl(account),
						title: '={{ $json.title }}',
						...(waitMinutes === undefined
							? {}
							: { requestOptions: { rateLimitWaitMinutes: waitMinutes } }),
					}),
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
