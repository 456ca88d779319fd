import { startFakeService, type FakeService } from '../../sandbox/index.cjs';
import { expectError, get, post, reportBody, type CallResult } from './helpers.cjs';

/** One case per error type of the service, plus 409 report_not_ready: status, type, envelope without meta. */
describe('fake service: every documented error (+ report_not_ready)', () => {
	let svc: FakeService;
	beforeAll(async () => {
		svc = await startFakeService({
			timeScale: 0.1,
			limits: { write: 1000, generations: 1000, diagnosticRuns: 1000 },
		});
	});
	afterAll(() => svc.stop());

	const bCampaign = async (): Promise<string> =>
		(await get(svc, '/v1/campaigns', { key: svc.keys.otherWorkspace })).body.data[0].id;
	const deltaCampaign = (): string => {
		const delta = svc.accounts().find((a) => a.name === 'Delta Fitness');
		return (svc.campaigns().find((c) => c.accountId === delta?.id) as { id: string }).id;
	};

	const cases: Array<[number, string, () => Promise<CallResult>]> = [
		[400, 'invalid_request', () => post(svc, '/v1/reports', reportBody(svc, { title: undefined }))],
		[
			400,
			'invalid_date_range',
			() =>
				post(
					svc,
					'/v1/reports',
					reportBody(svc, { date_start: '2026-01-01', date_end: '2026-06-01' }),
				),
		],
		[
			400,
			'too_many_campaigns',
			() =>
				post(
					svc,
					'/v1/reports',
					reportBody(svc, { campaign_ids: Array.from({ length: 25 }, (_, i) => `camp_${i}`) }),
				),
		],
		[401, 'authentication_error', () => get(svc, '/v1/reports', { key: 'nope' })],
		[401, 'key_revoked', () => get(svc, '/v1/reports', { key: svc.keys.revoked })],
		[403, 'permission_error', async () => get(svc, `/v1/campaigns/${await bCampaign()}`)],
		[403, 'plan_insufficient', () => get(svc, '/v1/reports', { key: svc.keys.nonAgency })],
		[
			403,
			'white_label_not_available',
			async () => {
				const key = svc.keys.noWhiteLabel;
				const acc = (await get(svc, '/v1/accounts', { key })).body.data[0];
				return post(
					svc,
					'/v1/reports',
					{
						account_id: acc.platformAccountId,
						title: 't',
						date_start: '2026-01-01',
						date_end: '2026-01-02',
						whiteLabel: { companyName: 'A' },
					},
					{ key },
				);
			},
		],
		[404, 'not_found', () => get(svc, '/v1/campaigns/camp_000000000000')],
		[
			409,
			'diagnostic_in_progress',
			async () => {
				const id = svc.campaigns()[0].id;
				await post(svc, '/v1/diagnostics', { campaign_id: id });
				return post(svc, '/v1/diagnostics', { campaign_id: id });
			},
		],
		[
			409,
			'report_not_ready',
			async () =>
				get(
					svc,
					`/v1/reports/${(await post(svc, '/v1/reports', reportBody(svc))).body.data.id}/download`,
				),
		],
		[
			422,
			'campaign_not_synced',
			() => post(svc, '/v1/diagnostics', { campaign_id: deltaCampaign() }),
		],
		[
			429,
			'rate_limit_error',
			async () => {
				const s = await startFakeService({ timeScale: 0.01, limits: { read: 0 } });
				try {
					return await get(s, '/v1/accounts');
				} finally {
					await s.stop();
				}
			},
		],
		[
			500,
			'api_error',
			() => {
				svc.injectOnce({ kind: '500', pathPrefix: '/v1/accounts' });
				return get(svc, '/v1/accounts');
			},
		],
	];

	test.each(cases)('%i %s', async (status, type, make) => {
		const res = await make();
		expectError(res, status, type);
		expect(res.headers.get('content-type')).toMatch(/^application\/json/);
	});
});
