import type { IExecuteFunctions, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { unexpectedError } from './errors';
import { Redactor } from './redaction';
import { executionCredential, releaseExecutionCredential } from './transport';

type NodeOutput = INodeExecutionData[][] | null;

/** The execution's scrubber: the one its client built from the credential's secrets. */
async function redactorFor(ctx: IExecuteFunctions | IPollFunctions): Promise<Redactor> {
	try {
		return (await executionCredential(ctx)).redactor;
	} catch {
		// No readable credential: no request was sent either, so only the shapes are cleaned.
		return new Redactor([]);
	}
}

/**
 * The boundary between a node and n8n: what `produce` (a node's execute or a trigger's poll)
 * outputs, and what it throws, passes the one scrubber here (docs/security.md).
 */
export async function throughTheBoundary<
	T extends NodeOutput,
	C extends IExecuteFunctions | IPollFunctions,
>(ctx: C, produce: (this: C) => Promise<T>): Promise<T> {
	try {
		let output: T;
		try {
			output = await produce.call(ctx);
		} catch (error) {
			const redactor = await redactorFor(ctx);
			if (error && typeof error === 'object') throw redactor.error(error);
			// Something thrown that is no error object (a string) has nowhere to hold it scrubbed.
			throw unexpectedError(ctx.getNode(), redactor.text(String(error)));
		}
		if (!output) return output;
		const redactor = await redactorFor(ctx);
		return output.map((items) => redactor.items(items)) as T;
	} finally {
		releaseExecutionCredential(ctx);
	}
}
