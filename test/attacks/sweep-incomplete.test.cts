/**
 * Attack (#30, the Wait sweep's listing cut short): a report the Wait node looks for is not on
 * the first page of a report list whose first page says it is the last while its total says more
 * exist. The sweep's listing is then not whole: at the Timeout the report is not called "not
 * found" (it may well exist, further down), but the list's contradiction is named.
 */
import type { IDataObject } from 'n8n-workflow';

import { WAIT_NODE } from '../nodes/helpers.cjs';
import { runAttack, useHostileService } from './helpers.cjs';

const service = useHostileService();

interface ReportList {
	data: IDataObject[];
	pagination: IDataObject;
}

test('a report missing from a list whose pages contradict themselves is not "not found"', async () => {
	// The oldest report is on the list's last page (newest first, 100 a page).
	for (let n = service.fake.reports().length; n < 150; n++)
		service.fake.addReports(1, { status: 'completed' });
	const reports = service.fake.reports();
	const oldest = reports.reduce((a, b) => (String(a.createdAt) < String(b.createdAt) ? a : b));
	service.fake.intercept({
		method: 'GET',
		pathPrefix: '/v1/reports',
		respond: (request, real) => {
			const reply = real();
			const body = reply.json as ReportList;
			// Every page says it is the last, whatever its total: the walk never reaches page 2.
			return { status: 200, json: { ...body, pagination: { ...body.pagination, hasMore: false } } };
		},
	});
	const result = await runAttack(service, [
		{
			name: 'Wait for Ad Report',
			type: WAIT_NODE,
			parameters: {
				reportId: oldest.id,
				timeoutSeconds: 2,
				pollIntervalSeconds: 0.5,
				download: false,
			},
		},
	]);
	expect((result.error?.context as IDataObject | undefined)?.errorType).toBe('protocol_error');
	expect(result.error?.message).toMatch(
		/was not in the report list, but the list did not agree with itself/,
	);
}, 30_000);
