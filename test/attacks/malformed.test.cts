/**
 * Attack 3: malformed 2xx answers. An answer that is not the documented envelope is a protocol
 * error: reads retry it like a 500, then fail naming the endpoint; it is never "no records".
 * A write answered with garbage is not resent blindly (the report it created is recovered), and
 * the trigger changes neither its cursor nor its stored state on such a poll.
 */
import type { IDataObject } from 'n8n-workflow';

import type { ScriptedAnswer } from '../../sandbox/index.cjs';
import { ActiveTrigger, ids } from '../nodes/AdPerformanceTrigger/poll-harness.cjs';
import { adNode, apiRequests, rl } from '../nodes/helpers.cjs';
import { runAttack, useHostileService } from './helpers.cjs';

const service = useHostileService();

const html = (body: string): ScriptedAnswer => ({
	status: 200,
	headers: { 'Content-Type': 'text/html' },
	body: `<!doctype html><html><body>${body}</body></html>`,
});

/** 200 answers that are not a list envelope, by what is wrong with them. */
const NOT_A_LIST: Array<[string, ScriptedAnswer, RegExp]> = [
	['malformed JSON', { status: 200, body: '{"data": [' }, /not JSON/],
	['an HTML page', html('Gateway maintenance'), /an HTML page/],
	['an empty body', { status: 200, body: '' }, /empty/],
	['{}', { status: 200, json: {} }, /no data list/],
	['data that is an object', { status: 200, json: { data: {} } }, /data was not a list/],
	['data that is a string', { status: 200, json: { data: 'x' } }, /data was not a list/],
	[
		'a null record',
		{ status: 200, json: { data: [null], pagination: {} } },
		/record 1 .* not an object/,
	],
	['a number for a record', { status: 200, json: { data: [1] } }, /record 1 .* not an object/],
];

const NOT_A_RECORD: Array<[string, ScriptedAnswer, RegExp]> = [
	['malformed JSON', { status: 200, body: '{"data": {' }, /not JSON/],
	['an HTML page', html('Sign in'), /an HTML page/],
	['{}', { status: 200, json: {} }, /no record/],
	['a null record', { status: 200, json: { data: null } }, /no record/],
	['a list for a record', { status: 200, json: { data: [] } }, /not a record/],
];

function always(method: string, pathPrefix: string, answer: ScriptedAnswer) {
	service.fake.intercept({ method, pathPrefix, respond: () => answer });
}

describe('a malformed answer to a read is a protocol error, never "no records"', () => {
	test.each(NOT_A_LIST)('Account → Get Many answered with %s', async (_name, answer, problem) => {
		always('GET', '/v1/accounts', answer);
		const result = await runAttack(service, [
			adNode({
				resource: 'account',
				operation: 'getAll',
				returnAll: true,
				requestOptions: { maxAttempts: 2 },
			}),
		]);
		expect(result.error).toBeDefined();
		expect(result.error?.message).toContain('(GET /v1/accounts)');
		expect(result.error?.message).toMatch(problem);
		expect(result.error?.message).not.toMatch(/TypeError|Cannot read/);
		// Retried like a 500: Max Attempts 2 means two requests.
		expect(apiRequests(service, { pathPrefix: '/v1/accounts' })).toHaveLength(2);
	});

	test.each(NOT_A_RECORD)('Campaign → Get answered with %s', async (_name, answer, problem) => {
		const [campaign] = service.fake.campaigns();
		always('GET', `/v1/campaigns/${campaign.id}`, answer);
		const result = await runAttack(service, [
			adNode({
				resource: 'campaign',
				operation: 'get',
				campaignId: rl(campaign.id),
				requestOptions: { maxAttempts: 1 },
			}),
		]);
		expect(result.error?.message).toContain(`(GET /v1/campaigns/${campaign.id})`);
		expect(result.error?.message).toMatch(problem);
	});

	test('with Continue On Fail the item carries the error, not an empty result', async () => {
		always('GET', '/v1/reports', { status: 200, json: { data: {} } });
		const result = await runAttack(service, [
			adNode(
				{
					resource: 'report',
					operation: 'getAll',
					returnAll: true,
					requestOptions: { maxAttempts: 1 },
				},
				{ continueOnFail: true },
			),
		]);
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json.error).toMatch(/GET \/v1\/reports/);
	});

	test('one garbled answer, then a good one: the read is retried and succeeds', async () => {
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/accounts',
			times: 1,
			respond: () => html('Bad gateway'),
		});
		const result = await runAttack(service, [
			adNode({ resource: 'account', operation: 'getAll', returnAll: true }),
		]);
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(service.fake.accounts().length);
		expect(result.items.every((item) => typeof item.json.id === 'string')).toBe(true);
		expect(apiRequests(service, { pathPrefix: '/v1/accounts' })).toHaveLength(2);
	});
});

describe('a garbled answer to Generate creates no duplicate', () => {
	test('the report the service created is recovered, not created again', async () => {
		const before = new Set(service.fake.reports().map((report) => report.id));
		service.fake.intercept({
			method: 'POST',
			pathPrefix: '/v1/reports',
			times: 1,
			respond: (_request, real) => {
				real(); // the service creates the report…
				return { status: 202, body: '{"data": {"id": "rpt_' }; // …and the answer is cut
			},
		});
		const result = await runAttack(service, [
			adNode({
				resource: 'report',
				operation: 'generate',
				accountId: rl(service.fake.accounts()[0].platformAccountId),
				title: 'Garbled answer',
				dateStart: '2026-10-01',
				dateEnd: '2026-10-07',
			}),
		]);
		expect(result.error).toBeUndefined();
		const created = service.fake.reports().filter((report) => !before.has(report.id));
		expect(created).toHaveLength(1);
		expect(result.items[0].json.id).toBe(created[0].id);
		expect(apiRequests(service, { method: 'POST' })).toHaveLength(1);
	});
});

describe('the trigger keeps its state on a malformed poll', () => {
	function trigger(parameters: IDataObject) {
		return new ActiveTrigger(
			{ requestOptions: { maxAttempts: 1 }, ...parameters },
			service.credentials().adPerformanceApi,
		);
	}

	test.each([
		['{}', { status: 200, json: {} } as ScriptedAnswer],
		['data that is an object', { status: 200, json: { data: {} } } as ScriptedAnswer],
		['an account without its id', null],
	])(
		'Account Connection Changed: %s emits no "removed" or "connected" and keeps the snapshot',
		async (_name, answer) => {
			const t = trigger({ event: 'accountConnectionChanged' });
			expect((await t.poll()).items).toBeNull(); // baseline
			const before = t.staticData;
			service.fake.intercept({
				method: 'GET',
				pathPrefix: '/v1/accounts',
				times: 1,
				respond: (_request, real) => {
					if (answer) return answer;
					const reply = real();
					const body = reply.json as { data: IDataObject[] };
					delete body.data[0].id;
					return { reply };
				},
			});
			await expect(t.poll()).rejects.toThrow(/GET \/v1\/accounts/);
			expect(t.staticData).toEqual(before);
			// The next good poll sees no change at all.
			expect((await t.poll()).items).toBeNull();
		},
	);

	test('Report Completed: a malformed poll while a report generates does not lose its completion', async () => {
		const t = trigger({ event: 'reportCompleted' });
		expect((await t.poll()).items).toBeNull(); // baseline
		const [generating] = service.fake.addReports(1, { status: 'generating' });
		const before = t.staticData;
		for (const answer of [
			{ status: 200, json: { data: [null] } },
			{ status: 200, json: {} },
			html('Maintenance'),
		] as ScriptedAnswer[]) {
			service.fake.intercept({
				method: 'GET',
				pathPrefix: '/v1/reports',
				times: 1,
				respond: () => answer,
			});
			await expect(t.poll()).rejects.toThrow(/GET \/v1\/reports/);
			expect(t.staticData).toEqual(before);
		}
		// Let the report complete (10–20 service s = 0.1–0.2 s here), then poll normally.
		await new Promise((resolve) => setTimeout(resolve, 400));
		const emitted: string[] = [];
		for (let i = 0; i < 3; i++) emitted.push(...ids((await t.poll()).items));
		expect(emitted.filter((id) => id === generating.id)).toHaveLength(1);
	});
});
