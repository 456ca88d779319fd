import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { unsupportedOperationError } from '../../shared/errors';
import { everyItemFailed, ItemResults } from '../../shared/items';
import { createClient } from '../../shared/createClient';
import { asToolError } from '../../shared/tool/toolErrors';
import { isToolVariant, ToolArguments } from '../../shared/tool/toolArguments';
import type { AdPerformanceClient } from '../../shared/transport';
import type { OperationTool } from '../../shared/tool/operationTool';
import * as account from './account/Account.resource';
import * as campaign from './campaign/Campaign.resource';
import * as diagnostic from './diagnostic/Diagnostic.resource';
import * as report from './report/Report.resource';

/**
 * One operation. `prepare`, where an operation has it (the writes), reads and checks one
 * item's input; executeOperation runs it for EVERY item before the first request, so a bad 3rd
 * item creates nothing for the first two. `execute` then gets what `prepare` returned.
 */
interface Operation {
	prepare?: (ctx: IExecuteFunctions, itemIndex: number) => unknown;
	execute: (
		this: IExecuteFunctions,
		client: AdPerformanceClient,
		itemIndex: number,
		prepared?: never,
	) => Promise<INodeExecutionData[]>;
	/** The operation's tool variant (tool.ts): used when the node runs as `adPerformanceTool`. */
	tool?: OperationTool;
}

const operations: Record<string, Record<string, Operation>> = {
	account: { getAll: account.getAll },
	campaign: { get: campaign.get, getAll: campaign.getAll },
	report: {
		download: report.download,
		generate: report.generate,
		get: report.get,
		getAll: report.getAll,
	},
	diagnostic: { get: diagnostic.get, run: diagnostic.run },
};

export async function executeOperation(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const handler = operations[resource]?.[operation];
	if (!handler) {
		throw unsupportedOperationError(this.getNode(), resource, operation);
	}

	const asTool = isToolVariant(this) && handler.tool !== undefined;
	let client: AdPerformanceClient;
	try {
		client = await createClient(this, this.getNodeParameter('requestOptions', 0, {}));
	} catch (error) {
		return [everyItemFailed(this, items.length, asTool ? asToolError(error) : error)];
	}
	if (asTool) return [await runTool.call(this, client, handler.tool as OperationTool)];
	const results = new ItemResults(this);

	// Input of every item first: no request is spent, nothing is created, before all are valid.
	const prepared = new Map<number, unknown>();
	if (handler.prepare) {
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				prepared.set(itemIndex, handler.prepare(this, itemIndex));
			} catch (error) {
				results.fail(itemIndex, error);
			}
		}
	}

	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		if (results.has(itemIndex)) continue;
		await results.settle(
			itemIndex,
			async () =>
				await handler.execute.call(this, client, itemIndex, prepared.get(itemIndex) as never),
		);
	}
	return [results.list()];
}

/**
 * The tool variant: one small result item per call (docs/agent-tools.md), its arguments
 * checked before any request, and errors whose message a model can act on.
 */
async function runTool(
	this: IExecuteFunctions,
	client: AdPerformanceClient,
	tool: OperationTool,
): Promise<INodeExecutionData[]> {
	// The boundary (boundary.ts) scrubs what this returns or throws, after the message is shaped.
	const results = new ItemResults(this);
	const items = this.getInputData();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		await results.settle(itemIndex, async () => {
			try {
				const args = new ToolArguments(this, itemIndex, tool.args);
				return [{ json: await tool.execute.call(this, client, itemIndex, args) }];
			} catch (error) {
				throw asToolError(error);
			}
		});
	}
	return results.list();
}
