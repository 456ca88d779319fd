/**
 * Attack (#26, a listing that contradicts itself taken as complete): a page whose record count,
 * `total` and `hasMore` contradict one another is a protocol error naming the endpoint, through
 * Get Many and through the trigger; and the trigger infers that an account was removed only
 * from a complete listing, never from pages that shifted while it read them.
 */
import type { IDataObject } from 'n8n-workflow';

import { SERVICE_VERSION } from '../../sandbox/index.cjs';
import { ActiveTrigger } from '../nodes/AdPerformanceTrigger/poll-harness.cjs';
import { allAccountsOnce, errorText, runAttack, useHostileService } from './helpers.cjs';

const service = useHostileService();

const ACCOUNTS = 250;

interface AccountList {
	data: IDataObject[];
	pagination: { total: number; page: number; page_size: number; hasMore: boolean };
}

beforeAll(() => {
	for (let n = service.fake.accounts().length; n < ACCOUNTS; n++) {
		service.fake.addAccount({ name: `Listing ${n}` });
	}
});

/** The first page of the accounts list says it is the last, while its total is 250. */
function firstPageSaysLast() {
	service.fake.intercept({
		method: 'GET',
		pathPrefix: '/v1/accounts',
		respond: (request, real) => {
			const reply = real();
			if (request.query.page !== '1') return { reply };
			const body = reply.json as AccountList;
			return { status: 200, json: { ...body, pagination: { ...body.pagination, hasMore: false } } };
		},
	});
}

/** Every account in the service's order, as GET /v1/accounts lists them. */
async function listedAccounts(): Promise<IDataObject[]> {
	const accounts: IDataObject[] = [];
	for (let page = 1; ; page++) {
		const response = await fetch(`${service.fake.url}/v1/accounts?page=${page}&page_size=100`, {
			headers: { 'x-api-key': service.fake.keys.live, 'service-version': SERVICE_VERSION },
		});
		const body = (await response.json()) as AccountList;
		accounts.push(...body.data);
		if (!body.pagination.hasMore) return accounts;
	}
}

/**
 * Pages as a service answers them while the first account is removed between page 1 and
 * page 2: page 1 from the list of 250, the later pages from the list of 249. Each page agrees
 * with itself; together they skip the account that moved up onto page 1.
 */
function firstAccountRemovedAfterPageOne(accounts: IDataObject[]) {
	const after = accounts.slice(1);
	service.fake.intercept({
		method: 'GET',
		pathPrefix: '/v1/accounts',
		respond: (request) => {
			const page = Number(request.query.page);
			const size = Number(request.query.page_size);
			const list = page === 1 ? accounts : after;
			return {
				status: 200,
				json: {
					data: list.slice((page - 1) * size, page * size),
					pagination: {
						total: list.length,
						page,
						page_size: size,
						hasMore: page * size < list.length,
					},
					meta: { remaining_requests: 100 },
				},
			};
		},
	});
}

const CONTRADICTION =
	'The service sent an answer that is not in its documented format (GET /v1/accounts): page 1 said it was the last (hasMore: false) with 100 records in all, yet gave a total of 250';

describe('a listing is complete only when it agrees with itself', () => {
	test('Account → Get Many: a page with total 250, hasMore false and 100 records is a protocol error', async () => {
		firstPageSaysLast();
		const result = await runAttack(service, [allAccountsOnce()]);
		expect(result.error?.message).toBe(CONTRADICTION);
		expect(errorText(result)).not.toMatch(/made no progress/);
	});

	test('the trigger: the same page announces no removal, keeps its state, and nothing comes back as new', async () => {
		const trigger = new ActiveTrigger(
			{ event: 'accountConnectionChanged', requestOptions: { maxAttempts: 1 } },
			service.credentials().adPerformanceApi,
		);
		expect((await trigger.poll()).items).toBeNull(); // baseline of 250 accounts
		const before = trigger.staticData;
		firstPageSaysLast();
		await expect(trigger.poll()).rejects.toThrow(CONTRADICTION);
		expect(trigger.staticData).toEqual(before);
		service.fake.clearIntercepts();
		expect((await trigger.poll()).items).toBeNull();
	});

	test('the trigger: pages that shifted while it read them (a removal between pages) announce no phantom removal', async () => {
		const trigger = new ActiveTrigger(
			{ event: 'accountConnectionChanged' },
			service.credentials().adPerformanceApi,
		);
		expect((await trigger.poll()).items).toBeNull(); // baseline of 250 accounts
		firstAccountRemovedAfterPageOne(await listedAccounts());
		// Account 101 moved onto page 1 after page 1 was read: it was not seen, yet it is there.
		expect((await trigger.poll()).items).toBeNull();
		service.fake.clearIntercepts();
		expect((await trigger.poll()).items).toBeNull();
	});
});
