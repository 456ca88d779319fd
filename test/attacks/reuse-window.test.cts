/**
 * Attack (#30, the Reuse search's window cut short): the identical report is on page 2 of the
 * window, and the service's page 1 says it is the last without its page and page size while its
 * total says more. "No identical report" is concluded only from a whole answer: the node reuses
 * the report or fails saying the list contradicted itself; it never generates a second one.
 */
import type { IDataObject } from 'n8n-workflow';

import { AD_NODE, rl } from '../nodes/helpers.cjs';
import { reportPastTheFirstPage, runAttack, useHostileService } from './helpers.cjs';

const service = useHostileService();

test('a first page that says it is the last, without page and page_size, makes no second report', async () => {
	const { account, campaigns } = reportPastTheFirstPage(service, 'Cut window', {
		from: '2026-06-01',
		to: '2026-06-07',
	});
	service.fake.intercept({
		method: 'GET',
		pathPrefix: '/v1/reports',
		respond: (_request, real) => {
			const body = real().json as { data: IDataObject[]; pagination: IDataObject };
			const { total } = body.pagination;
			return { status: 200, json: { data: body.data, pagination: { total, hasMore: false } } };
		},
	});
	service.fake.clearLog();
	const result = await runAttack(service, [
		{
			name: 'Ad Performance',
			type: AD_NODE,
			parameters: {
				resource: 'report',
				operation: 'generate',
				accountId: rl(account.platformAccountId),
				title: 'Cut window',
				dateStart: '2026-06-01',
				dateEnd: '2026-06-07',
				additionalFields: { reuseRecentReport: true, campaignIds: campaigns.join(',') },
				requestOptions: { maxAttempts: 2 },
			},
		},
	]);
	expect(service.fake.log.filter((entry) => entry.method === 'POST')).toHaveLength(0);
	// Read again (the list may have shifted), then refused: no window is concluded from it.
	expect(result.error?.message).toMatch(
		/report list did not agree with itself .*cannot tell whether an identical report exists/,
	);
	expect((result.error?.context as { errorType?: string } | undefined)?.errorType).toBe(
		'protocol_error',
	);
	expect(
		service.fake.log.filter((entry) => entry.method === 'GET' && entry.path === '/v1/reports'),
	).toHaveLength(3);
});
