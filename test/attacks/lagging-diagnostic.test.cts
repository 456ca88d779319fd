/**
 * Attack (#30, outcomes): a diagnostic that answers 404 right after it was created (a lagging
 * read, as the report list may lag) is "not seen yet" until the Timeout; only a 404 at the
 * last look fails the item, as the service's not_found, never as "still running".
 */
import type { IDataObject } from 'n8n-workflow';

import { adNode, rl } from '../nodes/helpers.cjs';
import { runAttack, useHostileService } from './helpers.cjs';

const service = useHostileService();

const notFound = {
	status: 404,
	json: { error: { type: 'not_found', message: 'Diagnostic not found' } },
};

function answersNotFound(times?: number) {
	service.fake.intercept({
		method: 'GET',
		pathPrefix: '/v1/diagnostics/',
		times,
		respond: () => notFound,
	});
}

const run = (campaign: string, timeoutSeconds: number) =>
	adNode({
		resource: 'diagnostic',
		operation: 'run',
		campaignId: rl(campaign),
		options: { pollIntervalSeconds: 0.1, timeoutSeconds },
	});

test('a 404 once right after creation: the diagnostic is waited for and output', async () => {
	answersNotFound(1);
	const result = await runAttack(service, [run(service.fake.campaigns()[0].id, 20)]);
	expect(result.error?.message).toBeUndefined();
	expect(result.items[0].json.status).toBe('completed');
});

test('404 at every look: the service’s not_found at the Timeout, not "still running"', async () => {
	answersNotFound();
	const result = await runAttack(service, [run(service.fake.campaigns()[1].id, 2)]);
	expect(result.error?.message).not.toMatch(/still running/);
	expect((result.error?.context as IDataObject | undefined)?.errorType).toBe('not_found');
});
