import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	INodeExecutionData,
	IPollFunctions,
} from 'n8n-workflow';

import { NodeOperationError } from 'n8n-workflow';

import { Redactor } from './redaction';
import { CREDENTIAL_TYPE } from './transport';

type NodeOutput = INodeExecutionData[][] | null;

/**
 * The secrets of the credential: the API key, and a user name or password that a Base URL
 * may hold (the client refuses such a URL, but says so in an error).
 */
export function redactorOf(credentials: ICredentialDataDecryptedObject | undefined): Redactor {
	const secrets = [String(credentials?.apiKey ?? '').trim()];
	try {
		const url = new URL(String(credentials?.baseUrl ?? '').trim());
		secrets.push(decodeURIComponent(url.username), decodeURIComponent(url.password));
		secrets.push(url.username, url.password);
	} catch {
		// Not an address: nothing in it can be a password of one.
	}
	return new Redactor(secrets);
}

async function redactorFor(ctx: IExecuteFunctions | IPollFunctions): Promise<Redactor> {
	try {
		return redactorOf(await ctx.getCredentials<ICredentialDataDecryptedObject>(CREDENTIAL_TYPE));
	} catch {
		// No readable credential: no request was sent either, so only the shapes are cleaned.
		return new Redactor([]);
	}
}

/**
 * The boundary between a node and n8n: what `produce` (a node's execute or a trigger's poll)
 * outputs, and what it throws, passes the one scrubber here, with the credential's secrets.
 * Each node's execute() and the trigger's poll() are this call and nothing else, so no item,
 * Continue On Fail item, binary file name or error reaches run data, the editor or a log
 * without it.
 */
export async function throughTheBoundary<
	T extends NodeOutput,
	C extends IExecuteFunctions | IPollFunctions,
>(ctx: C, produce: (this: C) => Promise<T>): Promise<T> {
	let output: T;
	try {
		output = await produce.call(ctx);
	} catch (error) {
		const redactor = await redactorFor(ctx);
		if (error && typeof error === 'object') throw redactor.error(error);
		// Something thrown that is no error object (a string) has nowhere to hold it scrubbed.
		throw new NodeOperationError(ctx.getNode(), redactor.text(String(error)));
	}
	if (!output) return output;
	const redactor = await redactorFor(ctx);
	return output.map((items) => redactor.items(items)) as T;
}
