import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { unexpectedError } from './errors';

/** Makes sure an error names the item it belongs to, as n8n shows it in the editor. */
function withItemIndex<E>(error: E, itemIndex: number): E {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.context = { ...error.context, itemIndex: error.context?.itemIndex ?? itemIndex };
	}
	return error;
}

/**
 * The item a failed input produces under Continue On Fail: its error, the fix and the status in
 * its json. Under "Continue (using error output)" it carries the error itself, which is what n8n
 * routes to the error output by (json saying more than `error` would stay on the success output).
 */
function errorItem(ctx: IExecuteFunctions, error: unknown, itemIndex: number): INodeExecutionData {
	const json: IDataObject = { error: error instanceof Error ? error.message : String(error) };
	if (ctx.getNode().onError === 'continueErrorOutput') {
		const nodeError =
			error instanceof NodeApiError || error instanceof NodeOperationError
				? error
				: unexpectedError(ctx.getNode(), json.error as string);
		return { json, error: withItemIndex(nodeError, itemIndex), pairedItem: { item: itemIndex } };
	}
	const description = (error as { description?: unknown }).description;
	if (typeof description === 'string' && description) json.errorDescription = description;
	const httpCode = (error as { httpCode?: unknown }).httpCode;
	if (typeof httpCode === 'string' && httpCode) json.httpCode = httpCode;
	return { json, pairedItem: { item: itemIndex } };
}

/**
 * The output of an execute() that answers every input item, each paired with its item. An item's
 * error stops the node unless Continue On Fail is on; a cancelled execution always stops.
 */
export class ItemResults {
	private readonly byItem = new Map<number, INodeExecutionData[]>();

	// Errors and items are scrubbed where they leave the node (boundary.ts), not here.
	constructor(private readonly ctx: IExecuteFunctions) {}

	/** Records the item's error, or throws it when the node must stop. */
	fail(itemIndex: number, error: unknown): void {
		if (this.ctx.getExecutionCancelSignal?.()?.aborted || !this.ctx.continueOnFail()) {
			throw withItemIndex(error, itemIndex);
		}
		this.byItem.set(itemIndex, [errorItem(this.ctx, error, itemIndex)]);
	}

	/** Runs the work of one item and records what it output, or its error. */
	async run(itemIndex: number, work: () => Promise<INodeExecutionData[]>): Promise<void> {
		try {
			// The items are the work's own, made for this output: paired in place, not copied.
			const output = await work();
			for (const item of output) item.pairedItem = { item: itemIndex };
			this.byItem.set(itemIndex, output);
		} catch (error) {
			this.fail(itemIndex, error);
		}
	}

	list(): INodeExecutionData[] {
		return [...this.byItem].sort(([a], [b]) => a - b).flatMap(([, items]) => items);
	}
}
