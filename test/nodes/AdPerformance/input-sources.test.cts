/**
 * One input reader per operation (issue 25, item 1): the same invalid value gets the same field
 * error through the regular node (its parameters) and through the tool variant (a model's
 * arguments), both run through n8n's engine against the fake, and no request is sent.
 *
 * The two paths name a field as each has always named it, the node by its display name
 * ("Filters → Status") and the tool by its argument ("argument status"), so a saved workflow's
 * error and a model's error read as before; everything else is one error: its class, its
 * problem, its fix (the description) and its context. Its type (errors.ts, fieldError) says who
 * can correct the value: `invalid_argument` for a model's argument, `invalid_input` for a
 * setting of the node (the regular node's parameters, a tool node's own settings). The model's
 * message is the same error rewritten for a model (toolErrors.ts): problem, type, fix.
 */
import type { IDataObject } from 'n8n-workflow';

import { ERROR_TYPE_KEY } from '../../../nodes/shared/errorTypes';

import {
	AD_TOOL_NODE,
	adNode,
	apiRequests,
	generateParameters,
	rl,
	run,
	useFakeService,
	WAIT_NODE,
	WAIT_TOOL_NODE,
} from '../helpers.cjs';

const service = useFakeService();

type RunResult = Awaited<ReturnType<typeof run>>;

interface Case {
	/** The node under test (the Wait node's cases say so). */
	node?: 'wait';
	/** Parameters of the regular node; the value under test is `={{ $json.value }}`. */
	parameters: IDataObject;
	/** The tool call's arguments but the one under test. */
	args?: IDataObject;
	/** The field under test: how the node names it, the argument key the tool names. */
	label: string;
	/** The argument the tool names; none for a setting the user sets on the tool node. */
	key?: string;
	/** The tool node's own parameters, for a setting (it reads `={{ $json.value }}` too). */
	toolParameters?: IDataObject;
	value: string;
	/** Other fields the message names, as [label, key]. */
	also?: Array<[string, string]>;
}

const VALUE = '={{ $json.value }}';
const list = (resource: string, filters: IDataObject) => ({
	resource,
	operation: 'getAll',
	returnAll: false,
	limit: 10,
	filters,
});
const generateArgs = {
	account: 'act_123456789012345',
	title: 'Weekly',
	dateStart: '2026-10-01',
	dateEnd: '2026-10-07',
};

const cases: Array<[string, Case]> = [
	[
		'Account → Get Many: a status that does not exist',
		{
			parameters: list('account', { connectionStatus: VALUE }),
			label: 'Connection Status',
			key: 'status',
			value: 'broken',
		},
	],
	[
		'Campaign → Get: a campaign id with a path in it',
		{
			parameters: { resource: 'campaign', operation: 'get', campaignId: rl(VALUE) },
			label: 'Campaign',
			key: 'campaignId',
			value: 'camp_../accounts',
		},
	],
	[
		'Campaign → Get Many: an account id with a space',
		{
			parameters: list('campaign', { accountId: VALUE }),
			label: 'Filters → Account ID',
			key: 'account',
			value: 'acct 1',
		},
	],
	[
		'Campaign → Get Many: a status that does not exist',
		{
			parameters: list('campaign', { status: VALUE }),
			label: 'Filters → Status',
			key: 'status',
			value: 'RUNNING',
		},
	],
	[
		'Report → Generate: a start date with slashes',
		{
			parameters: generateParameters({ dateStart: VALUE }),
			args: generateArgs,
			label: 'Start Date',
			key: 'dateStart',
			value: '2026/10/01',
		},
	],
	[
		'Report → Generate: a start date after the end date',
		{
			parameters: generateParameters({ dateStart: VALUE }),
			args: generateArgs,
			label: 'Start Date',
			key: 'dateStart',
			value: '2026-10-08',
			also: [['End Date', 'dateEnd']],
		},
	],
	[
		'Report → Generate: a title that is only spaces',
		{
			parameters: generateParameters({ title: VALUE }),
			args: generateArgs,
			label: 'Title',
			key: 'title',
			value: '   ',
		},
	],
	[
		'Report → Generate: 21 campaign ids',
		{
			parameters: generateParameters({}, { campaignIds: VALUE }),
			args: generateArgs,
			label: 'Campaign IDs',
			key: 'campaignIds',
			value: Array.from({ length: 21 }, (_, i) => `camp_${i}`).join(','),
		},
	],
	[
		'Report → Generate: a format that does not exist',
		{
			parameters: generateParameters({}, { format: VALUE }),
			args: generateArgs,
			label: 'Format',
			key: 'format',
			value: 'docx',
		},
	],
	[
		'Report → Get: a report id of another type',
		{
			parameters: { resource: 'report', operation: 'get', reportId: VALUE },
			label: 'Report ID',
			key: 'reportId',
			value: 'camp_abc',
		},
	],
	[
		'Report → Get Many: a creation date in words',
		{
			parameters: list('report', { from: VALUE }),
			label: 'Filters → Created After',
			key: 'from',
			value: 'last week',
		},
	],
	[
		'Report → Get Many: a day that does not exist',
		{
			parameters: list('report', { to: VALUE }),
			label: 'Filters → Created Before',
			key: 'to',
			value: '2026-02-30',
		},
	],
	[
		'Report → Get Many: created after later than created before',
		{
			parameters: list('report', { from: VALUE, to: '2026-10-01T00:00:00Z' }),
			args: { to: '2026-10-01T00:00:00Z' },
			label: 'Filters → Created After',
			key: 'from',
			value: '2026-10-10T00:00:00Z',
			also: [['Filters → Created Before', 'to']],
		},
	],
	[
		'Report → Download: a report id with a slash',
		{
			parameters: {
				resource: 'report',
				operation: 'download',
				reportId: VALUE,
				binaryPropertyName: 'data',
			},
			label: 'Report ID',
			key: 'reportId',
			value: 'rpt_abc/def',
		},
	],
	[
		'Diagnostic → Run: a campaign id of another type',
		{
			parameters: { resource: 'diagnostic', operation: 'run', campaignId: rl(VALUE), options: {} },
			label: 'Campaign',
			key: 'campaignId',
			value: 'rpt_abc123',
		},
	],
	[
		'Diagnostic → Get: a diagnostic id with a space',
		{
			parameters: { resource: 'diagnostic', operation: 'get', diagnosticId: VALUE },
			label: 'Diagnostic ID',
			key: 'diagnosticId',
			value: 'diag_a b',
		},
	],
	[
		'Wait for Ad Report: a report id that is no id',
		{
			node: 'wait',
			parameters: { reportId: VALUE },
			label: 'Report ID',
			key: 'reportId',
			value: 'not-a-report',
		},
	],
	[
		'Wait for Ad Report: a report id of another type',
		{
			node: 'wait',
			parameters: { reportId: VALUE },
			label: 'Report ID',
			key: 'reportId',
			value: 'diag_abc123',
		},
	],
	[
		'Diagnostic → Run: a poll interval of zero (a setting of the tool node)',
		{
			parameters: {
				resource: 'diagnostic',
				operation: 'run',
				campaignId: rl('camp_abc123'),
				options: { pollIntervalSeconds: VALUE },
			},
			toolParameters: { options: { pollIntervalSeconds: VALUE } },
			args: { campaignId: 'camp_abc123' },
			label: 'Options → Poll Interval (Seconds)',
			value: '0',
		},
	],
	[
		'Wait for Ad Report: a poll interval that is no number (a setting of the tool node)',
		{
			node: 'wait',
			parameters: { reportId: 'rpt_abc123', pollIntervalSeconds: VALUE },
			toolParameters: { pollIntervalSeconds: VALUE },
			args: { reportId: 'rpt_abc123' },
			label: 'Poll Interval (Seconds)',
			value: 'soon',
		},
	],
];

async function throughTheNode(test: Case): Promise<RunResult> {
	const node =
		test.node === 'wait'
			? { name: 'Wait for Ad Report', type: WAIT_NODE, parameters: test.parameters }
			: adNode(test.parameters);
	return await run(service, [node], { items: [{ ...test.args, value: test.value }] });
}

async function throughTheTool(test: Case): Promise<RunResult> {
	const { resource, operation } = test.parameters;
	const node =
		test.node === 'wait'
			? { name: 'Wait for Ad Report Tool', type: WAIT_TOOL_NODE, parameters: {} }
			: { name: 'Ad Performance Tool', type: AD_TOOL_NODE, parameters: { resource, operation } };
	const parameters = { ...node.parameters, ...test.toolParameters };
	const args = test.key
		? { ...test.args, [test.key]: test.value }
		: { ...test.args, value: test.value };
	return await run(service, [{ ...node, parameters }], { items: [args] });
}

/** A text with every field it names replaced by its place: what both paths must say alike. */
function unnamed(text: string, names: string[]): string {
	let out = text;
	for (const name of names) out = out.split(name).join('<field>');
	return out;
}

describe('the same invalid input gets the same field error through the node and the tool', () => {
	test.each(cases)('%s', async (_name, test) => {
		const node = await throughTheNode(test);
		expect(apiRequests(service)).toHaveLength(0);
		const tool = await throughTheTool(test);
		expect(apiRequests(service)).toHaveLength(0);

		const nodeError = node.error;
		const toolError = tool.error;
		expect(node.issues).toBeUndefined();
		expect(nodeError?.name).toBe('NodeOperationError');
		expect(toolError?.name).toBe(nodeError?.name);

		// Each path names the field as it always has: a setting of the tool node by its label.
		const toolName = test.key ? `argument ${test.key}` : test.label;
		const nodeNames = [test.label, ...(test.also ?? []).map(([label]) => label)];
		const toolNames = [toolName, ...(test.also ?? []).map(([, key]) => `argument ${key}`)];
		expect(nodeError?.message.startsWith(`${test.label}: `)).toBe(true);
		expect(toolError?.message.startsWith(`${toolName}: `)).toBe(true);

		// One problem: the node's message, and the model's before its type and fix.
		const problem = unnamed(nodeError?.message ?? '', nodeNames);
		expect(problem).toMatch(/^<field>: ./);
		const toolMessage = unnamed(toolError?.message ?? '', toolNames);
		const what = problem.replace(/\.$/, '');
		expect(toolMessage.slice(0, what.length)).toBe(what);
		// The type says who corrects the value: the model its argument, a person a setting.
		const toolType = test.key ? 'invalid_argument' : 'invalid_input';
		expect(toolMessage.slice(what.length)).toMatch(new RegExp(`^ \\(${toolType}\\)\\. Fix: `));
		expect(nodeError?.context?.[ERROR_TYPE_KEY]).toBe('invalid_input');
		expect(toolError?.context?.[ERROR_TYPE_KEY]).toBe(toolType);

		// One fix, the same context (item, and whatever else the error carries as data).
		const fix = unnamed(String(nodeError?.description ?? ''), nodeNames);
		expect(fix).not.toBe('');
		expect(unnamed(String(toolError?.description ?? ''), toolNames)).toBe(fix);
		const rest = (context: IDataObject | undefined, names: string[]) =>
			unnamed(JSON.stringify({ ...context, [ERROR_TYPE_KEY]: undefined }), names);
		expect(rest(toolError?.context, toolNames)).toBe(rest(nodeError?.context, nodeNames));
	});
});
