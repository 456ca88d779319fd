import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { readClientOptions } from '../../shared/requestOptions';
import { AdPerformanceClient } from '../../shared/transport';
import * as account from './account/Account.resource';
import * as campaign from './campaign/Campaign.resource';
import * as diagnostic from './diagnostic/Diagnostic.resource';
import * as report from './report/Report.resource';

/**
 * One operation. `prepare`, where an operation has it (the writes), reads and checks one
 * item's input; the router runs it for EVERY item before the first request, so a bad 3rd
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
	const handler = operations[resource]?.[operation];
	if (!handler) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" of "${resource}" is not supported`,
		);
	}

	const returnData: INodeExecutionData[] = [];
	let client: AdPerformanceClient;
	try {
		const options = readClientOptions(
			this.getNode(),
			this.getNodeParameter('requestOptions', 0, {}),
		);
		client = await AdPerformanceClient.create(this, options);
	} catch (error) {
		if (!this.continueOnFail()) throw withItemIndex(error, 0);
		return [items.map((_, itemIndex) => errorItem(error, itemIndex))];
	}

	// Input of every item first: no request is spent, nothing is created, before all are valid.
	const prepared = new Map<number, unknown>();
	const invalid = new Map<number, unknown>();
	if (handler.prepare) {
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				prepared.set(itemIndex, handler.prepare(this, itemIndex));
			} catch (error) {
				if (!this.continueOnFail()) throw withItemIndex(error, itemIndex);
				invalid.set(itemIndex, error);
			}
		}
	}

	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			if (invalid.has(itemIndex)) throw invalid.get(itemIndex);
			const results = await handler.execute.call(
				this,
				client,
				itemIndex,
				prepared.get(itemIndex) as never,
			);
			for (const result of results) {
				returnData.push({ ...result, pairedItem: { item: itemIndex } });
			}
		} catch (caught) {
			const error = client.redactor.error(caught);
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
