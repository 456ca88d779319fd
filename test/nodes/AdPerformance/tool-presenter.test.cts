/**
 * What a model receives, end to end (issue 39, item 5): the tool variants run through n8n's
 * engine against the fake service whose records hold texts of megabytes, objects where texts
 * belong and long lists. Every answer passes the presenter (nodes/shared/tool/presenter.ts):
 * within MAX_TOOL_RESULT_CHARS, saying what it cut, never an empty page for one big record; the
 * Generate tool finds an account on any page; an argument error tells the model to call again.
 */
import type { IDataObject } from 'n8n-workflow';

import { MAX_TOOL_RESULT_CHARS } from '../../../nodes/shared/tool/presenter';
import { apiRequests, callTool, useFakeService } from '../helpers.cjs';

const service = useFakeService({ timeScale: 0.01 });

const MB = 1_000_000;
const clippedAt = (length: string) =>
	expect.stringMatching(new RegExp(`…\\[clipped: ${length} characters in all\\]$`));

function answerOf(result: Awaited<ReturnType<typeof callTool>>): IDataObject {
	expect(result.error).toBeUndefined();
	expect(result.items).toHaveLength(1);
	const answer = result.items[0].json;
	expect(JSON.stringify(answer).length).toBeLessThanOrEqual(MAX_TOOL_RESULT_CHARS);
	return answer;
}

afterEach(() => service.fake.clearIntercepts());

test('Get a campaign named with 1 MB: the name is clipped, saying its length', async () => {
	const [account] = service.fake.accounts();
	const [campaign] = service.fake.addCampaigns(account.id, 1, { name: 'n'.repeat(MB) });
	const answer = answerOf(
		await callTool(
			service,
			{ resource: 'campaign', operation: 'get' },
			{ campaignId: campaign.id },
		),
	);
	expect(answer.id).toBe(campaign.id);
	expect(answer.name).toEqual(clippedAt('1,000,000'));
});

test('the first of 10 accounts named with 1 MB: all 10 are listed, its name clipped', async () => {
	while (service.fake.accounts().length < 10) service.fake.addAccount();
	service.fake.intercept({
		method: 'GET',
		pathPrefix: '/v1/accounts',
		respond: (_request, real) => {
			const reply = real().json as { data: IDataObject[] };
			reply.data[0] = { ...reply.data[0], name: 'a'.repeat(MB) };
			return { status: 200, json: reply };
		},
	});
	const answer = answerOf(
		await callTool(service, { resource: 'account', operation: 'getAll' }, { limit: 10 }),
	);
	expect(answer.returned).toBe(10);
	const [first] = answer.results as IDataObject[];
	expect(first.name).toEqual(clippedAt('1,000,000'));
	expect(first.platformAccountId).toMatch(/^act_\d+$/);
});

test('Wait for a report titled with 5 MB: the title is clipped, saying its length', async () => {
	const [report] = service.fake.addReports(1, {
		status: 'completed',
		format: 'pdf',
		title: 't'.repeat(5 * MB),
	});
	const answer = answerOf(await callTool(service, 'wait', { reportId: report.id }));
	expect(answer).toMatchObject({ id: report.id, status: 'completed' });
	expect(answer.title).toEqual(clippedAt('5,000,000'));
});

test('a diagnostic whose summary is an object of 50,000 findings, with 17 issues: bounded, and counted', async () => {
	const finding = { title: 'f', severity: 'high' };
	const issue = { title: 'i'.repeat(MB), severity: { level: 'high', why: ['x'] } };
	service.fake.intercept({
		method: 'GET',
		pathPrefix: '/v1/diagnostics/',
		respond: () => ({
			status: 200,
			json: {
				data: {
					id: 'diag_3m8k2x9q1z7w',
					campaignId: 'camp_8h2k4m9x1z7q',
					status: 'completed',
					riskScore: 71,
					summary: { findings: Array.from({ length: 50_000 }, () => finding) },
					issues: [issue, ...Array.from({ length: 16 }, () => finding)],
					recommendations: Array.from({ length: 4 }, () => ({ title: 'r', priority: 1 })),
				},
			},
		}),
	});
	const answer = answerOf(
		await callTool(
			service,
			{ resource: 'diagnostic', operation: 'get' },
			{ diagnosticId: 'diag_3m8k2x9q1z7w' },
		),
	);
	expect(answer.summary).toEqual({ findings: '[a list of 50,000 entries, not shown]' });
	expect(answer.issues).toHaveLength(5);
	expect((answer.issues as IDataObject[])[0]).toEqual({
		title: clippedAt('1,000,000'),
		severity: { level: 'high', why: '[a list of 1 entries, not shown]' },
	});
	expect(answer.issuesOmitted).toBe(12);
	expect(answer.recommendationsOmitted).toBe(1);
});

test("Generate finds the 131st of 150 accounts by the service's id", async () => {
	while (service.fake.accounts().length < 150) service.fake.addAccount();
	const account = service.fake.accounts()[130];
	const answer = answerOf(
		await callTool(
			service,
			{ resource: 'report', operation: 'generate' },
			{ account: account.id, title: 'The 131st account' },
		),
	);
	expect(answer.id).toMatch(/^rpt_/);
	const [post] = apiRequests(service, { method: 'POST', pathPrefix: '/v1/reports' });
	expect((post.body as IDataObject).account_id).toBe(account.platformAccountId);
	// Page 1 held 100 accounts, without it.
	expect(apiRequests(service, { method: 'GET', pathPrefix: '/v1/accounts' })).toHaveLength(2);
});

test('an accounts list that does not agree with itself is not "no account has the id"', async () => {
	service.fake.intercept({
		method: 'GET',
		pathPrefix: '/v1/accounts',
		respond: (_request, real) => {
			const reply = real().json as { data: IDataObject[]; pagination: IDataObject };
			return { status: 200, json: { ...reply, pagination: { ...reply.pagination, total: 900 } } };
		},
	});
	const result = await callTool(
		service,
		{ resource: 'report', operation: 'generate' },
		{ account: 'act_nosuchaccount1', title: 'Nowhere' },
	);
	const message = String(result.error?.message);
	expect(message).toMatch(/did not agree with itself/);
	expect(message).not.toMatch(/no connected ad account/);
	expect(message).toMatch(/Retry: yes/);
	expect(apiRequests(service, { method: 'POST' })).toHaveLength(0);
});

test.each([
	[
		'Generate, one bad entry of campaignIds',
		{ resource: 'report', operation: 'generate' },
		{ account: 'act_123456789012345', title: 'T', campaignIds: 'camp_8h2k4m9x1z7q,camp bad' },
		/^argument campaignIds \(entry 2\): /,
	],
	[
		'Get, a bad campaignId',
		{ resource: 'campaign', operation: 'get' },
		{ campaignId: 'bad id' },
		/^argument campaignId: /,
	],
])(
	'%s: the model is told to call again with a corrected argument',
	async (_name, tool, args, named) => {
		const result = await callTool(service, tool, args);
		const message = String(result.error?.message);
		expect(message).toMatch(named);
		expect(message).toMatch(/\(invalid_argument\)\./);
		expect(message).toMatch(/Retry: yes, but only with a corrected argument\.$/);
		expect(apiRequests(service)).toHaveLength(0);
	},
);

test('lone halves of surrogate pairs in a name and in an error message: the model reads U+FFFD in their place', async () => {
	const [account] = service.fake.accounts();
	// The fake's JSON carries each lone half as an escape (`\ud83d`), as any JSON text can.
	const [campaign] = service.fake.addCampaigns(account.id, 1, {
		name: 'Sale \uD83D ends \uDE00 today 😀',
	});
	const get = { resource: 'campaign', operation: 'get' };
	const answer = answerOf(await callTool(service, get, { campaignId: campaign.id }));
	expect(answer.name).toBe('Sale \uFFFD ends \uFFFD today 😀');

	service.fake.intercept({
		method: 'GET',
		pathPrefix: '/v1/campaigns/',
		respond: () => ({
			status: 400,
			json: { error: { type: 'odd_error', message: 'No campaign \uDBFF\uDBFF here 😀' } },
		}),
	});
	const message = String(
		(await callTool(service, get, { campaignId: campaign.id })).error?.message,
	);
	expect(message).toMatch(/^No campaign \uFFFD\uFFFD here 😀/);
	expect(Buffer.from(message, 'utf8').toString('utf8')).toBe(message);
});
