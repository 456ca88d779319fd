import type { IDataObject } from 'n8n-workflow';

import { useFakeService } from '../helpers.cjs';
import { ActiveTrigger } from './poll-harness.cjs';

const service = useFakeService({ timeScale: 0.01 });

function trigger(accountId?: string) {
	const parameters: IDataObject = { event: 'accountConnectionChanged' };
	if (accountId) parameters.filters = { accountId };
	return new ActiveTrigger(parameters, service.credentials().adPerformanceApi);
}

async function poll(t: ActiveTrigger, mode?: 'manual') {
	service.fake.clearLog();
	const result = await t.poll(mode);
	return result;
}

function changes(items: Array<{ json: IDataObject }> | null) {
	return (items ?? []).map(({ json }) => ({
		id: (json.account as IDataObject).id,
		previousStatus: json.previousStatus,
		currentStatus: json.currentStatus,
	}));
}

describe('Ad Performance Trigger: Account Connection Changed', () => {
	test('baseline, then token expiry, disconnection and reconnection each emitted once', async () => {
		const t = trigger();
		const first = await poll(t);
		expect(first.items).toBeNull();
		const statuses = (first.nodeStaticData.state as { statuses: Array<[string, string]> }).statuses;
		expect(statuses.map(([id]) => id).sort()).toEqual(
			service.fake
				.accounts()
				.map((account) => account.id)
				.sort(),
		);
		expect(service.fake.log).toHaveLength(1);
		expect(service.fake.log[0].query.page_size).toBe('100');

		expect((await poll(t)).items).toBeNull();
		expect(service.fake.log).toHaveLength(1);

		const acme = service.fake.accounts().find((a) => a.name === 'Acme Outdoor')!;
		const bloom = service.fake.accounts().find((a) => a.name === 'Bloom Cosmetics')!;
		expect(bloom.connectionStatus).toBe('token_expired');

		service.fake.setConnectionStatus(acme.id, 'token_expired');
		const expiry = await poll(t);
		expect(changes(expiry.items)).toEqual([
			{ id: acme.id, previousStatus: 'active', currentStatus: 'token_expired' },
		]);
		expect(expiry.items![0].json.account).toMatchObject({
			id: acme.id,
			name: 'Acme Outdoor',
			platformAccountId: acme.platformAccountId,
			connectionStatus: 'token_expired',
		});
		expect((await poll(t)).items).toBeNull();
		expect((await poll(t)).items).toBeNull();

		// Two changes within one interval come out of the same poll.
		service.fake.setConnectionStatus(acme.id, 'active');
		service.fake.setConnectionStatus(bloom.id, 'disconnected');
		expect(changes((await poll(t)).items)).toEqual(
			expect.arrayContaining([
				{ id: acme.id, previousStatus: 'token_expired', currentStatus: 'active' },
				{ id: bloom.id, previousStatus: 'token_expired', currentStatus: 'disconnected' },
			]),
		);
		expect((await poll(t)).items).toBeNull();

		// Restart: the snapshot is read back from storage; nothing is emitted again.
		t.restart();
		expect((await poll(t)).items).toBeNull();
		service.fake.setConnectionStatus(bloom.id, 'active');
		t.restart();
		expect(changes((await poll(t)).items)).toEqual([
			{ id: bloom.id, previousStatus: 'disconnected', currentStatus: 'active' },
		]);
		expect((await poll(t)).items).toBeNull();
	});

	test('a newly connected account is emitted once with previousStatus null', async () => {
		const t = trigger();
		await poll(t);
		const fresh = service.fake.addAccount({ name: 'Newly Connected' });
		const out = await poll(t);
		expect(changes(out.items)).toEqual([
			{ id: fresh.id, previousStatus: null, currentStatus: 'active' },
		]);
		expect((await poll(t)).items).toBeNull();
	});

	test('filters.accountId (service or ad platform ID) narrows to one account', async () => {
		const watched = service.fake.addAccount({ name: 'Watched' });
		const other = service.fake.addAccount({ name: 'Not Watched' });
		for (const id of [watched.id, watched.platformAccountId]) {
			const t = trigger(id);
			await poll(t);
			const statuses = (t.staticData['node:Ad Performance Trigger'] as IDataObject).state as {
				statuses: Array<[string, string]>;
			};
			expect(statuses.statuses).toEqual([[watched.id, 'active']]);
			service.fake.setConnectionStatus(other.id, 'token_expired');
			expect((await poll(t)).items).toBeNull();
			service.fake.setConnectionStatus(watched.id, 'disconnected');
			expect(changes((await poll(t)).items)).toEqual([
				{ id: watched.id, previousStatus: 'active', currentStatus: 'disconnected' },
			]);
			service.fake.setConnectionStatus(watched.id, 'active');
			service.fake.setConnectionStatus(other.id, 'active');
			expect(changes((await poll(t)).items)).toEqual([
				{ id: watched.id, previousStatus: 'disconnected', currentStatus: 'active' },
			]);
		}
	});

	test('changing the event or the filter starts a new baseline instead of replaying', async () => {
		const t = trigger();
		await poll(t);
		const acme = service.fake.accounts().find((a) => a.name === 'Acme Outdoor')!;
		const filtered = new ActiveTrigger(
			{ event: 'accountConnectionChanged', filters: { accountId: acme.id } },
			service.credentials().adPerformanceApi,
			t.staticData,
		);
		expect((await poll(filtered)).items).toBeNull();
		const stored = filtered.staticData['node:Ad Performance Trigger'] as IDataObject;
		expect(stored.scope).toBe(`accountConnectionChanged:${acme.id}`);
		const reports = new ActiveTrigger(
			{ event: 'reportCompleted' },
			service.credentials().adPerformanceApi,
			filtered.staticData,
		);
		expect((await reports.poll()).items).toBeNull();
		const replaced = reports.staticData['node:Ad Performance Trigger'] as IDataObject;
		expect(Object.keys(replaced).sort()).toEqual(['scope', 'state', 'version']);
		expect(Object.keys(replaced.state as IDataObject).sort()).toEqual(['cursor', 'emitted']);
	});

	test('manual mode returns a sample in the output shape without touching static data', async () => {
		const t = trigger();
		await poll(t);
		const stored = t.staticData;
		const sample = await poll(t, 'manual');
		expect(sample.items).toHaveLength(1);
		const json = sample.items![0].json;
		expect(json.account).toMatchObject({
			id: expect.any(String),
			connectionStatus: expect.any(String),
		});
		expect(json.previousStatus).toBe((json.account as IDataObject).connectionStatus);
		expect(json.currentStatus).toBe((json.account as IDataObject).connectionStatus);
		expect(service.fake.log).toHaveLength(1);
		expect(t.staticData).toEqual(stored);

		const fresh = new ActiveTrigger(
			{ event: 'accountConnectionChanged' },
			service.credentials().adPerformanceApi,
		);
		await poll(fresh, 'manual');
		expect(fresh.staticData).toEqual({});
	});

	test('a malformed account filter is refused before any request', async () => {
		const t = trigger('camp_123');
		service.fake.clearLog();
		await expect(t.poll()).rejects.toMatchObject({
			name: 'NodeOperationError',
			message: expect.stringMatching(/^Account ID: /),
		});
		expect(service.fake.log).toHaveLength(0);
	});
});
