/**
 * Attack 11: many workflows on one key (the Monday-morning case, and n8n's queue mode). A 429
 * that names a retry time is the service scheduling us: every execution keeps waiting while
 * it keeps scheduling, within Max Wait When Rate Limited, so no item fails and no report is
 * created twice. (Wall time and POSTs per report are measured in `npm run bench`.)
 */
import type { IDataObject } from 'n8n-workflow';

import { trickling } from '../../sandbox/index.cjs';
import { runWorkflow } from '../harness/run-workflow.cjs';
import { adNode, apiRequests, rl } from '../nodes/helpers.cjs';
import { useHostileService } from './helpers.cjs';

const service = useHostileService();

function generateItems(execution: number, count: number): IDataObject[] {
	const accounts = service.fake.accounts();
	return Array.from({ length: count }, (_, i) => ({
		account: accounts[(execution + i) % accounts.length].platformAccountId,
		title: `Execution ${execution} report ${i + 1}`,
	}));
}

async function generateInParallel(
	executions: number,
	itemsEach: number,
	options: IDataObject = {},
	firstExecution = 0,
) {
	return await Promise.all(
		Array.from({ length: executions }, (_, index) => firstExecution + index).map((execution) =>
			runWorkflow({
				credentials: service.credentials(),
				nodes: [
					{
						name: 'Set Items',
						type: 'test.setItems',
						parameters: { items: JSON.stringify(generateItems(execution, itemsEach)) },
					},
					adNode(
						{
							resource: 'report',
							operation: 'generate',
							accountId: rl('={{ $json.account }}'),
							title: '={{ $json.title }}',
							dateStart: '2026-10-01',
							dateEnd: '2026-10-07',
							...options,
						},
						{ continueOnFail: true },
					),
				],
			}),
		),
	);
}

describe('many executions on one key', () => {
	test('4 executions x 5 generations at once: every item gets its own report', async () => {
		const before = new Set(service.fake.reports().map((report) => report.id));
		service.fake.clearLog();
		const runs = await generateInParallel(4, 5);
		const outputs = runs.flatMap((result) => result.items.map((item) => item.json));
		expect(outputs.filter((json) => json.error !== undefined)).toEqual([]);
		const created = service.fake.reports().filter((report) => !before.has(report.id));
		expect(created).toHaveLength(20);
		expect(new Set(outputs.map((json) => json.id)).size).toBe(20);
		expect(new Set(created.map((report) => report.title)).size).toBe(20);
		// Pacing shared by the executions: 20 reports need 20 POSTs, give or take a 429.
		expect(apiRequests(service, { method: 'POST' }).length).toBeLessThanOrEqual(30);
	});

	test('when the service keeps scheduling past Max Wait, the item says so instead of retrying forever', async () => {
		service.fake.intercept({
			method: 'POST',
			pathPrefix: '/v1/reports',
			respond: () => ({
				status: 429,
				json: {
					error: {
						type: 'rate_limit_error',
						message: 'Rate limit exceeded. Retry after 60 seconds.',
					},
				},
			}),
		});
		// The key's pacing is this process's, across tests: the 429s of the test before hold the key
		// for up to a minute of the service's time (0.6 s here), and a request whose Max Wait is
		// shorter than the hold fails unsent (held-key.test). Let that hold end first.
		await new Promise((resolve) => setTimeout(resolve, 1_000));
		service.fake.clearLog();
		// 0.05 minutes = 3 service seconds: less than the 60 s the service asks for.
		const [result] = await generateInParallel(1, 1, {
			requestOptions: { rateLimitWaitMinutes: 0.05 },
		});
		expect(result.items[0].json.error).toBe(
			'The service rate limit was exceeded for longer than this request may wait',
		);
		expect(apiRequests(service, { method: 'POST' })).toHaveLength(1);
	});
});

/**
 * Attack (issue 26, class 1): head-of-line blocking on a shared key. One execution's Generate is
 * answered slowly or trickles in; the others' writes on that key must not wait for it: a turn on
 * the key ends when a request is sent. And identical Generate calls at the same moment share
 * one request (single-flight), so they cannot create two reports.
 */
describe('no execution waits for another execution’s answer', () => {
	test('one Generate whose answer trickles for 3 s: three other executions on the key succeed promptly', async () => {
		service.fake.intercept({
			method: 'POST',
			pathPrefix: '/v1/reports',
			times: 1,
			respond: (_request, real) => {
				const reply = real();
				// 10 bytes every 100 ms: about 3 s for the answer.
				return trickling({ status: reply.status, json: reply.json }, 10, 100);
			},
		});
		service.fake.clearLog();
		const slow = generateInParallel(1, 1);
		while (apiRequests(service, { method: 'POST' }).length < 1)
			await new Promise((resolve) => setTimeout(resolve, 10));
		const started = Date.now();
		// 0.5 service minutes = 0.3 s: far less than the trickle, enough for an ordinary answer.
		const others = await generateInParallel(
			3,
			1,
			{ requestOptions: { rateLimitWaitMinutes: 0.5 } },
			1,
		);
		const othersMs = Date.now() - started;
		const [slowResult] = await slow;
		expect(slowResult.items[0].json.error).toBeUndefined();
		for (const result of others) expect(result.items[0].json.error).toBeUndefined();
		expect(othersMs).toBeLessThan(1_500);
		expect(service.fake.log.some((entry) => entry.status === 429)).toBe(false);
		expect(apiRequests(service, { method: 'POST' })).toHaveLength(4);
	});

	test('identical Generate calls of three executions at the same moment share one request and one report', async () => {
		const account = service.fake.accounts()[0].platformAccountId as string;
		service.fake.intercept({
			method: 'POST',
			pathPrefix: '/v1/reports',
			respond: (_request, real) => ({ reply: real(), delayMs: 300 }),
		});
		const before = new Set(service.fake.reports().map((report) => report.id));
		service.fake.clearLog();
		const runs = await Promise.all(
			Array.from({ length: 3 }, () =>
				runWorkflow({
					credentials: service.credentials(),
					nodes: [
						adNode(
							{
								resource: 'report',
								operation: 'generate',
								accountId: rl(account),
								title: 'The same request, three times at once',
								dateStart: '2026-10-01',
								dateEnd: '2026-10-07',
							},
							{ continueOnFail: true },
						),
					],
				}),
			),
		);
		const ids = runs.map((result) => result.items[0].json.id);
		expect(runs.map((result) => result.items[0].json.error)).toEqual([
			undefined,
			undefined,
			undefined,
		]);
		const created = service.fake.reports().filter((report) => !before.has(report.id));
		expect(created).toHaveLength(1);
		expect(new Set(ids)).toEqual(new Set([created[0].id]));
		expect(apiRequests(service, { method: 'POST' })).toHaveLength(1);
	});
});
