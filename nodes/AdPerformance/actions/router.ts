import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { AdPerformanceClient } from '../../shared/transport';
import * as account from './account/Account.resource';
import * as campaign from './campaign/Campaign.resource';
import * as diagnostic from './diagnostic/Diagnostic.resource';
import * as report from './report/Report.resource';

type OperationExecute = (
	this: IExecuteFunctions,
	client: AdPerformanceClient,
	itemIndex: number,
) => Promise<INodeExecutionData[]>;

const operations: Record<string, Record<string, OperationExecute>> = {
	account: { getAll: account.getAll.execute },
	campaign: { get: campaign.get.execute, getAll: campaign.getAll.execute },
	report: {
		download: report.download.execute,
		generate: report.generate.execute,
		get: report.get.execute,
		getAll: report.getAll.execute,
	},
	diagnostic: { get: diagnostic.get.execute, run: diagnostic.run.execute },
};

/** Makes sure an error names the item it belongs to, as n8n shows it in the editor. */
export function withItemIndex<E>(error: E, itemIndex: number): E {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.context = {
			...(error.context ?? {}),
			itemIndex: (error.context?.itemIndex as number | undefined) ?? itemIndex,
		};
	}
	return error;
}

/** The item a failed input produces under Continue On Fail. */
export function errorItem(error: unknown, itemIndex: number): INodeExecutionData {
	const json: IDataObject = { error: error instanceof Error ? error.message : String(error) };
	const description = (error as { description?: unknown }).description;
	if (typeof description === 'string' && description) json.errorDescription = description;
	const httpCode = (error as { httpCode?: unknown }).httpCode;
	if (typeof httpCode === 'string' && httpCode) json.httpCode = httpCode;
	return { json, pairedItem: { item: itemIndex } };
}

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const execute = operations[resource]?.[operation];
	if (!execute) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" of "${resource}" is not supported`,
		);
	}

	const returnData: INodeExecutionData[] = [];
	let client: AdPerformanceClient;
	try {
		const maxAttempts = this.getNodeParameter('requestOptions.maxAttempts', 0, 5) as number;
		client = await AdPerformanceClient.create(this, { maxAttempts });
	} catch (error) {
		if (!this.continueOnFail()) throw withItemIndex(error, 0);
		return [items.map((_, itemIndex) => errorItem(error, itemIndex))];
	}

	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const results = await execute.call(this, client, itemIndex);
			for (const result of results) {
				returnData.push({ ...result, pairedItem: { item: itemIndex } });
			}
		} catch (error) {
			if (this.getExecutionCancelSignal?.()?.aborted) throw withItemIndex(error, itemIndex);
			if (this.continueOnFail()) {
				returnData.push(errorItem(error, itemIndex));
				continue;
			}
			throw withItemIndex(error, itemIndex);
		}
	}
	return [returnData];
}
