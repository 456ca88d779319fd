/**
 * Attack: trigger polls that overlap, run long, find strange state or strange ids. n8n's poller
 * starts each poll on schedule whether or not the previous one has finished, and in one process
 * the polls share the trigger's static data; the durable scheduler of n8n 2.41 abandons a poll
 * after 45 s. Whatever the timing, each event is emitted once, a poll ends within its budget,
 * and stored state the node did not write is never read as events.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import {
	ActiveTrigger,
	ids,
	type PollResult,
} from '../nodes/AdPerformanceTrigger/poll-harness.cjs';
import { apiRequests } from '../nodes/helpers.cjs';
import { editListedReports, useHostileService } from './helpers.cjs';

const service = useHostileService();

/** The poll budget at the suite’s sandbox speed: 30 service seconds, at least 3 real ones. */
const POLL_BUDGET_MS = 3_000;
const iso = (ms: number) => new Date(ms).toISOString();

function newAccount(name: string) {
	return service.fake.addAccount({ name });
}

function trigger(parameters: IDataObject, credentials: IDataObject = {}) {
	return new ActiveTrigger(parameters, service.credentials(credentials).adPerformanceApi);
}

function reportTrigger(accountId: string, credentials: IDataObject = {}) {
	return trigger({ event: 'reportCompleted', filters: { accountId } }, credentials);
}

/** A report created now that finished at once. */
function doneReport(accountId: string, partial: IDataObject = {}) {
	const now = Date.now();
	const [report] = service.fake.addReports(1, {
		accountId,
		createdAt: iso(now),
		completedAt: iso(now),
		...partial,
	});
	return report;
}

/** Every GET /v1/reports answered 429 with this message until the returned function is called. */
function refuseReportLists(message: string, times?: number) {
	return service.fake.intercept({
		method: 'GET',
		pathPrefix: '/v1/reports',
		times,
		respond: () => ({ status: 429, json: { error: { type: 'rate_limit_error', message } } }),
	});
}

function settled(results: Array<PromiseSettledResult<PollResult>>): PollResult[] {
	return results.map((result) => {
		if (result.status === 'rejected') throw result.reason;
		return result.value;
	});
}

function changes(items: PollResult['items']) {
	return (items ?? []).map(({ json }) => ({
		id: (json.account as IDataObject).id,
		previousStatus: json.previousStatus,
		currentStatus: json.currentStatus,
	}));
}

describe('overlapping polls of one trigger emit each event once', () => {
	test('two overlapping polls, the first held in a rate-limit wait: the report comes out once', async () => {
		const account = newAccount('Overlap Co');
		const t = reportTrigger(account.platformAccountId);
		expect((await t.poll()).items).toBeNull();
		const report = doneReport(account.platformAccountId);
		// The first poll's first request is told to wait 2 service minutes (1.2 s here).
		refuseReportLists('Rate limit exceeded. Retry after 120 seconds.', 1);
		service.fake.clearLog();
		const [first, second] = settled(await t.pollOverlapping([0, 200]));
		const third = await t.poll();
		expect([...ids(first.items), ...ids(second.items), ...ids(third.items)]).toEqual([report.id]);
		expect(ids(first.items)).toEqual([report.id]);
		// The second found the first one's lease: it returned at once, without a request.
		expect(second.items).toBeNull();
		expect(second.durationMs).toBeLessThan(500);
		// 429, the first poll's retry, the third poll.
		expect(apiRequests(service, { pathPrefix: '/v1/reports' })).toHaveLength(3);
	});

	test('account connections: three overlapping polls announce a change once', async () => {
		const t = trigger({ event: 'accountConnectionChanged' });
		await t.poll();
		const account = newAccount('Overlap Accounts Co');
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/accounts',
			times: 1,
			respond: () => ({
				status: 429,
				json: {
					error: {
						type: 'rate_limit_error',
						message: 'Rate limit exceeded. Retry after 80 seconds.',
					},
				},
			}),
		});
		const polls = settled(await t.pollOverlapping([0, 100, 300]));
		const all = [...polls, await t.poll()].flatMap((poll) => changes(poll.items));
		expect(all).toEqual([{ id: account.id, previousStatus: null, currentStatus: 'active' }]);
	});

	test('a poll that outlived its lease, while another took over, commits and emits nothing', async () => {
		const account = newAccount('Late Co');
		const t = reportTrigger(account.platformAccountId);
		await t.poll();
		doneReport(account.platformAccountId);
		refuseReportLists('Rate limit exceeded. Retry after 100 seconds.', 1);
		const late = t.poll();
		await new Promise((resolve) => setTimeout(resolve, 300));
		// Meanwhile another poll took the (expired) lease over and is still at work.
		t.editLiveNodeStaticData((data) => {
			data.lease = { holder: 'another poll', until: Date.now() + 10_000 };
		});
		const stored = t.nodeStaticData;
		expect((await late).items).toBeNull();
		expect(t.nodeStaticData).toEqual(stored);
	});

	test('a live lease in the stored state keeps a poll out; one that claims to last a day does not', async () => {
		const account = newAccount('Lease Co');
		const t = reportTrigger(account.platformAccountId);
		await t.poll();
		const report = doneReport(account.platformAccountId);
		const state = t.nodeStaticData;
		t.seedNodeStaticData({ ...state, lease: { holder: 'other', until: Date.now() + 3_000 } });
		service.fake.clearLog();
		expect((await t.poll()).items).toBeNull();
		expect(apiRequests(service)).toHaveLength(0);
		// Written before n8n's clock was set back a day: no lease lasts that long.
		t.seedNodeStaticData({ ...state, lease: { holder: 'other', until: Date.now() + 86_400_000 } });
		expect(ids((await t.poll()).items)).toEqual([report.id]);
		expect(t.nodeStaticData.lease).toBeUndefined();
	});
});

describe('a poll never waits minutes', () => {
	// A key of its own: the 429s below make the client pace this key for the rest of the file.
	const credentials = () => ({ apiKey: service.fake.keys.test });

	test('rate-limited for minutes: the poll returns within its budget, keeps its state, and the next one continues', async () => {
		const account = newAccount('Patient Co');
		const t = reportTrigger(account.platformAccountId, credentials());
		await t.poll();
		const before = doneReport(account.platformAccountId);
		const stored = t.nodeStaticData;
		// 400 service seconds (4 s here): longer than the poll's budget.
		const stop = refuseReportLists('Rate limit exceeded. Retry after 400 seconds.');
		const cut = await t.poll();
		stop();
		expect(cut.items).toBeNull();
		expect(cut.durationMs).toBeGreaterThanOrEqual(POLL_BUDGET_MS - 100);
		expect(cut.durationMs).toBeLessThan(POLL_BUDGET_MS + 1_500);
		expect(t.nodeStaticData).toEqual(stored);

		const after = doneReport(account.platformAccountId);
		const next = await t.poll();
		expect(new Set(ids(next.items))).toEqual(new Set([before.id, after.id]));
		expect(ids(next.items)).toHaveLength(2);
		expect((await t.poll()).items).toBeNull();
	}, 20_000);

	test('a rate limit longer than Max Wait When Rate Limited: nothing emitted, no error, state kept', async () => {
		const account = newAccount('Refused Co');
		const t = trigger(
			{
				event: 'reportCompleted',
				filters: { accountId: account.platformAccountId },
				requestOptions: { rateLimitWaitMinutes: 1 },
			},
			credentials(),
		);
		await t.poll();
		const report = doneReport(account.platformAccountId);
		const stored = t.nodeStaticData;
		const stop = refuseReportLists('Rate limit exceeded. Retry after 180 seconds.');
		const refused = await t.poll();
		stop();
		expect(refused.items).toBeNull();
		expect(refused.durationMs).toBeLessThan(1_000);
		expect(t.nodeStaticData).toEqual(stored);
		// The service's 180 s (1.8 s here) hold the key past this poll's Max Wait of 1 minute: a
		// poll within them sends nothing and emits nothing, and keeps its state (held-key.test).
		service.fake.clearLog();
		expect((await t.poll()).items).toBeNull();
		expect(apiRequests(service)).toHaveLength(0);
		expect(t.nodeStaticData).toEqual(stored);
		await new Promise((resolve) => setTimeout(resolve, 2_000));
		expect(ids((await t.poll()).items)).toEqual([report.id]);
	}, 20_000);
});

describe('stored state of an unknown or older shape is a baseline: nothing emitted', () => {
	test('account connections: no flood of "new" accounts, no phantom removals', async () => {
		const accounts = service.fake.accounts();
		const everyoneDisconnected = Object.fromEntries(
			accounts.map((account) => [account.id, 'disconnected']),
		);
		const scope = 'accountConnectionChanged:';
		const seeds: IDataObject[] = [
			// What 0.1.0 stored: a snapshot keyed by id, here claiming every account disconnected and
			// one that no longer exists.
			{ scope, state: { statuses: { ...everyoneDisconnected, act_gone: 'active' } } },
			{ version: 2, scope, state: { statuses: { ...everyoneDisconnected } } },
			{ version: 2, scope, state: { statuses: [['act_gone', 'active'], ['act_x']] } },
			{ version: 2, scope, state: { statuses: [['act_gone', 'active'], 'act_y'] } },
			{
				version: 2,
				scope,
				state: {
					statuses: [
						['act_gone', 'active'],
						['act_gone', null],
					],
				},
			},
			{ version: 3, scope, state: { statuses: [['act_gone', 'active']] } },
			{ version: 2, scope, state: 'statuses' },
			{ version: 2, scope },
			{ scope: 42, state: [] },
		];
		for (const seed of seeds) {
			const t = trigger({ event: 'accountConnectionChanged' });
			t.seedNodeStaticData(seed);
			const first = await t.poll();
			expect({ seed, items: first.items }).toEqual({ seed, items: null });
			expect((await t.poll()).items).toBeNull();
			// The baseline is a working snapshot: a real change comes out, once.
			const fresh = newAccount(`After ${JSON.stringify(seed).length}`);
			expect(changes((await t.poll()).items)).toEqual([
				{ id: fresh.id, previousStatus: null, currentStatus: 'active' },
			]);
			expect((await t.poll()).items).toBeNull();
		}
	});

	test('report completions: no flood of old reports', async () => {
		const account = newAccount('Old State Co');
		service.fake.addReports(5, { accountId: account.platformAccountId });
		const scope = `reportCompleted:${account.platformAccountId}`;
		const seeds: IDataObject[] = [
			// What 0.1.0 stored, with a cursor at 1970: read as such, every report would come out.
			{ scope, state: { cursor: iso(0), seen: {} } },
			{ version: 2, scope, state: { cursor: iso(0), emitted: [] } },
			{ version: 2, scope, state: { cursor: 0, emitted: {} } },
			{ version: 2, scope, state: { cursor: 0, emitted: [['rpt_a', 'yesterday']] } },
			{
				version: 2,
				scope,
				state: {
					cursor: 0,
					emitted: [
						['rpt_a', 1],
						['rpt_a', 2],
					],
				},
			},
			{
				version: 2,
				scope,
				state: { cursor: 0, emitted: Array.from({ length: 1001 }, (_, i) => [`rpt_${i}`, i]) },
			},
			{ version: 1, scope, state: { cursor: 0, emitted: [] } },
			{ version: 2, scope, state: null },
		];
		for (const seed of seeds) {
			const t = reportTrigger(account.platformAccountId);
			t.seedNodeStaticData(seed);
			expect({ seed, items: (await t.poll()).items }).toEqual({ seed, items: null });
			expect((await t.poll()).items).toBeNull();
			const report = doneReport(account.platformAccountId);
			expect(ids((await t.poll()).items)).toEqual([report.id]);
			expect((await t.poll()).items).toBeNull();
		}
	});
});

describe('an id `__proto__` is data', () => {
	test('an account whose id is __proto__ is announced once, then only when it changes', async () => {
		const t = trigger({ event: 'accountConnectionChanged' });
		await t.poll();
		service.fake.addAccount({ id: '__proto__', name: 'Prototype Co' });
		expect(changes((await t.poll()).items)).toEqual([
			{ id: '__proto__', previousStatus: null, currentStatus: 'active' },
		]);
		for (let i = 0; i < 3; i++) expect((await t.poll()).items).toBeNull();
		t.restart();
		expect((await t.poll()).items).toBeNull();
		service.fake.setConnectionStatus('__proto__', 'token_expired');
		expect(changes((await t.poll()).items)).toEqual([
			{ id: '__proto__', previousStatus: 'active', currentStatus: 'token_expired' },
		]);
		expect((await t.poll()).items).toBeNull();
		const stored = t.nodeStaticData.state as { statuses: Array<[string, string]> };
		expect(stored.statuses).toContainEqual(['__proto__', 'token_expired']);
	});

	test('a report whose id is __proto__ is emitted once', async () => {
		const account = newAccount('Prototype Reports Co');
		const t = reportTrigger(account.platformAccountId);
		await t.poll();
		doneReport(account.platformAccountId, { title: 'Prototype' });
		editListedReports(service, (record) => {
			if (record.title === 'Prototype') record.id = '__proto__';
		});
		const first = await t.poll();
		expect(ids(first.items)).toEqual(['__proto__']);
		for (let i = 0; i < 3; i++) expect((await t.poll()).items).toBeNull();
		t.restart();
		expect((await t.poll()).items).toBeNull();
		const stored = t.nodeStaticData.state as { emitted: Array<[string, number]> };
		expect(stored.emitted.map(([key]) => key)).toContain('__proto__');
	});
});

describe('a 429 is the rate limit whatever its body says', () => {
	const RUNS = Number(process.env.FC_TRIGGER_429_RUNS ?? 8);
	const replay = process.env.FC_SEED
		? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH }
		: {};
	/** The body of a 429 whose status alone says what it is: any type, or none, and no wait named. */
	const body = fc.oneof(
		fc.record({
			error: fc.record(
				{
					type: fc.oneof(
						fc.constantFrom('rate_limit_error', 'api_error', 'quota_exceeded', '__proto__', ''),
						fc.string({ maxLength: 40 }),
						fc.integer(),
						fc.constant(null),
					),
					message: fc.constantFrom('Too many requests', 'slow down', ''),
				},
				{ requiredKeys: [] },
			),
		}),
		fc.constant({}),
	);

	// No Retry-After, no seconds in the message, one attempt: the 429 ends the request at once.
	// The poll yields as to any rate limit (no error, state kept) and the next poll continues.
	test('a poll refused by a 429 of any body emits nothing, fails nothing, and the next continues', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.constantFrom('reportCompleted' as const, 'accountConnectionChanged' as const),
				body,
				async (event, json) => {
					const account = newAccount('Any 429 Co');
					const reports = event === 'reportCompleted';
					const t = trigger({
						event,
						filters: { accountId: account.platformAccountId },
						requestOptions: { maxAttempts: 1 },
					});
					expect((await t.poll()).items).toBeNull();
					const report = doneReport(account.platformAccountId);
					if (!reports) service.fake.setConnectionStatus(account.id, 'token_expired');
					const stored = t.nodeStaticData;
					const pathPrefix = reports ? '/v1/reports' : '/v1/accounts';
					service.fake.intercept({
						method: 'GET',
						pathPrefix,
						times: 1,
						respond: () => ({ status: 429, json }),
					});
					expect((await t.poll()).items).toBeNull();
					expect(t.nodeStaticData).toEqual(stored);
					const next = (await t.poll()).items;
					if (reports) expect(ids(next)).toEqual([report.id]);
					else
						expect(changes(next)).toEqual([
							{ id: account.id, previousStatus: 'active', currentStatus: 'token_expired' },
						]);
				},
			),
			{ numRuns: RUNS, ...replay },
		);
	}, 60_000);
});
