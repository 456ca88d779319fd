import type { IDataObject } from 'n8n-workflow';

import { AdPerformance } from '../../../nodes/AdPerformance/AdPerformance.node';
import { listSearchContext as listSearchWith, useFakeService } from '../helpers.cjs';

const service = useFakeService({ timeScale: 0.01 });

const listSearchContext = () => listSearchWith(service);

const { listSearch } = new AdPerformance().methods;

describe('resource locator lists', () => {
	test('accounts: searchable by name, the value is the ad platform account id', async () => {
		const ctx = listSearchContext();
		const all = await listSearch.searchAccounts.call(ctx);
		expect(all.results.length).toBe(service.fake.accounts().length);
		for (const result of all.results) expect(result.value).toMatch(/^act_\d+$/);
		const bloom = await listSearch.searchAccounts.call(ctx, 'bloom');
		expect(bloom.results).toHaveLength(1);
		expect(bloom.results[0].name).toBe('Bloom Cosmetics (token expired)');
		expect(bloom.results[0].value).toBe(
			service.fake.accounts().find((a) => a.name === 'Bloom Cosmetics')!.platformAccountId,
		);
	});

	test('campaigns: pages of 100 with a pagination token, filtered by name', async () => {
		const acme = service.fake.accounts().find((a) => a.name === 'Acme Outdoor')!;
		service.fake.addCampaigns(acme.id, 150);
		const ctx = listSearchContext();
		const first = await listSearch.searchCampaigns.call(ctx);
		expect(first.results).toHaveLength(100);
		expect(first.paginationToken).toBe('2');
		const second = await listSearch.searchCampaigns.call(
			ctx,
			undefined,
			first.paginationToken as string,
		);
		expect(first.results.length + second.results.length).toBe(service.fake.campaigns().length);
		const name = service.fake.campaigns()[3].name;
		const filtered = await listSearch.searchCampaigns.call(ctx, name.slice(-12));
		expect(filtered.results.map((r) => r.value)).toContain(service.fake.campaigns()[3].id);
	});

	test('records of other shapes than documented are listed by what is text in them, never a crash', async () => {
		const odd = (list: IDataObject[]) => ({
			status: 200,
			json: { data: list, pagination: { total: list.length, hasMore: 'yes' } },
		});
		const ctx = listSearchContext();
		const removeAccounts = service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/accounts',
			respond: () =>
				odd([
					{ id: 'act_a', platformAccountId: 'act_1', name: { en: 'x' }, connectionStatus: 7 },
					{ id: 5, platformAccountId: 123456789, name: 'Numbers', businessName: 42 },
					{ id: 'act_c', platformAccountId: { id: 'act_2' }, name: 'No usable value' },
					{
						id: 'act_d',
						platformAccountId: 'act_3',
						name: 'Expired',
						connectionStatus: 'token_expired',
					},
				]),
		});
		try {
			expect(await listSearch.searchAccounts.call(ctx)).toEqual({
				results: [
					{ name: 'act_a', value: 'act_1' },
					{ name: 'Numbers', value: '123456789' },
					{ name: 'Expired (token expired)', value: 'act_3' },
				],
				paginationToken: undefined,
			});
			expect((await listSearch.searchAccounts.call(ctx, '42')).results).toEqual([
				{ name: 'Numbers', value: '123456789' },
			]);
		} finally {
			removeAccounts();
		}
		const removeCampaigns = service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/campaigns',
			respond: () =>
				odd([
					{ id: 'camp_1', name: ['x'], status: { s: 1 } },
					{ id: null, name: 'No id' },
					{ id: 'camp_2', name: 'Spring', status: 'ACTIVE' },
				]),
		});
		try {
			expect((await listSearch.searchCampaigns.call(ctx)).results).toEqual([
				{ name: 'camp_1', value: 'camp_1' },
				{ name: 'Spring · ACTIVE', value: 'camp_2' },
			]);
		} finally {
			removeCampaigns();
		}
	});
});
