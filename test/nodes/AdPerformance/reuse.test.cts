/**
 * Reuse a Recent Identical Report (issue 21, item 7; docs/agent-tools.md): Report → Generate
 * returns the report an identical request asked for within the last 10 minutes, by the
 * service's clock, instead of creating another. An option of the regular node (off by default)
 * and a switch of the tool variant (on by default). Run through n8n's engine against the sandbox.
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
	type TestService,
} from '../helpers.cjs';

const service = useFakeService({ timeScale: 0.01 });

const DATES = { dateStart: '2026-05-01', dateEnd: '2026-05-07' };
const MINUTE = 60_000;

beforeEach(() => {
	// Many reports are generated here: a fresh window keeps every POST counted a real attempt.
	service.fake.resetLimits();
});

function account() {
	return service.fake.accounts().find((a) => a.connectionStatus === 'active')!;
}

function campaignIds() {
	return service.fake
		.campaigns()
		.filter((campaign) => campaign.accountId === account().id)
		.map((campaign) => campaign.id);
}

/** A regular Generate node: a unique title per test keeps tests from reusing each other's. */
function generate(title: string, additionalFields: IDataObject = {}, extra: IDataObject = {}) {
	return adNode({
		resource: 'report',
		operation: 'generate',
		accountId: rl(account().platformAccountId),
		title,
		...DATES,
		additionalFields,
		...extra,
	});
}

const posts = (s: TestService) => apiRequests(s, { method: 'POST', pathPrefix: '/v1/reports' });
const reportReads = (s: TestService) =>
	apiRequests(s, { method: 'GET', pathPrefix: '/v1/reports' });

async function generateOnce(title: string, additionalFields: IDataObject = {}) {
	const result = await run(service, [generate(title, additionalFields)]);
	expect(result.error).toBeUndefined();
	return result.items[0].json;
}

/** A report of the account made by another run, with its creation time on the service's clock. */
function existingReport(title: string, createdAgoMs: number, partial: IDataObject = {}) {
	return service.fake.addReports(1, {
		accountId: account().platformAccountId,
		title,
		dateRange: { from: DATES.dateStart, to: DATES.dateEnd },
		format: 'pdf',
		campaignIds: campaignIds().slice(0, 2),
		createdAt: new Date(Date.now() - createdAgoMs).toISOString(),
		status: 'completed',
		...partial,
	})[0];
}

describe('Report → Generate: Reuse a Recent Identical Report (regular node)', () => {
	test('off (the default): two runs create two reports, with the output of before', async () => {
		const first = await generateOnce('Reuse off');
		const second = await generateOnce('Reuse off');
		expect(posts(service)).toHaveLength(1);
		expect(second.id).not.toBe(first.id);
		// No search, and the output is the service's answer as it was before the option existed.
		expect(reportReads(service)).toHaveLength(0);
		expect(first).not.toHaveProperty('reused');
		expect(second).not.toHaveProperty('reused');
	});

	test('on: the second run sends no POST and outputs the first report with reused: true', async () => {
		const options = { reuseRecentReport: true, campaignIds: campaignIds().slice(0, 2).join(',') };
		const first = await generateOnce('Reuse on', options);
		expect(first).toMatchObject({ id: expect.stringMatching(/^rpt_/), reused: false });
		expect(posts(service)).toHaveLength(1);

		const second = await generateOnce('Reuse on', options);
		expect(second).toMatchObject({ id: first.id, reused: true, title: 'Reuse on' });
		expect(posts(service)).toHaveLength(0);
		// One read in all: one page of the account's reports created since 10 minutes + margin,
		// and, as it is the execution's first request (no Date header read yet), + the 5 minutes
		// n8n's clock may be off the service's.
		expect(apiRequests(service)).toHaveLength(1);
		const [read] = reportReads(service);
		expect(read.query.accountId).toBe(account().platformAccountId);
		const from = Date.parse(read.query.from);
		expect(Date.now() - from).toBeGreaterThan(10 * MINUTE);
		expect(Date.now() - from).toBeLessThan(21 * MINUTE);
	});

	test('on, for the whole account: reused after one read of the campaigns, no POST', async () => {
		const first = await generateOnce('Reuse whole account', { reuseRecentReport: true });
		const second = await generateOnce('Reuse whole account', { reuseRecentReport: true });
		expect(second).toMatchObject({ id: first.id, reused: true });
		expect(posts(service)).toHaveLength(0);
		expect(reportReads(service)).toHaveLength(1);
		expect(apiRequests(service, { pathPrefix: '/v1/campaigns' })).toHaveLength(1);
	});

	test.each([
		['title', { title: 'Reuse differs: other title' }, {}],
		['start date', { dateStart: '2026-04-30' }, {}],
		['end date', { dateEnd: '2026-05-08' }, {}],
		['format', {}, { format: 'markdown' }],
		['campaigns', {}, { campaignIds: 'OTHER' }],
	])('a different %s is a new report', async (label, top: IDataObject, extra: IDataObject) => {
		const [c1, c2, c3] = campaignIds();
		const base = { reuseRecentReport: true, campaignIds: `${c1},${c2}` };
		const title = `Reuse differs ${label}`;
		const first = await generateOnce(title, base);
		const fields = { ...base, ...extra };
		if (extra.campaignIds === 'OTHER') fields.campaignIds = `${c1},${c3}`;
		const result = await run(service, [generate(title, fields, top)]);
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({ reused: false });
		expect(result.items[0].json.id).not.toBe(first.id);
		expect(posts(service)).toHaveLength(1);
	});

	test('a report for some of the campaigns is not reused for a whole-account request', async () => {
		const some = existingReport('Reuse subset', 2 * MINUTE);
		const result = await run(service, [generate('Reuse subset', { reuseRecentReport: true })]);
		expect(result.items[0].json).toMatchObject({ reused: false });
		expect(result.items[0].json.id).not.toBe(some.id);
		expect(posts(service)).toHaveLength(1);
	});

	test('a failed report is not reused', async () => {
		service.fake.failNextReports(1);
		const first = await generateOnce('Reuse failed', { reuseRecentReport: true });
		// Generation takes 10–20 service seconds: 0.1–0.2 s at this time scale.
		for (let i = 0; i < 100; i++) {
			if (service.fake.reports().find((r) => r.id === first.id)?.status === 'failed') break;
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
		expect(service.fake.reports().find((r) => r.id === first.id)?.status).toBe('failed');

		const second = await generateOnce('Reuse failed', { reuseRecentReport: true });
		expect(second).toMatchObject({ reused: false });
		expect(second.id).not.toBe(first.id);
		expect(posts(service)).toHaveLength(1);
	});

	test('a report created 11 minutes ago by the service’s clock is not reused; 9 minutes ago is', async () => {
		const options = { reuseRecentReport: true, campaignIds: campaignIds().slice(0, 2).join(',') };
		const old = existingReport('Reuse eleven minutes', 11 * MINUTE);
		const fresh = await generateOnce('Reuse eleven minutes', options);
		expect(fresh).toMatchObject({ reused: false });
		expect(fresh.id).not.toBe(old.id);
		expect(posts(service)).toHaveLength(1);

		const recent = existingReport('Reuse nine minutes', 9 * MINUTE);
		const reused = await generateOnce('Reuse nine minutes', options);
		expect(reused).toMatchObject({ id: recent.id, reused: true, status: 'completed' });
		expect(posts(service)).toHaveLength(0);
	});

	test('a service clock 30 minutes ahead of n8n’s: one read, and the new report is reused', async () => {
		service.fake.setClockOffset(30 * MINUTE);
		try {
			const options = { reuseRecentReport: true, campaignIds: campaignIds()[0] };
			const first = await generateOnce('Reuse clock ahead', options);
			const second = await generateOnce('Reuse clock ahead', options);
			expect(second).toMatchObject({ id: first.id, reused: true });
			expect(posts(service)).toHaveLength(0);
			expect(reportReads(service)).toHaveLength(1);
		} finally {
			service.fake.setClockOffset(0);
		}
	});

	test('a service clock 30 minutes behind n8n’s: the Date header moves the search back, and a report that may be recent is reused', async () => {
		service.fake.setClockOffset(-30 * MINUTE);
		try {
			const options = { reuseRecentReport: true, campaignIds: campaignIds()[1] };
			const first = await generateOnce('Reuse clock behind', options);
			const second = await generateOnce('Reuse clock behind', options);
			expect(second).toMatchObject({ id: first.id, reused: true });
			expect(posts(service)).toHaveLength(0);
			// The first `from` (n8n's clock, 15 minutes back) misses it; the answer's Date header
			// says the service is 30 minutes behind, so one more read reaches back that far. The
			// readings then disagree on the report's age (n8n's clock: 30 minutes old; the header:
			// seconds), and an identical report that may be recent is reused, never made twice.
			expect(reportReads(service)).toHaveLength(2);
		} finally {
			service.fake.setClockOffset(0);
		}
	});
});

describe('Report → Generate: reuse in the tool variant', () => {
	function toolNode(parameters: IDataObject = {}) {
		return {
			name: 'Ad Performance Tool',
			type: AD_TOOL_NODE,
			parameters: { resource: 'report', operation: 'generate', ...parameters },
		};
	}

	async function callGenerate(args: IDataObject, parameters: IDataObject = {}) {
		const result = await run(service, [toolNode(parameters)], { items: [args] });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		return result.items[0].json;
	}

	test('a repeated identical call returns the same id with reused: true, after exactly one POST', async () => {
		const args = {
			account: account().id,
			title: 'Tool reuse',
			dateStart: DATES.dateStart,
			dateEnd: DATES.dateEnd,
			campaignIds: campaignIds().slice(0, 3).join(', '),
			format: 'markdown',
		};
		const first = await callGenerate(args);
		expect(first).toMatchObject({ reused: false });
		expect(posts(service)).toHaveLength(1);

		// The platform ID this time: the same account, so the same call.
		const second = await callGenerate({ ...args, account: account().platformAccountId });
		expect(second).toMatchObject({ id: first.id, reused: true });
		expect(Object.keys(second)).toEqual([
			'id',
			'status',
			'estimatedCompletionSeconds',
			'reused',
			'next',
		]);
		expect(String(second.next)).toMatch(/no new one was created/);
		expect(String(second.next)).toMatch(/wait-for-report tool/);
		expect(posts(service)).toHaveLength(0);
		expect(reportReads(service)).toHaveLength(1);
	});

	test('a call that differs (another format) creates a report', async () => {
		const args = { account: account().platformAccountId, title: 'Tool reuse differs', ...DATES };
		const first = await callGenerate(args);
		const second = await callGenerate({ ...args, format: 'json' });
		expect(second).toMatchObject({ reused: false });
		expect(second.id).not.toBe(first.id);
		expect(posts(service)).toHaveLength(1);
	});

	test('with the switch set off, two identical calls make two POSTs', async () => {
		const args = { account: account().platformAccountId, title: 'Tool reuse off', ...DATES };
		const off = { toolReuseRecentReport: false };
		const first = await callGenerate(args, off);
		expect(posts(service)).toHaveLength(1);
		const second = await callGenerate(args, off);
		expect(posts(service)).toHaveLength(1);
		expect(second).toMatchObject({ reused: false });
		expect(second.id).not.toBe(first.id);
		expect(reportReads(service)).toHaveLength(0);
	});

	test('the switch is a tool-only parameter, on by default, and not an argument of the model', () => {
		const properties = new AdPerformance().description.properties as INodeProperties[];
		const switches = properties.filter((p) => p.name === 'toolReuseRecentReport');
		expect(switches).toHaveLength(1);
		expect(switches[0]).toMatchObject({
			displayName: 'Reuse a Recent Identical Report',
			type: 'boolean',
			default: true,
		});
		expect(switches[0].displayOptions?.show).toEqual({
			'@tool': [true],
			resource: ['report'],
			operation: ['generate'],
		});
		// The regular node's option (off by default) is hidden in the tool variant.
		const additional = properties.find(
			(p) =>
				p.name === 'additionalFields' && p.displayOptions?.show?.operation?.includes('generate'),
		);
		const option = (additional?.options as INodeProperties[]).find(
			(o) => o.name === 'reuseRecentReport',
		);
		expect(option).toMatchObject({ type: 'boolean', default: false });
		expect(option?.displayOptions?.hide).toEqual({ '@tool': [true] });
	});
});
