/**
 * Attack: a service that never answers while Wait for Ad Report waits (#26, "outcomes named for
 * what was not seen"). Nothing was listed because nothing answered, so the report was never
 * seen missing: the error says the service timed out or could not be reached, saying which,
 * never "Report rpt_… was not found" (not_found). The same holds for the type a model reads
 * from the tool variant. And the type is data recorded by the error's builder: a service
 * reason that reads like another type's message does not change it.
 *
 * The class, for every waiter (Wait for Ad Report, Diagnostic → Run, their tools): the last look
 * decides. An answer seen before the service fell silent is told as what was last seen, never
 * taken for "still running" at the timeout.
 */
import { createServer } from 'node:net';

import type { IDataObject } from 'n8n-workflow';

import type { RunWorkflowResult } from '../harness/run-workflow.cjs';
import { ActiveTrigger, ids } from '../nodes/AdPerformanceTrigger/poll-harness.cjs';
import { AD_NODE, AD_TOOL_NODE, rl, WAIT_NODE, WAIT_TOOL_NODE } from '../nodes/helpers.cjs';
import { errorText, reportPastTheFirstPage, runAttack, useHostileService } from './helpers.cjs';

const service = useHostileService();

const waitNode = (parameters: Record<string, unknown> = {}) => ({
	name: 'Wait for Ad Report',
	type: WAIT_NODE,
	parameters: { pollIntervalSeconds: 0.1, timeoutSeconds: 2, download: false, ...parameters },
});
const waitTool = (parameters: Record<string, unknown> = {}) => ({
	name: 'Wait for Ad Report Tool',
	type: WAIT_TOOL_NODE,
	parameters: { pollIntervalSeconds: 0.1, toolTimeoutSeconds: 2, ...parameters },
});

/** GETs of `pathPrefix` hang for 20 s: no answer within any Timeout here. Returns the undo. */
function neverAnswers(pathPrefix: string): () => void {
	return service.fake.intercept({
		method: 'GET',
		pathPrefix,
		respond: (_request, real) => ({ reply: real(), delayMs: 20_000 }),
	});
}

/** The list of reports hangs for 20 s. */
function listNeverAnswers() {
	neverAnswers('/v1/reports');
}

/** An address on this machine where nothing listens: every connection is refused. */
async function refusingAddress(): Promise<string> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return `http://127.0.0.1:${port}`;
}

/**
 * Credentials whose Base URL refuses every connection, on a real-time clock: the backoff
 * between attempts (1 s, 2 s, 4 s…) outlasts the Timeout, so the wait ends at its deadline.
 */
async function refusedCredentials() {
	return { baseUrl: await refusingAddress(), timeScale: 1 };
}

function expectNamed(result: RunWorkflowResult, type: string) {
	expect(result.error).toBeDefined();
	expect(errorText(result)).not.toMatch(/not found|Check the Report ID/i);
	expect(result.error?.context?.errorType).toBe(type);
}

describe('Wait for Ad Report when the service never answers', () => {
	test('no answer within the Timeout: timed out (timeout), not "not found"', async () => {
		const [report] = service.fake.addReports(1, { status: 'completed' });
		listNeverAnswers();
		const result = await runAttack(service, [waitNode()], { items: [{ id: report.id }] });
		expectNamed(result, 'timeout');
		expect(result.error?.message).toMatch(/did not answer within the timeout \(2 seconds\)/);
		expect(result.error?.message).toContain(report.id);
		expect(result.durationMs).toBeLessThan(10_000);
	});

	test('connections refused: unreachable (service_unreachable), not "not found"', async () => {
		const result = await runAttack(service, [waitNode({ requestOptions: { maxAttempts: 10 } })], {
			items: [{ id: 'rpt_neveranswered01' }],
			credentials: await refusedCredentials(),
		});
		expectNamed(result, 'service_unreachable');
		expect(result.error?.message).toMatch(/could not be reached .*: the connection was refused/);
		expect(result.durationMs).toBeLessThan(10_000);
	});

	test('the tool: the model reads timeout, not not_found', async () => {
		const [report] = service.fake.addReports(1, { status: 'completed' });
		listNeverAnswers();
		const result = await runAttack(service, [waitTool()], { items: [{ reportId: report.id }] });
		expectNamed(result, 'timeout');
		expect(result.error?.message).toMatch(/\(timeout\)\. Fix: .* Retry: yes/);
	});

	test('the tool, connections refused: the model reads service_unreachable', async () => {
		const result = await runAttack(service, [waitTool({ requestOptions: { maxAttempts: 10 } })], {
			items: [{ reportId: 'rpt_neveranswered01' }],
			credentials: await refusedCredentials(),
		});
		expectNamed(result, 'service_unreachable');
		expect(result.error?.message).toMatch(/\(service_unreachable\)\. Fix: .* Retry: yes/);
	});

	test('an answer that does not hold the report is still "not found"', async () => {
		const result = await runAttack(service, [waitNode()], {
			items: [{ id: 'rpt_doesnotexist00' }],
		});
		expect(result.error?.message).toBe('Report rpt_doesnotexist00 was not found');
		expect(result.error?.context?.errorType).toBe('not_found');
	});
});

describe('the error type is data, not read back from the message', () => {
	test('a failed report whose reason ends like a timeout is generation_failed for a model', async () => {
		// "… after 30 seconds" was once taken for a timeout by a pattern over the message.
		const [report] = service.fake.addReports(1, {
			status: 'failed',
			error: { type: 'generation_failed', message: 'The renderer gave up after 30 seconds' },
		});
		const result = await runAttack(service, [waitTool()], { items: [{ reportId: report.id }] });
		expect(result.error?.context?.errorType).toBe('generation_failed');
		expect(result.error?.message).toMatch(
			/^Report rpt_\w+ failed: The renderer gave up after 30 seconds \(generation_failed\)\./,
		);
		expect(result.error?.message).toMatch(/Retry: yes, generating the report again may work/);
	});
});

/** Every GET of `pathPrefix` after the first `answered` ones hangs for 20 s. */
function silentAfter(pathPrefix: string, answered: number, edit?: (record: IDataObject) => void) {
	let looks = 0;
	service.fake.intercept({
		method: 'GET',
		pathPrefix,
		respond: (_request, real) => {
			const reply = real();
			if (looks++ >= answered) return { reply, delayMs: 20_000 };
			const data = (reply.json as { data?: unknown } | undefined)?.data;
			if (edit)
				for (const record of Array.isArray(data) ? data : [data]) edit(record as IDataObject);
			return { reply };
		},
	});
}

/** A diagnostic kept running once started; after that answer, connections are refused (20 s at most). */
function refuseConnectionsOnceDiagnosticStarts() {
	let reopen: Promise<() => Promise<void>> | undefined;
	service.fake.intercept({
		method: 'POST',
		pathPrefix: '/v1/diagnostics',
		times: 1,
		respond: (_request, real) => {
			const reply = real();
			service.fake.holdRunningDiagnostics(60_000);
			// Once the answer has left.
			setTimeout(() => (reopen = service.fake.refuseConnections(20_000)), 50);
			return { reply };
		},
	});
	return async () => await (await reopen)?.();
}

function campaignId(): string {
	const account = service.fake.addAccount();
	return service.fake.addCampaigns(account.id, 1)[0].id;
}

/** A diagnostic that the service keeps running once it is started. */
function diagnosticKeepsRunning() {
	service.fake.holdNextDiagnosticRunning(60_000);
}

const diagnosticOptions = { pollIntervalSeconds: 0.1, timeoutSeconds: 2 };
const runDiagnostic = (campaign: string, requestOptions: IDataObject = {}) => ({
	name: 'Ad Performance',
	type: AD_NODE,
	parameters: {
		resource: 'diagnostic',
		operation: 'run',
		campaignId: rl(campaign),
		options: diagnosticOptions,
		requestOptions,
	},
});
const runDiagnosticTool = (requestOptions: IDataObject = {}) => ({
	name: 'Ad Performance Tool',
	type: AD_TOOL_NODE,
	parameters: {
		resource: 'diagnostic',
		operation: 'run',
		options: diagnosticOptions,
		requestOptions,
	},
});

function expectNotStillRunning(result: RunWorkflowResult, type: string) {
	expect(result.error).toBeDefined();
	expect(errorText(result)).not.toMatch(/still (pending|running|generating)/i);
	expect(result.error?.context?.errorType).toBe(type);
}

describe('Diagnostic → Run when the service falls silent while it waits', () => {
	test('no look answered in time: timed out, not "still running"', async () => {
		diagnosticKeepsRunning();
		silentAfter('/v1/diagnostics/', 0);
		const result = await runAttack(service, [runDiagnostic(campaignId())]);
		expectNotStillRunning(result, 'timeout');
		expect(result.error?.message).toMatch(
			/^The service did not answer within the timeout \(2 seconds\), so diagnostic diag_\w+ could not be looked for/,
		);
		expect(result.durationMs).toBeLessThan(10_000);
	});

	test('answered "running", then silent: timed out, telling what was last seen', async () => {
		diagnosticKeepsRunning();
		silentAfter('/v1/diagnostics/', 1);
		const result = await runAttack(service, [runDiagnostic(campaignId())]);
		expectNotStillRunning(result, 'timeout');
		expect(errorText(result)).toMatch(
			/The service last showed diagnostic diag_\w+ (pending|running);/,
		);
	});

	test('connections refused while it waits: unreachable (service_unreachable)', async () => {
		const reopen = refuseConnectionsOnceDiagnosticStarts();
		try {
			const result = await runAttack(service, [runDiagnostic(campaignId(), { maxAttempts: 10 })], {
				credentials: { timeScale: 1 },
			});
			expectNotStillRunning(result, 'service_unreachable');
			expect(result.error?.message).toMatch(/could not be reached .*: the connection was refused/);
		} finally {
			await reopen();
		}
	});

	test('the tool: the model reads timeout, not "still running"', async () => {
		diagnosticKeepsRunning();
		silentAfter('/v1/diagnostics/', 1);
		const result = await runAttack(service, [runDiagnosticTool()], {
			items: [{ campaignId: campaignId() }],
		});
		expectNotStillRunning(result, 'timeout');
		expect(result.error?.message).toMatch(/\(timeout\)\. Fix: .* Retry: yes/);
	});

	test('answered "running" at every look: still running (timeout), as seen', async () => {
		diagnosticKeepsRunning();
		const result = await runAttack(service, [runDiagnostic(campaignId())]);
		expect(result.error?.message).toMatch(
			/^Diagnostic diag_\w+ was still (pending|running) after 2 seconds$/,
		);
		expect(result.error?.context?.errorType).toBe('timeout');
	});
});

describe('Wait for Ad Report when the service falls silent after an answer', () => {
	const generating = (record: IDataObject) => (record.status = 'generating');

	test('seen generating, then silent: timed out, not "still generating"; On Timeout → output does not output it', async () => {
		const [report] = service.fake.addReports(1, { status: 'completed' });
		silentAfter('/v1/reports', 1, generating);
		const result = await runAttack(service, [waitNode({ onTimeout: 'outputPending' })], {
			items: [{ id: report.id }],
		});
		expectNotStillRunning(result, 'timeout');
		expect(errorText(result)).toMatch(/The service last showed report rpt_\w+ as generating;/);
		expect(result.items).toHaveLength(0);
	});

	test('the tool: an error of type timeout, not "not finished, call again"', async () => {
		const [report] = service.fake.addReports(1, { status: 'completed' });
		silentAfter('/v1/reports', 1, generating);
		const result = await runAttack(service, [waitTool()], { items: [{ reportId: report.id }] });
		expectNotStillRunning(result, 'timeout');
		expect(result.error?.message).toMatch(/\(timeout\)\. Fix: .* Retry: yes/);
	});

	test('listed without it, then silent: timed out, not "not found"', async () => {
		silentAfter('/v1/reports', 1);
		const result = await runAttack(service, [waitNode()], {
			items: [{ id: 'rpt_notlistedyet00' }],
		});
		expectNamed(result, 'timeout');
	});
});

describe('the trigger when nothing answers its poll', () => {
	const trigger = (parameters: IDataObject) =>
		new ActiveTrigger(parameters, service.credentials().adPerformanceApi);

	test('account connections: a silent or refusing service is no removal, and no change after it', async () => {
		const t = trigger({ event: 'accountConnectionChanged' });
		service.fake.addAccount({ name: 'Still There Co' });
		expect((await t.poll()).items).toBeNull();
		const stored = JSON.stringify((await t.poll()).nodeStaticData);

		const stopHanging = neverAnswers('/v1/accounts');
		const silent = await t.poll();
		stopHanging();
		expect(silent.items).toBeNull();
		expect(silent.durationMs).toBeLessThan(10_000);
		expect(JSON.stringify(silent.nodeStaticData)).toBe(stored);

		const reopen = await service.fake.refuseConnections(20_000);
		let refused: unknown;
		try {
			await t.poll().catch((error: unknown) => (refused = error));
		} finally {
			await reopen();
		}
		expect((refused as { context?: IDataObject })?.context?.errorType).toBe('service_unreachable');
		expect(String((refused as Error)?.message)).not.toMatch(/removed|not found/i);
		expect(JSON.stringify(t.nodeStaticData)).toBe(stored);

		expect((await t.poll()).items).toBeNull();
	});

	test('report completions: a silent poll infers no completion; the next answer brings it once', async () => {
		const account = service.fake.addAccount({ name: 'Silent Reports Co' });
		const t = trigger({
			event: 'reportCompleted',
			filters: { accountId: account.platformAccountId },
		});
		expect((await t.poll()).items).toBeNull();
		const now = Date.now();
		const [report] = service.fake.addReports(1, {
			accountId: account.platformAccountId,
			createdAt: new Date(now).toISOString(),
			completedAt: new Date(now).toISOString(),
		});
		const stopHanging = neverAnswers('/v1/reports');
		const silent = await t.poll();
		stopHanging();
		expect(silent.items).toBeNull();
		expect(ids((await t.poll()).items)).toEqual([report.id]);
		expect((await t.poll()).items).toBeNull();
	});
});

describe('a cancelled execution is named cancelled', () => {
	test('Diagnostic → Run stopped while a look hangs: cancelled, not timed out or unreachable', async () => {
		diagnosticKeepsRunning();
		silentAfter('/v1/diagnostics/', 1);
		const result = await runAttack(service, [runDiagnostic(campaignId())], {
			cancelAfterMs: 800,
		});
		expect(result.run.status).toBe('canceled');
		expect(result.error?.context?.errorType).toBe('cancelled');
		expect(result.durationMs).toBeLessThan(2_000);
	});

	test('Wait for Ad Report stopped while the list hangs: cancelled', async () => {
		listNeverAnswers();
		const result = await runAttack(service, [waitNode({ timeoutSeconds: 30 })], {
			items: [{ id: 'rpt_neveranswered01' }],
			cancelAfterMs: 800,
		});
		expect(result.run.status).toBe('canceled');
		expect(result.error?.context?.errorType).toBe('cancelled');
	});
});

/** Report → Generate of the same week for an account. */
const generateNode = (accountId: string, title: string, additionalFields: IDataObject = {}) => ({
	name: 'Ad Performance',
	type: AD_NODE,
	parameters: {
		resource: 'report',
		operation: 'generate',
		accountId: rl(accountId),
		title,
		dateStart: '2026-05-01',
		dateEnd: '2026-05-07',
		additionalFields,
	},
});

describe('Report → Generate: "no identical report" only from a whole answer', () => {
	test('Reuse a Recent Identical Report: one past the first page of the window is reused, not made again', async () => {
		const {
			account,
			campaigns,
			report: identical,
		} = reportPastTheFirstPage(service, 'Past the first page', {
			from: '2026-05-01',
			to: '2026-05-07',
		});
		service.fake.clearLog();
		const result = await runAttack(service, [
			generateNode(account.platformAccountId, 'Past the first page', {
				reuseRecentReport: true,
				campaignIds: campaigns.join(','),
			}),
		]);
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({ id: identical.id, reused: true });
		expect(service.fake.log.filter((entry) => entry.method === 'POST')).toHaveLength(0);
	});
});

describe('Report → Generate: a lost answer whose search gets no answer', () => {
	test('is ambiguous_outcome (check before calling again), not the search error that invites a resend', async () => {
		const account = service.fake.accounts().find((a) => a.connectionStatus === 'active')!;
		// The report is made, its answer is lost; then every read of the list fails.
		service.fake.injectOnce({
			kind: 'drop',
			phase: 'after',
			method: 'POST',
			pathPrefix: '/v1/reports',
		});
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/reports',
			respond: () => ({
				status: 503,
				json: { error: { type: 'api_error', message: 'Service unavailable' } },
			}),
		});
		service.fake.clearLog();
		const result = await runAttack(service, [
			generateNode(account.platformAccountId, 'Lost and not looked for'),
		]);
		expect(result.error?.context?.errorType).toBe('ambiguous_outcome');
		expect(result.error?.message).toMatch(
			/^The answer to this report request was lost, and the search/,
		);
		expect(errorText(result)).toMatch(/Check the report list/);
		expect(service.fake.log.filter((entry) => entry.method === 'POST')).toHaveLength(1);
	});
});
