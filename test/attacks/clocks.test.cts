/**
 * Attack: clocks that disagree. The service's clock may run ahead of or behind n8n's, its Date
 * header may disagree with its own record times (or be garbage, or missing), n8n's clock may jump
 * and be corrected, and its `from` filter may be coarser than asked. Whatever the clocks say:
 * the trigger emits every completion once, and Generate's search for the report its own lost
 * request created never hands an item another execution's report and never creates a second one
 * (when it cannot tell, the item fails saying so).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

import type { IDataObject } from 'n8n-workflow';

import type { DateHeader, InterceptedRequest } from '../../sandbox/index.cjs';
import { ActiveTrigger, ids } from '../nodes/AdPerformanceTrigger/poll-harness.cjs';
import { adNode, apiRequests, rl, WAIT_NODE } from '../nodes/helpers.cjs';
import { editListedReports, errorText, runAttack, useHostileService } from './helpers.cjs';

const service = useHostileService();

const ROOT = path.resolve(__dirname, '../..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(() => {
	service.fake.setClockOffset(0);
	service.fake.setDateHeader('clock');
	service.fake.setCoarseFromFilter(false);
});

/** The service's clock now (the fake's offset applied). */
let serviceOffset = 0;
function setServiceClock(offsetMs: number, dateHeader: DateHeader = 'clock') {
	serviceOffset = offsetMs;
	service.fake.setClockOffset(offsetMs);
	service.fake.setDateHeader(dateHeader);
}
const serviceNow = () => Date.now() + serviceOffset;
afterEach(() => {
	serviceOffset = 0;
});

function reportTrigger(accountId: string) {
	return new ActiveTrigger(
		{ event: 'reportCompleted', filters: { accountId } },
		service.credentials().adPerformanceApi,
	);
}

/** A report the service shows as created and completed at `at` (service time, default now). */
function doneReport(accountId: string, at = serviceNow(), partial: IDataObject = {}) {
	const [report] = service.fake.addReports(1, {
		accountId,
		createdAt: iso(at),
		completedAt: iso(at),
		...partial,
	});
	return report;
}

/** Polls `times` times and returns every emitted id. */
async function pollIds(t: ActiveTrigger, times = 1): Promise<string[]> {
	const emitted: string[] = [];
	for (let i = 0; i < times; i++) emitted.push(...ids((await t.poll()).items));
	return emitted;
}

describe('the trigger follows the service’s clock', () => {
	test('a service clock 30 minutes behind n8n’s: completions are emitted, once', async () => {
		setServiceClock(-30 * MINUTE);
		const account = service.fake.addAccount({ name: 'Lagging Clock Co' });
		const t = reportTrigger(account.platformAccountId);
		expect(await pollIds(t)).toEqual([]);
		const done = doneReport(account.platformAccountId);
		// One still generating at the next poll, finished at the one after.
		const [slow] = service.fake.addReports(1, {
			accountId: account.platformAccountId,
			status: 'generating',
			createdAt: iso(serviceNow()),
		});
		const first = await pollIds(t);
		await sleep(300); // generation takes 15 service seconds: 150 ms here
		const later = await pollIds(t, 4);
		// Each once: the slow one at a later poll, or with the first where a loaded machine took
		// longer than its 150 ms to get the first poll's listing.
		expect(first).toContain(done.id);
		expect([...first, ...later].sort()).toEqual([done.id, slow.id].sort());
	});

	test('a service clock a day behind, then set right: nothing missed, nothing twice', async () => {
		const account = service.fake.addAccount({ name: 'Set Right Co' });
		const t = reportTrigger(account.platformAccountId);
		await t.poll();
		setServiceClock(-DAY);
		const during = doneReport(account.platformAccountId);
		expect(await pollIds(t, 3)).toEqual([during.id]);
		setServiceClock(0);
		const after = doneReport(account.platformAccountId);
		expect(await pollIds(t, 3)).toEqual([after.id]);
	});

	test('a stored cursor in the future is repaired; what was already emitted stays emitted', async () => {
		const account = service.fake.addAccount({ name: 'Future Cursor Co' });
		const t = reportTrigger(account.platformAccountId);
		await t.poll();
		const emittedBefore = doneReport(account.platformAccountId, Date.now() - 20 * MINUTE);
		const missed = doneReport(account.platformAccountId, Date.now() - 10 * MINUTE);
		t.seedNodeStaticData({
			version: 2,
			scope: `reportCompleted:${account.platformAccountId}`,
			state: { cursor: Date.now() + DAY, emitted: [[emittedBefore.id, Date.now() - 20 * MINUTE]] },
		});
		expect(await pollIds(t, 3)).toEqual([missed.id]);
		const state = t.nodeStaticData.state as { cursor: number };
		expect(state.cursor).toBeLessThanOrEqual(Date.now());
		const later = doneReport(account.platformAccountId);
		expect(await pollIds(t, 2)).toEqual([later.id]);
	});

	test('a Date header a day behind the records: emitted once, and the window stays minutes wide', async () => {
		setServiceClock(0, { skewMs: -DAY });
		const account = service.fake.addAccount({ name: 'Lagging Header Co' });
		doneReport(account.platformAccountId, Date.now() - MINUTE);
		const t = reportTrigger(account.platformAccountId);
		await t.poll();
		const done = doneReport(account.platformAccountId);
		service.fake.clearLog();
		expect(await pollIds(t, 3)).toEqual([done.id]);
		// The records are newer than the header says: the cursor follows them, not the header.
		for (const read of apiRequests(service, { pathPrefix: '/v1/reports' }))
			expect(Date.parse(read.query.from)).toBeGreaterThan(Date.now() - 15 * MINUTE);
	});

	test('a report stamped a day in the future neither blinds the trigger nor comes out twice', async () => {
		const account = service.fake.addAccount({ name: 'Time Traveller Co' });
		const t = reportTrigger(account.platformAccountId);
		await t.poll();
		const future = doneReport(account.platformAccountId, Date.now(), { title: 'Tomorrow' });
		// Finished now, yet listed as created tomorrow.
		editListedReports(service, (record) => {
			if (record.title === 'Tomorrow') record.createdAt = iso(Date.now() + DAY);
		});
		expect(await pollIds(t, 2)).toEqual([future.id]);
		// One record's word against the Date header and n8n's clock: the cursor stays in the present.
		expect((t.nodeStaticData.state as { cursor: number }).cursor).toBeLessThan(Date.now());
		const next = doneReport(account.platformAccountId);
		expect(await pollIds(t, 3)).toEqual([next.id]);
	});

	test('a `from` filter coarser than asked (reports from earlier that day come back): no report twice', async () => {
		// The service's day at noon, so that "earlier the same day" is hours before the cursor.
		const noon = Date.now() - (Date.now() % DAY) + 12 * HOUR;
		setServiceClock((noon <= Date.now() ? noon : noon - DAY) - Date.now());
		service.fake.setCoarseFromFilter(true);
		const account = service.fake.addAccount({ name: 'Coarse Filter Co' });
		const morning = doneReport(account.platformAccountId, serviceNow() - 3 * HOUR);
		const t = reportTrigger(account.platformAccountId);
		expect(await pollIds(t)).toEqual([]);
		const fresh = doneReport(account.platformAccountId);
		const reads = () => apiRequests(service, { pathPrefix: '/v1/reports' });
		service.fake.clearLog();
		expect(await pollIds(t, 5)).toEqual([fresh.id]);
		// The service did send the morning's report back on every poll.
		expect(reads()).toHaveLength(5);
		expect(morning.id).not.toBe(fresh.id);
	});
});

/**
 * n8n's own clock jumping needs a service that does not jump with it: the fake runs in a process
 * of its own (its command line, as `npm start` runs it), and only this process's clock is moved.
 */
describe('n8n’s clock jumps a day ahead and is corrected', () => {
	const fake = { url: '', key: '', child: undefined as ChildProcess | undefined };
	beforeAll(async () => {
		const child = spawn(TSX, ['sandbox/cli.cts', '--json', '--port', '0', '--time-scale', '0.01'], {
			cwd: ROOT,
			stdio: ['ignore', 'pipe', 'inherit'],
		});
		fake.child = child;
		const line = await new Promise<string>((resolve, reject) => {
			createInterface({ input: child.stdout! }).once('line', resolve);
			child.once('exit', (code) => reject(new Error(`the fake exited with ${code}`)));
		});
		const info = JSON.parse(line) as { url: string; keys: { live: string } };
		fake.url = info.url;
		fake.key = info.keys.live;
	}, 30_000);
	afterAll(() => {
		fake.child?.kill('SIGTERM');
	});
	afterEach(() => jest.restoreAllMocks());

	async function control(method: string, path: string, body: IDataObject): Promise<IDataObject> {
		const response = await fetch(`${fake.url}/__fake${path}`, {
			method,
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(body),
		});
		expect(response.status).toBe(200);
		return ((await response.json()) as { data: IDataObject }).data;
	}

	/** A report created and completed now, by the service's (correct) clock. */
	async function report(accountId: string): Promise<string> {
		const now = new Date().toISOString();
		const [added] = (await control('POST', '/reports', {
			count: 1,
			accountId,
			createdAt: now,
			completedAt: now,
		})) as unknown as Array<{ id: string }>;
		return added.id;
	}

	function jumpN8nClock(byMs: number) {
		const realNow = Date.now.bind(Date);
		jest.restoreAllMocks();
		if (byMs !== 0) jest.spyOn(Date, 'now').mockImplementation(() => realNow() + byMs);
	}

	test.each<[string, DateHeader]>([
		['with the Date header to go by', 'clock'],
		['with no Date header: the cursor left in the future is detected and repaired', 'omit'],
	])('%s', async (_name, dateHeader) => {
		await control('PUT', '/clock', { dateHeader });
		const account = (await control('POST', '/accounts', { name: `Jump ${dateHeader}` })) as {
			platformAccountId: string;
		};
		const t = new ActiveTrigger(
			{ event: 'reportCompleted', filters: { accountId: account.platformAccountId } },
			{ apiKey: fake.key, baseUrl: fake.url, apiVersion: '2026-03-01', timeScale: 0.01 },
		);
		expect(await pollIds(t)).toEqual([]);
		jumpN8nClock(DAY);
		const during = await report(account.platformAccountId);
		const emittedDuring = await pollIds(t, 2);
		jumpN8nClock(0);
		const after = await report(account.platformAccountId);
		const emittedAfter = await pollIds(t, 3);
		expect([...emittedDuring, ...emittedAfter].sort()).toEqual([during, after].sort());
		if (dateHeader === 'clock') expect(emittedDuring).toEqual([during]);
	});
});

/** Each test asks for its own title, so no test's reports match another's request. */
let TITLE = '';
let titles = 0;
beforeEach(() => {
	TITLE = `Clockwork report ${++titles}`;
});
const DATES = { date_start: '2026-10-01', date_end: '2026-10-07' };

function account() {
	return service.fake.accounts()[0];
}

/** Another execution's identical POST /v1/reports, sent straight to the service. */
async function otherExecutionCreates(): Promise<string> {
	const response = await fetch(`${service.fake.url}/v1/reports`, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			'x-api-key': service.fake.keys.live,
			'service-version': '2026-03-01',
		},
		body: JSON.stringify({ account_id: account().platformAccountId, title: TITLE, ...DATES }),
	});
	expect(response.status).toBe(202);
	return ((await response.json()) as { data: { id: string } }).data.id;
}

/** Our first POST is answered 500, after the service created the report or without it. */
function losePost(created: boolean) {
	service.fake.intercept({
		method: 'POST',
		pathPrefix: '/v1/reports',
		times: 1,
		respond: (_request: InterceptedRequest, real) => {
			if (created) real();
			return { status: 500, json: { error: { type: 'api_error', message: 'Internal error.' } } };
		},
	});
}

function generate() {
	return adNode({
		resource: 'report',
		operation: 'generate',
		accountId: rl(account().platformAccountId),
		title: TITLE,
		dateStart: DATES.date_start,
		dateEnd: DATES.date_end,
	});
}

function reportsTitled(): string[] {
	return service.fake
		.reports()
		.filter((report) => report.title === TITLE)
		.map((report) => report.id);
}

/**
 * Runs Generate once and checks the two promises: the item has no report of another execution,
 * and at most one report exists that this item's requests created. Returns the run's result.
 */
async function generateSafely(other?: string) {
	const before = new Set(reportsTitled());
	const result = await runAttack(service, [generate()]);
	const ours = reportsTitled().filter((id) => !before.has(id));
	expect(ours.length).toBeLessThanOrEqual(1);
	if (result.error) {
		// It says why, and names the report it could not place.
		expect(errorText(result)).toMatch(/clock/i);
	} else {
		expect(result.items[0].json.id).not.toBe(other);
		expect(ours).toEqual([result.items[0].json.id]);
	}
	return { result, ours };
}

describe('Generate’s search for its own lost report, under clocks that disagree', () => {
	test('a Date header an hour ahead of the records: the report the lost request created is not made twice', async () => {
		setServiceClock(0, { skewMs: HOUR });
		losePost(true);
		const { result, ours } = await generateSafely();
		expect(ours).toHaveLength(1);
		expect(apiRequests(service, { method: 'POST' })).toHaveLength(1);
		if (result.error) expect(errorText(result)).toContain(ours[0]);
	});

	test('a Date header an hour behind the records: another execution’s identical report from seconds before is not handed over', async () => {
		setServiceClock(0, { skewMs: -HOUR });
		const other = await otherExecutionCreates();
		await sleep(1_800);
		losePost(false);
		await generateSafely(other);
	});

	test('a Date header an hour ahead, another execution’s identical report from seconds before, and our request lost unmade', async () => {
		setServiceClock(0, { skewMs: HOUR });
		const other = await otherExecutionCreates();
		await sleep(1_800);
		losePost(false);
		await generateSafely(other);
	});

	test('a service clock 30 minutes behind n8n’s: no second report, and no other execution’s', async () => {
		setServiceClock(-30 * MINUTE);
		losePost(true);
		const { ours } = await generateSafely();
		expect(ours).toHaveLength(1);
		expect(apiRequests(service, { method: 'POST' })).toHaveLength(1);

		const other = await otherExecutionCreates();
		await sleep(1_800);
		losePost(false);
		await generateSafely(other);
	});

	test.each<[string, number]>([
		['2 hours behind', -2 * HOUR],
		['2 hours ahead', 2 * HOUR],
		['a day behind', -DAY],
		['a day ahead', DAY],
	])(
		'a service clock consistently %s n8n’s (Date header and records agree): the lost request’s report is found and returned',
		async (_name, offset) => {
			setServiceClock(offset);
			losePost(true);
			const { result, ours } = await generateSafely();
			expect(result.error).toBeUndefined();
			expect(ours).toHaveLength(1);
			expect(result.items[0].json.id).toBe(ours[0]);
			expect(apiRequests(service, { method: 'POST' })).toHaveLength(1);
		},
	);

	test.each<[string, DateHeader]>([
		['no Date header', 'omit'],
		['a Date header that is no date', { raw: 'yesterday, around noon' }],
	])('%s: the lost request’s report is found, not made twice', async (_name, header) => {
		setServiceClock(0, header);
		losePost(true);
		const { result, ours } = await generateSafely();
		expect(result.error).toBeUndefined();
		expect(ours).toHaveLength(1);
		expect(apiRequests(service, { method: 'POST' })).toHaveLength(1);
	});

	test.each<[string, number]>([
		['90 s behind', -90_000],
		['90 s ahead of', 90_000],
		['4 minutes behind', -4 * MINUTE],
	])(
		'records stamped %s a Date header that agrees with n8n (a proxy writes the header): the lost request’s report is not made twice',
		async (_name, offset) => {
			setServiceClock(offset, { skewMs: -offset });
			losePost(true);
			const { ours } = await generateSafely();
			expect(ours).toHaveLength(1);
			expect(apiRequests(service, { method: 'POST' })).toHaveLength(1);
		},
	);

	test('records stamped 90 s ahead of a Date header that agrees with n8n: another execution’s identical report from seconds before is not handed over', async () => {
		setServiceClock(90_000, { skewMs: -90_000 });
		const other = await otherExecutionCreates();
		await sleep(1_800);
		losePost(false);
		await generateSafely(other);
	});

	test('no Date header and a service clock 90 s behind: the lost request’s report is not made twice', async () => {
		setServiceClock(-90_000, 'omit');
		losePost(true);
		const { ours } = await generateSafely();
		expect(ours).toHaveLength(1);
		expect(apiRequests(service, { method: 'POST' })).toHaveLength(1);
	});

	test('no Date header, a service clock 90 s ahead, and another execution’s identical report from seconds before: not handed over', async () => {
		setServiceClock(90_000, 'omit');
		const other = await otherExecutionCreates();
		await sleep(1_800);
		losePost(false);
		await generateSafely(other);
	});

	test('Wait for Ad Report narrows its sweep on the service’s clock: a service 30 minutes behind still has its report found', async () => {
		setServiceClock(-30 * MINUTE);
		const result = await runAttack(service, [
			generate(),
			{
				name: 'Wait for Ad Report',
				type: WAIT_NODE,
				parameters: { pollIntervalSeconds: 0.2, timeoutSeconds: 10, download: false },
			},
		]);
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.status).toBe('completed');
		const sweeps = apiRequests(service, { method: 'GET', pathPrefix: '/v1/reports' });
		const from = Date.parse(sweeps[0].query.from);
		expect(from).toBeLessThan(serviceNow() - 5 * MINUTE + 2_000);
		expect(from).toBeGreaterThan(serviceNow() - 6 * MINUTE);
	});
});
