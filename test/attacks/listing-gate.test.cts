/**
 * The listing gate (#30), by generated cases: Report → Get walks the report list to find one
 * report (there is no GET of one report), and the list is made to disagree with itself in a
 * drawn way on a drawn page: a total that drifts, no total, a record of the page before
 * repeated (a shift after an insert), a record left out. "Not found" may be concluded only from
 * a complete listing: a disagreement that passes is read again; one that persists fails the
 * item as the list's contradiction (protocol_error), never as `not_found`. And the editor's list
 * search, which reads one page, never takes a contradictory page for the end of the list. The
 * trigger's poll reads the list the same way: a passing disagreement is read again and each
 * completed report emitted once; a lasting one fails the poll with its state kept, so the next
 * poll emits them.
 */
import { fc, test as fcTest } from '@fast-check/jest';
import type { IDataObject } from 'n8n-workflow';

import { AdPerformance } from '../../nodes/AdPerformance/AdPerformance.node';
import { AD_NODE, listSearchContext } from '../nodes/helpers.cjs';
import { completionsAfterBaseline } from '../nodes/AdPerformanceTrigger/poll-harness.cjs';
import { runAttack, useHostileService } from './helpers.cjs';

const service = useHostileService();

type Disagreement = 'totalDrift' | 'noTotal' | 'repeat' | 'omit';

const cases = fc.record({
	disagreement: fc.constantFrom<Disagreement>('totalDrift', 'noTotal', 'repeat', 'omit'),
	onPage: fc.integer({ min: 1, max: 3 }),
	/** Where the wanted report is in the list (the list holds about 250). */
	position: fc.integer({ min: 0, max: 240 }),
	persistent: fc.boolean(),
});

/**
 * Makes page `onPage` of GET /v1/reports disagree with the rest, in the first walk only or in
 * every walk (`persistent`); `missing` is the record that goes missing where the drawn way drops
 * one (the page's first record when it is not there).
 */
function disagree(
	how: { disagreement: Disagreement; onPage: number; persistent: boolean },
	missing?: string,
) {
	let walks = 0;
	service.fake.intercept({
		method: 'GET',
		pathPrefix: '/v1/reports',
		respond: (request, real) => {
			const page = Number(request.query.page ?? 1);
			if (page === 1) walks++;
			if (page !== how.onPage || (!how.persistent && walks > 1)) return undefined;
			const body = real().json as { data: IDataObject[]; pagination: IDataObject };
			const data = [...body.data];
			const pagination = { ...body.pagination };
			if (how.disagreement === 'totalDrift') pagination.total = Number(pagination.total) + 1;
			if (how.disagreement === 'noTotal') delete pagination.total;
			if (how.disagreement === 'repeat' || how.disagreement === 'omit') {
				data.splice(
					Math.max(
						0,
						data.findIndex((record) => record.id === missing),
					),
					1,
				);
				if (how.disagreement === 'repeat' && page > 1) {
					const before = service.fake.reports()[(page - 1) * 100 - 1];
					data.unshift(before as unknown as IDataObject);
				}
			}
			return { status: 200, json: { ...body, data, pagination } };
		},
	});
}

fcTest.prop([cases], { numRuns: Number(process.env.FC_RUNS ?? 12) })(
	'Report → Get never calls an existing report "not found" from a list that disagrees with itself',
	async ({ disagreement, onPage, position, persistent }) => {
		service.fake.clearIntercepts();
		if (service.fake.reports().length < 250) service.fake.addReports(250);
		const wanted = service.fake.reports()[position];
		disagree({ disagreement, onPage, persistent }, wanted.id);
		const result = await runAttack(service, [
			{
				name: 'Ad Performance',
				type: AD_NODE,
				parameters: { resource: 'report', operation: 'get', reportId: wanted.id },
			},
		]);
		service.fake.clearIntercepts();
		const errorType = (result.error?.context as { errorType?: string } | undefined)?.errorType;
		if (result.error) {
			expect(errorType).not.toBe('not_found');
			expect(errorType).toBe('protocol_error');
			// Only a disagreement that lasted can fail the item.
			expect(persistent).toBe(true);
		} else {
			expect(result.items.map((item) => item.json.id)).toEqual([wanted.id]);
		}
	},
	120_000,
);

test('the editor’s list search: a page that says it is the last while its total says more still offers the next page', async () => {
	service.fake.clearIntercepts();
	service.fake.addCampaigns(service.fake.accounts()[0].id, 150);
	service.fake.intercept({
		method: 'GET',
		pathPrefix: '/v1/campaigns',
		times: 1,
		respond: (_request, real) => {
			const body = real().json as { data: IDataObject[]; pagination: IDataObject };
			// A repeated record and "no more", under a total of 150 and more.
			const data = [body.data[0], ...body.data];
			return {
				status: 200,
				json: { ...body, data, pagination: { ...body.pagination, hasMore: false } },
			};
		},
	});
	const { listSearch } = new AdPerformance().methods;
	const found = await listSearch.searchCampaigns.call(listSearchContext(service, 'campaignId'));
	const values = found.results.map((result) => result.value);
	expect(new Set(values).size).toBe(values.length);
	expect(values.length).toBeLessThanOrEqual(100);
	expect(found.paginationToken).toBe('2');
});

fcTest.prop(
	[
		fc.record({
			disagreement: fc.constantFrom<Disagreement>('totalDrift', 'noTotal', 'repeat', 'omit'),
			onPage: fc.integer({ min: 1, max: 2 }),
			persistent: fc.boolean(),
		}),
	],
	{ numRuns: Number(process.env.FC_RUNS ?? 8) },
)(
	"the trigger's poll emits each completed report once from a list that disagrees with itself, or fails the poll and keeps its state",
	async (how) => {
		service.fake.clearIntercepts();
		const { trigger, completed } = await completionsAfterBaseline(service, 'Watched Co', 150);
		const before = trigger.nodeStaticData;
		disagree(how, completed[0].id);
		let emitted: string[] = [];
		try {
			emitted = ((await trigger.poll()).items ?? []).map((item) => item.json.id as string);
			expect(how.persistent).toBe(false);
		} catch (error) {
			expect((error as { context?: IDataObject }).context?.errorType).toBe('protocol_error');
			expect(how.persistent).toBe(true);
			expect(trigger.nodeStaticData).toEqual(before);
			service.fake.clearIntercepts();
			emitted = ((await trigger.poll()).items ?? []).map((item) => item.json.id as string);
		}
		service.fake.clearIntercepts();
		expect(emitted.sort()).toEqual(completed.map((report) => report.id).sort());
	},
	120_000,
);
