/**
 * The Ad Performance Tool variant (docs/agent-tools.md), run through n8n's engine against the
 * sandbox with the arguments a model would pass (`$fromAI` reads them from the input item):
 * zero-setup schemas, bounded results, errors a model can act on, either account ID.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { AdPerformance } from '../../../nodes/AdPerformance/AdPerformance.node';
import { MAX_TOOL_ERROR_CHARS } from '../../../nodes/shared/tool/presenter';
import { MAX_TOOL_RESULT_CHARS } from '../../../nodes/shared/tool/presenter';
import { AD_TOOL_NODE, apiRequests, run, useFakeService } from '../helpers.cjs';

const service = useFakeService({ timeScale: 0.01, seedData: { extraCampaigns: 150 } });

function toolNode(resource: string, operation: string, parameters: IDataObject = {}) {
	return {
		name: 'Ad Performance Tool',
		type: AD_TOOL_NODE,
		parameters: { resource, operation, ...parameters },
	};
}

async function callTool(
	resource: string,
	operation: string,
	args: IDataObject,
	options: { parameters?: IDataObject; credentials?: IDataObject } = {},
) {
	return await run(service, [toolNode(resource, operation, options.parameters)], {
		items: [args],
		credentials: options.credentials,
	});
}

/** The `$fromAI` keys of an operation's tool variant, read from the node's own properties. */
function fromAiKeys(resource: string, operation: string): string[] {
	const properties = new AdPerformance().description.properties as INodeProperties[];
	const keys: string[] = [];
	for (const property of properties) {
		const show = property.displayOptions?.show ?? {};
		if (!(show['@tool'] as unknown[] | undefined)?.includes(true)) continue;
		if (!(show.resource as unknown[]).includes(resource)) continue;
		if (!(show.operation as unknown[]).includes(operation)) continue;
		const text = JSON.stringify(property.default);
		for (const match of text.matchAll(/\$fromAI\('([^']+)'/g)) keys.push(match[1]);
	}
	return keys;
}

describe('tool variant: schemas and descriptions', () => {
	test.each([
		['account', 'getAll', ['status', 'limit', 'page']],
		['campaign', 'getAll', ['account', 'status', 'limit', 'page']],
		['campaign', 'get', ['campaignId']],
		[
			'report',
			'getAll',
			['account', 'campaignId', 'status', 'format', 'from', 'to', 'limit', 'page'],
		],
		['report', 'generate', ['account', 'title', 'dateStart', 'dateEnd', 'campaignIds', 'format']],
		['report', 'get', ['reportId']],
		['report', 'download', ['reportId']],
		['diagnostic', 'run', ['campaignId']],
		['diagnostic', 'get', ['diagnosticId']],
	])('%s → %s offers the documented keys', (resource, operation, keys) => {
		expect(fromAiKeys(resource, operation).sort()).toEqual([...keys].sort());
	});

	test('every operation has a tool description of 150 to 700 characters', () => {
		const properties = new AdPerformance().description.properties as INodeProperties[];
		const descriptions = properties.filter((property) => property.name === 'toolDescription');
		expect(descriptions).toHaveLength(9);
		for (const property of descriptions) {
			expect(String(property.default).length).toBeGreaterThanOrEqual(150);
			expect(String(property.default).length).toBeLessThanOrEqual(700);
		}
	});
});

describe('tool variant: bounded results', () => {
	test('Get Many with no arguments: 10 simplified records in one item, and hasMore', async () => {
		const result = await callTool('campaign', 'getAll', {});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		const answer = result.items[0].json as IDataObject;
		expect(answer.returned).toBe(10);
		expect(answer.hasMore).toBe(true);
		expect(answer.page).toBe(1);
		expect(String(answer.hint)).toMatch(/page 2/);
		expect(Object.keys((answer.results as IDataObject[])[0])).toEqual(
			expect.arrayContaining(['id', 'name', 'status']),
		);
		// One request, for exactly the records returned.
		const requests = apiRequests(service, { pathPrefix: '/v1/campaigns' });
		expect(requests).toHaveLength(1);
		expect(requests[0].query).toMatchObject({ page: '1', page_size: '10' });
	});

	test('Return All saved on the node is ignored, and 50 records stay within 12,000 characters', async () => {
		const result = await callTool(
			'report',
			'getAll',
			{ limit: 50 },
			{ parameters: { returnAll: true } },
		);
		const answer = result.items[0].json as IDataObject;
		expect(JSON.stringify(answer).length).toBeLessThanOrEqual(MAX_TOOL_RESULT_CHARS);
		expect(answer.returned as number).toBeLessThanOrEqual(50);
		expect(apiRequests(service, { pathPrefix: '/v1/reports' })).toHaveLength(1);
	});

	test('page 2 continues where page 1 ended', async () => {
		const first = (await callTool('campaign', 'getAll', { limit: 5 })).items[0].json as IDataObject;
		const second = (await callTool('campaign', 'getAll', { limit: 5, page: 2 })).items[0]
			.json as IDataObject;
		const ids = (answer: IDataObject) => (answer.results as IDataObject[]).map((r) => r.id);
		expect(ids(second)).toHaveLength(5);
		expect(ids(second).some((id) => ids(first).includes(id))).toBe(false);
	});

	test('accounts keep both id and platformAccountId', async () => {
		const answer = (await callTool('account', 'getAll', {})).items[0].json as IDataObject;
		for (const account of answer.results as IDataObject[]) {
			expect(account.id).toMatch(/^act_/);
			expect(account.platformAccountId).toMatch(/^act_\d+$/);
		}
	});
});

describe('tool variant: arguments and errors', () => {
	test('a value outside the options is refused before any request, listing the allowed ones', async () => {
		const result = await callTool('account', 'getAll', { status: 'broken' });
		expect(result.error?.message).toMatch(/^argument status: .*invalid_argument/);
		expect(result.error?.message).toMatch(/active, disconnected, token_expired/);
		expect(apiRequests(service)).toHaveLength(0);
	});

	test('a missing required argument is named before any request', async () => {
		const result = await callTool('report', 'generate', { title: 'No account' });
		expect(result.error?.message).toMatch(/^argument account: is missing/);
		expect(apiRequests(service)).toHaveLength(0);
	});

	test('a revoked key: the message itself carries the fix and says not to retry, within 400 characters', async () => {
		const result = await callTool(
			'account',
			'getAll',
			{},
			{ credentials: { apiKey: service.fake.keys.revoked } },
		);
		const message = String(result.error?.message);
		expect(message).toMatch(/revoked/);
		expect(message).toMatch(/key_revoked/);
		expect(message).toMatch(/Settings → API Keys/);
		expect(message).toMatch(/Retry: no/);
		expect(message.length).toBeLessThanOrEqual(MAX_TOOL_ERROR_CHARS);
		expect(message).not.toContain(service.fake.keys.revoked);
	});
});

describe('tool variant: one account reference', () => {
	test.each([
		['the service account id', 'id'],
		['the ad platform account id', 'platformAccountId'],
	])('Generate takes %s, with at most one extra read', async (_label, field) => {
		const account = service.fake
			.accounts()
			.find((a) => a.connectionStatus === 'active') as unknown as IDataObject;
		const result = await callTool('report', 'generate', {
			account: account[field],
			title: `Tool report by ${field}`,
		});
		expect(result.error).toBeUndefined();
		const answer = result.items[0].json as IDataObject;
		expect(answer).toMatchObject({ status: expect.any(String), reused: false });
		expect(answer.id).toMatch(/^rpt_/);
		expect(String(answer.next)).toMatch(/wait/i);
		const posts = apiRequests(service, { method: 'POST', pathPrefix: '/v1/reports' });
		expect(posts).toHaveLength(1);
		expect((posts[0].body as IDataObject).account_id).toBe(account.platformAccountId);
		const reads = apiRequests(service, { method: 'GET', pathPrefix: '/v1/accounts' });
		expect(reads.length).toBe(field === 'id' ? 1 : 0);
	});
});
