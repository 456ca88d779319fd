/**
 * Report → Generate with Wait for Completion (issue 41, item 5): Generate waits for its reports on
 * Wait for Ad Report's settle step, with its parameters (Poll Interval, Timeout, On Timeout,
 * Download File), and outputs what that node outputs. Run through n8n's engine against the
 * sandbox.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { AdPerformance } from '../../../nodes/AdPerformance/AdPerformance.node';
import {
	AD_TOOL_NODE,
	adNode,
	apiRequests,
	rl,
	run,
	useFakeService,
	WAIT_NODE,
	type TestService,
} from '../helpers.cjs';

const DATES = { dateStart: '2026-11-09', dateEnd: '2026-11-15' };

function acme(service: TestService) {
	return service.fake.accounts().find((a) => a.name === 'Acme Outdoor')!;
}

/** Report → Generate with Wait for Completion on; `wait` sets or overrides its parameters. */
function generateAndWait(
	service: TestService,
	wait: IDataObject = {},
	parameters: IDataObject = {},
	extra: IDataObject = {},
) {
	return adNode(
		{
			resource: 'report',
			operation: 'generate',
			accountId: rl(acme(service).platformAccountId),
			title: 'Weekly report – Acme Outdoor',
			...DATES,
			waitForCompletion: true,
			pollIntervalSeconds: 0.1,
			timeoutSeconds: 30,
			...wait,
			...parameters,
		},
		extra,
	);
}

async function fileOf(service: TestService, reportId: string) {
	const response = await fetch(`${service.fake.url}/v1/reports/${reportId}/download`, {
		headers: { 'x-api-key': service.fake.keys.live, 'service-version': '2026-03-01' },
	});
	return Buffer.from(await response.arrayBuffer());
}

/** The reports created (a POST the rate limit refused and the transport sent again is not one). */
const posts = (service: TestService) =>
	apiRequests(service, { method: 'POST' }).filter((r) => r.status === 202);
const lists = (service: TestService) =>
	apiRequests(service, { method: 'GET' }).filter((r) => r.path === '/v1/reports');

describe('Report → Generate with Wait for Completion (a report takes 100–200 ms)', () => {
	const service = useFakeService({ timeScale: 0.01 });
	beforeEach(() => service.fake.resetLimits());

	test('waits and outputs the finished report with its file, as Wait for Ad Report does', async () => {
		const result = await run(service, [
			generateAndWait(service),
			{ name: 'Inspect', type: 'test.binaryInspector', parameters: { binaryPropertyName: 'data' } },
		]);
		expect(result.error).toBeUndefined();
		const [generated] = result.nodes['Ad Performance'].items;
		expect(generated.json).toMatchObject({
			status: 'completed',
			title: 'Weekly report – Acme Outdoor',
		});
		expect(generated.pairedItem).toEqual({ item: 0 });
		expect(posts(service)).toHaveLength(1);
		// Narrowed by the account and creation time Generate was answered with.
		expect(lists(service)[0].query.accountId).toBe(generated.json.accountId);
		expect(lists(service)[0].query.from).toBeDefined();
		const id = generated.json.id as string;
		const file = result.items[0].json;
		expect(file).toMatchObject({
			fileName: 'weekly-report-acme-outdoor.pdf',
			mimeType: 'application/pdf',
		});
		expect(Buffer.from(file.base64 as string, 'base64').equals(await fileOf(service, id))).toBe(
			true,
		);

		// What Wait for Ad Report outputs for the same report: the same record and file.
		const waited = await run(
			service,
			[{ name: 'Wait', type: WAIT_NODE, parameters: { pollIntervalSeconds: 0.1 } }],
			{ items: [{ id }] },
		);
		expect(waited.error).toBeUndefined();
		expect(generated.json).toEqual(waited.items[0].json);
		const { data: ours } = generated.binary!;
		const { data: theirs } = waited.items[0].binary!;
		// Stored apart, each under its own id: the same file otherwise.
		expect({ ...ours, id: undefined }).toEqual({ ...theirs, id: undefined });
	});

	test('Download File off outputs the finished report without a file, in the field named', async () => {
		const off = await run(service, [generateAndWait(service, { download: false })]);
		expect(off.error).toBeUndefined();
		expect(off.items[0].json.status).toBe('completed');
		expect(off.items[0].binary).toBeUndefined();

		const named = await run(service, [
			generateAndWait(service, { binaryPropertyName: 'report' }, { title: 'Named field' }),
		]);
		expect(named.error).toBeUndefined();
		expect(Object.keys(named.items[0].binary ?? {})).toEqual(['report']);
	});

	test('off (the default, and every saved workflow): the report is output at once, unfinished', async () => {
		const result = await run(service, [
			adNode({
				resource: 'report',
				operation: 'generate',
				accountId: rl(acme(service).platformAccountId),
				title: 'Not waited for',
				...DATES,
				// The wait's own parameters are not read while it is off.
				pollIntervalSeconds: 'never',
			}),
		]);
		expect(result.error).toBeUndefined();
		expect(['pending', 'generating']).toContain(result.items[0].json.status);
		expect(result.items[0].binary).toBeUndefined();
		expect(apiRequests(service).map((r) => r.method)).toEqual(['POST']);
	});

	test('a failed report is an error with the service’s reason', async () => {
		service.fake.failNextReports(1, {
			type: 'generation_failed',
			message: 'The ad platform returned no data',
		});
		const result = await run(service, [generateAndWait(service, {}, { title: 'Will fail' })]);
		expect(result.error?.message).toMatch(
			/^Report rpt_\w+ failed: The ad platform returned no data$/,
		);
	});

	test.each([
		[
			'pollIntervalSeconds',
			0,
			/^Poll Interval \(Seconds\): 0 is not a number of seconds from 0.1 to 3600$/,
		],
		['pollIntervalSeconds', 'soon', /^Poll Interval \(Seconds\): soon is not a number/],
		[
			'timeoutSeconds',
			0.5,
			/^Timeout \(Seconds\): 0.5 is not a number of seconds from 1 to 86400$/,
		],
		['timeoutSeconds', 100_000, /^Timeout \(Seconds\): 100000 is not a number/],
		['onTimeout', 'shrug', /^On Timeout: /],
	])('%s = %p is refused, naming the field, before any request', async (name, value, message) => {
		const result = await run(service, [generateAndWait(service, { [name]: value })]);
		expect(result.error?.message).toMatch(message);
		expect(apiRequests(service)).toHaveLength(0);
	});

	test('one item’s bad Timeout is refused before any request, also for the other items', async () => {
		const result = await run(
			service,
			[
				generateAndWait(
					service,
					{ timeoutSeconds: '={{ $json.timeout }}' },
					{ title: '={{ $json.title }}' },
				),
			],
			{
				items: [
					{ title: 'Fine', timeout: 30 },
					{ title: 'Broken', timeout: 'forever' },
				],
			},
		);
		expect(result.error?.message).toMatch(/^Timeout \(Seconds\): forever is not a number/);
		expect(apiRequests(service)).toHaveLength(0);
	});

	test('with Continue On Fail, a failed report and a bad input are their items’ errors; the others are waited for', async () => {
		service.fake.failNextReports(1, {
			type: 'generation_failed',
			message: 'The ad platform returned no data',
		});
		const result = await run(
			service,
			[
				generateAndWait(
					service,
					{ pollIntervalSeconds: '={{ $json.poll }}' },
					{ title: '={{ $json.title }}' },
					{ continueOnFail: true },
				),
			],
			{
				items: [
					{ title: 'First fails', poll: 0.1 },
					{ title: 'Bad poll', poll: -1 },
					{ title: 'Third', poll: 0.1 },
				],
			},
		);
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(3);
		expect(result.items[0].json.error).toMatch(/failed: The ad platform returned no data/);
		expect(result.items[1].json.error).toMatch(/^Poll Interval \(Seconds\): -1 is not a number/);
		expect(result.items[2].json).toMatchObject({ title: 'Third', status: 'completed' });
		expect(result.items[2].binary?.data?.mimeType).toBe('application/pdf');
		expect(result.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		// The bad item never reached the service.
		expect(posts(service)).toHaveLength(2);
	});

	test('several items are paired with their reports and waited for together', async () => {
		const accounts = service.fake.accounts().filter((a) => a.connectionStatus === 'active');
		const items = Array.from({ length: 8 }, (_, i) => ({
			account: accounts[i % accounts.length].platformAccountId,
			title: `Client report ${i + 1}`,
		}));
		const result = await run(
			service,
			[
				generateAndWait(
					service,
					{ pollIntervalSeconds: 0.2 },
					{ accountId: rl('={{ $json.account }}'), title: '={{ $json.title }}' },
				),
				{ name: 'Inspect', type: 'test.binaryInspector', parameters: {} },
			],
			{ items },
		);
		expect(result.error).toBeUndefined();
		const generated = result.nodes['Ad Performance'].items;
		expect(generated.map((i) => i.json.title)).toEqual(items.map((i) => i.title));
		expect(generated.map((i) => i.json.accountId)).toEqual(items.map((i) => i.account));
		expect(generated.map((i) => i.pairedItem)).toEqual(items.map((_, item) => ({ item })));
		for (const [index, item] of generated.entries()) {
			expect(item.json.status).toBe('completed');
			// The file each item carries is its own report's, as the next node reads it.
			const bytes = Buffer.from(result.items[index].json.base64 as string, 'base64');
			expect(bytes.equals(await fileOf(service, item.json.id as string))).toBe(true);
		}
		expect(posts(service)).toHaveLength(8);
		// One wait for all: a loop per item would need at least one look per report.
		expect(lists(service).length).toBeLessThan(8);
	});

	test('with Reuse a Recent Identical Report, the waited-for report keeps its reused mark', async () => {
		const first = await run(service, [
			generateAndWait(
				service,
				{},
				{ title: 'Reused and waited', additionalFields: { reuseRecentReport: true } },
			),
		]);
		expect(first.items[0].json).toMatchObject({ status: 'completed', reused: false });
		const again = await run(service, [
			generateAndWait(
				service,
				{},
				{ title: 'Reused and waited', additionalFields: { reuseRecentReport: true } },
			),
		]);
		expect(again.error).toBeUndefined();
		expect(again.items[0].json).toMatchObject({
			id: first.items[0].json.id,
			status: 'completed',
			reused: true,
		});
		expect(again.items[0].binary?.data?.mimeType).toBe('application/pdf');
		expect(posts(service)).toHaveLength(0);
	});

	test('the tool variant answers at once: Wait for Completion is hidden there and not read', async () => {
		const properties = new AdPerformance().description.properties as INodeProperties[];
		const waitNames = [
			'waitForCompletion',
			'pollIntervalSeconds',
			'timeoutSeconds',
			'onTimeout',
			'download',
		];
		// Generate's: Diagnostic → Run's tool waits, with the fields of its own (from version 1.1).
		const generates = (p: INodeProperties) =>
			(p.displayOptions?.show?.operation as string[] | undefined)?.includes('generate');
		for (const property of properties.filter((p) => waitNames.includes(p.name) && generates(p))) {
			expect(property.displayOptions?.hide?.['@tool']).toEqual([true]);
		}
		// An n8n without `@tool` display options shows it; a tool call still answers at once.
		const result = await run(
			service,
			[
				{
					name: 'Ad Performance Tool',
					type: AD_TOOL_NODE,
					parameters: {
						resource: 'report',
						operation: 'generate',
						waitForCompletion: true,
						// No look for a recent identical report: any list request would be a wait's.
						toolReuseRecentReport: false,
					},
				},
			],
			{ items: [{ account: acme(service).platformAccountId, title: 'Tool report' }] },
		);
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({ reused: false });
		expect(['pending', 'generating']).toContain(result.items[0].json.status);
		expect(String(result.items[0].json.next)).toMatch(/wait-for-report tool/);
		expect(lists(service)).toHaveLength(0);
	});
});

describe('Report → Generate with Wait for Completion, reports in real time (10–20 s)', () => {
	const service = useFakeService({ timeScale: 1 });

	test('On Timeout = Fail: an error naming the report and its status', async () => {
		const result = await run(service, [
			generateAndWait(service, { timeoutSeconds: 1, pollIntervalSeconds: 0.3 }),
		]);
		expect(result.error?.message).toMatch(
			/^Report rpt_\w+ was still (pending|generating) after 1 seconds$/,
		);
	});

	test('On Timeout = Output the Report As It Is: the report unfinished, without a file', async () => {
		const result = await run(service, [
			generateAndWait(service, {
				timeoutSeconds: 1,
				pollIntervalSeconds: 0.3,
				onTimeout: 'outputPending',
			}),
		]);
		expect(result.error).toBeUndefined();
		expect(['pending', 'generating']).toContain(result.items[0].json.status);
		expect(result.items[0].binary).toBeUndefined();
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
	});

	// Without the stop, this run would poll until its 60 s timeout, past the test's own timeout.
	test('cancelling the execution while Generate waits stops polling at once', async () => {
		const result = await run(
			service,
			[generateAndWait(service, { timeoutSeconds: 60, pollIntervalSeconds: 0.5 })],
			{ cancelAfterMs: 1200 },
		);
		expect(result.run.status).toBe('canceled');
		expect(lists(service).length).toBeGreaterThan(0);
		const requestsAtCancel = apiRequests(service).length;
		await new Promise((resolve) => setTimeout(resolve, 1500));
		expect(apiRequests(service).length).toBe(requestsAtCancel);
	});
});
