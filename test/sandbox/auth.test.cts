import { startFakeService, type FakeService } from '../../sandbox/index.cjs';
import { expectError, get, post, reportBody } from './helpers.cjs';

describe('fake service: authentication and versioning', () => {
	let svc: FakeService;
	beforeAll(async () => {
		svc = await startFakeService({ timeScale: 0.01 });
	});
	afterAll(() => svc.stop());

	test('a valid live key reaches the workspace', async () => {
		const res = await get(svc, '/v1/accounts');
		expect(res.status).toBe(200);
		expect(res.body.data.map((a: { name: string }) => a.name)).toEqual([
			'Acme Outdoor',
			'Bloom Cosmetics',
			'Cedar Dental',
			'Delta Fitness',
		]);
	});

	test('a test key reaches the same sandbox data', async () => {
		const live = await get(svc, '/v1/campaigns?page_size=100');
		const test = await get(svc, '/v1/campaigns?page_size=100', { key: svc.keys.test });
		expect(test.status).toBe(200);
		expect(test.body.data).toEqual(live.body.data);
		expect(svc.keys.test).toMatch(/^service_test_[A-Za-z0-9]{24,}$/);
		expect(svc.keys.live).toMatch(/^service_live_[A-Za-z0-9]{24,}$/);
	});

	test('missing key → 401 authentication_error', async () => {
		expectError(await get(svc, '/v1/accounts', { key: null }), 401, 'authentication_error');
	});

	test.each([
		['wrong prefix', 'sk_live_abcdefghijklmnopqrstuvwxyz123'],
		['too short', 'service_live_abc123'],
		['bad characters', 'service_live_abcdefghijklmnopqrstuv-xyz_12'],
		['empty', ''],
	])('malformed key (%s) → 401 authentication_error', async (_label, key) => {
		expectError(await get(svc, '/v1/accounts', { key }), 401, 'authentication_error');
	});

	test('well-formed but unknown key → 401 authentication_error', async () => {
		expectError(
			await get(svc, '/v1/accounts', { key: 'service_live_' + 'A1'.repeat(16) }),
			401,
			'authentication_error',
		);
		expectError(
			await get(svc, '/v1/accounts', { key: 'service_test_' + 'b2'.repeat(16) }),
			401,
			'authentication_error',
		);
	});

	test('revoked key → 401 key_revoked', async () => {
		expectError(await get(svc, '/v1/accounts', { key: svc.keys.revoked }), 401, 'key_revoked');
		expectError(
			await post(svc, '/v1/reports', reportBody(svc), { key: svc.keys.revoked }),
			401,
			'key_revoked',
		);
	});

	test('key of a workspace without the Agency plan → 403 plan_insufficient', async () => {
		expectError(
			await get(svc, '/v1/reports', { key: svc.keys.nonAgency }),
			403,
			'plan_insufficient',
		);
		expectError(
			await get(svc, '/v1/accounts', { key: svc.keys.nonAgency }),
			403,
			'plan_insufficient',
		);
	});

	describe('resource of another workspace → 403 permission_error', () => {
		let bCampaigns: Array<{ id: string; accountId: string }>;
		let bAccount: { id: string; platformAccountId: string };
		let bReport: { id: string; downloadUrl: string };
		beforeAll(async () => {
			const key = svc.keys.otherWorkspace;
			bCampaigns = (await get(svc, '/v1/campaigns', { key })).body.data;
			bAccount = (await get(svc, '/v1/accounts', { key })).body.data[0];
			bReport = (await get(svc, '/v1/reports', { key })).body.data[0];
			expect(bCampaigns).toHaveLength(2);
			expect(bReport.downloadUrl).toBeDefined();
		});

		test('workspace B sees only its own data', async () => {
			const aIds = svc.campaigns().map((c) => c.id);
			for (const c of bCampaigns) expect(aIds).not.toContain(c.id);
			expect(
				(await get(svc, '/v1/accounts', { key: svc.keys.otherWorkspace })).body.pagination.total,
			).toBe(1);
		});

		test('GET /v1/campaigns/{B id}', async () => {
			expectError(await get(svc, `/v1/campaigns/${bCampaigns[0].id}`), 403, 'permission_error');
			expect(
				(await get(svc, `/v1/campaigns/${bCampaigns[0].id}`, { key: svc.keys.otherWorkspace }))
					.status,
			).toBe(200);
		});

		test('POST /v1/diagnostics with B campaign', async () => {
			expectError(
				await post(svc, '/v1/diagnostics', { campaign_id: bCampaigns[0].id }),
				403,
				'permission_error',
			);
		});

		test('download of B report', async () => {
			expectError(await get(svc, `/v1/reports/${bReport.id}/download`), 403, 'permission_error');
			const own = await fetch(bReport.downloadUrl, {
				headers: { 'x-api-key': svc.keys.otherWorkspace, 'service-version': '2026-03-01' },
			});
			expect(own.status).toBe(200);
		});

		test('POST /v1/reports with B account or B campaign', async () => {
			expectError(
				await post(svc, '/v1/reports', reportBody(svc, { account_id: bAccount.platformAccountId })),
				403,
				'permission_error',
			);
			expectError(
				await post(svc, '/v1/reports', reportBody(svc, { campaign_ids: [bCampaigns[0].id] })),
				403,
				'permission_error',
			);
		});
	});

	test('missing service-version → 400 invalid_request naming the header', async () => {
		const res = await get(svc, '/v1/accounts', { version: null });
		expectError(res, 400, 'invalid_request');
		expect(res.body.error.message).toContain('service-version');
	});

	test.each(['2025-01-01', '2026-03-02', 'latest', ''])(
		'unsupported service-version %p → 400 naming the header',
		async (version) => {
			const res = await get(svc, '/v1/accounts', { version });
			expectError(res, 400, 'invalid_request');
			expect(res.body.error.message).toContain('service-version');
		},
	);

	test('auth is checked before the version', async () => {
		expectError(
			await get(svc, '/v1/accounts', { key: null, version: null }),
			401,
			'authentication_error',
		);
		expectError(
			await get(svc, '/v1/accounts', { key: svc.keys.revoked, version: 'x' }),
			401,
			'key_revoked',
		);
		expectError(
			await get(svc, '/v1/accounts', { key: svc.keys.nonAgency, version: null }),
			403,
			'plan_insufficient',
		);
	});

	test('the version is checked before validation', async () => {
		expectError(
			await get(svc, '/v1/accounts?page_size=500', { version: null }),
			400,
			'invalid_request',
		);
		const res = await get(svc, '/v1/accounts?page_size=500', { version: null });
		expect(res.body.error.message).toContain('service-version');
	});

	test('unknown /v1 endpoint → 404 not_found (after auth)', async () => {
		expectError(await get(svc, '/v1/reports/rpt_aaaaaaaaaaaaaaaa'), 404, 'not_found');
		expectError(await get(svc, '/v1/nothing'), 404, 'not_found');
		expectError(await get(svc, '/v1/nothing', { key: null }), 401, 'authentication_error');
	});
});
