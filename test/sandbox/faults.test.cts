import http from 'node:http';
import { gunzipSync } from 'node:zlib';

import {
	endlessFileAnswer,
	endlessJsonAnswer,
	gzipBombAnswer,
	startFakeService,
	trickling,
	type FakeService,
} from '../../sandbox/index.cjs';
import { expectError, get, post, reportBody, sleep, VERSION, waitFor } from './helpers.cjs';

async function statusOrDrop(p: Promise<{ status: number }>): Promise<number | 'drop'> {
	try {
		return (await p).status;
	} catch {
		return 'drop';
	}
}

/**
 * For tests that count what a rate-limit window has charged: in real time the window lasts 60 s,
 * so it cannot end between two requests of a test however busy the machine (at 0.01 it is 0.6 s).
 */
const REAL_TIME = { timeScale: 1 };

describe('fake service: faults', () => {
	let svc: FakeService;
	afterEach(() => svc?.stop());

	test('random faults are deterministic for a seed (and differ for another seed)', async () => {
		const run = async (seed: number): Promise<Array<number | 'drop'>> => {
			const s = await startFakeService({
				seed,
				timeScale: 0.05,
				faults: { rate429: 0.15, rate500: 0.15, dropRate: 0.15, phase: 'before' },
			});
			try {
				const out: Array<number | 'drop'> = [];
				for (let i = 0; i < 40; i++)
					out.push(await statusOrDrop(get(s, '/v1/campaigns?page_size=1')));
				expect(s.log).toHaveLength(40);
				const faulted = s.log.filter((e) => e.fault);
				expect(faulted.length).toBe(out.filter((x) => x !== 200).length);
				for (const e of s.log) {
					if (e.fault === 'drop') expect(e.status).toBeNull();
					if (e.fault === '500') expect([e.status, e.errorType]).toEqual([500, 'api_error']);
					if (e.fault === '429') expect([e.status, e.errorType]).toEqual([429, 'rate_limit_error']);
				}
				return out;
			} finally {
				await s.stop();
			}
		};
		const a = await run(5);
		const b = await run(5);
		const c = await run(6);
		expect(a).toEqual(b);
		expect(a).not.toEqual(c);
		expect(a).toContain(200);
		expect(a).toContain(429);
		expect(a).toContain(500);
		expect(a).toContain('drop');
	});

	test('injected 500 (before): api_error envelope, the work is not done', async () => {
		svc = await startFakeService(REAL_TIME);
		const before = svc.reports().length;
		svc.injectOnce({ method: 'POST', pathPrefix: '/v1/reports', kind: '500', phase: 'before' });
		const res = await post(svc, '/v1/reports', reportBody(svc));
		expectError(res, 500, 'api_error');
		expect(res.body.error.message).toBe('An unexpected error occurred.');
		expect(svc.reports().length).toBe(before);
		// only once
		expect((await post(svc, '/v1/reports', reportBody(svc))).status).toBe(202);
	});

	test('injected 500 (after): the report IS created and the limit counted, the client sees 500', async () => {
		svc = await startFakeService(REAL_TIME);
		const before = svc.reports().length;
		svc.injectOnce({ pathPrefix: '/v1/reports', kind: '500', phase: 'after' });
		expectError(await post(svc, '/v1/reports', reportBody(svc)), 500, 'api_error');
		expect(svc.reports().length).toBe(before + 1);
		expect((await post(svc, '/v1/reports', reportBody(svc))).body.meta.remaining_requests).toBe(3);
	});

	test("'after' drop on POST /v1/reports creates the report though the client saw a dropped connection", async () => {
		svc = await startFakeService(REAL_TIME);
		const before = svc.reports().map((r) => r.id);
		svc.injectOnce({ method: 'POST', pathPrefix: '/v1/reports', kind: 'drop', phase: 'after' });
		await expect(
			post(svc, '/v1/reports', reportBody(svc, { title: 'Lost answer' })),
		).rejects.toThrow();
		const created = svc.reports().filter((r) => !before.includes(r.id));
		expect(created).toHaveLength(1);
		expect(created[0].title).toBe('Lost answer');
		const entry = svc.log[svc.log.length - 1];
		expect(entry).toMatchObject({
			method: 'POST',
			path: '/v1/reports',
			status: null,
			fault: 'drop',
			bucket: 'generation',
		});
		// charged: write and generation
		expect((await post(svc, '/v1/reports', reportBody(svc))).body.meta.remaining_requests).toBe(3);
	});

	test("'before' drop: nothing is created", async () => {
		svc = await startFakeService({ timeScale: 0.01 });
		const before = svc.reports().length;
		svc.injectOnce({ kind: 'drop', phase: 'before', times: 2 });
		await expect(post(svc, '/v1/reports', reportBody(svc))).rejects.toThrow();
		await expect(get(svc, '/v1/accounts')).rejects.toThrow();
		expect(svc.reports().length).toBe(before);
		expect((await get(svc, '/v1/accounts')).body.meta.remaining_requests).toBe(119);
	});

	test('injected 429: rate_limit_error with a seeded N between 1 and 30, nothing charged', async () => {
		svc = await startFakeService(REAL_TIME);
		svc.injectOnce({ kind: '429', pathPrefix: '/v1/accounts', times: 5 });
		expect((await get(svc, '/v1/campaigns')).status).toBe(200); // no match
		for (let i = 0; i < 5; i++) {
			const res = await get(svc, '/v1/accounts');
			expectError(res, 429, 'rate_limit_error');
			const n = Number(
				/^Rate limit exceeded\. Retry after (\d+) seconds\.$/.exec(res.body.error.message)?.[1],
			);
			expect(n).toBeGreaterThanOrEqual(1);
			expect(n).toBeLessThanOrEqual(30);
		}
		expect((await get(svc, '/v1/accounts')).body.meta.remaining_requests).toBe(118);
	});

	test('latency: fixed, range, injected; match restricts faults', async () => {
		svc = await startFakeService({
			timeScale: 0.01,
			faults: { latencyMs: 300, match: { method: 'GET', pathPrefix: '/v1/campaigns' } },
		});
		let t = Date.now();
		expect((await get(svc, '/v1/campaigns')).status).toBe(200);
		expect(Date.now() - t).toBeGreaterThanOrEqual(290);
		t = Date.now();
		await get(svc, '/v1/accounts');
		expect(Date.now() - t).toBeLessThan(250);
		expect(svc.log.map((e) => e.fault)).toEqual(['latency', undefined]);
		svc.setFaults({ latencyMs: [60, 80] });
		t = Date.now();
		await get(svc, '/v1/accounts');
		expect(Date.now() - t).toBeGreaterThanOrEqual(55);
		svc.setFaults(undefined);
		svc.injectOnce({ kind: 'latency', latencyMs: 300 });
		t = Date.now();
		await get(svc, '/v1/accounts');
		expect(Date.now() - t).toBeGreaterThanOrEqual(290);
		t = Date.now();
		await get(svc, '/v1/accounts');
		expect(Date.now() - t).toBeLessThan(250);
		expect(svc.log.map((e) => e.fault)).toEqual([
			'latency',
			undefined,
			'latency',
			'latency',
			undefined,
		]);
	});
});

describe('fake service: request log and control API', () => {
	let svc: FakeService;
	// In real time a generating report (10-20 s) also stays generating while a test looks at it.
	beforeEach(async () => {
		svc = await startFakeService(REAL_TIME);
	});
	afterEach(() => svc.stop());

	test('log records every request with headers as received, parsed body, status, errorType, bucket, origin', async () => {
		await get(svc, '/v1/campaigns?status=ACTIVE&page=1', { headers: { 'X-Custom': 'yes' } });
		await post(svc, '/v1/reports', reportBody(svc, { title: '' }));
		await get(svc, '/nope', { key: null });
		expect(svc.log).toHaveLength(3);
		const [a, b, c] = svc.log;
		expect(a).toMatchObject({
			seq: 1,
			method: 'GET',
			path: '/v1/campaigns',
			query: { status: 'ACTIVE', page: '1' },
			status: 200,
			bucket: 'read',
			origin: 'main',
		});
		expect(a.headers['x-api-key']).toBe(svc.keys.live);
		expect(a.headers['service-version']).toBe(VERSION);
		expect(a.headers['x-custom']).toBe('yes');
		expect(typeof a.at).toBe('number');
		expect(a.body).toBeUndefined();
		expect(b).toMatchObject({
			seq: 2,
			method: 'POST',
			status: 400,
			errorType: 'invalid_request',
			bucket: 'generation',
		});
		expect((b.body as { title: string }).title).toBe('');
		expect(c).toMatchObject({ path: '/nope', status: 404, errorType: 'not_found' });
		svc.clearLog();
		expect(svc.log).toHaveLength(0);
	});

	test('control API: log, faults, inject, state, connection, expire, size, campaigns, limits; not logged, not counted', async () => {
		const ctl = async (
			method: string,
			path: string,
			body?: unknown,
		): Promise<{ status: number; data: unknown }> => {
			const res = await fetch(`${svc.url}/__fake${path}`, {
				method,
				headers: body === undefined ? {} : { 'content-type': 'application/json' },
				body: body === undefined ? undefined : JSON.stringify(body),
			});
			const json = (await res.json()) as { data: unknown };
			return { status: res.status, data: json.data };
		};
		await get(svc, '/v1/accounts');
		const log = await ctl('GET', '/log');
		expect(log.status).toBe(200);
		expect((log.data as Array<{ path: string }>).map((e) => e.path)).toEqual(['/v1/accounts']);
		expect((await ctl('DELETE', '/log')).status).toBe(200);
		expect(svc.log).toHaveLength(0);

		const state = (await ctl('GET', '/state')).data as {
			accounts: Array<{ id: string; connectionStatus: string }>;
			reports: Array<{ id: string; status: string; format: string }>;
			keys: { live: string };
		};
		expect(state.accounts).toHaveLength(4);
		expect(state.keys.live).toBe(svc.keys.live);

		expect(
			(
				await ctl('POST', `/accounts/${state.accounts[0].id}/connection`, {
					status: 'token_expired',
				})
			).status,
		).toBe(200);
		expect((await get(svc, '/v1/accounts?status=token_expired')).body.pagination.total).toBe(2);
		expect(
			(await ctl('POST', `/accounts/${state.accounts[0].id}/connection`, { status: 'bogus' }))
				.status,
		).toBe(400);

		const report = state.reports.find((r) => r.status === 'completed' && r.format === 'json') as {
			id: string;
		};
		expect((await ctl('POST', `/reports/${report.id}/size`, { bytes: 100000 })).status).toBe(200);
		const dl = await fetch(`${svc.url}/v1/reports/${report.id}/download`, {
			headers: { 'x-api-key': svc.keys.live, 'service-version': VERSION },
		});
		expect(dl.headers.get('content-length')).toBe('100000');
		await dl.arrayBuffer();
		expect((await ctl('POST', `/reports/${report.id}/expire`)).status).toBe(200);
		expectError(await get(svc, `/v1/reports/${report.id}/download`), 404, 'not_found');

		const added = (await ctl('POST', '/campaigns', { accountId: state.accounts[2].id, count: 4 }))
			.data as unknown[];
		expect(added).toHaveLength(4);
		expect(
			(await get(svc, `/v1/campaigns?accountId=${state.accounts[2].id}`)).body.pagination.total,
		).toBe(7);

		expect((await ctl('PUT', '/faults', { rate500: 1, phase: 'before' })).status).toBe(200);
		expectError(await get(svc, '/v1/accounts'), 500, 'api_error');
		expect((await ctl('PUT', '/faults', null)).status).toBe(200);
		expect((await get(svc, '/v1/accounts')).status).toBe(200);

		expect((await ctl('POST', '/inject', { kind: '429', pathPrefix: '/v1/accounts' })).status).toBe(
			200,
		);
		expectError(await get(svc, '/v1/accounts'), 429, 'rate_limit_error');

		const before = (await get(svc, '/v1/accounts')).body.meta.remaining_requests;
		await ctl('GET', '/state');
		await ctl('GET', '/log');
		expect((await get(svc, '/v1/accounts')).body.meta.remaining_requests).toBe(before - 1);
		expect(svc.log.every((e) => !e.path.startsWith('/__fake'))).toBe(true);

		expect((await ctl('POST', '/limits/reset')).status).toBe(200);
		expect((await get(svc, '/v1/accounts')).body.meta.remaining_requests).toBe(119);
		expect((await ctl('GET', '/nothing')).status).toBe(404);
	});

	test('control API: POST /reports/size-next sizes the next generated reports, in order', async () => {
		svc = await startFakeService({ seed: 3, timeScale: 0.001 });
		const ctl = (body: unknown) =>
			fetch(`${svc.url}/__fake/reports/size-next`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(body),
			});
		expect((await ctl({ bytes: 'many' })).status).toBe(400);
		expect((await ctl({ bytes: [-1] })).status).toBe(400);
		expect((await ctl({ bytes: [300_000, 250_000] })).status).toBe(200);
		const ids: string[] = [];
		for (let i = 0; i < 3; i++) {
			const res = await post(svc, '/v1/reports', reportBody(svc, { title: `Sized ${i}` }));
			expect(res.status).toBe(202);
			ids.push(res.body.data.id as string);
		}
		const lengths: Array<string | null> = [];
		for (const id of ids) {
			const dl = await waitFor(async () => {
				const r = await fetch(`${svc.url}/v1/reports/${id}/download`, {
					headers: { 'x-api-key': svc.keys.live, 'service-version': VERSION },
				});
				if (r.status === 200) return r;
				await r.arrayBuffer();
				return undefined;
			});
			lengths.push(dl.headers.get('content-length'));
			await dl.arrayBuffer();
		}
		expect(lengths.slice(0, 2)).toEqual(['300000', '250000']);
		// The list ran out: the third report has its own (small) file.
		expect(Number(lengths[2])).toBeLessThan(250_000);
	});

	test('scenario controls: setConnectionStatus, addReports, accounts()/reports() views', async () => {
		const acme = svc.accounts()[0];
		svc.setConnectionStatus(acme.id, 'disconnected');
		expect(svc.accounts()[0].connectionStatus).toBe('disconnected');
		const added = svc.addReports(3, { format: 'markdown' });
		expect(added).toHaveLength(3);
		for (const r of added)
			expect(r).toMatchObject({
				status: 'completed',
				format: 'markdown',
				accountId: acme.platformAccountId,
			});
		const [gen] = svc.addReports(1, { status: 'generating' });
		expect(gen.status).toBe('generating');
		expectError(await get(svc, `/v1/reports/${gen.id}/download`), 409, 'report_not_ready');
		expect((await get(svc, '/v1/reports')).body.pagination.total).toBe(10);
		expect((await get(svc, `/v1/reports/${added[0].id}/download`)).status).toBe(200);
	});
	test('setLastSynced: the account lists that last sync, on the service clock', async () => {
		const svc = await startFakeService({ seed: 7 });
		try {
			const acme = svc.accounts().find((a) => a.name === 'Acme Outdoor')!;
			const at = new Date(Math.floor(Date.now() / 1000) * 1000 - 50 * 3_600_000).toISOString();
			svc.setLastSynced(acme.id, at);
			expect(svc.accounts().find((a) => a.id === acme.id)!.lastSyncedAt).toBe(at);
			expect(() => svc.setLastSynced(acme.id, 'yesterday')).toThrow(/ISO 8601/);
		} finally {
			await svc.stop();
		}
	});
});

/** A raw GET that reads at most `readBytes` of the body as it arrives on the wire, then hangs up. */
function rawGet(
	svc: FakeService,
	path: string,
	readBytes = Infinity,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; wire: Buffer; hungUp: boolean }> {
	return new Promise((resolve, reject) => {
		const request = http.get(
			`${svc.url}${path}`,
			{ headers: { 'x-api-key': svc.keys.live, 'service-version': VERSION } },
			(res) => {
				const chunks: Buffer[] = [];
				let size = 0;
				res.on('data', (chunk: Buffer) => {
					chunks.push(chunk);
					size += chunk.length;
					if (size >= readBytes) {
						res.destroy();
						resolve({
							status: res.statusCode ?? 0,
							headers: res.headers,
							wire: Buffer.concat(chunks),
							hungUp: true,
						});
					}
				});
				res.on('end', () =>
					resolve({
						status: res.statusCode ?? 0,
						headers: res.headers,
						wire: Buffer.concat(chunks),
						hungUp: false,
					}),
				);
				res.on('error', reject);
			},
		);
		request.on('error', reject);
	});
}

/** Waits until the fake has logged how a streamed answer ended. */
async function streamedOutcome(svc: FakeService, path: string) {
	for (let i = 0; i < 200; i++) {
		const entry = svc.log.find((e) => e.path === path && e.streamed);
		if (entry?.streamed) return entry.streamed;
		await sleep(25);
	}
	throw new Error(`no streamed answer logged for ${path}`);
}

describe('fake service: streamed answers (trickling, endless, gzip)', () => {
	let svc: FakeService;
	beforeEach(async () => {
		svc = await startFakeService({ timeScale: 0.01 });
	});
	afterEach(() => svc.stop());

	test('a trickling answer arrives whole, N bytes every M ms', async () => {
		const json = { data: [{ id: 'camp_1' }], pagination: { total: 1, hasMore: false } };
		svc.intercept({
			pathPrefix: '/v1/campaigns',
			respond: () => trickling({ json }, 10, 40),
		});
		const started = Date.now();
		const res = await rawGet(svc, '/v1/campaigns');
		const body = JSON.stringify(json);
		expect(res.wire.toString('utf8')).toBe(body);
		// One piece now, then one every 40 ms.
		expect(Date.now() - started).toBeGreaterThanOrEqual(
			(Math.ceil(body.length / 10) - 1) * 40 - 20,
		);
		const streamed = await streamedOutcome(svc, '/v1/campaigns');
		expect(streamed).toMatchObject({
			bodyBytes: body.length,
			sentBytes: body.length,
			closedByClient: false,
		});
	});

	test('an endless JSON answer goes on until the client hangs up, and then stops', async () => {
		svc.intercept({ pathPrefix: '/v1/campaigns', respond: () => endlessJsonAnswer() });
		const res = await rawGet(svc, '/v1/campaigns', 4 * 1024 * 1024);
		expect(res.status).toBe(200);
		expect(res.headers['content-length']).toBeUndefined();
		expect(res.wire.subarray(0, 20).toString()).toBe('{"data":[{"id":"camp');
		const streamed = await streamedOutcome(svc, '/v1/campaigns');
		expect(streamed.closedByClient).toBe(true);
		// What the client read plus what the sockets' buffers held when it hung up.
		expect(streamed.sentBytes).toBeGreaterThanOrEqual(4 * 1024 * 1024);
		expect(streamed.sentBytes).toBeLessThan(4 * 1024 * 1024 + 16 * 1024 * 1024);
	});

	test('an endless file with stopAfterBytes ends there; the control API scripts it from outside', async () => {
		const response = await fetch(`${svc.url}/__fake/answers`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				pathPrefix: '/v1/reports/',
				times: 1,
				answer: endlessFileAnswer({ stopAfterBytes: 300_000 }),
			}),
		});
		expect(response.status).toBe(200);
		const res = await rawGet(svc, '/v1/reports/rpt_x/download');
		expect(res.headers['content-type']).toBe('application/pdf');
		expect(res.wire.length).toBe(300_000);
		expect(res.wire.subarray(0, 9).toString()).toBe('%PDF-1.4\n');
		// times: 1, so the next request is the fake's own answer again.
		expect((await get(svc, '/v1/reports/rpt_x/download')).status).toBe(404);
		expect((await fetch(`${svc.url}/__fake/answers`, { method: 'DELETE' })).status).toBe(200);
	});

	test('a gzip bomb is small on the wire and a complete, valid answer unpacked', async () => {
		const unpacked = 20 * 1024 * 1024;
		svc.intercept({ pathPrefix: '/v1/campaigns', respond: () => gzipBombAnswer(unpacked) });
		const res = await rawGet(svc, '/v1/campaigns');
		expect(res.headers['content-encoding']).toBe('gzip');
		expect(res.wire.length).toBeLessThan(unpacked / 500);
		const body = gunzipSync(res.wire);
		expect(body.length).toBe(unpacked);
		expect(JSON.parse(body.toString('utf8'))).toMatchObject({ data: [], pagination: { total: 0 } });
		const streamed = await streamedOutcome(svc, '/v1/campaigns');
		expect(streamed).toMatchObject({ bodyBytes: unpacked, sentBytes: res.wire.length });
	});

	test('a trickling gzip answer sends each piece as it goes (flushed), not all at the end', async () => {
		const json = { data: [{ id: 'camp_1' }] };
		svc.intercept({
			pathPrefix: '/v1/accounts',
			respond: () => trickling({ json, gzip: true }, 4, 60),
		});
		const arrivals: number[] = [];
		const wire = await new Promise<Buffer>((resolve, reject) => {
			http
				.get(
					`${svc.url}/v1/accounts`,
					{ headers: { 'x-api-key': svc.keys.live, 'service-version': VERSION } },
					(res) => {
						const chunks: Buffer[] = [];
						res.on('data', (chunk: Buffer) => {
							arrivals.push(Date.now());
							chunks.push(chunk);
						});
						res.on('end', () => resolve(Buffer.concat(chunks)));
						res.on('error', reject);
					},
				)
				.on('error', reject);
		});
		expect(JSON.parse(gunzipSync(wire).toString('utf8'))).toEqual(json);
		const pieces = Math.ceil(JSON.stringify(json).length / 4);
		expect(arrivals.length).toBeGreaterThanOrEqual(pieces);
		expect(arrivals[arrivals.length - 1] - arrivals[0]).toBeGreaterThanOrEqual((pieces - 2) * 60);
	});
});
