import { startFakeService, type FakeService } from '../../sandbox/index.cjs';
import { expectError, get } from './helpers.cjs';
import type { Account, Campaign, Report } from '../../sandbox/types.cjs';

describe('fake service: list envelopes, pagination, filters, seed data', () => {
	let svc: FakeService;
	beforeAll(async () => {
		svc = await startFakeService({ timeScale: 0.01, seedData: { extraCampaigns: 30 } });
	});
	afterAll(() => svc.stop());

	test('list envelope: data, pagination {total,page,page_size,hasMore}, meta.remaining_requests', async () => {
		const res = await get(svc, '/v1/accounts');
		expect(res.status).toBe(200);
		expect(res.headers.get('content-type')).toMatch(/^application\/json/);
		expect(Object.keys(res.body).sort()).toEqual(['data', 'meta', 'pagination']);
		expect(res.body.pagination).toEqual({ total: 4, page: 1, page_size: 20, hasMore: false });
		expect(Object.keys(res.body.meta)).toEqual(['remaining_requests']);
		expect(Number.isInteger(res.body.meta.remaining_requests)).toBe(true);
	});

	test('page walking over campaigns: defaults, hasMore, last page, past the end', async () => {
		const total = 12 + 30 + 5 + 3 + 4;
		const seen: string[] = [];
		let page = 1;
		for (;;) {
			const res = await get(svc, `/v1/campaigns?page=${page}&page_size=7`);
			expect(res.status).toBe(200);
			expect(res.body.pagination.total).toBe(total);
			expect(res.body.pagination.page).toBe(page);
			expect(res.body.pagination.page_size).toBe(7);
			seen.push(...res.body.data.map((c: Campaign) => c.id));
			if (!res.body.pagination.hasMore) break;
			expect(res.body.data).toHaveLength(7);
			page++;
		}
		expect(page).toBe(Math.ceil(total / 7));
		expect(new Set(seen).size).toBe(total);
		const def = await get(svc, '/v1/campaigns');
		expect(def.body.data).toHaveLength(20);
		expect(def.body.pagination).toEqual({ total, page: 1, page_size: 20, hasMore: true });
		const past = await get(svc, '/v1/campaigns?page=99');
		expect(past.status).toBe(200);
		expect(past.body.data).toEqual([]);
		expect(past.body.pagination).toEqual({ total, page: 99, page_size: 20, hasMore: false });
		const max = await get(svc, '/v1/campaigns?page_size=100');
		expect(max.body.data).toHaveLength(total);
	});

	test.each([
		['page_size=101', 'page_size'],
		['page_size=0', 'page_size'],
		['page_size=2.5', 'page_size'],
		['page_size=abc', 'page_size'],
		['page=0', 'page'],
		['page=-1', 'page'],
		['page=x', 'page'],
	])('invalid paging %s → 400 invalid_request naming %s', async (qs, name) => {
		for (const path of ['/v1/accounts', '/v1/campaigns', '/v1/reports']) {
			const res = await get(svc, `${path}?${qs}`);
			expectError(res, 400, 'invalid_request');
			expect(res.body.error.message).toContain(name);
		}
	});

	test('sort: accounts by connectedAt, campaigns by createdAt ascending, reports newest first', async () => {
		const accounts: Account[] = (await get(svc, '/v1/accounts')).body.data;
		const times = accounts.map((a) => Date.parse(a.connectedAt));
		expect([...times].sort((x, y) => x - y)).toEqual(times);
		const campaigns: Campaign[] = (await get(svc, '/v1/campaigns?page_size=100')).body.data;
		const ct = campaigns.map((c) => Date.parse(c.createdAt));
		expect([...ct].sort((x, y) => x - y)).toEqual(ct);
		const reports: Report[] = (await get(svc, '/v1/reports')).body.data;
		const rt = reports.map((r) => Date.parse(r.createdAt));
		expect([...rt].sort((x, y) => y - x)).toEqual(rt);
	});

	test('seed data: accounts, connection statuses, campaign counts, realistic fields', async () => {
		const accounts: Account[] = (await get(svc, '/v1/accounts')).body.data;
		expect(accounts.map((a) => [a.name, a.connectionStatus])).toEqual([
			['Acme Outdoor', 'active'],
			['Bloom Cosmetics', 'token_expired'],
			['Cedar Dental', 'disconnected'],
			['Delta Fitness', 'active'],
		]);
		const campaigns: Campaign[] = (await get(svc, '/v1/campaigns?page_size=100')).body.data;
		for (const a of accounts) {
			expect(a.id).toMatch(/^act_(?=[a-z0-9]*[a-z])[a-z0-9]{10}$/);
			expect(a.platformAccountId).toMatch(/^act_\d{15}$/);
			expect(a.connectedBy).toMatch(/^user_[a-z0-9]{8}$/);
			expect(a.currency).toMatch(/^[A-Z]{3}$/);
			expect(a.timezone).toMatch(/^[A-Z][a-z]+\/[A-Za-z_]+$/);
			expect(['active', 'disabled', 'closed']).toContain(a.status);
			expect(a.permissions.length).toBeGreaterThan(0);
			for (const p of a.permissions)
				expect(['read_insights', 'read_campaigns', 'read_ads']).toContain(p);
			const own = campaigns.filter((c) => c.accountId === a.id);
			expect(a.campaignCount).toBe(own.length);
			expect(a.activeCampaignCount).toBe(own.filter((c) => c.status === 'ACTIVE').length);
			expect(typeof a.totalSpendLast30d).toBe('number');
			for (const c of own) expect(c.currency).toBe(a.currency);
		}
		expect(accounts.map((a) => a.campaignCount)).toEqual([42, 5, 3, 4]);
		for (const c of campaigns) {
			expect(c.id).toMatch(/^camp_[a-z0-9]{12}$/);
			expect(c.platformCampaignId).toMatch(/^\d+$/);
			expect(['ACTIVE', 'PAUSED', 'ARCHIVED', 'DELETED']).toContain(c.status);
			expect(c.objective).toMatch(
				/^OUTCOME_(SALES|LEADS|TRAFFIC|AWARENESS|ENGAGEMENT|APP_PROMOTION)$/,
			);
			expect(Object.keys(c).sort()).toEqual(
				[
					'accountId',
					'createdAt',
					'currency',
					'dailyBudget',
					'id',
					'name',
					'objective',
					'platformCampaignId',
					'status',
				].sort(),
			);
		}
		expect(new Set(campaigns.map((c) => c.status)).size).toBeGreaterThan(1);
		expect(new Set(campaigns.map((c) => c.objective)).size).toBeGreaterThan(2);
	});

	test('seed reports: 6 over the last 30 days, pdf/markdown/json, one failed, two accounts', async () => {
		const reports: Report[] = (await get(svc, '/v1/reports')).body.data;
		expect(reports).toHaveLength(6);
		expect(new Set(reports.map((r) => r.format))).toEqual(new Set(['pdf', 'markdown', 'json']));
		expect(reports.filter((r) => r.status === 'failed')).toHaveLength(1);
		expect(new Set(reports.map((r) => r.accountId)).size).toBe(2);
		for (const r of reports) {
			expect(r.id).toMatch(/^rpt_[a-z0-9]{16}$/);
			expect(Date.now() - Date.parse(r.createdAt)).toBeLessThanOrEqual(30 * 86400000);
			if (r.status === 'completed') {
				expect(r.summary && r.downloadUrl && r.expiresAt && r.completedAt).toBeTruthy();
				expect(['LOW', 'MEDIUM', 'HIGH', 'CRITICAL']).toContain(r.summary?.overallRiskLevel);
				expect(r.error).toBeUndefined();
			} else {
				expect(r.error?.type).toBe('generation_failed');
				expect('summary' in r || 'downloadUrl' in r || 'expiresAt' in r || 'completedAt' in r).toBe(
					false,
				);
			}
		}
	});

	test('seed is deterministic: same seed gives same ids and data', async () => {
		const a = await startFakeService({ seed: 42, timeScale: 0.01 });
		const b = await startFakeService({ seed: 42, timeScale: 0.01 });
		const c = await startFakeService({ seed: 43, timeScale: 0.01 });
		try {
			const strip = (s: FakeService): unknown =>
				s.campaigns().map(({ createdAt: _c, ...rest }) => rest);
			expect(strip(a)).toEqual(strip(b));
			expect(a.keys).toEqual(b.keys);
			expect(a.reports().map((r) => [r.id, r.summary])).toEqual(
				b.reports().map((r) => [r.id, r.summary]),
			);
			expect(strip(a)).not.toEqual(strip(c));
		} finally {
			await Promise.all([a.stop(), b.stop(), c.stop()]);
		}
	});

	test('GET /v1/accounts?status filter and unknown value', async () => {
		const res = await get(svc, '/v1/accounts?status=token_expired');
		expect(res.body.data.map((a: Account) => a.name)).toEqual(['Bloom Cosmetics']);
		expect(res.body.pagination.total).toBe(1);
		expect((await get(svc, '/v1/accounts?status=active')).body.pagination.total).toBe(2);
		expectError(await get(svc, '/v1/accounts?status=expired'), 400, 'invalid_request');
		expectError(await get(svc, '/v1/accounts?status=ACTIVE'), 400, 'invalid_request');
	});

	test('GET /v1/campaigns filters accountId (service or platform id) and status', async () => {
		const bloom = svc.accounts()[1];
		const bySvc = await get(svc, `/v1/campaigns?accountId=${bloom.id}`);
		const byPlatform = await get(svc, `/v1/campaigns?accountId=${bloom.platformAccountId}`);
		expect(bySvc.body.pagination.total).toBe(5);
		expect(byPlatform.body.data).toEqual(bySvc.body.data);
		for (const c of bySvc.body.data) expect(c.accountId).toBe(bloom.id);
		const paused = await get(svc, '/v1/campaigns?status=PAUSED&page_size=100');
		expect(paused.body.pagination.total).toBe(
			svc.campaigns().filter((c) => c.status === 'PAUSED').length,
		);
		for (const c of paused.body.data) expect(c.status).toBe('PAUSED');
		const both = await get(svc, `/v1/campaigns?status=ACTIVE&accountId=${bloom.id}`);
		expect(
			both.body.data.every((c: Campaign) => c.status === 'ACTIVE' && c.accountId === bloom.id),
		).toBe(true);
		expect((await get(svc, '/v1/campaigns?accountId=act_000000000000000')).body.data).toEqual([]);
		expectError(await get(svc, '/v1/campaigns?status=RUNNING'), 400, 'invalid_request');
	});

	test('GET /v1/campaigns/{id}: {data: Campaign, meta}; unknown → 404', async () => {
		const c = svc.campaigns()[3];
		const res = await get(svc, `/v1/campaigns/${c.id}`);
		expect(res.status).toBe(200);
		expect(res.body.data).toEqual(c);
		expect(Object.keys(res.body).sort()).toEqual(['data', 'meta']);
		expectError(await get(svc, '/v1/campaigns/camp_doesnotexist'), 404, 'not_found');
	});

	test('GET /v1/reports filters: status, format, accountId, campaignId, from/to', async () => {
		const all: Report[] = svc.reports();
		const completed = await get(svc, '/v1/reports?status=completed');
		expect(completed.body.pagination.total).toBe(5);
		expect((await get(svc, '/v1/reports?status=failed')).body.data).toHaveLength(1);
		const md = await get(svc, '/v1/reports?format=markdown');
		expect(md.body.data.every((r: Report) => r.format === 'markdown')).toBe(true);
		expect(md.body.pagination.total).toBe(all.filter((r) => r.format === 'markdown').length);
		const acc = svc.accounts()[1];
		const byAcc = await get(svc, `/v1/reports?accountId=${acc.platformAccountId}`);
		expect(byAcc.body.pagination.total).toBe(2);
		expect((await get(svc, `/v1/reports?accountId=${acc.id}`)).body.data).toEqual(byAcc.body.data);
		const camp = all[0].campaignIds[0];
		const byCamp = await get(svc, `/v1/reports?campaignId=${camp}`);
		expect(byCamp.body.pagination.total).toBe(
			all.filter((r) => r.campaignIds.includes(camp)).length,
		);
		expect(byCamp.body.pagination.total).toBeGreaterThan(0);
		// from/to inclusive, date or date-time
		const sorted = [...all].sort((x, y) => Date.parse(x.createdAt) - Date.parse(y.createdAt));
		const mid = sorted[2];
		const fromExact = await get(svc, `/v1/reports?from=${encodeURIComponent(mid.createdAt)}`);
		expect(fromExact.body.pagination.total).toBe(4);
		const toExact = await get(svc, `/v1/reports?to=${encodeURIComponent(mid.createdAt)}`);
		expect(toExact.body.pagination.total).toBe(3);
		const day = mid.createdAt.slice(0, 10);
		const toDay = await get(svc, `/v1/reports?to=${day}`);
		expect(toDay.body.data.map((r: Report) => r.id)).toContain(mid.id);
		const fromDay = await get(svc, `/v1/reports?from=${day}&to=${day}`);
		expect(fromDay.body.data.map((r: Report) => r.id)).toContain(mid.id);
		expectError(await get(svc, '/v1/reports?from=yesterday'), 400, 'invalid_request');
		expectError(await get(svc, '/v1/reports?to=2026-02-30'), 400, 'invalid_request');
		expectError(await get(svc, '/v1/reports?status=done'), 400, 'invalid_request');
		expectError(await get(svc, '/v1/reports?format=docx'), 400, 'invalid_request');
	});
});
