import type { IDataObject } from 'n8n-workflow';

import type { TestService } from '../helpers.cjs';
import { adNode, apiRequests, rl, run, useFakeService, WAIT_NODE } from '../helpers.cjs';

function waitNode(parameters: IDataObject = {}, extra: IDataObject = {}) {
	return {
		name: 'Wait for Ad Report',
		type: WAIT_NODE,
		parameters: { pollIntervalSeconds: 0.1, timeoutSeconds: 30, ...parameters },
		...extra,
	};
}
const inspector = (binaryPropertyName = 'data') => ({
	name: 'Inspect',
	type: 'test.binaryInspector',
	parameters: { binaryPropertyName },
});

function generateNode(service: TestService, parameters: IDataObject = {}) {
	const acme = service.fake.accounts().find((a) => a.name === 'Acme Outdoor')!;
	return adNode({
		resource: 'report',
		operation: 'generate',
		accountId: rl(acme.platformAccountId),
		title: 'Weekly report – Acme Outdoor',
		dateStart: '2026-11-09',
		dateEnd: '2026-11-15',
		...parameters,
	});
}

async function fetchFile(service: TestService, reportId: string) {
	const response = await fetch(`${service.fake.url}/v1/reports/${reportId}/download`, {
		headers: { 'x-api-key': service.fake.keys.live, 'service-version': '2026-03-01' },
	});
	return {
		bytes: Buffer.from(await response.arrayBuffer()),
		disposition: response.headers.get('content-disposition'),
	};
}

describe('Wait for Ad Report against the time-scaled fake (a report takes 100–200 ms)', () => {
	const service = useFakeService({ timeScale: 0.01 });

	test('Generate → Wait: pending/generating → completed, with the PDF as binary data for the next node', async () => {
		const result = await run(service, [generateNode(service), waitNode(), inspector()]);
		expect(result.error).toBeUndefined();
		const generated = result.nodes['Ad Performance'].items[0].json;
		expect(['pending', 'generating']).toContain(generated.status);
		const waited = result.nodes['Wait for Ad Report'].items[0];
		expect(waited.json).toMatchObject({ id: generated.id, status: 'completed' });
		expect(waited.json.downloadUrl).toBeDefined();
		expect(waited.pairedItem).toEqual({ item: 0 });
		const file = result.items[0].json;
		const expected = await fetchFile(service, generated.id as string);
		expect(Buffer.from(file.base64 as string, 'base64').equals(expected.bytes)).toBe(true);
		expect(file).toMatchObject({
			fileName: 'weekly-report-acme-outdoor.pdf',
			mimeType: 'application/pdf',
			fileExtension: 'pdf',
		});
		const lists = apiRequests(service, { method: 'GET', pathPrefix: '/v1/reports' }).filter(
			(r) => r.path === '/v1/reports',
		);
		expect(lists.length).toBeGreaterThanOrEqual(1);
		// Narrowed by the account and creation time that Generate returned.
		expect(lists[0].query.accountId).toBe(generated.accountId);
		expect(lists[0].query.from).toBeDefined();
	});

	test.each([
		['markdown', 'text/markdown', 'md'],
		['json', 'application/json', 'json'],
		['pdf', 'application/pdf', 'pdf'],
	])(
		'%s downloads have the right bytes, file name and MIME type',
		async (format, mimeType, extension) => {
			const result = await run(service, [
				generateNode(service, { title: `Client ${format} report`, additionalFields: { format } }),
				waitNode({ binaryPropertyName: 'report' }),
				inspector('report'),
			]);
			expect(result.error).toBeUndefined();
			const id = result.nodes['Wait for Ad Report'].items[0].json.id as string;
			const expected = await fetchFile(service, id);
			const file = result.items[0].json;
			expect(file.mimeType).toBe(mimeType);
			expect(file.fileName).toBe(`client-${format}-report.${extension}`);
			expect(expected.disposition).toContain(`client-${format}-report.${extension}`);
			const bytes = Buffer.from(file.base64 as string, 'base64');
			expect(bytes.equals(expected.bytes)).toBe(true);
			if (format === 'json') expect(JSON.parse(bytes.toString()).id).toBe(id);
			if (format === 'pdf') expect(bytes.subarray(-6).toString()).toMatch(/%%EOF/);
		},
	);

	test('a failed report is an error with the service’s reason; with Continue On Fail the other items go on', async () => {
		service.fake.failNextReports(1, {
			type: 'generation_failed',
			message: 'The ad platform returned no data',
		});
		const failing = await run(service, [generateNode(service, { title: 'Will fail' }), waitNode()]);
		expect(failing.error?.message).toMatch(
			/^Report rpt_\w+ failed: The ad platform returned no data$/,
		);

		service.fake.failNextReports(1, {
			type: 'generation_failed',
			message: 'The ad platform returned no data',
		});
		const acme = service.fake.accounts().find((a) => a.name === 'Acme Outdoor')!;
		const mixed = await run(
			service,
			[
				generateNode(service, {
					accountId: rl(acme.platformAccountId),
					title: '={{ $json.title }}',
				}),
				waitNode({ download: false }, { continueOnFail: true }),
			],
			{ items: [{ title: 'First' }, { title: 'Second' }] },
		);
		expect(mixed.items).toHaveLength(2);
		expect(mixed.items[0].json.error).toMatch(/failed: The ad platform returned no data/);
		expect(mixed.items[1].json).toMatchObject({ title: 'Second', status: 'completed' });
		expect(mixed.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	test('the look after the first comes when the service estimates the report done, not a Poll Interval later', async () => {
		// Poll Interval 20 s; the report takes 100–200 ms (its estimate: 10–20 service seconds).
		const result = await run(service, [
			generateNode(service, { title: 'Estimate report' }),
			waitNode({ pollIntervalSeconds: 20, timeoutSeconds: 60 }),
		]);
		expect(result.error).toBeUndefined();
		const generated = result.nodes['Ad Performance'].items[0].json;
		expect(generated.estimatedCompletionSeconds).toEqual(expect.any(Number));
		expect(result.items[0].json).toMatchObject({ id: generated.id, status: 'completed' });
		const [post] = apiRequests(service, { method: 'POST' });
		const lists = apiRequests(service, { method: 'GET' }).filter((r) => r.path === '/v1/reports');
		// The first look at once, one at the estimate (done by then), none on the 20 s beat.
		expect(lists.length).toBeLessThanOrEqual(3);
		expect(lists[lists.length - 1].at - post.at).toBeLessThan(5_000);
	}, 30_000);

	test('25 items are waited for together: one list request a sweep, not 25 loops', async () => {
		const accounts = service.fake.accounts();
		const items = Array.from({ length: 25 }, (_, i) => ({
			account: accounts[i % 3].platformAccountId,
			title: `Client report ${i + 1}`,
		}));
		const result = await run(
			service,
			[
				generateNode(service, {
					accountId: rl('={{ $json.account }}'),
					title: '={{ $json.title }}',
				}),
				waitNode({ pollIntervalSeconds: 0.2 }),
			],
			{ items },
		);
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(25);
		expect(result.items.map((i) => i.json.title)).toEqual(items.map((i) => i.title));
		for (const item of result.items) {
			expect(item.json.status).toBe('completed');
			expect(item.binary?.data?.mimeType).toBe('application/pdf');
		}
		const posts = apiRequests(service, { method: 'POST' });
		const lists = apiRequests(service, { method: 'GET' }).filter((r) => r.path === '/v1/reports');
		const downloads = apiRequests(service, { method: 'GET' }).filter((r) =>
			r.path.endsWith('/download'),
		);
		expect(posts).toHaveLength(25);
		expect(downloads).toHaveLength(25);
		// Separate loops would need at least one look per report (25). One wait looks once a beat
		// (200 ms) and at most once more per report still generating when it began (Generate's
		// last window: 5), so a slow machine adds looks, never 25.
		expect(lists.length).toBeLessThanOrEqual(12);
	});

	test('an expired download link is a clear error naming the report', async () => {
		const report = service.fake
			.reports()
			.find((r) => r.status === 'completed' && r.format === 'pdf')!;
		service.fake.expireReport(report.id);
		const result = await run(service, [waitNode()], { items: [{ id: report.id }] });
		expect(result.error?.message).toMatch(
			new RegExp(`^The download link of report ${report.id} expired at `),
		);
		expect(result.error?.description).toMatch(/Generate the report again/);
	});

	test('an id that is never listed is reported as not found at the timeout', async () => {
		const result = await run(service, [waitNode({ timeoutSeconds: 1 })], {
			items: [{ id: 'rpt_doesnotexist00' }],
		});
		expect(result.error?.message).toBe('Report rpt_doesnotexist00 was not found');
	});
});

describe('Wait for Ad Report with real-time reports (10–20 s)', () => {
	const service = useFakeService({ timeScale: 1 });

	test('timeout with On Timeout = Fail is an error naming the report and its status', async () => {
		const result = await run(service, [
			generateNode(service),
			waitNode({ timeoutSeconds: 1, pollIntervalSeconds: 0.3 }),
		]);
		expect(result.error?.message).toMatch(
			/^Report rpt_\w+ was still (pending|generating) after 1 seconds$/,
		);
	});

	test('timeout with On Timeout = Output outputs the report as it is, without a file', async () => {
		const result = await run(service, [
			generateNode(service),
			waitNode({ timeoutSeconds: 1, pollIntervalSeconds: 0.3, onTimeout: 'outputPending' }),
		]);
		expect(result.error).toBeUndefined();
		expect(['pending', 'generating']).toContain(result.items[0].json.status);
		expect(result.items[0].binary).toBeUndefined();
	});

	// Without the stop, this run would poll until its 60 s timeout, past the test's own timeout.
	test('cancelling the execution stops polling at once', async () => {
		const result = await run(
			service,
			[generateNode(service), waitNode({ timeoutSeconds: 60, pollIntervalSeconds: 0.5 })],
			{ cancelAfterMs: 1200 },
		);
		expect(result.run.status).toBe('canceled');
		const requestsAtCancel = apiRequests(service).length;
		await new Promise((resolve) => setTimeout(resolve, 1500));
		expect(apiRequests(service).length).toBe(requestsAtCancel);
	});
});

describe('downloadUrl on another origin', () => {
	const service = useFakeService({ timeScale: 0.01, downloadOrigin: 'foreign' });

	test('the file is fetched from the signed link without the API key', async () => {
		const result = await run(service, [generateNode(service), waitNode(), inspector()]);
		expect(result.error).toBeUndefined();
		const waited = result.nodes['Wait for Ad Report'].items[0].json;
		expect(String(waited.downloadUrl)).toMatch(new RegExp(`^${service.fake.foreignUrl}`));
		const foreign = service.fake.log.filter((r) => r.origin === 'foreign');
		expect(foreign).toHaveLength(1);
		expect(foreign[0].status).toBe(200);
		expect(foreign[0].headers['x-api-key']).toBeUndefined();
		expect(JSON.stringify(foreign[0].headers)).not.toContain(service.fake.keys.live);
		expect(
			Buffer.from(result.items[0].json.base64 as string, 'base64')
				.subarray(0, 5)
				.toString(),
		).toBe('%PDF-');
	});
});
