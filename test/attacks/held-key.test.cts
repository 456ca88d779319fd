/**
 * Attack (#30, turns and shared requests): one execution's wait is never imposed on another
 * past that one's own Max Wait. When the service answers execution A with a 429 and a long
 * Retry-After, the key is held for every execution of this n8n; execution B, with a Max Wait
 * shorter than the hold, fails at once without sending (it does not sit out A's wait).
 * On the service's own time scale (1): the hold and the Max Wait are real seconds.
 */
import type { IDataObject } from 'n8n-workflow';

import { adNode, apiRequests, run, stopAfterMark } from '../nodes/helpers.cjs';
import { useHostileService } from './helpers.cjs';

const service = useHostileService({ timeScale: 1 });

const accounts = (requestOptions: IDataObject = {}) =>
	adNode({ resource: 'account', operation: 'getAll', returnAll: true, requestOptions });

test('a 429 with Retry-After 30 s to A fails B (Max Wait 6 s) at once, unsent, instead of holding it 30 s', async () => {
	let answered!: () => void;
	const heldByA = new Promise<void>((resolve) => (answered = resolve));
	service.fake.intercept({
		method: 'GET',
		pathPrefix: '/v1/accounts',
		times: 1,
		respond: () => {
			setTimeout(answered, 50);
			return {
				status: 429,
				headers: { 'Content-Type': 'application/json', 'Retry-After': '30' },
				json: { error: { type: 'rate_limit_error', message: 'Rate limit exceeded' } },
			};
		},
	});
	const stopA = stopAfterMark(0);
	const runA = run(service, [accounts()], { cancelWhen: stopA.stop });
	await heldByA;

	const started = Date.now();
	const resultB = await run(service, [accounts({ rateLimitWaitMinutes: 0.1 })]);
	const tookMs = Date.now() - started;
	stopA.mark();
	await runA;

	expect(resultB.error?.message).toBe(
		'The API key is rate limited for longer than this request may wait',
	);
	expect(resultB.error?.description).toMatch(/held for 0\.5 more minute/);
	expect((resultB.error?.context as IDataObject | undefined)?.errorType).toBe('rate_limit_error');
	expect(tookMs).toBeLessThan(3_000);
	// B sent nothing: the one request is A's.
	expect(apiRequests(service, { pathPrefix: '/v1/accounts' })).toHaveLength(0);
}, 30_000);
