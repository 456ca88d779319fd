import { collectionOption } from './inputSource';
import { AdPerformanceClient, type ClientOptions, type RequestContext } from './transport';
import { InputValidator } from './validation';

/**
 * The client of one execution, with the node's Request Options checked before any request: an
 * expression that yields "abc", {} or NaN must never mean "no attempt limit".
 */
export async function createClient(
	ctx: RequestContext,
	rawRequestOptions: unknown,
): Promise<AdPerformanceClient> {
	const check = new InputValidator(ctx.getNode(), 0);
	const options: ClientOptions = {};
	const maxAttempts = 'Request Options → Max Attempts';
	const attempts = collectionOption(check, rawRequestOptions, 'maxAttempts', maxAttempts);
	if (attempts !== undefined) options.maxAttempts = check.integer(maxAttempts, attempts, 1, 10);
	const maxWait = 'Request Options → Max Wait When Rate Limited (Minutes)';
	const wait = collectionOption(check, rawRequestOptions, 'rateLimitWaitMinutes', maxWait);
	if (wait !== undefined)
		options.rateLimitWaitMinutes = check.number(maxWait, wait, 0, 1440, 'minutes');
	return await AdPerformanceClient.create(ctx, options);
}
