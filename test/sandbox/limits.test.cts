import { startFakeService, type FakeService } from '../../sandbox/index.cjs';
import { expectError, get, post, reportBody, sleep, waitFor, type CallResult } from './helpers.cjs';

const RETRY_RE = /^Rate limit exceeded\. Retry after (\d+) seconds\.$/;

function expect429(res: CallResult): number {
	expectError(res, 429, 'rate_limit_error');
	const m = RETRY_RE.exec(res.body.error.message);
	expect(m).not.toBeNull();
	for (const h of [
		'x-ratelimit-limit',
		'x-ratelimit-remaining',
		'x-ratelimit-reset',
		'retry-after',
	])
		expect(res.headers.get(h)).toBeNull();
	return Number(m?.[1]);
}

const campaignsOfAcme = (svc: FakeService): string[] =>
	svc
		.campaigns()
		.filter((c) => c.accountId === svc.accounts()[0].id)
		.map((c) => c.id);

describe('fake service: rate limits', () => {
	let svc: FakeService;
	afterEach(() => svc?.stop());

	test('read: 120 GETs per window, remaining_requests counts down, the 121st → 429 with N in service seconds', async () => {
		const timeScale = 0.2; // window = 12 s real
		svc = await startFakeService({ timeScale });
		const t0 = Date.now();
		for (let i = 1; i <= 120; i++) {
			const res = await get(svc, i % 2 ? '/v1/accounts' : '/v1/campaigns?page_size=1');
			expect(res.status).toBe(200);
			expect(res.body.meta.remaining_requests).toBe(120 - i);
		}
		const n = expect429(await get(svc, '/v1/reports'));
		// service seconds, NOT multiplied by timeScale: 60 s window minus the service time spent so far
		expect(n).toBeGreaterThanOrEqual(Math.floor(60 - (Date.now() - t0) / timeScale / 1000));
		expect(n).toBeGreaterThan(12);
		expect(n).toBeLessThanOrEqual(60);
		// downloads are reads too
		const report = svc.reports().find((r) => r.status === 'completed') as { id: string };
		expect429(await get(svc, `/v1/reports/${report.id}/download`));
		// limits are per key: the test key and another workspace still have their budget
		expect(
			(await get(svc, '/v1/accounts', { key: svc.keys.test })).body.meta.remaining_requests,
		).toBe(119);
		expect((await get(svc, '/v1/accounts', { key: svc.keys.otherWorkspace })).status).toBe(200);
		// writes are a separate bucket
		expect(
			(await post(svc, '/v1/diagnostics', { campaign_id: campaignsOfAcme(svc)[0] })).status,
		).toBe(202);
	});

	test('remaining_requests resets when the window ends; the window starts at the first request after the previous one ended', async () => {
		svc = await startFakeService({ timeScale: 0.02, limits: { read: 3 } }); // window = 1200 ms real
		const t0 = Date.now();
		expect((await get(svc, '/v1/accounts')).body.meta.remaining_requests).toBe(2);
		expect((await get(svc, '/v1/accounts')).body.meta.remaining_requests).toBe(1);
		expect((await get(svc, '/v1/accounts')).body.meta.remaining_requests).toBe(0);
		const n = expect429(await get(svc, '/v1/accounts'));
		expect(n).toBeGreaterThan(24); // more than 1.2 s: service seconds
		await sleep(500);
		const later = expect429(await get(svc, '/v1/accounts'));
		expect(later).toBeLessThan(n);
		expect(later).toBeGreaterThanOrEqual(1);
		// refused requests are not charged, so polling is free; the first success opens a new window
		let t1 = 0;
		const fresh = await waitFor(
			async () => {
				t1 = Date.now();
				const r = await get(svc, '/v1/accounts');
				return r.status === 200 ? r : undefined;
			},
			5000,
			20,
		);
		expect(Date.now() - t0).toBeGreaterThanOrEqual(1200); // not before the window ended
		expect(fresh.body.meta.remaining_requests).toBe(2);
		await sleep(Math.max(0, t1 + 500 - Date.now())); // the new window began after t1: still the same window
		expect((await get(svc, '/v1/accounts')).body.meta.remaining_requests).toBe(1);
	});

	test('write: 10 POSTs per window across endpoints', async () => {
		svc = await startFakeService({ timeScale: 0.05 });
		const camps = campaignsOfAcme(svc);
		for (let i = 0; i < 5; i++)
			expect((await post(svc, '/v1/reports', reportBody(svc))).status).toBe(202);
		for (let i = 0; i < 5; i++) {
			const res = await post(svc, '/v1/diagnostics', { campaign_id: camps[i] });
			expect(res.status).toBe(202);
			expect(res.body.meta.remaining_requests).toBe(4 - i); // min(write, diagnostic) = write
		}
		// diagnostic bucket has 5 left, but write is spent
		expect429(await post(svc, '/v1/diagnostics', { campaign_id: camps[6] }));
		expect((await get(svc, '/v1/accounts')).status).toBe(200);
	});

	test('diagnostic runs: 10 per window (write limit raised to isolate it)', async () => {
		svc = await startFakeService({ timeScale: 0.05, limits: { write: 100 } });
		const camps = campaignsOfAcme(svc);
		for (let i = 0; i < 10; i++) {
			const res = await post(svc, '/v1/diagnostics', { campaign_id: camps[i] });
			expect(res.status).toBe(202);
			expect(res.body.meta.remaining_requests).toBe(9 - i);
		}
		const n = expect429(await post(svc, '/v1/diagnostics', { campaign_id: camps[10] }));
		expect(n).toBeGreaterThan(40);
		expect((await post(svc, '/v1/reports', reportBody(svc))).status).toBe(202);
	});

	test('generation: 5 per window; remaining_requests = min(write, generation)', async () => {
		svc = await startFakeService({ timeScale: 0.05 });
		for (let i = 0; i < 5; i++) {
			const res = await post(svc, '/v1/reports', reportBody(svc));
			expect(res.status).toBe(202);
			expect(res.body.meta.remaining_requests).toBe(4 - i);
		}
		expect429(await post(svc, '/v1/reports', reportBody(svc)));
		// write has 5 left, so a diagnostic goes through: min(write 5-1=4, diagnostic 9) = 4
		const d = await post(svc, '/v1/diagnostics', { campaign_id: campaignsOfAcme(svc)[0] });
		expect(d.status).toBe(202);
		expect(d.body.meta.remaining_requests).toBe(4);
	});

	test('write + generation: the stricter one answers 429 first, and a refused request charges no bucket', async () => {
		svc = await startFakeService({ timeScale: 0.05, limits: { write: 10, generations: 2 } });
		expect((await post(svc, '/v1/reports', reportBody(svc))).body.meta.remaining_requests).toBe(1);
		expect((await post(svc, '/v1/reports', reportBody(svc))).body.meta.remaining_requests).toBe(0);
		expect429(await post(svc, '/v1/reports', reportBody(svc)));
		expect429(await post(svc, '/v1/reports', reportBody(svc)));
		// write used 2 (not 4): a diagnostic leaves min(10-3, 10-1) = 7
		expect(
			(await post(svc, '/v1/diagnostics', { campaign_id: campaignsOfAcme(svc)[0] })).body.meta
				.remaining_requests,
		).toBe(7);

		const other = await startFakeService({ timeScale: 0.05, limits: { write: 3, generations: 5 } });
		try {
			const camps = campaignsOfAcme(other);
			for (let i = 0; i < 2; i++)
				expect((await post(other, '/v1/diagnostics', { campaign_id: camps[i] })).status).toBe(202);
			// min(write 0, generation 4) = 0
			expect(
				(await post(other, '/v1/reports', reportBody(other))).body.meta.remaining_requests,
			).toBe(0);
			expect429(await post(other, '/v1/reports', reportBody(other))); // write spent, generation not
		} finally {
			await other.stop();
		}
	});

	test('limit check comes before validation: invalid requests are charged, auth/version failures are not, a spent bucket answers 429 not 400', async () => {
		svc = await startFakeService({ timeScale: 0.05, limits: { read: 3 } });
		expectError(await get(svc, '/v1/accounts?page_size=101'), 400, 'invalid_request'); // charged
		expectError(await get(svc, '/v1/accounts', { version: null }), 400, 'invalid_request'); // not charged
		expectError(await get(svc, '/v1/accounts', { key: null }), 401, 'authentication_error'); // not charged
		expectError(await get(svc, '/v1/nothing'), 404, 'not_found'); // unknown endpoint: not charged
		expect((await get(svc, '/v1/accounts')).body.meta.remaining_requests).toBe(1);
		expect((await get(svc, '/v1/accounts')).body.meta.remaining_requests).toBe(0);
		expect429(await get(svc, '/v1/accounts?page_size=101'));
		expectError(await get(svc, '/v1/accounts', { version: null }), 400, 'invalid_request'); // version is checked before the limit
	});

	test('resetLimits() and POST /__fake/limits/reset restore the budget', async () => {
		svc = await startFakeService({ timeScale: 1, limits: { read: 1 } });
		expect((await get(svc, '/v1/accounts')).status).toBe(200);
		const n = expect429(await get(svc, '/v1/accounts'));
		expect(n).toBeGreaterThanOrEqual(59);
		svc.resetLimits();
		expect((await get(svc, '/v1/accounts')).status).toBe(200);
		expect429(await get(svc, '/v1/accounts'));
		expect((await fetch(`${svc.url}/__fake/limits/reset`, { method: 'POST' })).status).toBe(200);
		expect((await get(svc, '/v1/accounts')).status).toBe(200);
	});
});
