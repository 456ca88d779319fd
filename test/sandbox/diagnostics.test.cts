import { startFakeService, type FakeService } from '../../sandbox/index.cjs';
import { expectError, get, post, waitFor } from './helpers.cjs';
import type { Diagnostic } from '../../sandbox/types.cjs';

describe('fake service: diagnostics', () => {
	let svc: FakeService;
	beforeEach(async () => {
		svc = await startFakeService({
			timeScale: 0.03,
			limits: { write: 1000, diagnosticRuns: 1000 },
		}); // diagnostics 150–300 ms, sync 0.9–1.8 s
	});
	afterEach(() => svc.stop());

	const acmeCampaign = (s: FakeService, i = 0): string =>
		s.campaigns().filter((c) => c.accountId === s.accounts()[0].id)[i].id;

	test('POST /v1/diagnostics → 202 {data:{id,campaignId,status:running,createdAt}, meta}; completes 5–10 s × timeScale later', async () => {
		const campaignId = acmeCampaign(svc);
		const res = await post(svc, '/v1/diagnostics', { campaign_id: campaignId });
		expect(res.status).toBe(202);
		expect(Object.keys(res.body).sort()).toEqual(['data', 'meta']);
		expect(Object.keys(res.body.data).sort()).toEqual(['campaignId', 'createdAt', 'id', 'status']);
		expect(res.body.data.id).toMatch(/^diag_[a-z0-9]{12}$/);
		expect(res.body.data).toMatchObject({ campaignId, status: 'running' });
		const running = await get(svc, `/v1/diagnostics/${res.body.data.id}`);
		expect(running.status).toBe(200);
		expect(running.body.data.status).toBe('running');
		expect(running.body.data.summary).toBeUndefined();
		const done: Diagnostic = await waitFor(async () => {
			const r = await get(svc, `/v1/diagnostics/${res.body.data.id}`);
			return r.body.data.status === 'completed' ? r.body.data : undefined;
		}, 2000);
		const elapsed = Date.parse(done.completedAt as string) - Date.parse(done.createdAt);
		expect(elapsed).toBeGreaterThanOrEqual(149);
		expect(elapsed).toBeLessThanOrEqual(301);
		expect(typeof done.summary).toBe('string');
		expect(done.riskScore).toBeGreaterThanOrEqual(0);
		expect(done.riskScore).toBeLessThanOrEqual(100);
		expect(done.issues?.length).toBeGreaterThan(0);
		for (const i of done.issues ?? []) {
			expect(Object.keys(i).sort()).toEqual(['description', 'riskScore', 'severity', 'title']);
			expect(['LOW', 'MEDIUM', 'HIGH', 'CRITICAL']).toContain(i.severity);
		}
		const recs = done.recommendations ?? [];
		expect(recs.length).toBeGreaterThanOrEqual(1);
		expect(recs.length).toBeLessThanOrEqual(3);
		expect(recs.map((r) => r.priority)).toEqual(recs.map((_, i) => i + 1));
		expect(svc.diagnostics().map((d) => d.id)).toEqual([done.id]);
	});

	test('a second run on the same campaign while one runs → 409 diagnostic_in_progress; allowed again afterwards and on other campaigns', async () => {
		const c = acmeCampaign(svc);
		const first = await post(svc, '/v1/diagnostics', { campaign_id: c });
		expect(first.status).toBe(202);
		expectError(
			await post(svc, '/v1/diagnostics', { campaign_id: c }),
			409,
			'diagnostic_in_progress',
		);
		expect((await post(svc, '/v1/diagnostics', { campaign_id: acmeCampaign(svc, 1) })).status).toBe(
			202,
		);
		await waitFor(() => svc.diagnostics().every((d) => d.status !== 'running'), 2000);
		expect((await post(svc, '/v1/diagnostics', { campaign_id: c })).status).toBe(202);
	});

	test('a campaign not synced yet → 422 campaign_not_synced; fine once the sync ends (30–60 s × timeScale)', async () => {
		const delta = svc.accounts().find((a) => a.name === 'Delta Fitness');
		expect(delta?.lastSyncedAt).toBeUndefined();
		const c = svc.campaigns().find((x) => x.accountId === delta?.id) as { id: string };
		expectError(
			await post(svc, '/v1/diagnostics', { campaign_id: c.id }),
			422,
			'campaign_not_synced',
		);
		await waitFor(() => svc.accounts().find((a) => a.name === 'Delta Fitness')?.lastSyncedAt, 3000);
		expect((await post(svc, '/v1/diagnostics', { campaign_id: c.id })).status).toBe(202);
		expect(svc.accounts().find((a) => a.name === 'Delta Fitness')?.lastSyncedAt).toBeDefined();
	});

	test('addAccount({syncing}) + addCampaigns: unsynced; a normal new account is synced', async () => {
		const acc = svc.addAccount({ name: 'Echo Bikes', syncing: true });
		const [c] = svc.addCampaigns(acc.id, 2);
		expectError(
			await post(svc, '/v1/diagnostics', { campaign_id: c.id }),
			422,
			'campaign_not_synced',
		);
		const plain = svc.addAccount({ name: 'Foxtrot Foods' });
		const [p] = svc.addCampaigns(plain.id, 1);
		expect((await post(svc, '/v1/diagnostics', { campaign_id: p.id })).status).toBe(202);
		expect(
			(await get(svc, `/v1/campaigns?accountId=${acc.platformAccountId}`)).body.pagination.total,
		).toBe(2);
	});

	test('unknown campaign → 404; invalid body → 400 naming campaign_id; unknown diagnostic → 404', async () => {
		expectError(
			await post(svc, '/v1/diagnostics', { campaign_id: 'camp_nothinghere' }),
			404,
			'not_found',
		);
		const missing = await post(svc, '/v1/diagnostics', {});
		expectError(missing, 400, 'invalid_request');
		expect(missing.body.error.message).toContain('campaign_id');
		expectError(await post(svc, '/v1/diagnostics', { campaign_id: 7 }), 400, 'invalid_request');
		expectError(await get(svc, '/v1/diagnostics/diag_000000000000'), 404, 'not_found');
	});

	test("another workspace's diagnostic → 403 permission_error", async () => {
		const key = svc.keys.otherWorkspace;
		const bCampaign = (await get(svc, '/v1/campaigns', { key })).body.data[0].id;
		const res = await post(svc, '/v1/diagnostics', { campaign_id: bCampaign }, { key });
		expect(res.status).toBe(202);
		expectError(await get(svc, `/v1/diagnostics/${res.body.data.id}`), 403, 'permission_error');
		expect((await get(svc, `/v1/diagnostics/${res.body.data.id}`, { key })).status).toBe(200);
	});

	test('failNextDiagnostics → failed with error', async () => {
		svc.failNextDiagnostics(1);
		const res = await post(svc, '/v1/diagnostics', { campaign_id: acmeCampaign(svc) });
		const d: Diagnostic = await waitFor(async () => {
			const r = await get(svc, `/v1/diagnostics/${res.body.data.id}`);
			return r.body.data.status !== 'running' ? r.body.data : undefined;
		}, 2000);
		expect(d.status).toBe('failed');
		expect(typeof d.error?.type).toBe('string');
		expect(typeof d.error?.message).toBe('string');
		expect(d.recommendations).toBeUndefined();
	});

	test('setCampaignRisk: the next diagnostics score that risk, issues within 20 of it; null draws again', async () => {
		const campaign = acmeCampaign(svc, 1);
		const finished = async () => {
			const res = await post(svc, '/v1/diagnostics', { campaign_id: campaign });
			return waitFor(async () => {
				const r = await get(svc, `/v1/diagnostics/${res.body.data.id}`);
				return r.body.data.status !== 'running' ? (r.body.data as Diagnostic) : undefined;
			}, 2000);
		};
		svc.setCampaignRisk(campaign, 96);
		const d = await finished();
		expect(d.riskScore).toBe(96);
		for (const issue of d.issues ?? []) {
			expect(issue.riskScore).toBeGreaterThanOrEqual(76);
			expect(issue.severity).toBe('CRITICAL');
		}
		expect(() => svc.setCampaignRisk(campaign, 101)).toThrow(/0 to 100/);
		expect(() => svc.setCampaignRisk('camp_none', 50)).toThrow(/unknown campaign/);
		svc.setCampaignRisk(campaign, null);
	});

	test('holdRunningDiagnostics keeps a running diagnostic running, and leaves finished ones alone', async () => {
		const first = await post(svc, '/v1/diagnostics', { campaign_id: acmeCampaign(svc, 0) });
		await waitFor(async () => {
			const r = await get(svc, `/v1/diagnostics/${first.body.data.id}`);
			return r.body.data.status === 'completed' ? true : undefined;
		}, 2000);
		const second = await post(svc, '/v1/diagnostics', { campaign_id: acmeCampaign(svc, 1) });
		svc.holdRunningDiagnostics(60_000);
		await new Promise((resolve) => setTimeout(resolve, 400)); // past its 150-300 ms
		expect((await get(svc, `/v1/diagnostics/${second.body.data.id}`)).body.data.status).toBe(
			'running',
		);
		expect((await get(svc, `/v1/diagnostics/${first.body.data.id}`)).body.data.status).toBe(
			'completed',
		);
	});
});
