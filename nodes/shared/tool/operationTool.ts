import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	hiddenInTool,
	toolProperties,
	ToolArguments,
	type ToolArgument,
} from './toolArguments';
import { listResult, TOOL_DEFAULT_LIMIT, TOOL_MAX_LIMIT } from './toolResults';
import type { AdPerformanceClient } from '../transport';
import type { ServiceAccount } from '../types';
import { InputValidator } from '../validation';

/**
 * An operation's tool variant (docs/agent-tools.md): what the model reads, the arguments it
 * passes, and what it gets back. Each operation file exports one beside its regular
 * `description` and `execute`.
 */
export interface OperationTool {
	/** What the model reads about the tool: what comes back, what to pass, the limits. */
	description: string;
	args: readonly ToolArgument[];
	/**
	 * Tool-only parameters that are not arguments: switches the user sets on the tool node and
	 * the model never sees (no `$fromAI`). Shown only in the tool variant of this operation.
	 */
	settings?: readonly INodeProperties[];
	execute(
		this: IExecuteFunctions,
		client: AdPerformanceClient,
		itemIndex: number,
		args: ToolArguments,
	): Promise<IDataObject>;
}

/** An operation's regular properties, shown for its resource and operation, plus its tool variant's. */
export function withTool(
	resource: string,
	operation: string,
	regular: INodeProperties[],
	tool: OperationTool,
): INodeProperties[] {
	const standIns = tool.args.map((argument) => argument.parameter);
	return [
		// Return All has no place in a tool (results are bounded), nor do parameters that an
		// argument of the same name stands in for.
		...hiddenInTool(
			updateDisplayOptions({ show: { resource: [resource], operation: [operation] } }, regular),
			[...standIns, 'returnAll'],
		),
		...toolProperties(
			{ resource: [resource], operation: [operation] },
			tool.description,
			tool.args,
		),
		...(tool.settings ?? []).map(
			(setting): INodeProperties => ({
				...setting,
				displayOptions: {
					show: { '@tool': [true], resource: [resource], operation: [operation] },
				} as INodeProperties['displayOptions'],
			}),
		),
	];
}

export const LIMIT_ARGUMENT: ToolArgument = {
	key: 'limit',
	parameter: 'limit',
	displayName: 'Limit',
	type: 'number',
	description: `How many records to return, 1 to ${TOOL_MAX_LIMIT}`,
	default: TOOL_DEFAULT_LIMIT,
};

export const PAGE_ARGUMENT: ToolArgument = {
	key: 'page',
	parameter: 'toolPage',
	displayName: 'Page',
	type: 'number',
	description: 'Which page of results, starting at 1; use the next page when hasMore is true',
	default: 1,
};

/** The account argument of list filters: optional, either ID. */
export const ACCOUNT_FILTER_ARGUMENT: ToolArgument = {
	key: 'account',
	parameter: 'toolAccount',
	displayName: 'Account',
	type: 'string',
	description:
		'Only records of this ad account: its id or its platformAccountId (act_ followed by digits) from the accounts tool. Leave empty for all accounts',
	default: '',
};

/** The status filter of a list, one of `allowed` (checked in code, the error lists them). */
export function statusArgument(what: string, allowed: readonly string[]): ToolArgument {
	return {
		key: 'status',
		parameter: 'toolStatus',
		displayName: 'Status',
		type: 'string',
		description: `Only ${what} in this state: ${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}. Leave empty for all`,
		default: '',
		allowed,
	};
}

/** The query of the filters lists share: `account` (either ID) and `status`, where offered. */
export function listFilters(
	client: AdPerformanceClient,
	itemIndex: number,
	args: ToolArguments,
): IDataObject {
	const qs: IDataObject = {};
	if (args.has('account')) {
		const account = args.text('account');
		if (account) {
			qs.accountId = new InputValidator(client.node, itemIndex).accountId(
				'argument account',
				account,
			);
		}
	}
	const status = args.has('status') ? args.text('status') : undefined;
	if (status) qs.status = status;
	return qs;
}

export const CAMPAIGN_ID_ARGUMENT: ToolArgument = {
	key: 'campaignId',
	parameter: 'campaignId',
	displayName: 'Campaign',
	type: 'string',
	description: 'The campaign id, camp_ followed by letters and digits, from the campaigns tool',
	locator: true,
};

export const REPORT_ID_ARGUMENT: ToolArgument = {
	key: 'reportId',
	parameter: 'reportId',
	displayName: 'Report ID',
	type: 'string',
	description:
		'The report id, rpt_ followed by letters and digits, as generate or the reports list returned it',
};

/**
 * The tool of a single-record operation: the id argument is checked (named in the error)
 * before any request, the regular operation runs (it reads the same parameter), and its record
 * comes back simplified.
 */
export function singleRecordTool(
	idKind: 'campaignId' | 'diagnosticId',
	regular: (
		this: IExecuteFunctions,
		client: AdPerformanceClient,
		itemIndex: number,
	) => Promise<Array<{ json: IDataObject }>>,
	simplify: (record: IDataObject) => IDataObject,
): OperationTool['execute'] {
	return async function (client, itemIndex, args) {
		new InputValidator(client.node, itemIndex)[idKind](
			`argument ${idKind}`,
			args.text(idKind, { required: true }),
		);
		const [item] = await regular.call(this, client, itemIndex);
		return simplify(item.json);
	};
}

/**
 * One page of a list for a model: `limit` records (10 by default, at most 50) of page `page`,
 * simplified and bounded (toolResults.ts).
 */
export async function listForTool(
	client: AdPerformanceClient,
	itemIndex: number,
	args: ToolArguments,
	request: { path: string; qs: IDataObject; what: string },
	simplify: (record: IDataObject) => IDataObject,
): Promise<IDataObject> {
	const limit = args.integer('limit', 1, TOOL_MAX_LIMIT);
	const page = args.integer('page', 1, 100_000);
	const envelope = await client.listPage<IDataObject>(request.path, request.qs, page, limit, {
		itemIndex,
	});
	const records = envelope.data.slice(0, limit);
	const pagination = (envelope.pagination ?? {}) as IDataObject;
	const hasMore =
		typeof pagination.hasMore === 'boolean'
			? pagination.hasMore
			: typeof pagination.total === 'number'
				? page * limit < pagination.total
				: envelope.data.length >= limit;
	return listResult(records.map(simplify), { what: request.what, page, limit, hasMore });
}

/**
 * The tool of a list whose only arguments are the shared filters (listFilters), limit and page.
 */
export function filteredListTool(
	path: string,
	what: string,
	simplify: (record: IDataObject) => IDataObject,
): OperationTool['execute'] {
	return async function (client, itemIndex, args) {
		return await listForTool(
			client,
			itemIndex,
			args,
			{ path, qs: listFilters(client, itemIndex, args), what },
			simplify,
		);
	};
}

/**
 * The ad platform account ID (`act_<digits>`) that creating a report needs, from either ID a
 * model may pass: the platform ID as it is, the service's account `id` resolved with one read
 * of the accounts list.
 */
export async function platformAccountIdOf(
	client: AdPerformanceClient,
	value: string,
	itemIndex: number,
	argument = 'account',
): Promise<string> {
	const check = new InputValidator(client.node, itemIndex);
	if (/^act_\d+$/.test(value)) return value;
	const id = check.accountId(`argument ${argument}`, value);
	const envelope = await client.listPage<ServiceAccount>('/accounts', {}, 1, 100, { itemIndex });
	const account = envelope.data.find((record) => record?.id === id);
	if (typeof account?.platformAccountId === 'string') return account.platformAccountId;
	return check.fail(
		`argument ${argument}`,
		`no connected ad account has the id "${id.slice(0, 60)}"`,
		'Pass an account id or platformAccountId (act_ followed by digits) exactly as the accounts tool returned it.',
	);
}
