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

describe('Return All and Limit collect records from a listing that agrees with itself', () => {
	/** Answers page N of /v1/accounts with `pageOf(N)`. */
	function accountPages(
		pageOf: (page: number) => { data: IDataObject[]; pagination: IDataObject },
	) {
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/accounts',
			respond: (request) => ({
				status: 200,
				json: { ...pageOf(Number(request.query.page ?? 1)), meta: { remaining_requests: 100 } },
			}),
		});
	}
	const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

	test('a page of 200,000 records, more than asked, is read without spreading it into arguments, and refused', async () => {
		const huge = range(0, 200_000).map((i) => ({ id: `r${i}` }));
		accountPages((page) => ({ data: huge, pagination: { page, page_size: 100, hasMore: false } }));
		const result = await runAttack(service, [
			adNode({ resource: 'account', operation: 'getAll', returnAll: true }),
		]);
		expect(errorText(result)).toMatch(/its page held 200000 records, more than the 100 asked for/);
		// Read again (a list may shift while it is paged), then refused.
		expect(apiRequests(service, { pathPrefix: '/v1/accounts' })).toHaveLength(3);
	});

	test('a limit takes only what it needs, from a page larger than asked', async () => {
		accountPages((page) => ({
			data: range(0, 500).map((id) => ({ id: `act_${id}` })),
			pagination: { page, page_size: 7, hasMore: true },
		}));
		const result = await runAttack(service, [
			adNode({ resource: 'account', operation: 'getAll', returnAll: false, limit: 7 }),
		]);
		expect(result.items).toHaveLength(7);
		expect(apiRequests(service, { pathPrefix: '/v1/accounts' })).toHaveLength(1);
	});

	test('a record the list repeats on the next page is collected once, and a shifted listing is read again', async () => {
		let reads = 0;
		accountPages((page) => {
			if (page === 1) reads++;
			const shifted = reads === 1;
			// The first read: an insert between pages repeats record 99 on page 2, and the totals differ.
			const ids = page === 1 ? range(0, 100) : shifted ? range(99, 150) : range(100, 150);
			return {
				data: ids.map((id) => ({ id: `act_${id}` })),
				pagination: {
					page,
					page_size: 100,
					total: shifted && page === 2 ? 151 : 150,
					hasMore: page === 1,
				},
			};
		});
		const result = await runAttack(service, [
			adNode({ resource: 'account', operation: 'getAll', returnAll: true }),
		]);
		expect(result.items.map((item) => item.json.id)).toEqual(
			range(0, 150).map((id) => `act_${id}`),
		);
		expect(reads).toBe(2);
	});
});
