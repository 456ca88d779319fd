import type { IDataObject } from 'n8n-workflow';

import { adNode, rl, run, useFakeService } from '../helpers.cjs';
import { ActiveTrigger, ids } from './poll-harness.cjs';

const service = useFakeService({ timeScale: 0.01 });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const until = async (at: number) => {
	const left = at - Date.now();
	if (left > 0) await sleep(left);
};
const iso = (ms: number) => new Date(ms).toISOString();
/**
 * The schedules below (a report completes N ms from now, polls come before and after) in units
 * that leave a loaded machine room: polls that must come before a completion get 3× the time
 * they took on a quiet one, and the order of events is what is asserted, not their speed.
 */
const slot = (ms: number) => ms * 3;

/** A fresh ad account per test, so tests filtering on it see only their own reports. */
function newAccount(name: string) {
	return service.fake.addAccount({ name });
}

/** A report that was created at `createdAt` and finished at once. */
function doneReport(accountId: string, createdAt = Date.now(), partial: IDataObject = {}) {
	const [report] = service.fake.addReports(1, {
		accountId,
		createdAt: iso(createdAt),
		completedAt: iso(createdAt),
		...partial,
	});
	return report;
}

function trigger(event: string, accountId?: string) {
	const parameters: IDataObject = { event };
	if (accountId) parameters.filters = { accountId };
	return new ActiveTrigger(parameters, service.credentials().adPerformanceApi);
}

/** GET /v1/reports requests since the last clearLog. */
function reportReads() {
	return service.fake.log.filter((entry) => entry.method === 'GET' && entry.path === '/v1/reports');
}

/** One poll, with the fake's log holding only its requests afterwards. */
async function pollOnce(t: ActiveTrigger, mode?: 'manual') {
	service.fake.clearLog();
	return await t.poll(mode);
}

describe('Ad Performance Trigger: report events, polled through n8n-core’s PollContext', () => {
	test('the first poll records a baseline and emits nothing; an idle poll costs one request', async () => {
		const account = newAccount('Baseline Co');
		service.fake.addReports(3, { accountId: account.platformAccountId });
		const t = trigger('reportCompleted');
		const first = await pollOnce(t);
		expect(first.items).toBeNull();
		expect(first.nodeStaticData.scope).toBe('reportCompleted:');
		expect((first.nodeStaticData.state as IDataObject).cursor).toEqual(expect.any(Number));

		for (let i = 0; i < 3; i++) {
			const idle = await pollOnce(t);
			expect(idle.items).toBeNull();
			expect(service.fake.log).toHaveLength(1);
			const [request] = service.fake.log;
			expect(request.query.from).toEqual(expect.any(String));
			expect(request.query.page_size).toBe('100');
			expect(request.query.status).toBeUndefined();
		}
	});

	test('each completed report is emitted exactly once: two in one interval, out of order, over many polls', async () => {
		const account = newAccount('Order Co');
		const t = trigger('reportCompleted', account.platformAccountId);
		const t0 = Date.now();
		// Created A, then B; B completes first. C and D complete within the same interval.
		const [a] = service.fake.addReports(1, {
			accountId: account.platformAccountId,
			title: 'A',
			createdAt: iso(t0 - slot(1000)),
			completedAt: iso(t0 + slot(900)),
		});
		const [b] = service.fake.addReports(1, {
			accountId: account.platformAccountId,
			title: 'B',
			createdAt: iso(t0 - slot(500)),
			completedAt: iso(t0 + slot(300)),
		});
		expect((await pollOnce(t)).items).toBeNull();
		expect((await pollOnce(t)).items).toBeNull();

		await until(t0 + slot(450));
		const second = await pollOnce(t);
		expect(ids(second.items)).toEqual([b.id]);
		expect(second.items![0].json).toMatchObject({ status: 'completed', title: 'B' });
		expect(second.items![0].json.downloadUrl).toEqual(expect.any(String));

		const t1 = Date.now();
		const [c] = service.fake.addReports(1, {
			accountId: account.platformAccountId,
			title: 'C',
			createdAt: iso(t1),
			completedAt: iso(t1 + slot(250)),
		});
		const [d] = service.fake.addReports(1, {
			accountId: account.platformAccountId,
			title: 'D',
			createdAt: iso(t1 + 1),
			completedAt: iso(t1 + slot(150)),
		});
		expect((await pollOnce(t)).items).toBeNull();

		await until(Math.max(t0 + slot(1000), t1 + slot(300)));
		const third = await pollOnce(t);
		expect(service.fake.log).toHaveLength(1);
		// A (held back the cursor since before B), and C and D, in order of completion.
		expect(new Set(ids(third.items))).toEqual(new Set([a.id, c.id, d.id]));
		const completedAt = third.items!.map((item) => Date.parse(String(item.json.completedAt)));
		expect(completedAt).toEqual([...completedAt].sort((x, y) => x - y));

		for (let i = 0; i < 5; i++) {
			expect((await pollOnce(t)).items).toBeNull();
		}
	});

	test('a report created long before it completes, and one stamped minutes in the past by a lagging clock, are both emitted once', async () => {
		const account = newAccount('Slow Co');
		const t = trigger('reportCompleted', account.platformAccountId);
		const t0 = Date.now();
		const [slow] = service.fake.addReports(1, {
			accountId: account.platformAccountId,
			createdAt: iso(t0 - 30 * 60_000),
			completedAt: iso(t0 + slot(600)),
		});
		expect((await t.poll()).items).toBeNull();
		for (let i = 0; i < 3; i++) expect((await t.poll()).items).toBeNull();
		// The service's clock is 4 minutes behind n8n's: the new report looks older than our last poll.
		const [lagging] = service.fake.addReports(1, {
			accountId: account.platformAccountId,
			createdAt: iso(Date.now() - 4 * 60_000),
			completedAt: iso(Date.now() - 4 * 60_000 + 15_000),
		});
		expect(ids((await t.poll()).items)).toEqual([lagging.id]);
		await until(t0 + slot(700));
		expect(ids((await t.poll()).items)).toEqual([slow.id]);
		for (let i = 0; i < 3; i++) expect((await t.poll()).items).toBeNull();
	});

	test('across a restart (static data read back from storage) nothing is lost or repeated', async () => {
		const account = newAccount('Restart Co');
		const t = trigger('reportCompleted', account.platformAccountId);
		const t0 = Date.now();
		const [before] = service.fake.addReports(1, {
			accountId: account.platformAccountId,
			createdAt: iso(t0 - slot(200)),
			completedAt: iso(t0 + slot(100)),
		});
		const [during] = service.fake.addReports(1, {
			accountId: account.platformAccountId,
			createdAt: iso(t0 - slot(100)),
			completedAt: iso(t0 + slot(400)),
		});
		expect((await t.poll()).items).toBeNull();
		await until(t0 + slot(150));
		expect(ids((await t.poll()).items)).toEqual([before.id]);

		const stored = t.staticData;
		t.restart();
		expect(t.staticData).toEqual(stored);
		expect((await t.poll()).items).toBeNull();
		t.restart();
		await until(t0 + slot(450));
		expect(ids((await t.poll()).items)).toEqual([during.id]);
		t.restart();
		expect((await t.poll()).items).toBeNull();
		expect((await t.poll()).items).toBeNull();
	});

	test('Report Failed emits generations that fail (through Report → Generate), once, and not completed ones', async () => {
		const acme = service.fake.accounts().find((a) => a.name === 'Acme Outdoor')!;
		const failed = trigger('reportFailed', acme.platformAccountId);
		const completed = trigger('reportCompleted', acme.platformAccountId);
		expect((await failed.poll()).items).toBeNull();
		expect((await completed.poll()).items).toBeNull();

		service.fake.failNextReports(1);
		const generate = (title: string) =>
			run(service, [
				adNode({
					resource: 'report',
					operation: 'generate',
					accountId: rl(acme.platformAccountId),
					title,
					dateStart: '2026-01-01',
					dateEnd: '2026-01-31',
				}),
			]);
		const bad = await generate('Will fail');
		expect(bad.error).toBeUndefined();
		const good = await generate('Will complete');
		expect(good.error).toBeUndefined();
		const badId = String(bad.items[0].json.id);
		const goodId = String(good.items[0].json.id);

		const emittedFailed: string[] = [];
		const emittedCompleted: string[] = [];
		const deadline = Date.now() + 15_000;
		while (Date.now() < deadline && (emittedFailed.length < 1 || emittedCompleted.length < 1)) {
			emittedFailed.push(...ids((await failed.poll()).items));
			emittedCompleted.push(...ids((await completed.poll()).items));
			await sleep(50);
		}
		for (let i = 0; i < 3; i++) {
			emittedFailed.push(...ids((await failed.poll()).items));
			emittedCompleted.push(...ids((await completed.poll()).items));
		}
		expect(emittedFailed).toEqual([badId]);
		expect(emittedCompleted).toEqual([goodId]);

		// An already-failed report added later is emitted too, with its error.
		const [direct] = service.fake.addReports(1, {
			accountId: acme.platformAccountId,
			status: 'failed',
			// the fake finishes added reports 15 s after creation
			createdAt: iso(Date.now() - 20_000),
		});
		const out = await failed.poll();
		expect(ids(out.items)).toEqual([direct.id]);
		expect(out.items![0].json.error).toMatchObject({ type: 'generation_failed' });
	});

	test('filters.accountId narrows the query and the events to one account', async () => {
		const mine = newAccount('Mine Co');
		const other = newAccount('Other Co');
		const t = trigger('reportCompleted', mine.platformAccountId);
		const all = trigger('reportCompleted');
		await t.poll();
		await all.poll();
		const now = Date.now();
		const m = doneReport(mine.platformAccountId, now);
		const o = doneReport(other.platformAccountId, now);
		service.fake.clearLog();
		const mineOut = await t.poll();
		expect(ids(mineOut.items)).toEqual([m.id]);
		expect(reportReads()[0].query.accountId).toBe(mine.platformAccountId);
		expect(new Set(ids((await all.poll()).items))).toEqual(new Set([m.id, o.id]));
	});

	test('an invalid account filter is refused before any request', async () => {
		const t = new ActiveTrigger(
			{ event: 'reportCompleted', filters: { accountId: 'acct 12' } },
			service.credentials().adPerformanceApi,
		);
		service.fake.clearLog();
		await expect(t.poll()).rejects.toMatchObject({
			name: 'NodeOperationError',
			message: expect.stringMatching(/Account ID: .* is not an ad platform account ID/),
		});
		expect(service.fake.log).toHaveLength(0);
		expect(t.staticData).toEqual({});
	});

	test('a failing service leaves the stored cursor untouched; the next poll catches up', async () => {
		const account = newAccount('Flaky Co');
		const t = new ActiveTrigger(
			{
				event: 'reportCompleted',
				filters: { accountId: account.platformAccountId },
				requestOptions: { maxAttempts: 1 },
			},
			service.credentials().adPerformanceApi,
		);
		await t.poll();
		const stored = t.staticData;
		const r = doneReport(account.platformAccountId);
		service.fake.injectOnce({ method: 'GET', pathPrefix: '/v1/reports', kind: '500' });
		await expect(t.poll()).rejects.toMatchObject({ name: 'NodeApiError' });
		expect(t.staticData).toEqual(stored);
		expect(ids((await t.poll()).items)).toEqual([r.id]);
	});

	test('manual mode (Fetch Test Event) returns the newest matching report and leaves static data alone', async () => {
		const account = newAccount('Sample Co');
		const t = trigger('reportCompleted', account.platformAccountId);
		expect((await pollOnce(t, 'manual')).items).toBeNull(); // nothing yet
		expect(t.staticData).toEqual({});
		const now = Date.now();
		doneReport(account.platformAccountId, now - 5000);
		const newest = doneReport(account.platformAccountId, now - 1000);
		await t.poll();
		const stored = t.staticData;
		const sample = await pollOnce(t, 'manual');
		expect(ids(sample.items)).toEqual([newest.id]);
		expect(service.fake.log).toHaveLength(1);
		expect(service.fake.log[0].query).toMatchObject({ status: 'completed', page_size: '1' });
		expect(t.staticData).toEqual(stored);
		// The test event did not consume anything: a later completion still comes out.
		const later = doneReport(account.platformAccountId);
		expect(ids((await t.poll()).items)).toEqual([later.id]);
	});

	test('static data stays bounded after thousands of reports, each emitted once', async () => {
		const account = newAccount('Bulk Co');
		const t = trigger('reportCompleted', account.platformAccountId);
		await t.poll();
		const emitted: string[] = [];
		const created: string[] = [];
		const sizes: number[] = [];
		for (let batch = 0; batch < 6; batch++) {
			const now = Date.now();
			created.push(
				...service.fake
					.addReports(500, {
						accountId: account.platformAccountId,
						createdAt: iso(now),
						completedAt: iso(now),
					})
					.map((r) => r.id),
			);
			const out = await pollOnce(t);
			// At most the ids kept (1,000) plus the new ones, 100 a page.
			expect(service.fake.log.length).toBeLessThanOrEqual(15);
			emitted.push(...ids(out.items));
			sizes.push(JSON.stringify(t.staticData).length);
			const state = out.nodeStaticData.state as { emitted: unknown[] };
			expect(state.emitted.length).toBeLessThanOrEqual(1000);
			await sleep(5);
		}
		for (let i = 0; i < 3; i++) {
			const out = await pollOnce(t);
			emitted.push(...ids(out.items));
			sizes.push(JSON.stringify(t.staticData).length);
		}
		expect(emitted).toHaveLength(3000);
		expect(new Set(emitted)).toEqual(new Set(created));
		expect(Math.max(...sizes)).toBeLessThan(50_000);
	}, 30_000);
});
