import { startFakeService, type FakeService } from '../../sandbox/index.cjs';
import { call, expectError, get, post, reportBody, sleep, waitFor } from './helpers.cjs';
import type { Report } from '../../sandbox/types.cjs';

const ORDER = ['pending', 'generating', 'completed'];

describe('fake service: POST /v1/reports rules', () => {
	let svc: FakeService;
	beforeEach(async () => {
		// generous limits: this block is about validation, not rate limiting
		svc = await startFakeService({ timeScale: 0.01, limits: { write: 1000, generations: 1000 } });
	});
	afterEach(() => svc.stop());

	test('success: 202 with the generate-response fields only', async () => {
		const res = await post(svc, '/v1/reports', reportBody(svc));
		expect(res.status).toBe(202);
		expect(Object.keys(res.body).sort()).toEqual(['data', 'meta']);
		const d = res.body.data;
		expect(Object.keys(d).sort()).toEqual(
			[
				'accountId',
				'createdAt',
				'dateRange',
				'estimatedCompletionSeconds',
				'id',
				'status',
				'title',
			].sort(),
		);
		expect(d.id).toMatch(/^rpt_[a-z0-9]{16}$/);
		expect(d.accountId).toBe(svc.accounts()[0].platformAccountId);
		expect(['pending', 'generating']).toContain(d.status);
		expect(d.dateRange).toEqual({ from: '2026-01-01', to: '2026-01-31' });
		expect(Number.isInteger(d.estimatedCompletionSeconds)).toBe(true);
		expect(d.estimatedCompletionSeconds).toBeGreaterThanOrEqual(10);
		expect(d.estimatedCompletionSeconds).toBeLessThanOrEqual(20);
		const stored = svc.reports().find((r) => r.id === d.id) as Report;
		expect(stored.format).toBe('pdf'); // service default
		expect(stored.campaignIds.sort()).toEqual(
			svc
				.campaigns()
				.filter((c) => c.accountId === svc.accounts()[0].id)
				.map((c) => c.id)
				.sort(),
		);
	});

	test('optional fields: campaign_ids, format, whiteLabel are honoured; unknown fields ignored', async () => {
		const ids = svc
			.campaigns()
			.filter((c) => c.accountId === svc.accounts()[0].id)
			.slice(0, 2)
			.map((c) => c.id);
		const res = await post(
			svc,
			'/v1/reports',
			reportBody(svc, {
				campaign_ids: ids,
				format: 'markdown',
				whiteLabel: {
					companyName: 'Agency X',
					logoUrl: 'https://x.test/l.png',
					primaryColor: '#12ab9F',
				},
				extra: 1,
			}),
		);
		expect(res.status).toBe(202);
		const stored = svc.reports().find((r) => r.id === res.body.data.id) as Report;
		expect(stored.campaignIds).toEqual(ids);
		expect(stored.format).toBe('markdown');
	});

	describe('rule 1: missing or invalid field → 400 invalid_request naming the field', () => {
		test.each([
			['account_id', { account_id: undefined }],
			['account_id', { account_id: 'act_abc' }],
			['account_id', { account_id: 12345 }],
			['account_id', { account_id: svc_placeholder() }],
			['title', { title: undefined }],
			['title', { title: '' }],
			['title', { title: 5 }],
			['date_start', { date_start: undefined }],
			['date_start', { date_start: '2026-02-30' }],
			['date_start', { date_start: '01/01/2026' }],
			['date_end', { date_end: undefined }],
			['date_end', { date_end: '2026-1-31' }],
			['campaign_ids', { campaign_ids: 'camp_x' }],
			['campaign_ids', { campaign_ids: [1, 2] }],
			['campaign_ids', { campaign_ids: [] }],
			['format', { format: 'docx' }],
			['format', { format: 'PDF' }],
			['whiteLabel', { whiteLabel: 'yes' }],
			['whiteLabel', { whiteLabel: {} }],
			['primaryColor', { whiteLabel: { primaryColor: 'red' } }],
			['logoUrl', { whiteLabel: { logoUrl: 'not a url' } }],
		])('%s (%j)', async (field, patch) => {
			const body = reportBody(svc, patch);
			for (const k of Object.keys(patch))
				if ((patch as Record<string, unknown>)[k] === undefined) delete body[k];
			const res = await post(svc, '/v1/reports', body);
			expectError(res, 400, 'invalid_request');
			expect(res.body.error.message).toContain(field);
		});

		test('empty body, non-JSON body, non-object body, wrong content type', async () => {
			const empty = await call(svc, 'POST', '/v1/reports');
			expectError(empty, 400, 'invalid_request');
			expect(empty.body.error.message).toContain('account_id');
			expectError(
				await call(svc, 'POST', '/v1/reports', {
					rawBody: '{bad',
					headers: { 'content-type': 'application/json' },
				}),
				400,
				'invalid_request',
			);
			expectError(await post(svc, '/v1/reports', [1, 2]), 400, 'invalid_request');
			const res = await call(svc, 'POST', '/v1/reports', {
				rawBody: JSON.stringify(reportBody(svc)),
				headers: { 'content-type': 'text/plain' },
			});
			expectError(res, 400, 'invalid_request');
			expect(res.body.error.message).toContain('Content-Type');
		});
	});

	test('rule 2: date_start not before date_end, or more than 90 days → 400 invalid_date_range', async () => {
		expectError(
			await post(
				svc,
				'/v1/reports',
				reportBody(svc, { date_start: '2026-01-31', date_end: '2026-01-31' }),
			),
			400,
			'invalid_date_range',
		);
		expectError(
			await post(
				svc,
				'/v1/reports',
				reportBody(svc, { date_start: '2026-02-01', date_end: '2026-01-31' }),
			),
			400,
			'invalid_date_range',
		);
		expectError(
			await post(
				svc,
				'/v1/reports',
				reportBody(svc, { date_start: '2026-01-01', date_end: '2026-04-02' }),
			),
			400,
			'invalid_date_range',
		);
		expect(
			(
				await post(
					svc,
					'/v1/reports',
					reportBody(svc, { date_start: '2026-01-01', date_end: '2026-04-01' }),
				)
			).status,
		).toBe(202); // 90 days
		expect(
			(
				await post(
					svc,
					'/v1/reports',
					reportBody(svc, { date_start: '2026-01-01', date_end: '2026-01-02' }),
				)
			).status,
		).toBe(202);
	});

	test('rule 3: more than 20 campaign ids → 400 too_many_campaigns (20 is fine)', async () => {
		const acme = svc.accounts()[0];
		svc.addCampaigns(acme.id, 10);
		const ids = svc
			.campaigns()
			.filter((c) => c.accountId === acme.id)
			.map((c) => c.id);
		expect(ids.length).toBeGreaterThanOrEqual(21);
		expectError(
			await post(svc, '/v1/reports', reportBody(svc, { campaign_ids: ids.slice(0, 21) })),
			400,
			'too_many_campaigns',
		);
		expect(
			(await post(svc, '/v1/reports', reportBody(svc, { campaign_ids: ids.slice(0, 20) }))).status,
		).toBe(202);
		const unknown = Array.from(
			{ length: 21 },
			(_, i) => `camp_unknown${String(i).padStart(5, '0')}`,
		);
		expectError(
			await post(svc, '/v1/reports', reportBody(svc, { campaign_ids: unknown })),
			400,
			'too_many_campaigns',
		);
	});

	test('rule 4: whiteLabel without white label on the plan → 403 white_label_not_available; works without it', async () => {
		const key = svc.keys.noWhiteLabel;
		const account = (await get(svc, '/v1/accounts', { key })).body.data[0];
		const body = {
			account_id: account.platformAccountId,
			title: 'Harbor',
			date_start: '2026-01-01',
			date_end: '2026-01-10',
		};
		expectError(
			await post(svc, '/v1/reports', { ...body, whiteLabel: { companyName: 'Agency' } }, { key }),
			403,
			'white_label_not_available',
		);
		expect((await post(svc, '/v1/reports', body, { key })).status).toBe(202);
		expect(
			(await post(svc, '/v1/reports', reportBody(svc, { whiteLabel: { companyName: 'Agency' } })))
				.status,
		).toBe(202);
	});

	test('rule 5: unknown campaign or account → 404 not_found', async () => {
		expectError(
			await post(svc, '/v1/reports', reportBody(svc, { campaign_ids: ['camp_doesnotexist'] })),
			404,
			'not_found',
		);
		expectError(
			await post(svc, '/v1/reports', reportBody(svc, { account_id: 'act_999999999999999' })),
			404,
			'not_found',
		);
		const other = svc.campaigns().find((c) => c.accountId !== svc.accounts()[0].id) as {
			id: string;
		};
		expectError(
			await post(svc, '/v1/reports', reportBody(svc, { campaign_ids: [other.id] })),
			404,
			'not_found',
		);
	});

	test('rule order: field, date range, campaign count, white label, not found', async () => {
		const many = Array.from({ length: 21 }, (_, i) => `camp_x${i}`);
		const bad = {
			date_start: '2026-03-01',
			date_end: '2026-01-01',
			campaign_ids: many,
			whiteLabel: { companyName: 'X' },
		};
		const key = svc.keys.noWhiteLabel;
		const account = (await get(svc, '/v1/accounts', { key })).body.data[0];
		expectError(
			await post(
				svc,
				'/v1/reports',
				{ ...bad, title: '', account_id: account.platformAccountId },
				{ key },
			),
			400,
			'invalid_request',
		);
		expectError(
			await post(
				svc,
				'/v1/reports',
				{ ...bad, title: 't', account_id: account.platformAccountId },
				{ key },
			),
			400,
			'invalid_date_range',
		);
		const okDates = { date_start: '2026-01-01', date_end: '2026-01-05' };
		expectError(
			await post(
				svc,
				'/v1/reports',
				{ ...bad, ...okDates, title: 't', account_id: account.platformAccountId },
				{ key },
			),
			400,
			'too_many_campaigns',
		);
		expectError(
			await post(
				svc,
				'/v1/reports',
				{ ...bad, ...okDates, campaign_ids: ['camp_nope'], title: 't', account_id: 'act_1' },
				{ key },
			),
			403,
			'white_label_not_available',
		);
		expectError(
			await post(
				svc,
				'/v1/reports',
				{
					...okDates,
					campaign_ids: ['camp_nope'],
					title: 't',
					account_id: account.platformAccountId,
				},
				{ key },
			),
			404,
			'not_found',
		);
	});

	test('rule 6 / lifecycle: pending → generating → completed with downloadUrl, expiresAt, completedAt, summary', async () => {
		const res = await post(svc, '/v1/reports', reportBody(svc, { format: 'json' }));
		const id = res.body.data.id as string;
		const seen: string[] = [res.body.data.status];
		const createdAt = Date.parse(res.body.data.createdAt);
		const done = await waitFor(
			async () => {
				const list = await get(
					svc,
					`/v1/reports?accountId=${res.body.data.accountId}&from=${encodeURIComponent(res.body.data.createdAt)}`,
				);
				const r = (list.body.data as Report[]).find((x) => x.id === id) as Report;
				if (seen[seen.length - 1] !== r.status) seen.push(r.status);
				if (r.status !== 'completed') {
					expect(r.downloadUrl).toBeUndefined();
					expect(r.summary).toBeUndefined();
					expect(r.completedAt).toBeUndefined();
					expect(r.expiresAt).toBeUndefined();
				}
				return r.status === 'completed' ? r : undefined;
			},
			3000,
			5,
		);
		// statuses only move forward and end completed; generating is observed on the way
		expect(seen.map((s) => ORDER.indexOf(s))).toEqual(
			[...seen.map((s) => ORDER.indexOf(s))].sort(),
		);
		expect(seen).toContain('generating');
		expect(seen[seen.length - 1]).toBe('completed');
		const elapsed = Date.parse(done.completedAt as string) - createdAt;
		expect(elapsed).toBeGreaterThanOrEqual(100 - 1); // 10 s × 0.01
		expect(elapsed).toBeLessThanOrEqual(200 + 1);
		expect(
			Date.parse(done.expiresAt as string) - Date.parse(done.completedAt as string),
		).toBeCloseTo(7 * 86400000 * 0.01, -2);
		expect(done.downloadUrl).toMatch(
			new RegExp(`^${svc.url}/v1/reports/${id}/download\\?expires=\\d+&signature=[0-9a-f]+$`),
		);
		expect(Object.keys(done.summary ?? {}).sort()).toEqual([
			'avgCpa',
			'avgRoas',
			'overallRiskLevel',
			'totalConversions',
			'totalSpend',
		]);
		expect(Number.isInteger(done.summary?.totalConversions)).toBe(true);
	});

	test('a new report is pending before generating', async () => {
		const slow = await startFakeService({ timeScale: 0.2, seed: 7 });
		try {
			const res = await post(slow, '/v1/reports', reportBody(slow));
			expect(res.status).toBe(202);
			const statuses = new Set<string>([res.body.data.status]);
			await waitFor(
				async () => {
					statuses.add((slow.reports().find((r) => r.id === res.body.data.id) as Report).status);
					return statuses.has('generating');
				},
				1000,
				5,
			);
			expect(statuses).toEqual(new Set(['pending', 'generating']));
		} finally {
			await slow.stop();
		}
	});

	test('failNextReports: generating ends in failed with error and no download fields', async () => {
		svc.failNextReports(1, { type: 'generation_failed', message: 'boom' });
		const failing = await post(svc, '/v1/reports', reportBody(svc));
		const ok = await post(svc, '/v1/reports', reportBody(svc));
		await sleep(260);
		const list: Report[] = (await get(svc, '/v1/reports')).body.data;
		const f = list.find((r) => r.id === failing.body.data.id) as Report;
		expect(f.status).toBe('failed');
		expect(f.error).toEqual({ type: 'generation_failed', message: 'boom' });
		expect('downloadUrl' in f || 'summary' in f || 'expiresAt' in f || 'completedAt' in f).toBe(
			false,
		);
		expect((list.find((r) => r.id === ok.body.data.id) as Report).status).toBe('completed');
	});

	test("PUT /__fake/accounts/:id/reports: the account's next reports show the given figures, fail, or keep generating, until cleared", async () => {
		const [acme, other] = svc.accounts();
		const control = (body: unknown) =>
			call(svc, 'PUT', `/__fake/accounts/${acme.platformAccountId}/reports`, { body, key: null });
		const report = async (account: string) => {
			const created = await post(svc, '/v1/reports', reportBody(svc, { account_id: account }));
			expect(created.status).toBe(202);
			return created.body.data.id as string;
		};
		const settled = (id: string) =>
			waitFor(async () => {
				const r = svc.reports().find((report) => report.id === id);
				return r?.status === 'completed' || r?.status === 'failed' ? r : undefined;
			});

		expect(
			(await control({ summary: { totalSpend: 1000, totalConversions: 40, avgRoas: 1.5 } })).status,
		).toBe(200);
		const figures = await settled(await report(acme.platformAccountId));
		expect(figures.summary).toEqual({
			totalSpend: 1000,
			totalConversions: 40,
			avgCpa: 25,
			avgRoas: 1.5,
			overallRiskLevel: 'HIGH',
		});
		const drawn = await settled(await report(other.platformAccountId));
		expect(drawn.summary?.totalSpend).not.toBe(1000);

		await control({ error: { type: 'generation_failed', message: 'no data' } });
		const failed = await settled(await report(acme.platformAccountId));
		expect(failed.status).toBe('failed');
		expect(failed.error).toEqual({ type: 'generation_failed', message: 'no data' });

		await control({ generatingMs: 60_000 });
		const held = await report(acme.platformAccountId);
		await sleep(400);
		expect(['pending', 'generating']).toContain(
			svc.reports().find((report) => report.id === held)?.status,
		);

		await control({});
		expect((await settled(await report(acme.platformAccountId))).status).toBe('completed');
		expectError(
			await call(svc, 'PUT', '/__fake/accounts/act_unknown/reports', { body: {}, key: null }),
			400,
			'invalid_request',
		);
	});
});

// test.each tables are built before beforeEach runs; this placeholder is a well-formed SERVICE account id,
// which is not an ad platform account id and must be refused as account_id.
function svc_placeholder(): string {
	return 'act_k3x9q2m7pa';
}
