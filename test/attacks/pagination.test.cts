/**
 * Attack 4: endless pagination. A page that makes no progress (only records already seen) or a
 * page count past what `total` allows ends the read with a clear error, in every place that
 * pages: Return All, Report → Get, Wait for Ad Report (within its Timeout) and a trigger poll.
 */
import type { IDataObject } from 'n8n-workflow';

import type { InterceptedRequest, RealReply } from '../../sandbox/index.cjs';
import { ActiveTrigger } from '../nodes/AdPerformanceTrigger/poll-harness.cjs';
import { adNode, apiRequests, WAIT_NODE } from '../nodes/helpers.cjs';
import { errorText, runAttack, useHostileService } from './helpers.cjs';

const service = useHostileService();

/** Every page is page 1 again, and says there is more. */
function repeatFirstPage(pathPrefix: string) {
	let firstPage: IDataObject[] | undefined;
	service.fake.intercept({
		method: 'GET',
		pathPrefix,
		respond: (request: InterceptedRequest, real: () => RealReply) => {
			if (request.path !== pathPrefix) return undefined;
			const reply = real();
			const body = reply.json as { data?: IDataObject[]; pagination?: IDataObject };
			if (!Array.isArray(body.data)) return { reply };
			firstPage ??= body.data;
			return {
				status: 200,
				json: { ...body, data: firstPage, pagination: { ...body.pagination, hasMore: true } },
			};
		},
	});
}

/** Pages of ever-new records, while `total` says there are only 150 of them. */
function endlessNewRecords(pathPrefix: string, make: (n: number) => IDataObject) {
	service.fake.intercept({
		method: 'GET',
		pathPrefix,
		respond: (request) => {
			const page = Number(request.query.page ?? 1);
			const size = Number(request.query.page_size ?? 20);
			return {
				status: 200,
				json: {
					data: Array.from({ length: size }, (_, i) => make((page - 1) * size + i)),
					pagination: { total: 150, page, page_size: size, hasMore: true },
					meta: { remaining_requests: 100 },
				},
			};
		},
	});
}

const account = (n: number) => ({ id: `act_fake${n}`, name: `Account ${n}` });
const report = (n: number) => ({
	id: `rpt_fake${n}`,
	status: 'generating',
	createdAt: new Date().toISOString(),
});

describe('a service that pages forever is stopped', () => {
	test('Return All over a repeated page ends with an error after 2 requests', async () => {
		repeatFirstPage('/v1/accounts');
		const result = await runAttack(service, [
			adNode({ resource: 'account', operation: 'getAll', returnAll: true }),
		]);
		expect(errorText(result)).toMatch(/pagination of GET \/v1\/accounts made no progress/);
		expect(apiRequests(service, { pathPrefix: '/v1/accounts' })).toHaveLength(2);
	});

	test('Return All past the announced total ends after ceil(total / 100) + 1 pages', async () => {
		endlessNewRecords('/v1/accounts', account);
		const result = await runAttack(service, [
			adNode({ resource: 'account', operation: 'getAll', returnAll: true }),
		]);
		expect(errorText(result)).toMatch(/past the total it gave/);
		expect(apiRequests(service, { pathPrefix: '/v1/accounts' })).toHaveLength(3);
	});

	test('Report → Get of a report that is not there ends instead of looping', async () => {
		repeatFirstPage('/v1/reports');
		const result = await runAttack(service, [
			adNode({ resource: 'report', operation: 'get', reportId: 'rpt_notthere0001' }),
		]);
		expect(errorText(result)).toMatch(/made no progress/);
		expect(apiRequests(service, { pathPrefix: '/v1/reports' }).length).toBeLessThanOrEqual(2);
	});

	test('Wait for Ad Report ends within its Timeout with the error on the item', async () => {
		endlessNewRecords('/v1/reports', report);
		const result = await runAttack(
			service,
			[
				{
					name: 'Wait',
					type: WAIT_NODE,
					parameters: { pollIntervalSeconds: 0.2, timeoutSeconds: 2 },
					continueOnFail: true,
				},
			],
			{ items: [{ id: 'rpt_notthere0001' }] },
		);
		expect(result.items).toHaveLength(1);
		expect(String(result.items[0].json.error)).toMatch(/past the total it gave/);
		expect(apiRequests(service).length).toBeLessThanOrEqual(3);
		expect(result.durationMs).toBeLessThan(10_000);
	});

	test('a trigger poll ends with an error and keeps its cursor', async () => {
		const trigger = new ActiveTrigger(
			{ event: 'reportCompleted', requestOptions: { maxAttempts: 1 } },
			service.credentials().adPerformanceApi,
		);
		expect((await trigger.poll()).items).toBeNull(); // baseline
		const before = trigger.staticData;
		repeatFirstPage('/v1/reports');
		service.fake.addReports(3, { status: 'completed' });
		service.fake.clearLog();
		await expect(trigger.poll()).rejects.toThrow(/made no progress/);
		expect(trigger.staticData).toEqual(before);
		expect(apiRequests(service).length).toBeLessThanOrEqual(2);
	});
});
