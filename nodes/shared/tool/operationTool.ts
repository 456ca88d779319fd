import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { asToolError, presented } from './presenter';
import { isToolVariant, optionalArgument, ToolArguments, type ToolArgument } from './toolArguments';
import type { Simplifier } from './toolResults';
import { createClient } from '../createClient';
import { NodeParameters, type InputSource } from '../inputSource';
import { ItemResults } from '../items';
import { readAgreeing, type AdPerformanceClient, type Bucket } from '../transport';
import type { ServiceAccount } from '../types';
import type { FieldName } from '../errors';
import { InputValidator } from '../validation';

/** What an operation's execute gets for one item: the client, the item and its checked input. */
type ExecuteArgs<Input> = [client: AdPerformanceClient, itemIndex: number, input: Input];

/** One item an operation's execute ran: its checked input and its output items. */
export interface ExecutedItem<Input> {
	itemIndex: number;
	input: Input;
	output: INodeExecutionData[];
}

/** How an operation runs one item's checked input: to its output items, or a tool's answer. */
export type ExecuteItem<Input, Output> = (
	this: IExecuteFunctions,
	...args: ExecuteArgs<Input>
) => Promise<Output>;

/**
 * An operation's tool variant (docs/agent-tools.md). Its input is read by the operation's own
 * `readInput` (from ToolArguments); the tool only shapes what a model receives.
 */
export interface OperationTool<Input = unknown> {
	/** What the model reads about the tool: what comes back, what to pass, the limits. */
	description: string;
	args: readonly ToolArgument[];
	/** Tool-only parameters the user sets and the model never sees (no `$fromAI`). */
	settings?: readonly INodeProperties[];
	execute(this: IExecuteFunctions, ...args: ExecuteArgs<Input>): Promise<IDataObject>;
}

/**
 * One `*.operation.ts`, or Wait for Ad Report: readInput reads an item's input from either
 * source; execute runs it.
 */
export interface Operation<Input = unknown> {
	readInput(source: InputSource): Input;
	/** An item's output items; without it, an item's output is its input (Wait for Ad Report). */
	execute?(this: IExecuteFunctions, ...args: ExecuteArgs<Input>): Promise<INodeExecutionData[]>;
	/** The strict rate limit each item's one request counts in: the pacer is told how many. */
	sends?: Bucket;
	/** Runs it when the node runs as its tool variant, shaping what a model receives. */
	tool?: OperationTool<Input>;
	/**
	 * A second step over every item execute ran, at once (regular node only), recording each
	 * item's final output or error in `results`: Report → Generate's Wait for Completion, Wait
	 * for Ad Report's wait.
	 */
	afterEveryItem?(
		this: IExecuteFunctions,
		client: AdPerformanceClient,
		executed: Array<ExecutedItem<Input>>,
		results: ItemResults,
	): Promise<void>;
}

/** Runs an operation for every input item, as the regular node or as its tool variant. */
export async function runOperation(
	this: IExecuteFunctions,
	handler: Operation,
): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	// The tool variant (docs/agent-tools.md): one result item per call and errors whose message a
	// model can act on, both through the presenter (presenter.ts). The boundary (boundary.ts)
	// scrubs what this returns or throws, after the message is shaped.
	const tool = isToolVariant(this) ? handler.tool : undefined;
	const shaped = (error: unknown) => (tool ? asToolError(error) : error);
	const results = new ItemResults(this);
	let client: AdPerformanceClient;
	try {
		client = await createClient(this, this.getNodeParameter('requestOptions', 0, {}));
	} catch (error) {
		// The node cannot start (its credential or Request Options are unusable): every item fails.
		const failure = shaped(error);
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) results.fail(itemIndex, failure);
		return [results.list()];
	}

	// Input of every item first: no request is spent, nothing is created, before all are valid.
	const inputs = new Map<number, unknown>();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const source = tool
				? new ToolArguments(this, itemIndex, tool.args, tool.settings)
				: new NodeParameters(this, itemIndex);
			inputs.set(itemIndex, handler.readInput(source));
		} catch (error) {
			results.fail(itemIndex, shaped(error));
		}
	}

	const executed: Array<ExecutedItem<unknown>> = [];
	const expected = handler.sends ? client.expectRequests(handler.sends, inputs.size) : undefined;
	try {
		for (const [itemIndex, input] of inputs) {
			await results.run(itemIndex, async () => {
				try {
					if (!tool) {
						const output = handler.execute
							? await handler.execute.call(this, client, itemIndex, input)
							: [{ json: items[itemIndex].json }];
						executed.push({ itemIndex, input, output });
						return output;
					}
					const answer = await tool.execute.call(this, client, itemIndex, input);
					return [{ json: presented(answer, client.redactor) }];
				} catch (error) {
					throw shaped(error);
				} finally {
					expected?.settled();
				}
			});
		}
	} finally {
		expected?.release();
	}
	if (!tool && handler.afterEveryItem && executed.length > 0)
		await handler.afterEveryItem.call(this, client, executed, results);
	return [results.list()];
}

/** The account argument of list filters: optional, either ID. */
export const ACCOUNT_FILTER_ARGUMENT = optionalArgument(
	'account',
	'Account',
	'Only records of this ad account: its id or its platformAccountId (act_ followed by digits) from the accounts tool. Leave empty for all accounts',
);

/** The status filter of a list, one of `allowed` (the operation's readInput checks it). */
export function statusArgument(what: string, allowed: readonly string[]): ToolArgument {
	return optionalArgument(
		'status',
		'Status',
		`Only ${what} in this state: ${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}. Leave empty for all`,
	);
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

/** The tool of a single-record operation: the regular operation's record, simplified. */
export function singleRecordTool<Input>(
	regular: ExecuteItem<Input, Array<{ json: IDataObject }>>,
	simplify: Simplifier,
): OperationTool<Input>['execute'] {
	return async function (client, itemIndex, input) {
		const [item] = await regular.call(this, client, itemIndex, input);
		return simplify(item.json, client.redactor);
	};
}

/**
 * The ad platform account ID (`act_<digits>`) that creating a report needs, from either ID a
 * model may pass: the service's account `id` is looked up in the accounts list, page by page
 * until found. A list that did not agree with itself cannot say the id is not in it.
 */
export async function platformAccountIdOf(
	client: AdPerformanceClient,
	id: string,
	itemIndex: number,
	field: FieldName,
): Promise<string> {
	if (/^act_\d+$/.test(id)) return id;
	let account: ServiceAccount | undefined;
	const walked = await readAgreeing(async () => {
		account = undefined;
		return await client.walk<ServiceAccount>(
			'/accounts',
			{},
			(records) => (account = records.find((record) => record?.id === id)) === undefined,
			{ itemIndex, deadline: client.deadline(), incomplete: 'returned' },
		);
	});
	if (typeof account?.platformAccountId === 'string') return account.platformAccountId;
	const shown = id.slice(0, 60);
	if (walked.kind === 'incomplete') {
		throw client.errors.api(
			`The account id "${shown}" was not found, but the service's accounts list did not agree with itself (${walked.reason}), so it may be there`,
			'Call again in a moment, or pass the platformAccountId (act_ followed by digits) as the accounts tool returned it.',
			itemIndex,
		);
	}
	return new InputValidator(client.node, itemIndex).fail(
		field,
		`no connected ad account has the id "${shown}"`,
		'Pass an account id or platformAccountId (act_ followed by digits) exactly as the accounts tool returned it.',
	);
}
