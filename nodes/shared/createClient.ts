import type { INode } from 'n8n-workflow';

import { collectionOption } from './inputSource';
import { AdPerformanceClient, type ClientOptions, type RequestContext } from './transport';
import { InputValidator } from './validation';

/**
 * Request Options of every node, checked before any request: an expression that yields
 * "abc", {} or NaN must never mean "no attempt limit".
 */
function readClientOptions(node: INode, raw: unknown, itemIndex = 0): ClientOptions {
	const check = new InputValidator(node, itemIndex);
	const clientOptions: ClientOptions = {};
	const maxAttempts = 'Request Options → Max Attempts';
	const attempts = collectionOption(check, raw, 'maxAttempts', maxAttempts);
	if (attempts !== undefined)
		clientOptions.maxAttempts = check.integer(maxAttempts, attempts, 1, 10);
	const maxWait = 'Request Options → Max Wait When Rate Limited (Minutes)';
	const wait = collectionOption(check, raw, 'rateLimitWaitMinutes', maxWait);
	if (wait !== undefined)
		clientOptions.rateLimitWaitMinutes = check.number(maxWait, wait, 0, 1440, 'minutes');
	return clientOptions;
}

/** The client of one execution, with the node's Request Options checked first. */
export async function createClient(
	ctx: RequestContext,
	rawRequestOptions: unknown,
): Promise<AdPerformanceClient> {
	return await AdPerformanceClient.create(ctx, readClientOptions(ctx.getNode(), rawRequestOptions));
}
