/**
 * Attack 7: duplicate-safe Generate across executions. After an answer that leaves open
 * whether the report was created, the node looks for the report its own request created: one
 * matching every field of the request and created after its first attempt by the service's
 * clock. Another execution's report, created meanwhile for other campaigns, another format or
 * the same request earlier, is never handed to this item.
 */
import type { IDataObject } from 'n8n-workflow';

import type { InterceptedRequest } from '../../sandbox/index.cjs';
import { adNode, apiRequests, rl } from '../nodes/helpers.cjs';
import { runAttack, useHostileService } from './helpers.cjs';

const service = useHostileService();

const TITLE = 'Weekly performance';
/**
 * Each test's own title, so a report an earlier test left (the same request, created within the
 * Date header's second) is never a candidate: only the reports a test makes itself are.
 */
let title = TITLE;
let testNumber = 0;
beforeEach(() => {
	title = `${TITLE} ${++testNumber}`;
});
const DATES = { date_start: '2026-10-01', date_end: '2026-10-07' };

function account() {
	return service.fake.accounts()[0];
}

function campaignsOf(accountId: string) {
	return service.fake.campaigns().filter((campaign) => campaign.accountId === accountId);
}

/** Another execution's POST /v1/reports, sent straight to the service. */
async function otherExecutionCreates(body: IDataObject): Promise<string> {
	const response = await fetch(`${service.fake.url}/v1/reports`, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			'x-api-key': service.fake.keys.live,
			'service-version': '2026-03-01',
		},
		body: JSON.stringify({
			account_id: account().platformAccountId,
			title,
			...DATES,
			...body,
		}),
	});
	expect(response.status).toBe(202);
	return ((await response.json()) as { data: { id: string } }).data.id;
}

/**
 * Our first POST: another execution creates its report while ours is under way, then ours is
 * answered 500 without having created anything (`createdByUs: false`) or after creating it.
 */
function firstPostRaces(other: IDataObject, createdByUs: boolean) {
	const ids: { other?: string } = {};
	service.fake.intercept({
		method: 'POST',
		pathPrefix: '/v1/reports',
		times: 1,
		respond: async (_request: InterceptedRequest, real) => {
			ids.other = await otherExecutionCreates(other);
			if (createdByUs) real();
			return { status: 500, json: { error: { type: 'api_error', message: 'Internal error.' } } };
		},
	});
	return ids;
}

/** POSTs the node sent (the other execution's go straight to the service with fetch). */
function ourPosts() {
	return apiRequests(service, { method: 'POST' }).filter(
		(entry) => entry.headers['user-agent'] !== 'node',
	);
}

function generate(extra: IDataObject = {}) {
	return adNode({
		resource: 'report',
		operation: 'generate',
		accountId: rl(account().platformAccountId),
		title,
		dateStart: DATES.date_start,
		dateEnd: DATES.date_end,
		...extra,
	});
}

describe('duplicate-safe Generate never takes another execution’s report', () => {
	test('another execution’s report for other campaigns is not ours', async () => {
		const [mine, theirs] = campaignsOf(account().id);
		const ids = firstPostRaces({ campaign_ids: [theirs.id] }, false);
		const result = await runAttack(service, [
			generate({ additionalFields: { campaignIds: mine.id } }),
		]);
		expect(result.error).toBeUndefined();
		const output = result.items[0].json;
		expect(output.id).not.toBe(ids.other);
		const created = service.fake.reports().find((report) => report.id === output.id);
		expect(created?.campaignIds).toEqual([mine.id]);
		// The lost attempt, then the resend after the search found nothing of ours.
		expect(ourPosts()).toHaveLength(2);
	});

	test('a Markdown report is not ours when we asked for the default format (PDF)', async () => {
		const ids = firstPostRaces({ format: 'markdown' }, false);
		const result = await runAttack(service, [generate()]);
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.id).not.toBe(ids.other);
		const created = service.fake.reports().find((report) => report.id === result.items[0].json.id);
		expect(created?.format).toBe('pdf');
	});

	test('a report for some campaigns is not ours when we asked for the whole account', async () => {
		const [theirs] = campaignsOf(account().id);
		const ids = firstPostRaces({ campaign_ids: [theirs.id] }, false);
		const result = await runAttack(service, [generate()]);
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.id).not.toBe(ids.other);
	});

	test('the same request sent earlier by another execution is not ours', async () => {
		const earlier = await otherExecutionCreates({});
		// Let the service's clock pass a few seconds (its Date header has whole seconds).
		await new Promise((resolve) => setTimeout(resolve, 2_500));
		service.fake.injectOnce({
			kind: '500',
			phase: 'before',
			method: 'POST',
			pathPrefix: '/v1/reports',
		});
		const result = await runAttack(service, [generate()]);
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.id).not.toBe(earlier);
		expect(ourPosts()).toHaveLength(2);
	});

	test('its own report, created before the answer was lost, is found and not created twice', async () => {
		const [mine, theirs] = campaignsOf(account().id);
		const before = service.fake.reports().length;
		const ids = firstPostRaces({ campaign_ids: [theirs.id] }, true);
		const result = await runAttack(service, [
			generate({ additionalFields: { campaignIds: mine.id } }),
		]);
		expect(result.error).toBeUndefined();
		// Two new reports: the other execution's and ours; ours was not sent again.
		expect(service.fake.reports().length).toBe(before + 2);
		expect(ourPosts()).toHaveLength(1);
		const output = result.items[0].json;
		expect(output.id).not.toBe(ids.other);
		expect(service.fake.reports().find((report) => report.id === output.id)?.campaignIds).toEqual([
			mine.id,
		]);
	});
});
