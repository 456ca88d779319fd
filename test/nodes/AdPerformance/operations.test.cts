import { adNode, apiRequests, rl, run, useFakeService } from '../helpers.cjs';

const service = useFakeService();

describe('Ad Performance node through n8n’s engine against the fake service', () => {
	test('the credential puts x-api-key and service-version on every request', async () => {
		const result = await run(service, [
			adNode({ resource: 'account', operation: 'getAll', returnAll: true }),
		]);
		expect(result.error).toBeUndefined();
		const [request] = apiRequests(service);
		expect(request.headers['x-api-key']).toBe(service.fake.keys.live);
		expect(request.headers['service-version']).toBe('2026-03-01');
		expect(request.path).toBe('/v1/accounts');
	});

	test('a trailing slash or /v1 in the Base URL does not break paths', async () => {
		for (const suffix of ['/', '/v1', '/v1/']) {
			const result = await run(
				service,
				[adNode({ resource: 'account', operation: 'getAll', returnAll: true })],
				{
					credentials: { baseUrl: `${service.fake.url}${suffix}` },
				},
			);
			expect(result.error).toBeUndefined();
			expect(apiRequests(service).map((r) => r.path)).toEqual(['/v1/accounts']);
		}
	});

	test('a wrong key produces n8n’s error for that node, naming the fix', async () => {
		const result = await run(
			service,
			[adNode({ resource: 'account', operation: 'getAll', returnAll: true })],
			{
				credentials: { apiKey: 'service_live_' + 'x'.repeat(30) },
			},
		);
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.message).toBe('The API key was not accepted');
		expect(result.error?.description).toMatch(/Settings → API Keys/);
		expect(result.error?.node?.name).toBe('Ad Performance');
		expect(apiRequests(service)).toHaveLength(1);
	});

	test('a key without the service prefix is refused before any request, saying so', async () => {
		const result = await run(
			service,
			[adNode({ resource: 'account', operation: 'getAll', returnAll: true })],
			{
				credentials: { apiKey: 'sk_live_abcdefghijklmnopqrstuvwxyz' },
			},
		);
		expect(result.error?.message).toMatch(/does not look like a service key/);
		expect(result.error?.description).toMatch(/service_live_ or service_test_/);
		expect(apiRequests(service)).toHaveLength(0);
	});

	test('Account → Get Many filters by connection status', async () => {
		const result = await run(service, [
			adNode({
				resource: 'account',
				operation: 'getAll',
				returnAll: true,
				filters: { connectionStatus: 'token_expired' },
			}),
		]);
		expect(result.items.map((i) => i.json.name)).toEqual(['Bloom Cosmetics']);
		expect(apiRequests(service)[0].query.status).toBe('token_expired');
	});

	test('Return All over 250 records takes 3 requests of 100; Limit asks only for what it needs', async () => {
		const acme = service.fake.accounts().find((a) => a.name === 'Acme Outdoor')!;
		const before = service.fake.campaigns().length;
		service.fake.addCampaigns(acme.id, 260 - before);
		expect(service.fake.campaigns()).toHaveLength(260);

		const all = await run(service, [
			adNode({ resource: 'campaign', operation: 'getAll', returnAll: true }),
		]);
		expect(all.items).toHaveLength(260);
		expect(new Set(all.items.map((i) => i.json.id)).size).toBe(260);
		expect(apiRequests(service).map((r) => [r.query.page, r.query.page_size])).toEqual([
			['1', '100'],
			['2', '100'],
			['3', '100'],
		]);

		const few = await run(service, [
			adNode({ resource: 'campaign', operation: 'getAll', returnAll: false, limit: 30 }),
		]);
		expect(few.items).toHaveLength(30);
		expect(apiRequests(service).map((r) => [r.query.page, r.query.page_size])).toEqual([
			['1', '30'],
		]);

		const some = await run(service, [
			adNode({ resource: 'campaign', operation: 'getAll', returnAll: false, limit: 150 }),
		]);
		expect(some.items).toHaveLength(150);
		expect(apiRequests(service)).toHaveLength(2);
	});

	test('Campaign → Get by ID and by list value; filters on Get Many', async () => {
		const campaign = service.fake.campaigns()[0];
		for (const mode of ['id', 'list'] as const) {
			const result = await run(service, [
				adNode({ resource: 'campaign', operation: 'get', campaignId: rl(campaign.id, mode) }),
			]);
			expect(result.items).toHaveLength(1);
			expect(result.items[0].json).toMatchObject({ id: campaign.id, name: campaign.name });
		}
		const paused = await run(service, [
			adNode({
				resource: 'campaign',
				operation: 'getAll',
				returnAll: true,
				filters: { status: 'PAUSED', accountId: campaign.accountId },
			}),
		]);
		expect(paused.items.length).toBeGreaterThan(0);
		for (const item of paused.items)
			expect(item.json).toMatchObject({ status: 'PAUSED', accountId: campaign.accountId });
	});

	test('Report → Generate sends exactly the fields set, and Get finds it by listing', async () => {
		const acme = service.fake.accounts().find((a) => a.name === 'Acme Outdoor')!;
		const generated = await run(service, [
			adNode({
				resource: 'report',
				operation: 'generate',
				accountId: rl(acme.platformAccountId),
				title: 'Weekly – Acme',
				dateStart: '2026-11-01',
				dateEnd: '2026-11-07',
				additionalFields: { format: 'markdown', campaignIds: ' ' },
			}),
		]);
		expect(generated.error).toBeUndefined();
		const report = generated.items[0].json;
		expect(report.id).toMatch(/^rpt_/);
		expect(['pending', 'generating']).toContain(report.status);
		const [post] = apiRequests(service, { method: 'POST' });
		expect(post.body).toEqual({
			account_id: acme.platformAccountId,
			title: 'Weekly – Acme',
			date_start: '2026-11-01',
			date_end: '2026-11-07',
			format: 'markdown',
		});

		const got = await run(service, [
			adNode({ resource: 'report', operation: 'get', reportId: report.id as string }),
		]);
		expect(got.items[0].json).toMatchObject({
			id: report.id,
			title: 'Weekly – Acme',
			format: 'markdown',
		});

		const narrowed = await run(service, [
			adNode({
				resource: 'report',
				operation: 'get',
				reportId: report.id as string,
				options: { accountId: acme.platformAccountId, createdAfter: report.createdAt },
			}),
		]);
		expect(narrowed.items[0].json.id).toBe(report.id);
		expect(apiRequests(service)[0].query).toMatchObject({
			accountId: acme.platformAccountId,
			from: report.createdAt,
		});
	});

	test('Report → Get of an unknown id is a not-found error naming the report', async () => {
		const result = await run(service, [
			adNode({ resource: 'report', operation: 'get', reportId: 'rpt_doesnotexist00' }),
		]);
		expect(result.error?.message).toBe('Report rpt_doesnotexist00 was not found');
	});

	test('Report → Get Many with filters and a limit', async () => {
		const result = await run(service, [
			adNode({
				resource: 'report',
				operation: 'getAll',
				returnAll: false,
				limit: 2,
				filters: { status: 'completed' },
			}),
		]);
		expect(result.items).toHaveLength(2);
		for (const item of result.items) expect(item.json.status).toBe('completed');
		expect(apiRequests(service)[0].query).toMatchObject({ status: 'completed', page_size: '2' });
	});

	test('Report → Download puts the file into binary data with name and MIME type', async () => {
		const completed = service.fake.reports().filter((r) => r.status === 'completed');
		for (const format of ['pdf', 'markdown', 'json']) {
			const report = completed.find((r) => r.format === format)!;
			const result = await run(service, [
				adNode({
					resource: 'report',
					operation: 'download',
					reportId: report.id,
					binaryPropertyName: 'file',
				}),
				{
					name: 'Inspect',
					type: 'test.binaryInspector',
					parameters: { binaryPropertyName: 'file' },
				},
			]);
			expect(result.error).toBeUndefined();
			const file = result.items[0].json;
			const bytes = Buffer.from(file.base64 as string, 'base64');
			const expected = {
				pdf: 'application/pdf',
				markdown: 'text/markdown',
				json: 'application/json',
			}[format];
			expect(file.mimeType).toBe(expected);
			expect(file.fileName).toMatch({ pdf: /\.pdf$/, markdown: /\.md$/, json: /\.json$/ }[format]!);
			if (format === 'pdf') expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
			if (format === 'json') expect(() => JSON.parse(bytes.toString())).not.toThrow();
			if (format === 'markdown') expect(bytes.toString()).toContain('#');
		}
	});

	test('Diagnostic → Run waits for completion; Get returns the same record', async () => {
		const campaign = service.fake
			.campaigns()
			.find(
				(c) => service.fake.accounts().find((a) => a.id === c.accountId)?.name === 'Acme Outdoor',
			)!;
		const result = await run(service, [
			adNode({
				resource: 'diagnostic',
				operation: 'run',
				campaignId: rl(campaign.id),
				options: { pollIntervalSeconds: 0.1 },
			}),
		]);
		expect(result.error).toBeUndefined();
		const diagnostic = result.items[0].json;
		expect(diagnostic).toMatchObject({ campaignId: campaign.id, status: 'completed' });
		expect((diagnostic.recommendations as unknown[]).length).toBeGreaterThanOrEqual(1);
		const gets = apiRequests(service, { method: 'GET', pathPrefix: '/v1/diagnostics/' });
		expect(gets.length).toBeGreaterThanOrEqual(1);

		const got = await run(service, [
			adNode({ resource: 'diagnostic', operation: 'get', diagnosticId: diagnostic.id as string }),
		]);
		expect(got.items[0].json).toEqual(diagnostic);
	});

	test('Diagnostic → Run answers 409 and 422 with their plain meaning', async () => {
		const acme = service.fake.accounts().find((a) => a.name === 'Acme Outdoor')!;
		const campaign = service.fake.campaigns().filter((c) => c.accountId === acme.id)[1];
		// The first diagnostic runs 50–100 ms at this time scale: held running, so that a busy
		// machine cannot let it finish before the second item asks.
		service.fake.holdNextDiagnosticRunning(10_000);
		const twice = await run(
			service,
			[
				adNode(
					{
						resource: 'diagnostic',
						operation: 'run',
						campaignId: rl(campaign.id),
						options: { waitForCompletion: false },
					},
					{ continueOnFail: true },
				),
			],
			{ items: [{}, {}] },
		);
		expect(twice.items[0].json.status).toBe('running');
		expect(twice.items[1].json.error).toBe(
			`A diagnostic is already running for this campaign (campaign ${campaign.id})`,
		);

		// A freshly connected account syncs for 30–60 service seconds (0.3–0.6 s here).
		const fresh = service.fake.addAccount({ name: 'Fresh Client', syncing: true });
		const [unsynced] = service.fake.addCampaigns(fresh.id, 1);
		const result = await run(service, [
			adNode({ resource: 'diagnostic', operation: 'run', campaignId: rl(unsynced.id) }),
		]);
		expect(result.error?.message).toBe(
			`The campaign's data has not been synced yet (campaign ${unsynced.id})`,
		);
		expect(result.error?.description).toMatch(/30–60 seconds/);
	});

	test('every output item carries pairedItem pointing at its input', async () => {
		const result = await run(
			service,
			[adNode({ resource: 'account', operation: 'getAll', returnAll: true })],
			{ items: [{}, {}] },
		);
		const n = service.fake.accounts().length;
		expect(result.items).toHaveLength(2 * n);
		expect(result.items.map((i) => (i.pairedItem as { item: number }).item)).toEqual([
			...Array(n).fill(0),
			...Array(n).fill(1),
		]);
	});
});
