/**
 * Attack 12: answers without bounds. Every answer is read within a byte limit (counted after
 * unpacking), a total deadline and the cancel signal (nodes/shared/transport/boundedReader.ts):
 * an endless JSON answer or a gzip bomb is refused at 16 MiB, an endless download fails its
 * item at Max File Size without filling the binary store, a 5 MB error message becomes a short
 * error, and an answer trickling in a byte at a time is cut at the deadline or on Stop.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

import { ANSWER_LIMITS } from '../../nodes/shared/limits';
import {
	endlessFileAnswer,
	endlessJsonAnswer,
	gzipBombAnswer,
	trickling,
} from '../../sandbox/index.cjs';
import { harnessUserFolder } from '../harness/env.cjs';
import type { RunWorkflowResult } from '../harness/run-workflow.cjs';
import { adNode, apiRequests, rl, stopAfterMark, WAIT_NODE } from '../nodes/helpers.cjs';
import {
	ANSWER_CUT_BY_2_S_TIMEOUT_MS,
	errorText,
	runAttack,
	streamedAnswers as streamedOf,
	useHostileService,
} from './helpers.cjs';

const service = useHostileService();

const MIB = 1024 * 1024;
/** What socket buffers on both ends may hold beyond what the reader took when it hung up. */
const IN_FLIGHT = 8 * MIB;

/** Runs `fn` while sampling this process's memory; returns its result and the peak growth. */
async function peakMemoryGrowth<T>(fn: () => Promise<T>): Promise<{ value: T; rss: number }> {
	const base = process.memoryUsage().rss;
	let peak = base;
	const sampler = setInterval(() => {
		peak = Math.max(peak, process.memoryUsage().rss);
	}, 5);
	try {
		const value = await fn();
		peak = Math.max(peak, process.memoryUsage().rss);
		return { value, rss: peak - base };
	} finally {
		clearInterval(sampler);
	}
}

/** How the fake's streamed answers to `pathPrefix` ended (see helpers.cts). */
const streamedAnswers = (pathPrefix: string) => streamedOf(service, pathPrefix);

/** Bytes under the folder (n8n's filesystem binary store lives in the harness's user folder). */
function folderBytes(folder: string): number {
	let total = 0;
	for (const entry of readdirSync(folder, { withFileTypes: true })) {
		const full = path.join(folder, entry.name);
		total += entry.isDirectory() ? folderBytes(full) : statSync(full).size;
	}
	return total;
}

function accountsNode(requestOptions = { maxAttempts: 1 }) {
	return adNode({ resource: 'account', operation: 'getAll', returnAll: true, requestOptions });
}

/** A well-behaved run first, so module loading and n8n's services do not count as growth. */
beforeAll(async () => {
	await runAttack(service, [accountsNode()]);
});

describe('an answer larger than its limit is refused, and memory does not grow with it', () => {
	test('an endless JSON answer: error naming the endpoint and the 16 MiB limit', async () => {
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/accounts',
			// 1 GiB if anyone read it all (an unbounded reader would hold it twice).
			respond: () => endlessJsonAnswer({ stopAfterBytes: 1024 * MIB }),
		});
		const { value: result, rss } = await peakMemoryGrowth(() =>
			runAttack(service, [accountsNode({ maxAttempts: 2 })]),
		);
		expect(result.error?.message).toBe(
			'The service sent an answer that is not in its documented format (GET /v1/accounts): the answer was larger than 16 MiB, the limit for it; reading stopped there',
		);
		// Read again as any protocol error of a read is, and each attempt stopped at the limit.
		const answers = await streamedAnswers('/v1/accounts');
		expect(answers).toHaveLength(2);
		for (const answer of answers) {
			expect(answer.closedByClient).toBe(true);
			expect(answer.bodyBytes).toBeGreaterThan(ANSWER_LIMITS.jsonBytes);
			expect(answer.bodyBytes).toBeLessThan(ANSWER_LIMITS.jsonBytes + IN_FLIGHT);
		}
		expect(rss).toBeLessThan(ANSWER_LIMITS.jsonBytes * 6);
	});

	test('a gzip bomb (0.4 MB on the wire, 400 MB unpacked) is refused at 16 MiB unpacked', async () => {
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/accounts',
			respond: () => gzipBombAnswer(400 * 1000 * 1000),
		});
		const { value: result, rss } = await peakMemoryGrowth(() =>
			runAttack(service, [accountsNode()]),
		);
		expect(result.error?.message).toMatch(
			/\(GET \/v1\/accounts\): the answer was larger than 16 MiB, the limit for it; reading stopped there$/,
		);
		const [answer] = await streamedAnswers('/v1/accounts');
		expect(answer.sentBytes).toBeLessThan(MIB);
		expect(rss).toBeLessThan(ANSWER_LIMITS.jsonBytes * 6);
	});

	test('the same bomb, complete and valid, would be taken as data without the limit: only its size is refused', async () => {
		// Under the limit, the same kind of answer is a valid empty list: it is the size alone.
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/accounts',
			respond: () => gzipBombAnswer(2 * MIB),
		});
		const result = await runAttack(service, [accountsNode()]);
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(0);
	});
});

describe('an endless download fails its item at Max File Size; the binary store is not filled', () => {
	test('Report → Download: the item gets an error naming the report and the option; the next item still downloads', async () => {
		const [endless, normal] = service.fake.addReports(2, { status: 'completed', format: 'pdf' });
		service.fake.intercept({
			method: 'GET',
			pathPrefix: `/v1/reports/${endless.id}/download`,
			respond: () => endlessFileAnswer({ stopAfterBytes: 1024 * MIB }),
		});
		const storedBefore = folderBytes(harnessUserFolder);
		const result = await runAttack(
			service,
			[
				adNode(
					{
						resource: 'report',
						operation: 'download',
						reportId: '={{ $json.id }}',
						options: { maxFileSizeMb: 1 },
					},
					{ continueOnFail: true },
				),
			],
			{ items: [{ id: endless.id }, { id: normal.id }] },
		);
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(2);
		expect(result.items[0].json.error).toBe(
			`The file of report ${endless.id} is larger than the Max File Size of 1 MB`,
		);
		expect(result.items[0].json.errorDescription).toMatch(/raise Options → Max File Size/);
		expect(result.items[0].binary).toBeUndefined();
		expect(result.items[1].json).toMatchObject({ id: normal.id, mimeType: 'application/pdf' });
		expect(result.items[1].binary?.data).toBeDefined();
		// Not tried again: a larger file stays larger.
		expect(apiRequests(service, { pathPrefix: `/v1/reports/${endless.id}/download` })).toHaveLength(
			1,
		);
		const [answer] = await streamedAnswers(`/v1/reports/${endless.id}/download`);
		expect(answer.closedByClient).toBe(true);
		expect(answer.bodyBytes).toBeLessThan(MIB + IN_FLIGHT);
		// At most the limit was written before the store was stopped, plus the other small file.
		expect(folderBytes(harnessUserFolder) - storedBefore).toBeLessThan(MIB + 256 * 1024);
	});

	test('an announced Content-Length past Max File Size is refused before reading', async () => {
		const [report] = service.fake.addReports(1, { status: 'completed', format: 'pdf' });
		service.fake.setReportFileSize(report.id, 3 * MIB);
		const result = await runAttack(service, [
			adNode({
				resource: 'report',
				operation: 'download',
				reportId: report.id,
				options: { maxFileSizeMb: 2 },
			}),
		]);
		expect(result.error?.message).toBe(
			`The file of report ${report.id} is larger than the Max File Size of 2 MB`,
		);
	});

	test('Wait for Ad Report: the same error for the same file, with its own Max File Size', async () => {
		const [report] = service.fake.addReports(1, { status: 'completed', format: 'pdf' });
		service.fake.intercept({
			method: 'GET',
			pathPrefix: `/v1/reports/${report.id}/download`,
			respond: () => endlessFileAnswer({ stopAfterBytes: 1024 * MIB }),
		});
		const result = await runAttack(
			service,
			[
				{
					name: 'Wait for Ad Report',
					type: WAIT_NODE,
					parameters: {
						pollIntervalSeconds: 0.2,
						timeoutSeconds: 30,
						options: { maxFileSizeMb: 0.5 },
					},
				},
			],
			{ items: [{ id: report.id }] },
		);
		expect(result.error?.message).toBe(
			`The file of report ${report.id} is larger than the Max File Size of 0.5 MB`,
		);
		const [answer] = await streamedAnswers(`/v1/reports/${report.id}/download`);
		expect(answer.bodyBytes).toBeLessThan(MIB / 2 + IN_FLIGHT);
	});

	test('a Max File Size that is no number is refused before any request', async () => {
		const result = await runAttack(service, [
			adNode({
				resource: 'report',
				operation: 'download',
				reportId: 'rpt_abc',
				options: { maxFileSizeMb: 'lots' },
			}),
		]);
		expect(result.error?.message).toBe(
			'Options → Max File Size (MB): lots is not a number of MB from 0.1 to 4096',
		);
		expect(apiRequests(service)).toHaveLength(0);
	});
});

describe('texts from the service are cut to a readable length', () => {
	/** The size of what n8n saves for the run: the error with everything it carries. */
	const savedRunBytes = (result: RunWorkflowResult) => JSON.stringify(result.run).length;

	test('a 400 whose message is 5 MB: a short error and small run data', async () => {
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/accounts',
			respond: () => ({
				status: 400,
				json: { error: { type: 'invalid_request', message: 'x'.repeat(5 * 1000 * 1000) } },
			}),
		});
		const result = await runAttack(service, [accountsNode()]);
		expect(result.error).toBeDefined();
		expect(result.error?.message.length).toBeLessThan(1024);
		expect(errorText(result).length).toBeLessThan(2048);
		expect(savedRunBytes(result)).toBeLessThan(32 * 1024);
		// The body was larger than an error body may be: it was not read, and its connection let go.
		const [entry] = apiRequests(service, { pathPrefix: '/v1/accounts' });
		expect(entry.status).toBe(400);
	});

	test('a 400 whose message is 50 KB (an error body within its limit): the message is cut to 500 characters', async () => {
		const message = `Field "title" is invalid: ${'y'.repeat(50_000)}`;
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/accounts',
			respond: () => ({ status: 400, json: { error: { type: 'invalid_request', message } } }),
		});
		const result = await runAttack(service, [accountsNode()]);
		expect(result.error?.message).toBe('The service rejected the request as invalid');
		const quoted = /Service message: (.*)$/.exec(result.error?.description ?? '')?.[1] ?? '';
		expect(quoted).toHaveLength(ANSWER_LIMITS.serviceTextChars);
		expect(quoted.startsWith('Field "title" is invalid: yyy')).toBe(true);
		expect(quoted.endsWith('…')).toBe(true);
		expect(savedRunBytes(result)).toBeLessThan(32 * 1024);
	});

	test('a failed report whose reason is 5 MB: Wait for Ad Report fails with a short error', async () => {
		const [report] = service.fake.addReports(1, {
			status: 'failed',
			error: { type: 'generation_failed', message: 'z'.repeat(5 * 1000 * 1000) },
		});
		const result = await runAttack(
			service,
			[
				{
					name: 'Wait for Ad Report',
					type: WAIT_NODE,
					parameters: { pollIntervalSeconds: 0.2, timeoutSeconds: 30 },
				},
			],
			{ items: [{ id: report.id }] },
		);
		expect(result.error?.message).toMatch(new RegExp(`^Report ${report.id} failed: z+…$`));
		expect(result.error?.message.length).toBeLessThan(1024);
	});
});

describe('an answer trickling in a byte at a time is cut at the deadline', () => {
	test('Wait for Ad Report ends around its 2 s Timeout while the list trickles (1 byte every 300 ms)', async () => {
		const [report] = service.fake.addReports(1, { status: 'completed' });
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/reports',
			respond: (_request, real) => trickling({ reply: real() }, 1, 300),
		});
		const result = await runAttack(
			service,
			[
				{
					name: 'Wait for Ad Report',
					type: WAIT_NODE,
					parameters: { pollIntervalSeconds: 0.2, timeoutSeconds: 2 },
				},
			],
			{ items: [{ id: report.id }] },
		);
		expect(errorText(result)).toMatch(/within the timeout \(2 seconds\)/);
		expect(result.durationMs).toBeGreaterThanOrEqual(2_000);
		expect(result.durationMs).toBeLessThan(3_500);
		const answers = await streamedAnswers('/v1/reports');
		expect(answers.length).toBeGreaterThanOrEqual(1);
		// The trickle was lively (a byte every 300 ms) and was still cut, its connection let go.
		for (const answer of answers) {
			expect(answer.closedByClient).toBe(true);
			expect(answer.durationMs).toBeLessThan(ANSWER_CUT_BY_2_S_TIMEOUT_MS);
		}
	});

	test('Diagnostic → Run: a trickling status answer is cut at the run’s 2 s Timeout', async () => {
		const campaign = service.fake.campaigns()[0];
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/diagnostics/',
			respond: (_request, real) => trickling({ reply: real() }, 1, 300),
		});
		const result = await runAttack(service, [
			adNode({
				resource: 'diagnostic',
				operation: 'run',
				campaignId: rl(campaign.id),
				options: { pollIntervalSeconds: 0.2, timeoutSeconds: 2 },
			}),
		]);
		// No look got a whole answer: named timed out (#26 item 3), not "still running".
		expect(result.error?.message).toMatch(
			/^The service did not answer within the timeout \(2 seconds\), so diagnostic diag_\S+ could not be looked for/,
		);
		expect(result.error?.context?.errorType).toBe('timeout');
		expect(result.durationMs).toBeLessThan(3_500);
		const [answer] = await streamedAnswers('/v1/diagnostics/');
		expect(answer.closedByClient).toBe(true);
		expect(answer.durationMs).toBeLessThan(ANSWER_CUT_BY_2_S_TIMEOUT_MS);
	});

	test('Stop during a trickle stops at once and lets the connection go', async () => {
		// Stop half a second into the trickle (a byte or two are in).
		const { mark, stop } = stopAfterMark(500);
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/accounts',
			respond: (_request, real) => {
				mark();
				return trickling({ reply: real() }, 1, 300);
			},
		});
		const result = await runAttack(service, [accountsNode()], { cancelWhen: stop });
		expect(result.durationMs).toBeLessThan(1_600);
		const [answer] = await streamedAnswers('/v1/accounts');
		expect(answer.closedByClient).toBe(true);
		expect(answer.durationMs).toBeLessThan(1_600);
		// Nothing was sent again after the Stop.
		await new Promise((resolve) => setTimeout(resolve, 700));
		expect(apiRequests(service, { pathPrefix: '/v1/accounts' })).toHaveLength(1);
	});
});
