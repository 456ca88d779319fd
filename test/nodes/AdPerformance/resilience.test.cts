import { fc, test as fcTest } from '@fast-check/jest';
import type { IDataObject } from 'n8n-workflow';

import { adNode, apiRequests, rl, run, useFakeService } from '../helpers.cjs';

const service = useFakeService({ timeScale: 0.01 });

function raw(
	method: string,
	path: string,
	body?: IDataObject,
	maxAttempts = 1,
	rateLimitWaitMinutes: number | '' = '',
) {
	return {
		name: 'Raw Request',
		type: 'test.rawRequest',
		parameters: {
			method,
			path,
			body: body ? JSON.stringify(body) : '',
			maxAttempts,
			rateLimitWaitMinutes,
		},
	};
}

const acme = () => service.fake.accounts().find((a) => a.name === 'Acme Outdoor')!;
const validReport = () => ({
	account_id: acme().platformAccountId,
	title: 'T',
	date_start: '2026-10-01',
	date_end: '2026-10-07',
});

describe('every error type of the service becomes a NodeApiError with its own message and fix', () => {
	const cases: Array<{
		type: string;
		status: number;
		message: RegExp;
		setup: () => { node: ReturnType<typeof raw>; credentials?: IDataObject };
	}> = [
		{
			type: 'invalid_request',
			status: 400,
			message: /rejected the request as invalid/,
			setup: () => ({ node: raw('GET', '/accounts'), credentials: { apiVersion: '1999-01-01' } }),
		},
		{
			type: 'invalid_date_range',
			status: 400,
			message: /date range is not valid/,
			setup: () => ({
				node: raw('POST', '/reports', { ...validReport(), date_start: '2026-10-08' }),
			}),
		},
		{
			type: 'too_many_campaigns',
			status: 400,
			message: /Too many campaigns/,
			setup: () => ({
				node: raw('POST', '/reports', {
					...validReport(),
					campaign_ids: Array.from({ length: 21 }, (_, i) => `camp_x${i}`),
				}),
			}),
		},
		{
			type: 'authentication_error',
			status: 401,
			message: /API key was not accepted/,
			setup: () => ({
				node: raw('GET', '/accounts'),
				credentials: { apiKey: 'service_test_' + 'z'.repeat(26) },
			}),
		},
		{
			type: 'key_revoked',
			status: 401,
			message: /has been revoked/,
			setup: () => ({
				node: raw('GET', '/accounts'),
				credentials: { apiKey: service.fake.keys.revoked },
			}),
		},
		{
			type: 'permission_error',
			status: 403,
			message: /another workspace/,
			setup: () => ({ node: raw('GET', `/campaigns/${otherWorkspaceCampaign()}`) }),
		},
		{
			type: 'plan_insufficient',
			status: 403,
			message: /does not include API access/,
			setup: () => ({
				node: raw('GET', '/accounts'),
				credentials: { apiKey: service.fake.keys.nonAgency },
			}),
		},
		{
			type: 'white_label_not_available',
			status: 403,
			message: /White-label reports are not available/,
			setup: () => ({
				node: raw('POST', '/reports', {
					...validReport(),
					account_id: noWhiteLabelAccount(),
					whiteLabel: { companyName: 'X' },
				}),
				credentials: { apiKey: service.fake.keys.noWhiteLabel },
			}),
		},
		{
			type: 'not_found',
			status: 404,
			message: /was not found/,
			setup: () => ({ node: raw('GET', '/campaigns/camp_nothere0000') }),
		},
		{
			type: 'diagnostic_in_progress',
			status: 409,
			message: /already running/,
			setup: () => ({
				node: raw('POST', '/diagnostics', { campaign_id: runningDiagnosticCampaign() }),
			}),
		},
		{
			type: 'campaign_not_synced',
			status: 422,
			message: /not been synced/,
			setup: () => ({ node: raw('POST', '/diagnostics', { campaign_id: unsyncedCampaign() }) }),
		},
		{
			type: 'rate_limit_error',
			status: 429,
			message: /rate limit was exceeded/,
			setup: () => {
				service.fake.injectOnce({ kind: '429' });
				// No waiting on the retry hint: the 429 itself is what this case is about.
				return { node: raw('GET', '/accounts', undefined, 1, 0) };
			},
		},
		{
			type: 'api_error',
			status: 500,
			message: /internal error/,
			setup: () => {
				service.fake.injectOnce({ kind: '500', phase: 'before' });
				return { node: raw('GET', '/accounts') };
			},
		},
	];

	let otherCampaign = '';
	let otherAccount = '';
	beforeAll(async () => {
		const other = await run(service, [raw('GET', '/campaigns')], {
			credentials: { apiKey: service.fake.keys.otherWorkspace },
		});
		otherCampaign = (other.items[0].json.data as IDataObject[])[0].id as string;
		const accounts = await run(service, [raw('GET', '/accounts')], {
			credentials: { apiKey: service.fake.keys.noWhiteLabel },
		});
		otherAccount = (accounts.items[0].json.data as IDataObject[])[0].platformAccountId as string;
	});
	const otherWorkspaceCampaign = () => otherCampaign;
	const noWhiteLabelAccount = () => otherAccount;
	const runningDiagnosticCampaign = () => {
		const campaign = service.fake.campaigns().filter((c) => c.accountId === acme().id)[5];
		// Held from the moment the fake starts it, so a busy machine cannot let it finish before
		// the hold below (a diagnostic takes 50-100 ms here).
		service.fake.holdNextDiagnosticRunning(60_000);
		pendingDiagnostic = fetch(`${service.fake.url}/v1/diagnostics`, {
			method: 'POST',
			headers: {
				'x-api-key': service.fake.keys.live,
				'service-version': '2026-03-01',
				'content-type': 'application/json',
			},
			body: JSON.stringify({ campaign_id: campaign.id }),
		});
		return campaign.id;
	};
	/** The diagnostic started above, kept running for a minute so the node surely meets it. */
	let pendingDiagnostic: Promise<unknown> | undefined;
	const keepDiagnosticRunning = async () => {
		await pendingDiagnostic;
		service.fake.holdRunningDiagnostics(60_000);
	};
	const unsyncedCampaign = () => {
		const fresh = service.fake.addAccount({ syncing: true });
		return service.fake.addCampaigns(fresh.id, 1)[0].id;
	};

	test.each(cases.map((c) => [c.type, c] as const))('%s', async (type, c) => {
		const { node, credentials } = c.setup();
		// Under load the 5-10 service seconds of a diagnostic (50-100 ms here) can pass before
		// the node's request: the diagnostic is made to run on instead of racing it.
		if (type === 'diagnostic_in_progress') await keepDiagnosticRunning();
		const result = await run(service, [node], { credentials });
		const logged = apiRequests(service).filter((r) => r.errorType === type);
		expect(logged.length).toBeGreaterThanOrEqual(1);
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.message).toMatch(c.message);
		expect(result.error?.httpCode).toBe(String(c.status));
		expect(String(result.error?.description)).not.toBe('');
	});

	test('an unknown error type falls back to the service’s own message', async () => {
		const { TransportErrors } = await import('../../../nodes/shared/errors');
		const { Redactor } = await import('../../../nodes/shared/redaction');
		const errors = new TransportErrors(
			() => ({ name: 'Ad Performance' }) as never,
			new Redactor([]),
			'https://api.example.com',
			3,
		);
		const error = errors.service({
			status: 418,
			type: 'teapot_error',
			serviceMessage: 'I am a teapot',
		});
		expect(error.message).toBe('I am a teapot');
	});
});

describe('retries', () => {
	test.each([
		['429', { kind: '429' as const }],
		['500', { kind: '500' as const, phase: 'before' as const }],
		['dropped connection', { kind: 'drop' as const, phase: 'before' as const }],
	])('a %s is retried and the workflow succeeds', async (_name, rule) => {
		service.fake.injectOnce({ ...rule, method: 'GET', pathPrefix: '/v1/accounts', times: 2 });
		const result = await run(service, [
			adNode({ resource: 'account', operation: 'getAll', returnAll: true }),
		]);
		expect(result.error).toBeUndefined();
		expect(result.items.length).toBe(service.fake.accounts().length);
		const requests = apiRequests(service, { pathPrefix: '/v1/accounts' });
		expect(requests).toHaveLength(3);
		expect(requests.slice(0, 2).every((r) => r.fault !== undefined)).toBe(true);
	});

	// Max Wait When Rate Limited bounds waits for the rate limit only: a short one (0 included)
	// never takes the retries of a 5xx or a dropped connection away.
	fcTest.prop(
		[
			fc.constantFrom(0, 0.001, 0.5, 15),
			fc.array(fc.constantFrom('500' as const, 'drop' as const), { minLength: 1, maxLength: 2 }),
		],
		{ numRuns: 6 },
	)(
		'a failure that is not a 429 is retried whatever Max Wait When Rate Limited',
		async (maxWait, kinds) => {
			for (const kind of kinds)
				service.fake.injectOnce({
					kind,
					phase: 'before',
					method: 'GET',
					pathPrefix: '/v1/accounts',
				});
			const result = await run(service, [
				adNode({
					resource: 'account',
					operation: 'getAll',
					returnAll: true,
					requestOptions: { maxAttempts: 3, rateLimitWaitMinutes: maxWait },
				}),
			]);
			expect(result.error?.message).toBeUndefined();
			expect(result.items.length).toBe(service.fake.accounts().length);
			expect(apiRequests(service, { pathPrefix: '/v1/accounts' })).toHaveLength(kinds.length + 1);
		},
	);

	test('Max Attempts under Request Options limits the attempts', async () => {
		service.fake.injectOnce({
			kind: '500',
			phase: 'before',
			method: 'GET',
			pathPrefix: '/v1/accounts',
			times: 2,
		});
		const result = await run(service, [
			adNode({
				resource: 'account',
				operation: 'getAll',
				returnAll: true,
				requestOptions: { maxAttempts: 2 },
			}),
		]);
		expect(result.error?.message).toMatch(/internal error/);
		expect(apiRequests(service, { pathPrefix: '/v1/accounts' })).toHaveLength(2);
	});

	test.each([
		[
			'404',
			() => adNode({ resource: 'campaign', operation: 'get', campaignId: rl('camp_missing00000') }),
		],
		['401', () => adNode({ resource: 'account', operation: 'getAll', returnAll: true })],
	])('a %s is never retried', async (status, node) => {
		const credentials = status === '401' ? { apiKey: service.fake.keys.revoked } : undefined;
		const result = await run(service, [node()], { credentials });
		expect(result.error?.httpCode).toBe(status);
		expect(apiRequests(service)).toHaveLength(1);
	});
});

describe('no duplicate report when the answer to POST /v1/reports is lost', () => {
	test.each([
		['dropped connection', 'drop' as const],
		['500', '500' as const],
	])('after a %s the report the service did create is reused', async (_name, kind) => {
		const before = service.fake.reports().length;
		service.fake.injectOnce({ kind, phase: 'after', method: 'POST', pathPrefix: '/v1/reports' });
		const result = await run(service, [
			adNode({
				resource: 'report',
				operation: 'generate',
				accountId: rl(acme().platformAccountId),
				title: `Lost answer ${kind}`,
				dateStart: '2026-10-01',
				dateEnd: '2026-10-07',
			}),
		]);
		expect(result.error).toBeUndefined();
		const created = service.fake.reports().filter((r) => r.title === `Lost answer ${kind}`);
		expect(service.fake.reports().length).toBe(before + 1);
		expect(created).toHaveLength(1);
		expect(result.items[0].json.id).toBe(created[0].id);
		expect(apiRequests(service, { method: 'POST' })).toHaveLength(1);
	});

	test('when the first attempt created nothing, it is resent once', async () => {
		service.fake.injectOnce({
			kind: 'drop',
			phase: 'before',
			method: 'POST',
			pathPrefix: '/v1/reports',
		});
		const result = await run(service, [
			adNode({
				resource: 'report',
				operation: 'generate',
				accountId: rl(acme().platformAccountId),
				title: 'Lost request',
				dateStart: '2026-10-01',
				dateEnd: '2026-10-07',
			}),
		]);
		expect(result.error).toBeUndefined();
		expect(service.fake.reports().filter((r) => r.title === 'Lost request')).toHaveLength(1);
		expect(apiRequests(service, { method: 'POST' })).toHaveLength(2);
	});
});

describe('Diagnostic → Run when the answer to its start is lost', () => {
	test.each([
		['500', '500' as const],
		['dropped connection', 'drop' as const],
	])('after a %s the item still gets a finished diagnostic', async (_name, kind) => {
		const campaign = service.fake.campaigns().filter((c) => c.accountId === acme().id)[7];
		service.fake.injectOnce({
			kind,
			phase: 'after',
			method: 'POST',
			pathPrefix: '/v1/diagnostics',
		});
		const result = await run(service, [
			adNode({
				resource: 'diagnostic',
				operation: 'run',
				campaignId: rl(campaign.id),
				options: { pollIntervalSeconds: 0.1 },
			}),
		]);
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({ campaignId: campaign.id, status: 'completed' });
		const posts = apiRequests(service, { method: 'POST' });
		// The lost run, then resends refused while it was still running, then ours.
		expect(posts[0].fault).toBe(kind);
		expect(posts.filter((p) => p.status === 202)).toHaveLength(1);
	});
});

describe('Continue On Fail and paired items', () => {
	test('a failing item outputs { error } and the others go on', async () => {
		const campaigns = service.fake.campaigns().slice(0, 2);
		const result = await run(
			service,
			[
				adNode(
					{ resource: 'campaign', operation: 'get', campaignId: rl('={{ $json.id }}') },
					{ continueOnFail: true },
				),
			],
			{
				items: [
					{ id: campaigns[0].id },
					{ id: 'camp_missing00000' },
					{ id: 'not-an-id' },
					{ id: campaigns[1].id },
				],
			},
		);
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(4);
		expect(result.items[0].json.id).toBe(campaigns[0].id);
		expect(result.items[1].json.error).toMatch(/not found/);
		expect(result.items[2].json.error).toMatch(/^Campaign: "not-an-id" is not a valid ID/);
		expect(result.items[3].json.id).toBe(campaigns[1].id);
		expect(result.items.map((i) => i.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
			{ item: 3 },
		]);
		expect(apiRequests(service)).toHaveLength(3);
	});

	test('without Continue On Fail the error names the item', async () => {
		const result = await run(
			service,
			[adNode({ resource: 'campaign', operation: 'get', campaignId: rl('={{ $json.id }}') })],
			{
				items: [{ id: service.fake.campaigns()[0].id }, { id: 'camp_missing00000' }],
			},
		);
		expect(result.error?.message).toMatch(/not found/);
		expect((result.error?.context as IDataObject).itemIndex).toBe(1);
	});
});

describe('the API key never leaks', () => {
	test('no output, error or description contains the key, across the error cases', async () => {
		const key = service.fake.keys.live;
		const outputs: unknown[] = [];
		service.fake.injectOnce({ kind: 'drop', phase: 'before', times: 5 });
		outputs.push(await run(service, [raw('GET', '/accounts', undefined, 5)]));
		outputs.push(await run(service, [raw('GET', '/campaigns/camp_missing00000')]));
		outputs.push(await run(service, [raw('POST', '/reports', { title: 'no account' })]));
		service.fake.injectOnce({ kind: '429', times: 3 });
		outputs.push(await run(service, [raw('GET', '/accounts', undefined, 3, 0)]));
		outputs.push(
			await run(service, [raw('GET', '/accounts')], {
				credentials: { baseUrl: 'http://127.0.0.1:9' },
			}),
		);
		outputs.push(
			await run(service, [
				adNode({ resource: 'report', operation: 'download', reportId: 'rpt_missing0000000' }),
			]),
		);
		for (const output of outputs) {
			const text = JSON.stringify(output, (_k, v) =>
				v instanceof Error
					? {
							...v,
							message: v.message,
							stack: v.stack,
							description: (v as { description?: string }).description,
						}
					: v,
			);
			expect(text).not.toContain(key);
		}
		expect((outputs[0] as { error?: Error }).error?.message).toMatch(/could not be reached/);
		expect((outputs[4] as { error?: Error }).error?.message).toMatch(/could not be reached/);
	});
});

describe('pacing by meta.remaining_requests', () => {
	const paced = useFakeService({ timeScale: 0.01, limits: { read: 8 } });

	test('listing more than one window’s worth surfaces no 429 and provokes none', async () => {
		const account = paced.fake.accounts()[0];
		paced.fake.addCampaigns(account.id, 2000 - paced.fake.campaigns().length);
		const result = await run(paced, [
			adNode({ resource: 'campaign', operation: 'getAll', returnAll: true }),
		]);
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(2000);
		const requests = apiRequests(paced);
		expect(requests).toHaveLength(20);
		// 20 reads at 8 a window: the fake refuses a 9th read in a window, so none refused means
		// the node waited for two window resets.
		expect(requests.filter((r) => r.status === 429)).toHaveLength(0);
	});
});
