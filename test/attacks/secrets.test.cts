/**
 * Attack: echoed secrets. Every text that reaches the user (error message and description,
 * the error details n8n saves with the execution, Continue On Fail items, run data, anything
 * logged) is scrubbed of the API key and of user:password in addresses, whatever the service
 * echoes and whichever node meets it.
 *
 * `runAttack` already fails a test when the key shows anywhere in the result or the captured
 * console; the tests here make sure each echo really happened (the scripted answer was sent)
 * and check the other secrets (passwords in addresses) the same way.
 */
import type { IDataObject } from 'n8n-workflow';

import type { ScriptedAnswer } from '../../sandbox/index.cjs';
import { captureLogs, expectNoKey, visibleText } from '../faults/matrix.cjs';
import { type RunWorkflowResult } from '../harness/run-workflow.cjs';
import { ActiveTrigger } from '../nodes/AdPerformanceTrigger/poll-harness.cjs';
import type { WorkflowNodeInput } from '../harness/run-workflow.cjs';
import { adNode, apiRequests, rl, run, WAIT_NODE } from '../nodes/helpers.cjs';
import { editListedReports, runAttack, useHostileService } from './helpers.cjs';

const service = useHostileService();

const key = () => service.fake.keys.live;
const REDACTED = '[redacted]';

/** A service message quoting the key verbatim, URL-encoded in a link, and JSON-escaped. */
const echo = () =>
	`The API key ${key()} is not valid for this request (sent as https://api.example.com/v1/accounts?api_key=${encodeURIComponent(key())}, header "x-api-key: ${JSON.stringify(key()).slice(1, -1)}").`;

const noRetries = { maxAttempts: 1 };

const listAccounts = (
	extra: Partial<WorkflowNodeInput> = {},
	requestOptions: IDataObject = noRetries,
) => adNode({ resource: 'account', operation: 'getAll', returnAll: true, requestOptions }, extra);

function waitNode(parameters: IDataObject = {}, extra: Partial<WorkflowNodeInput> = {}) {
	return {
		name: 'Wait for Ad Report',
		type: WAIT_NODE,
		parameters: {
			pollIntervalSeconds: 0.1,
			timeoutSeconds: 10,
			requestOptions: noRetries,
			...parameters,
		},
		...extra,
	};
}

/** Runs the nodes like runAttack, and also hands back what was logged. */
async function runLogged(
	nodes: WorkflowNodeInput[],
	options: { items?: IDataObject[]; credentials?: IDataObject } = {},
): Promise<{ result: RunWorkflowResult; logs: string[] }> {
	const { value: result, logs } = await captureLogs(() => run(service, nodes, options));
	expectNoKey(key(), result, logs);
	return { result, logs };
}

/** The secret appears in nothing the user or a log can see (same checks as for the key). */
function expectHidden(secret: string, result: RunWorkflowResult, logs: string[]) {
	expectNoKey(secret, result, logs);
	expect(
		JSON.stringify(result.error ?? {}, Object.getOwnPropertyNames(result.error ?? {})),
	).not.toContain(secret);
}

/** Every property of a thrown error, as n8n could show or save it. */
function allOf(error: unknown): string {
	const e = error as Record<string, unknown>;
	return [
		e.message,
		e.description,
		e.stack,
		JSON.stringify(e.errorResponse ?? null),
		JSON.stringify(e.context ?? null),
		JSON.stringify(e.messages ?? null),
		JSON.stringify(e, Object.getOwnPropertyNames(e)),
	].join('\n');
}

function completedReport() {
	return service.fake.addReports(1, { status: 'completed' })[0];
}

/** The report list shows this report changed by `edit`. */
function listShows(reportId: string, edit: (record: IDataObject) => void) {
	editListedReports(service, (record) => {
		if (record.id === reportId) edit(record);
	});
}

describe('error answers that echo the API key', () => {
	const CASES: Array<[string, () => ScriptedAnswer, IDataObject, RegExp]> = [
		[
			'400 invalid_request',
			() => ({ status: 400, json: { error: { type: 'invalid_request', message: echo() } } }),
			noRetries,
			/rejected the request as invalid/,
		],
		[
			'401 authentication_error',
			() => ({ status: 401, json: { error: { type: 'authentication_error', message: echo() } } }),
			noRetries,
			/API key was not accepted/,
		],
		[
			'404 not_found',
			() => ({ status: 404, json: { error: { type: 'not_found', message: echo() } } }),
			noRetries,
			/not found/,
		],
		[
			'500 api_error until retries run out',
			() => ({ status: 500, json: { error: { type: 'api_error', message: echo() } } }),
			{ maxAttempts: 2 },
			/internal error and retries ran out/,
		],
		[
			'429 without a retry time',
			() => ({ status: 429, json: { error: { type: 'rate_limit_error', message: echo() } } }),
			noRetries,
			/rate limit/,
		],
		[
			'429 with a retry time longer than the request may wait',
			() => ({
				status: 429,
				json: { error: { type: 'rate_limit_error', message: `${echo()} Retry after 30 seconds.` } },
			}),
			// Max Wait 6 service seconds: the 30 the service asks for are past it, while the key's
			// pacing (half a second between reads once a 429 was seen in this process) is within it.
			{ maxAttempts: 1, rateLimitWaitMinutes: 0.1 },
			/rate limit was exceeded for longer than this request may wait/,
		],
		[
			'422 with the key as the error type',
			() => ({ status: 422, json: { error: { type: key(), message: echo() } } }),
			noRetries,
			/./,
		],
		[
			'400 with extra fields holding the key',
			() => ({
				status: 400,
				json: {
					error: {
						type: 'invalid_request',
						message: echo(),
						param: key(),
						request: { headers: { 'x-api-key': key() } },
					},
				},
			}),
			noRetries,
			/rejected the request as invalid/,
		],
		[
			'400 with a plain-text body',
			() => ({ status: 400, headers: { 'Content-Type': 'text/plain' }, body: echo() }),
			noRetries,
			/status 400/,
		],
	];

	test.each(CASES)(
		'%s: the key is nowhere in the error',
		async (_name, answer, requestOptions, message) => {
			service.fake.intercept({ method: 'GET', pathPrefix: '/v1/accounts', respond: answer });
			const result = await runAttack(service, [listAccounts({}, requestOptions)]);
			expect(result.error).toBeDefined();
			expect(result.error?.message).toMatch(message);
			// The echo was really sent (every request of the run met it).
			expect(apiRequests(service, { pathPrefix: '/v1/accounts' }).length).toBeGreaterThanOrEqual(1);
			const error = result.error as unknown as Record<string, unknown>;
			expect(allOf(error)).not.toContain(key());
			// Where the service's message is shown, it is shown scrubbed, not dropped.
			if (answer().json) expect(visibleText(result)).toContain(REDACTED);
		},
	);

	test.each(CASES)(
		'%s under Continue On Fail: the error item holds no key',
		async (_name, answer, requestOptions) => {
			service.fake.intercept({ method: 'GET', pathPrefix: '/v1/accounts', respond: answer });
			const result = await runAttack(service, [
				listAccounts({ continueOnFail: true }, requestOptions),
			]);
			expect(result.error).toBeUndefined();
			expect(result.items).toHaveLength(1);
			expect(typeof result.items[0].json.error).toBe('string');
			expect(JSON.stringify(result.items[0].json)).not.toContain(key());
		},
	);

	test('campaign get, report generate, report download and diagnostic run scrub an echoed key', async () => {
		const campaign = service.fake.campaigns()[0];
		const account = service.fake.accounts()[0];
		const report = completedReport();
		const rejected = () => ({
			status: 400,
			json: { error: { type: 'invalid_request', message: echo() } },
		});
		for (const pathPrefix of ['/v1/campaigns', '/v1/reports', '/v1/diagnostics'])
			service.fake.intercept({ pathPrefix, respond: rejected });
		const nodes = [
			adNode({
				resource: 'campaign',
				operation: 'get',
				campaignId: rl(campaign.id),
				requestOptions: noRetries,
			}),
			adNode({
				resource: 'report',
				operation: 'generate',
				accountId: rl(account.platformAccountId),
				title: 'Echo',
				dateStart: '2026-10-01',
				dateEnd: '2026-10-07',
				requestOptions: noRetries,
			}),
			adNode({
				resource: 'report',
				operation: 'download',
				reportId: report.id,
				requestOptions: noRetries,
			}),
			adNode({
				resource: 'diagnostic',
				operation: 'run',
				campaignId: rl(campaign.id),
				requestOptions: noRetries,
			}),
		];
		for (const node of nodes) {
			const result = await runAttack(service, [{ ...node, continueOnFail: true }]);
			expect(result.items[0].json.error).toBeDefined();
			const failed = await runAttack(service, [node]);
			expect(failed.error).toBeDefined();
			expect(allOf(failed.error)).not.toContain(key());
			expect(service.fake.log.some((entry) => entry.status === 400)).toBe(true);
		}
	});

	test('a 404 on a download with the key in the message: the explained error holds no key', async () => {
		const report = completedReport();
		service.fake.intercept({
			method: 'GET',
			pathPrefix: `/v1/reports/${report.id}/download`,
			respond: () => ({ status: 404, json: { error: { type: 'not_found', message: echo() } } }),
		});
		const result = await runAttack(service, [
			adNode({
				resource: 'report',
				operation: 'download',
				reportId: report.id,
				requestOptions: noRetries,
			}),
		]);
		expect(result.error?.message).toBe(`The file of report ${report.id} was not found`);
		expect(result.error?.description).toContain(`Service message: The API key ${REDACTED}`);
	});
});

describe('2xx answers that echo the API key', () => {
	test.each([
		[
			'an HTML page',
			() => ({
				status: 200,
				headers: { 'Content-Type': 'text/html' },
				body: `<html><body><h1>Welcome</h1><p>Signed in with ${key()}</p><a href="/logout?key=${encodeURIComponent(key())}">out</a></body></html>`,
			}),
		],
		[
			'plain text',
			() => ({ status: 200, headers: { 'Content-Type': 'text/plain' }, body: echo() }),
		],
		[
			'an error envelope with status 200',
			() => ({ status: 200, json: { error: { type: 'invalid_request', message: echo() } } }),
		],
		[
			'a list whose data is the key',
			() => ({ status: 200, json: { data: key(), pagination: { hasMore: false } } }),
		],
		[
			'truncated JSON holding the key',
			() => ({
				status: 200,
				headers: { 'Content-Type': 'application/json' },
				body: `{"data":[{"id":"act_1","name":"${key()}`,
			}),
		],
	])('%s: the protocol error holds no key', async (_name, answer) => {
		service.fake.intercept({ method: 'GET', pathPrefix: '/v1/accounts', respond: answer });
		const result = await runAttack(service, [listAccounts()]);
		expect(result.error).toBeDefined();
		expect(result.error?.message).toMatch(/not in its documented format/);
		expect(allOf(result.error)).not.toContain(key());
		const cof = await runAttack(service, [listAccounts({ continueOnFail: true })]);
		expect(cof.items[0].json.error).toMatch(/not in its documented format/);
	});

	test('a 201 HTML page on Generate (outcome unknown) holds no key', async () => {
		service.fake.intercept({
			method: 'POST',
			pathPrefix: '/v1/reports',
			respond: () => ({
				status: 201,
				headers: { 'Content-Type': 'text/html' },
				body: `<p>${key()}</p>`,
			}),
		});
		const result = await runAttack(service, [
			adNode({
				resource: 'report',
				operation: 'generate',
				accountId: rl(service.fake.accounts()[0].platformAccountId),
				title: 'Garbled',
				dateStart: '2026-10-01',
				dateEnd: '2026-10-07',
				requestOptions: noRetries,
			}),
		]);
		expect(result.error).toBeDefined();
		expect(allOf(result.error)).not.toContain(key());
	});

	test('Wait for Ad Report: a failed report whose error message echoes the key', async () => {
		const report = completedReport();
		listShows(report.id, (record) => {
			record.status = 'failed';
			record.error = { type: 'generation_failed', message: echo() };
			delete record.downloadUrl;
			delete record.summary;
		});
		const result = await runAttack(service, [waitNode()], { items: [{ id: report.id }] });
		expect(result.error?.message).toMatch(
			new RegExp(`^Report ${report.id} failed: The API key \\[redacted\\]`),
		);
		expect(allOf(result.error)).not.toContain(key());
		const cof = await runAttack(service, [waitNode({}, { continueOnFail: true })], {
			items: [{ id: report.id }],
		});
		expect(cof.items[0].json.error).toMatch(/^Report .* failed/);
	});
});

describe('a Base URL with a user name and password', () => {
	const PASSWORD = 's3cret-pass';
	const withPassword = () => `http://user:${PASSWORD}@127.0.0.1:${new URL(service.fake.url).port}`;

	test.each([
		['http://user:password@', withPassword],
		['https://user:password@ with a path', () => `https://admin:${PASSWORD}@api.example.com/v1/`],
		[
			'an encoded password',
			() => `http://user:${PASSWORD}%40x@127.0.0.1:${new URL(service.fake.url).port}`,
		],
	])(
		'%s is refused before any request, naming the Base URL and the fix',
		async (_name, baseUrl) => {
			const { result, logs } = await runLogged([listAccounts()], {
				credentials: { baseUrl: baseUrl() },
			});
			expect(service.fake.log).toHaveLength(0);
			expect(service.other.log).toHaveLength(0);
			expect(result.error?.message).toBe(
				'The Base URL in the Ad Performance credential must not contain a user name or password',
			);
			expect(result.error?.description).toMatch(
				/Open the credential and enter only the service address/,
			);
			expectHidden(PASSWORD, result, logs);
		},
	);

	test('a user name alone is refused too', async () => {
		const { result } = await runLogged([listAccounts()], {
			credentials: { baseUrl: `http://someone@127.0.0.1:${new URL(service.fake.url).port}` },
		});
		expect(service.fake.log).toHaveLength(0);
		expect(result.error?.message).toMatch(/must not contain a user name or password/);
	});

	test('under Continue On Fail every item gets the refusal, without the password', async () => {
		const { result, logs } = await runLogged([listAccounts({ continueOnFail: true })], {
			items: [{ n: 1 }, { n: 2 }],
			credentials: { baseUrl: withPassword() },
		});
		expect(service.fake.log).toHaveLength(0);
		expect(result.items).toHaveLength(2);
		for (const item of result.items)
			expect(item.json.error).toMatch(/must not contain a user name or password/);
		expectHidden(PASSWORD, result, logs);
	});

	test('Wait for Ad Report refuses it before any request', async () => {
		const report = completedReport();
		const { result, logs } = await runLogged([waitNode()], {
			items: [{ id: report.id }],
			credentials: { baseUrl: withPassword() },
		});
		expect(service.fake.log).toHaveLength(0);
		expect(result.error?.message).toMatch(/Base URL .* must not contain a user name or password/);
		expectHidden(PASSWORD, result, logs);
	});

	test('the trigger refuses it before any request', async () => {
		const trigger = new ActiveTrigger(
			{ event: 'reportCompleted' },
			service.credentials({ baseUrl: withPassword() }).adPerformanceApi,
		);
		service.fake.clearLog();
		const { value: caught, logs } = await captureLogs(() =>
			trigger.poll().then(
				() => undefined,
				(e: unknown) => e,
			),
		);
		expect(caught).toBeInstanceOf(Error);
		expect((caught as Error).message).toMatch(
			/Base URL .* must not contain a user name or password/,
		);
		expect(service.fake.log).toHaveLength(0);
		expect(allOf(caught)).not.toContain(PASSWORD);
		for (const line of logs) expect(line).not.toContain(PASSWORD);
	});
});

describe('a download link with a user name and password', () => {
	const PASSWORD = 'link-pass-9000';
	const link = (id: string) =>
		`http://reporter:${PASSWORD}@127.0.0.1:${new URL(service.other.url).port}/files/${id}.pdf`;

	test('Wait for Ad Report refuses the link, sends nothing and shows no password', async () => {
		const report = completedReport();
		listShows(report.id, (record) => {
			record.downloadUrl = link(report.id);
		});
		const { result, logs } = await runLogged([waitNode()], { items: [{ id: report.id }] });
		expect(result.error?.message).toBe(
			`The download link of report ${report.id} contains a user name or password`,
		);
		expect(service.other.log).toHaveLength(0);
		expectHidden(PASSWORD, result, logs);

		const cof = await runLogged([waitNode({}, { continueOnFail: true })], {
			items: [{ id: report.id }],
		});
		expect(cof.result.items[0].json.error).toMatch(/contains a user name or password/);
		expect(service.other.log).toHaveLength(0);
		expectHidden(PASSWORD, cof.result, cof.logs);
	});

	test('Report → Download refuses a redirect to such a link', async () => {
		const report = completedReport();
		service.fake.intercept({
			method: 'GET',
			pathPrefix: `/v1/reports/${report.id}/download`,
			respond: () => ({ status: 302, headers: { Location: link(report.id) } }),
		});
		const { result, logs } = await runLogged([
			adNode({
				resource: 'report',
				operation: 'download',
				reportId: report.id,
				requestOptions: noRetries,
			}),
		]);
		expect(result.error?.message).toBe(
			`The service redirected the request for report ${report.id} to an address that contains a user name or password`,
		);
		expect(service.other.log).toHaveLength(0);
		expectHidden(PASSWORD, result, logs);
	});
});

describe('the trigger', () => {
	test('a list answer echoing the key fails the poll with no key in the error or logs', async () => {
		const trigger = new ActiveTrigger(
			{ event: 'reportCompleted', requestOptions: noRetries },
			service.credentials().adPerformanceApi,
		);
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/reports',
			respond: () => ({
				status: 400,
				json: { error: { type: 'invalid_request', message: echo() } },
			}),
		});
		service.fake.clearLog();
		const { value: caught, logs } = await captureLogs(() =>
			trigger.poll().then(
				() => undefined,
				(e: unknown) => e,
			),
		);
		expect(caught).toBeInstanceOf(Error);
		expect(apiRequests(service, { pathPrefix: '/v1/reports' }).length).toBeGreaterThanOrEqual(1);
		expect(allOf(caught)).not.toContain(key());
		expect(allOf(caught)).toContain(REDACTED);
		for (const line of logs) expect(line).not.toContain(key());
	});

	test('an HTML page echoing the key fails the poll with no key in the error', async () => {
		const trigger = new ActiveTrigger(
			{ event: 'reportCompleted', requestOptions: noRetries },
			service.credentials().adPerformanceApi,
		);
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/reports',
			respond: () => ({
				status: 200,
				headers: { 'Content-Type': 'text/html' },
				body: `<p>${key()}</p>`,
			}),
		});
		const { value: caught, logs } = await captureLogs(() =>
			trigger.poll().then(
				() => undefined,
				(e: unknown) => e,
			),
		);
		expect((caught as Error).message).toMatch(/not in its documented format/);
		expect(allOf(caught)).not.toContain(key());
		for (const line of logs) expect(line).not.toContain(key());
	});
});

describe('records that echo a secret (the output of a successful read)', () => {
	const PASSWORD = 'cdn-pass-4711';
	/** The report as a failed one whose error message quotes the key, with a link holding a password. */
	const echoingRecord = (reportId: string) =>
		listShows(reportId, (record) => {
			record.status = 'failed';
			record.error = { type: 'generation_failed', message: echo() };
			record.downloadUrl = `https://reporter:${PASSWORD}@cdn.example.com/files/${reportId}.pdf`;
		});

	test('Report → Get outputs the record with the key and the password scrubbed', async () => {
		const report = completedReport();
		echoingRecord(report.id);
		const { result, logs } = await runLogged([
			adNode({ resource: 'report', operation: 'get', reportId: report.id }),
		]);
		expect(result.error).toBeUndefined();
		const json = result.items[0].json as IDataObject & { error: IDataObject };
		expect(json.id).toBe(report.id);
		expect(json.error.message).toMatch(/^The API key \[redacted\] is not valid/);
		expect(json.downloadUrl).toBe(`https://${REDACTED}@cdn.example.com/files/${report.id}.pdf`);
		expectHidden(PASSWORD, result, logs);
	});

	test('Report → Get Many outputs every record scrubbed', async () => {
		const report = completedReport();
		echoingRecord(report.id);
		const { result, logs } = await runLogged([
			adNode({ resource: 'report', operation: 'getAll', returnAll: true }),
		]);
		expect(result.error).toBeUndefined();
		const echoed = result.items.find((item) => item.json.id === report.id);
		expect(JSON.stringify(echoed?.json)).toContain(REDACTED);
		expectHidden(PASSWORD, result, logs);
	});

	test('Wait for Ad Report without download outputs the finished record scrubbed', async () => {
		const report = completedReport();
		listShows(report.id, (record) => {
			record.summary = { note: echo() };
			record.downloadUrl = `https://reporter:${PASSWORD}@cdn.example.com/files/${report.id}.pdf`;
		});
		const { result, logs } = await runLogged([waitNode({ download: false })], {
			items: [{ id: report.id }],
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.status).toBe('completed');
		expect(JSON.stringify(result.items[0].json)).toContain(REDACTED);
		expectHidden(PASSWORD, result, logs);
	});

	test('the trigger emits a failed report whose message quoted the key, scrubbed', async () => {
		const trigger = new ActiveTrigger(
			{ event: 'reportFailed' },
			service.credentials().adPerformanceApi,
		);
		await trigger.poll();
		const report = completedReport();
		echoingRecord(report.id);
		const { value: polled, logs } = await captureLogs(() => trigger.poll());
		expect(polled.items?.map((item) => item.json.id)).toEqual([report.id]);
		const emitted = JSON.stringify(polled.items);
		expect(emitted).toContain(REDACTED);
		expect(emitted).not.toContain(key());
		expect(emitted).not.toContain(PASSWORD);
		expect(JSON.stringify(trigger.staticData)).not.toContain(key());
		for (const line of logs) {
			expect(line).not.toContain(key());
			expect(line).not.toContain(PASSWORD);
		}
	});
});
