import type { INode } from 'n8n-workflow';

import { AdPerformanceClient, type ClientOptions, type RequestContext } from './transport';
import { InputValidator } from './validation';

/**
 * Request Options of every node, checked before any request: an expression that yields
 * "abc", {} or NaN must never mean "no attempt limit".
 */
function readClientOptions(node: INode, raw: unknown, itemIndex = 0): ClientOptions {
	const options = Object.fromEntries(
		Object.entries(raw && typeof raw === 'object' ? raw : {}).filter(
			// An empty text keeps the option's default; null from an expression is refused below.
			([, value]) => !(typeof value === 'string' && value.trim() === ''),
		),
	);
	const check = new InputValidator(node, itemIndex);
	const clientOptions: ClientOptions = {};
	if (options.maxAttempts !== undefined) {
		clientOptions.maxAttempts = check.integer(
			'Request Options → Max Attempts',
			options.maxAttempts,
			1,
			10,
		);
	}
	if (options.rateLimitWaitMinutes !== undefined) {
		clientOptions.rateLimitWaitMinutes = check.minutes(
			'Request Options → Max Wait When Rate Limited (Minutes)',
			options.rateLimitWaitMinutes,
			0,
			1440,
		);
	}
	return clientOptions;
}

/** The client of one execution, with the node's Request Options checked first. */
export async function createClient(
	ctx: RequestContext,
	rawRequestOptions: unknown,
): Promise<AdPerformanceClient> {
	return await AdPerformanceClient.create(ctx, readClientOptions(ctx.getNode(), rawRequestOptions));
}
