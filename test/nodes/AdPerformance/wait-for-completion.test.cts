/**
 * One meaning of Wait for Completion (#49, docs/waiting.md), in both node versions, through n8n's
 * engine against the sandbox. Version 1.1 (a node added now): Report → Generate and Diagnostic →
 * Run each have it as a field of its own, on by default, and its Timeout counts the wait from
 * when the work was started. Version 1 (saved workflows) keeps what it did: Generate's off by
 * default; Diagnostic's under Options, on, its Timeout counting the request that starts it too.
 */
import type { IDataObject } from 'n8n-workflow';

import { AdPerformance } from '../../../nodes/AdPerformance/AdPerformance.node';
import { adNode, apiRequests, rl, run, useFakeService, type TestService } from '../helpers.cjs';

const service = useFakeService({ timeScale: 0.01 });
beforeEach(() => service.fake.resetLimits());

const lists = (fake: TestService) =>
	apiRequests(fake, { method: 'GET' }).filter((r) => r.path === '/v1/reports');

function generate(typeVersion: number, parameters: IDataObject = {}) {
	const account = service.fake.accounts().find((a) => a.connectionStatus === 'active')!;
	return adNode(
		{
			resource: 'report',
			operation: 'generate',
			accountId: rl(account.platformAccountId),
			title: `Version ${typeVersion}`,
			dateStart: '2026-11-09',
			dateEnd: '2026-11-15',
			pollIntervalSeconds: 0.1,
			...parameters,
		},
		{ typeVersion },
	);
}

function runDiagnostic(typeVersion: number, parameters: IDataObject) {
	const campaign = service.fake.campaigns()[0].id;
	return adNode(
		{ resource: 'diagnostic', operation: 'run', campaignId: rl(campaign), ...parameters },
		{ typeVersion },
	);
}

/** Holds the answers to POST /v1/diagnostics back for `delayMs`. */
function slowStart(delayMs: number): () => void {
	return service.fake.intercept({
		method: 'POST',
		pathPrefix: '/v1/diagnostics',
		respond: (_request, real) => ({ reply: real(), delayMs }),
	});
}

test('the node is version 1.1 by default and keeps version 1', () => {
	const { version, defaultVersion } = new AdPerformance().description;
	expect({ version, defaultVersion }).toEqual({ version: [1, 1.1], defaultVersion: 1.1 });
});

describe('Report → Generate', () => {
	test('version 1.1 waits by default: the finished report with its file', async () => {
		const result = await run(service, [generate(1.1)]);
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({ status: 'completed', title: 'Version 1.1' });
		expect(result.items[0].binary?.data?.mimeType).toBe('application/pdf');
	});

	test('version 1.1 with Wait for Completion off outputs the report at once', async () => {
		const result = await run(service, [generate(1.1, { waitForCompletion: false })]);
		expect(result.error).toBeUndefined();
		expect(['pending', 'generating']).toContain(result.items[0].json.status);
		expect(lists(service)).toHaveLength(0);
	});

	test('version 1 keeps its default: the report at once, still generating', async () => {
		const result = await run(service, [generate(1)]);
		expect(result.error).toBeUndefined();
		expect(['pending', 'generating']).toContain(result.items[0].json.status);
		expect(result.items[0].binary).toBeUndefined();
		expect(lists(service)).toHaveLength(0);
		const waited = await run(service, [generate(1, { waitForCompletion: true })]);
		expect(waited.items[0].json.status).toBe('completed');
	});
});

describe('Diagnostic → Run', () => {
	// The start takes longer than the whole Timeout: only a Timeout that counts it runs out.
	const START_MS = 3_000;

	test('version 1.1 waits by default, and its Timeout counts from when the run was started', async () => {
		const release = slowStart(START_MS);
		try {
			const started = Date.now();
			const result = await run(service, [
				runDiagnostic(1.1, { timeoutSeconds: 1.5, pollIntervalSeconds: 0.1 }),
			]);
			expect(result.error).toBeUndefined();
			expect(result.items[0].json.status).toBe('completed');
			expect(Date.now() - started).toBeGreaterThanOrEqual(START_MS);
		} finally {
			release();
		}
	}, 30_000);

	test('version 1.1 with Wait for Completion off outputs the run as started', async () => {
		const result = await run(service, [runDiagnostic(1.1, { waitForCompletion: false })]);
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.status).not.toBe('completed');
		expect(apiRequests(service, { method: 'GET' })).toHaveLength(0);
	});

	test('version 1 keeps Options and a Timeout that counts the start', async () => {
		const release = slowStart(START_MS);
		try {
			const result = await run(service, [
				runDiagnostic(1, { options: { timeoutSeconds: 1.5, pollIntervalSeconds: 0.1 } }),
			]);
			expect(result.error?.message).toMatch(/could not be started within 1.5 seconds/);
			expect((result.error?.context as IDataObject | undefined)?.errorType).toBe('timeout');
		} finally {
			release();
		}
		const waited = await run(service, [
			runDiagnostic(1, { options: { pollIntervalSeconds: 0.1 } }),
		]);
		expect(waited.error).toBeUndefined();
		expect(waited.items[0].json.status).toBe('completed');
	}, 30_000);
});
