import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { unsupportedOperationError } from '../../shared/errors';
import { everyItemFailed, ItemResults } from '../../shared/items';
import { createClient } from '../../shared/createClient';
import { asToolError, presented } from '../../shared/tool/presenter';
import { NodeParameters, type InputSource } from '../../shared/inputSource';
import { isToolVariant, ToolArguments } from '../../shared/tool/toolArguments';
import type { AdPerformanceClient, Bucket } from '../../shared/transport';
import type { ExecuteArgs, ExecutedItem, OperationTool } from '../../shared/tool/operationTool';
import * as account from './account/Account.resource';
import * as campaign from './campaign/Campaign.resource';
import * as diagnostic from './diagnostic/Diagnostic.resource';
import * as report from './report/Report.resource';

/** One `*.operation.ts`: readInput reads an item's input from either source; execute runs it. */
interface Operation<Input = unknown> {
	readInput(source: InputSource): Input;
	execute(this: IExecuteFunctions, ...args: ExecuteArgs<Input>): Promise<INodeExecutionData[]>;
	/** The strict rate limit each item's one request counts in: the pacer is told how many. */
	sends?: Bucket;
	/** Runs it when the node runs as `adPerformanceTool`, shaping what a model receives. */
	tool?: OperationTool<Input>;
	/**
	 * A second step over every item execute ran, at once (regular node only), recording each
	 * item's final output or error in `results`: Report → Generate's Wait for Completion.
	 */
	afterEveryItem?(
		this: IExecuteFunctions,
		client: AdPerformanceClient,
		executed: Array<ExecutedItem<Input>>,
		results: ItemResults,
	): Promise<void>;
}

const operations: Record<string, Record<string, Operation>> = {
	account: account.operations,
	campaign: campaign.operations,
	report: report.operations,
	diagnostic: diagnostic.operations,
};

export async function executeOperation(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const handler = operations[resource]?.[operation];
	if (!handler) throw unsupportedOperationError(this.getNode(), resource, operation);

	// The tool variant (docs/agent-tools.md): one result item per call and errors whose message a
	// model can act on, both through the presenter (presenter.ts). The boundary (boundary.ts)
	// scrubs what this returns or throws, after the message is shaped.
	const tool = isToolVariant(this) ? handler.tool : undefined;
	const shaped = (error: unknown) => (tool ? asToolError(error) : error);
	let client: AdPerformanceClient;
	try {
		client = await createClient(this, this.getNodeParameter('requestOptions', 0, {}));
	} catch (error) {
		return [everyItemFailed(this, items.length, shaped(error))];
	}
	const results = new ItemResults(this);

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
						const output = await handler.execute.call(this, client, itemIndex, input);
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
