import type { IDataObject } from 'n8n-workflow';

import { adNode, apiRequests, generateParameters, rl, run, useFakeService } from '../helpers.cjs';

const service = useFakeService();

const whiteLabel = (branding: IDataObject) => generateParameters({}, { whiteLabel: { branding } });
const campaignGet = (value: string) => ({
	resource: 'campaign',
	operation: 'get',
	campaignId: rl(value),
});
const reportGet = (reportId: string, options: IDataObject = {}) => ({
	resource: 'report',
	operation: 'get',
	reportId,
	options,
});
const download = (reportId: string, binaryPropertyName = 'data') => ({
	resource: 'report',
	operation: 'download',
	reportId,
	binaryPropertyName,
});
const diagnosticGet = (diagnosticId: string) => ({
	resource: 'diagnostic',
	operation: 'get',
	diagnosticId,
});
const diagnosticRun = (options: IDataObject) => ({
	resource: 'diagnostic',
	operation: 'run',
	campaignId: rl('camp_abc123'),
	options,
});
const list = (resource: string, extra: IDataObject) => ({
	resource,
	operation: 'getAll',
	returnAll: false,
	limit: 10,
	...extra,
});

/** [case, node parameters, the field the message must name] */
const cases: Array<[string, IDataObject, string]> = [
	['account id empty', generateParameters({ accountId: rl('') }), 'Ad Account'],
	['account id with letters', generateParameters({ accountId: rl('act_abc') }), 'Ad Account'],
	['account id without prefix', generateParameters({ accountId: rl('123456789') }), 'Ad Account'],
	['account id with ..', generateParameters({ accountId: rl('act_123/../456') }), 'Ad Account'],
	['account id with a space', generateParameters({ accountId: rl('act_ 123') }), 'Ad Account'],
	[
		'account id as a service account id',
		generateParameters({ accountId: rl('act_k3x9q2m7pa') }),
		'Ad Account',
	],
	['title empty', generateParameters({ title: '' }), 'Title'],
	['title only spaces', generateParameters({ title: '    ' }), 'Title'],
	['title huge', generateParameters({ title: 'x'.repeat(10_000) }), 'Title'],
	['title resolving to an object', generateParameters({ title: '={{ { name: "x" } }}' }), 'Title'],
	['title resolving to a list', generateParameters({ title: '={{ ["a", "b"] }}' }), 'Title'],
	['start date with slashes', generateParameters({ dateStart: '2026/10/01' }), 'Start Date'],
	['start date day first', generateParameters({ dateStart: '01-10-2026' }), 'Start Date'],
	['start date not a real day', generateParameters({ dateStart: '2026-02-30' }), 'Start Date'],
	['start date empty', generateParameters({ dateStart: '' }), 'Start Date'],
	[
		'start date resolving to a number',
		generateParameters({ dateStart: '={{ 20261001 }}' }),
		'Start Date',
	],
	[
		'start date resolving to a boolean',
		generateParameters({ dateStart: '={{ true }}' }),
		'Start Date',
	],
	['end date a word', generateParameters({ dateEnd: 'tomorrow' }), 'End Date'],
	['end date month 13', generateParameters({ dateEnd: '2026-13-01' }), 'End Date'],
	[
		'start equals end',
		generateParameters({ dateStart: '2026-10-07', dateEnd: '2026-10-07' }),
		'Start Date',
	],
	[
		'start after end',
		generateParameters({ dateStart: '2026-10-08', dateEnd: '2026-10-07' }),
		'Start Date',
	],
	[
		'range of 91 days',
		generateParameters({ dateStart: '2026-01-01', dateEnd: '2026-04-02' }),
		'End Date',
	],
	[
		'21 campaign ids',
		generateParameters(
			{},
			{ campaignIds: Array.from({ length: 21 }, (_, i) => `camp_${i}`).join(',') },
		),
		'Campaign IDs',
	],
	[
		'21 campaign ids as a list',
		generateParameters(
			{},
			{
				campaignIds: `={{ ${JSON.stringify(Array.from({ length: 21 }, (_, i) => `camp_${i}`))} }}`,
			},
		),
		'Campaign IDs',
	],
	[
		'campaign id without prefix',
		generateParameters({}, { campaignIds: 'camp_a,b' }),
		'Campaign IDs (entry 2)',
	],
	[
		'campaign id with ..',
		generateParameters({}, { campaignIds: 'camp_a/..' }),
		'Campaign IDs (entry 1)',
	],
	[
		'campaign id with ?',
		generateParameters({}, { campaignIds: 'camp_x?y=1' }),
		'Campaign IDs (entry 1)',
	],
	[
		'campaign ids resolving to a number',
		generateParameters({}, { campaignIds: '={{ 5 }}' }),
		'Campaign IDs',
	],
	[
		'campaign ids resolving to an object',
		generateParameters({}, { campaignIds: '={{ { id: "camp_a" } }}' }),
		'Campaign IDs',
	],
	['format unknown', generateParameters({}, { format: '={{ "docx" }}' }), 'Format'],
	['white label colour a word', whiteLabel({ primaryColor: 'red' }), 'White Label → Primary Color'],
	[
		'white label colour too short',
		whiteLabel({ primaryColor: '#12345' }),
		'White Label → Primary Color',
	],
	[
		'white label logo not http',
		whiteLabel({ logoUrl: 'ftp://example.com/logo.png' }),
		'White Label → Logo URL',
	],
	['white label logo not a url', whiteLabel({ logoUrl: 'my logo' }), 'White Label → Logo URL'],
	[
		'white label company name huge',
		whiteLabel({ companyName: 'x'.repeat(5000) }),
		'White Label → Company Name',
	],
	['campaign id empty', campaignGet(''), 'Campaign'],
	['campaign id path traversal', campaignGet('camp_../../accounts'), 'Campaign'],
	['campaign id with query', campaignGet('camp_x?status=ACTIVE'), 'Campaign'],
	['campaign id of another type', campaignGet('rpt_abc123'), 'Campaign'],
	['campaign id with a space', campaignGet('camp_ab c'), 'Campaign'],
	['campaign id huge', campaignGet('camp_' + 'x'.repeat(10_000)), 'Campaign'],
	['report id prefix only', reportGet('rpt_'), 'Report ID'],
	['report id of another type', reportGet('camp_abc'), 'Report ID'],
	['report id with a slash', download('rpt_abc/def'), 'Report ID'],
	['report id only spaces', download('   '), 'Report ID'],
	['report id resolving to a number', download('={{ 42 }}'), 'Report ID'],
	['binary field empty', download('rpt_abc123', ''), 'Put Output File in Field'],
	[
		'report get created after a word',
		reportGet('rpt_abc123', { createdAfter: 'yesterday' }),
		'Options → Created After',
	],
	[
		'report get account id with a space',
		reportGet('rpt_abc123', { accountId: 'act 1' }),
		'Options → Account ID',
	],
	['diagnostic id with a space', diagnosticGet('diag_a b'), 'Diagnostic ID'],
	['diagnostic id with ..', diagnosticGet('diag_..'), 'Diagnostic ID'],
	[
		'diagnostic poll interval zero',
		diagnosticRun({ pollIntervalSeconds: 0 }),
		'Options → Poll Interval (Seconds)',
	],
	[
		'diagnostic timeout negative',
		diagnosticRun({ timeoutSeconds: -5 }),
		'Options → Timeout (Seconds)',
	],
	['limit zero', list('account', { limit: 0 }), 'Limit'],
	['limit a word', list('campaign', { limit: '={{ "ten" }}' }), 'Limit'],
	['limit a fraction', list('report', { limit: 2.5 }), 'Limit'],
	['return all a word', list('account', { returnAll: '={{ "yes" }}' }), 'Return All'],
	[
		'report status unknown',
		list('report', { filters: { status: '={{ "done" }}' } }),
		'Filters → Status',
	],
	[
		'report created after a phrase',
		list('report', { filters: { from: 'last week' } }),
		'Filters → Created After',
	],
	[
		'report created after later than before',
		list('report', { filters: { from: '2026-10-10', to: '2026-10-01' } }),
		'Filters → Created After',
	],
	[
		'report campaign filter with a slash',
		list('report', { filters: { campaignId: 'camp_/x' } }),
		'Filters → Campaign ID',
	],
	[
		'account connection status unknown',
		list('account', { filters: { connectionStatus: '={{ "expired" }}' } }),
		'Connection Status',
	],
	[
		'campaign account filter with a space',
		list('campaign', { filters: { accountId: 'acct 1' } }),
		'Filters → Account ID',
	],
	[
		'campaign status unknown',
		list('campaign', { filters: { status: '={{ "RUNNING" }}' } }),
		'Filters → Status',
	],
];

/** Display name of each parameter that n8n's own pre-run check may flag. */
const PARAMETER_FIELDS: Record<string, string> = {
	accountId: 'Ad Account',
	campaignId: 'Campaign',
	title: 'Title',
	dateStart: 'Start Date',
	dateEnd: 'End Date',
	reportId: 'Report ID',
	diagnosticId: 'Diagnostic ID',
	binaryPropertyName: 'Put Output File in Field',
};

function expectNamedError(result: Awaited<ReturnType<typeof run>>, field: string) {
	if (result.issues) {
		// n8n itself refused to start: the issue sits on the parameter the field names.
		const flagged = Object.keys(result.issues['Ad Performance']?.parameters ?? {}).map(
			(name) => PARAMETER_FIELDS[name],
		);
		expect(flagged).toContain(field);
		return;
	}
	expect(result.error?.name).toBe('NodeOperationError');
	expect(result.error?.message.startsWith(`${field}: `)).toBe(true);
	expect(String(result.error?.description ?? '')).not.toBe('');
	expect((result.error?.context as IDataObject | undefined)?.itemIndex).toBe(0);
}

/** Replaces every literal leaf with an expression reading the same value from the input item. */
function throughExpressions(parameters: IDataObject, path: string[] = []): IDataObject {
	const out: IDataObject = {};
	for (const [key, value] of Object.entries(parameters)) {
		const here = [...path, key];
		if (key === 'resource' || key === 'operation' || key === 'mode' || key === '__rl')
			out[key] = value;
		else if (typeof value === 'string' && value.startsWith('=')) out[key] = value;
		else if (value && typeof value === 'object' && !Array.isArray(value))
			out[key] = throughExpressions(value as IDataObject, here);
		else out[key] = `={{ $json.parameters${here.map((k) => `[${JSON.stringify(k)}]`).join('')} }}`;
	}
	return out;
}

describe('bad input gets a clear error naming the field, and no request reaches the service', () => {
	test.each(cases)('%s', async (_name, parameters, field) => {
		// Literally typed, as in the editor.
		const typed = await run(service, [adNode(parameters)]);
		expectNamedError(typed, field);
		expect(apiRequests(service)).toHaveLength(0);

		// The same value arriving at run time through an expression, where only our own
		// validation stands between it and the service.
		const viaExpression = await run(service, [adNode(throughExpressions(parameters))], {
			items: [{ parameters }],
		});
		expect(viaExpression.issues).toBeUndefined();
		expectNamedError(viaExpression, field);
		expect(apiRequests(service)).toHaveLength(0);
	});

	test('with Continue On Fail, bad items become { error } items and good ones still run', async () => {
		const result = await run(
			service,
			[adNode(campaignGet('={{ $json.id }}'), { continueOnFail: true })],
			{ items: [{ id: 'camp_../x' }, { id: service.fake.campaigns()[0].id }] },
		);
		expect(result.items[0].json.error).toMatch(/^Campaign: /);
		expect(result.items[1].json.id).toBe(service.fake.campaigns()[0].id);
		expect(apiRequests(service)).toHaveLength(1);
	});
});
