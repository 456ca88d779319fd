/**
 * Attack 11: many workflows on one key (the Monday-morning case, and n8n's queue mode). A 429
 * that names a retry time is the service scheduling us: every execution keeps waiting while
 * it keeps scheduling, within Max Wait When Rate Limited, so no item fails and no report is
 * created twice. (Wall time and POSTs per report are measured in `npm run bench`.)
 */
import type { IDataObject } from 'n8n-workflow';

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
) {
	return await Promise.all(
		Array.from({ length: executions }, (_, execution) =>
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
