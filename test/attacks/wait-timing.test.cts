/**
 * Attack 10: Wait for Ad Report's timing. A lagging list is waited out within the Timeout, the
 * Timeout holds even while a list request hangs, Continue On Fail covers a failed sweep, and a
 * truncated download is named and fetched again.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiRequests, WAIT_NODE } from '../nodes/helpers.cjs';
import { errorText, runAttack, useHostileService } from './helpers.cjs';

const service = useHostileService();

function waitNode(parameters: IDataObject = {}, extra: IDataObject = {}) {
	return {
		name: 'Wait for Ad Report',
		type: WAIT_NODE,
		parameters: { pollIntervalSeconds: 0.2, timeoutSeconds: 60, ...parameters },
		...extra,
	};
}

function completedReports(count: number) {
	return service.fake.addReports(count, { status: 'completed' });
}

describe('Wait for Ad Report timing', () => {
	test('a list that lags 3 s behind a new report is waited out, not "not found"', async () => {
		const [report] = completedReports(1);
		// The lag runs from the first sweep, which comes after the run has started (n8n's set-up
		// of the run, slower on a busy machine, is not counted in it).
		let listedFrom: number | undefined;
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/reports',
			respond: (request, real) => {
				if (request.path !== '/v1/reports') return undefined;
				listedFrom ??= Date.now() + 3_000;
				if (Date.now() >= listedFrom) return undefined;
				const reply = real();
				const body = reply.json as { data: Array<{ id: string }> };
				body.data = body.data.filter((record) => record.id !== report.id);
				return { reply };
			},
		});
		const result = await runAttack(service, [waitNode({ download: false })], {
			items: [{ id: report.id }],
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({ id: report.id, status: 'completed' });
		expect(result.durationMs).toBeGreaterThanOrEqual(3_000);
	});

	test('the Timeout holds while a list request hangs (2 s timeout, 20 s hang)', async () => {
		const [report] = completedReports(1);
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/reports',
			respond: (_request, real) => ({ reply: real(), delayMs: 20_000 }),
		});
		const result = await runAttack(service, [waitNode({ timeoutSeconds: 2 })], {
			items: [{ id: report.id }],
		});
		expect(result.error).toBeDefined();
		expect(errorText(result)).toContain(report.id);
		expect(errorText(result)).toMatch(/within the timeout \(2 seconds\)/);
		// Far from the hang's 20 s: the request was cut at the deadline.
		expect(result.durationMs).toBeLessThan(10_000);
	});

	test('with Continue On Fail a failed sweep gives every item its { error }', async () => {
		const reports = completedReports(2);
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/reports',
			respond: () => ({
				status: 401,
				json: { error: { type: 'key_revoked', message: 'This API key has been revoked.' } },
			}),
		});
		const result = await runAttack(service, [waitNode({}, { continueOnFail: true })], {
			items: reports.map((report) => ({ id: report.id })),
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(2);
		for (const [index, item] of result.items.entries()) {
			expect(item.json.error).toMatch(/revoked/);
			expect(item.pairedItem).toEqual({ item: index });
		}
	});

	test('a download cut off once is fetched again and arrives whole', async () => {
		const [report] = completedReports(1);
		service.fake.intercept({
			method: 'GET',
			pathPrefix: `/v1/reports/${report.id}/download`,
			times: 1,
			respond: (_request, real) => ({ reply: real(), truncateAfterBytes: 200 }),
		});
		const result = await runAttack(
			service,
			[waitNode(), { name: 'Inspect', type: 'test.binaryInspector', parameters: {} }],
			{ items: [{ id: report.id }] },
		);
		expect(result.error).toBeUndefined();
		const downloads = apiRequests(service, { pathPrefix: `/v1/reports/${report.id}/download` });
		expect(downloads).toHaveLength(2);
		const expected = await fetch(`${service.fake.url}/v1/reports/${report.id}/download`, {
			headers: { 'x-api-key': service.fake.keys.live, 'service-version': '2026-03-01' },
		});
		const bytes = Buffer.from(await expected.arrayBuffer());
		expect(bytes.length).toBeGreaterThan(200);
		expect(Buffer.from(result.items[0].json.base64 as string, 'base64').equals(bytes)).toBe(true);
	});

	test('a download cut off every time fails naming the report, not with a bare "aborted"', async () => {
		const [report] = completedReports(1);
		service.fake.intercept({
			method: 'GET',
			pathPrefix: `/v1/reports/${report.id}/download`,
			respond: (_request, real) => ({ reply: real(), truncateAfterBytes: 200 }),
		});
		const result = await runAttack(service, [waitNode({ requestOptions: { maxAttempts: 2 } })], {
			items: [{ id: report.id }],
		});
		expect(result.error?.message).toBe(
			`The download of report ${report.id} was cut off before the whole file arrived`,
		);
		expect(apiRequests(service, { pathPrefix: `/v1/reports/${report.id}/download` })).toHaveLength(
			2,
		);
	});
});
