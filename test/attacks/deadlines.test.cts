/**
 * Attack (#30, a deadline on every request): a request is sent with its operation's deadline,
 * never with the general 2-minute request limit alone. Diagnostic → Run's Timeout covers the
 * request that starts the diagnostic, and the trigger's Fetch Test Event has the poll's budget,
 * against a service that takes the connection and never answers.
 */
import type { IDataObject } from 'n8n-workflow';

import { ActiveTrigger } from '../nodes/AdPerformanceTrigger/poll-harness.cjs';
import { adNode, apiRequests, rl } from '../nodes/helpers.cjs';
import { runAttack, useHostileService } from './helpers.cjs';

const service = useHostileService();

/** Holds every matching request unanswered for a minute (the fake's answer comes too late). */
function neverAnswers(method: string, pathPrefix: string): () => void {
	return service.fake.intercept({
		method,
		pathPrefix,
		respond: (_request, real) => ({ reply: real(), delayMs: 60_000 }),
	});
}

/** What a run may take past its deadline: the engine, a busy machine. */
const SLACK_MS = 4_000;

test('Diagnostic → Run with a 3 s Timeout whose starting request is never answered ends at its Timeout, typed timeout', async () => {
	const campaign = service.fake.campaigns()[0].id;
	const stop = neverAnswers('POST', '/v1/diagnostics');
	try {
		const started = Date.now();
		const result = await runAttack(service, [
			adNode({
				resource: 'diagnostic',
				operation: 'run',
				campaignId: rl(campaign),
				options: { timeoutSeconds: 3, pollIntervalSeconds: 0.5 },
			}),
		]);
		const tookMs = Date.now() - started;
		expect(result.error?.message).toMatch(/could not be started within 3 seconds/);
		expect((result.error?.context as IDataObject | undefined)?.errorType).toBe('timeout');
		expect(tookMs).toBeLessThan(3_000 + SLACK_MS);
		// Never resent blindly past the deadline.
		expect(apiRequests(service, { method: 'POST', pathPrefix: '/v1/diagnostics' }).length).toBe(1);
	} finally {
		stop();
	}
}, 30_000);

test.each(['reportCompleted', 'accountConnectionChanged'])(
	'Fetch Test Event (%s) against a service that never answers ends within the poll budget, typed timeout',
	async (event) => {
		const stop = neverAnswers('GET', '/v1/');
		try {
			const trigger = new ActiveTrigger({ event }, service.credentials().adPerformanceApi);
			const started = Date.now();
			const failure = await trigger.poll('manual').then(
				() => undefined,
				(error: unknown) => error as Error & { context?: IDataObject },
			);
			// The sped-up sandbox's budget is its floor: 3 s.
			expect(Date.now() - started).toBeLessThan(3_000 + SLACK_MS);
			expect(failure?.message).toMatch(/did not answer within 3 seconds/);
			expect(failure?.context?.errorType).toBe('timeout');
		} finally {
			stop();
		}
	},
	30_000,
);
