/**
 * Rows of the generated fault matrix for the paths that are not a node in a workflow: the tool
 * variants as n8n's AI Agent calls them (the arguments a model passes, read by `$fromAI`), the
 * trigger's poll in both modes (an active workflow's poll, and Fetch Test Event), and the
 * editor's list search of a resource locator. Each row's checks are the same promises as the
 * node rows': each record once and in order, nothing made twice, the key nowhere.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { AdPerformance } from '../../nodes/AdPerformance/AdPerformance.node';
import type { FakeService } from '../../sandbox/index.cjs';
import { type RunWorkflowResult } from '../harness/run-workflow.cjs';
import { AD_TOOL_NODE, listSearchContext, WAIT_TOOL_NODE } from '../nodes/helpers.cjs';
import {
	ActiveTrigger,
	completionsAfterBaseline,
} from '../nodes/AdPerformanceTrigger/poll-harness.cjs';
import { acmeOf, direct, type OperationRow } from './matrix.cjs';

function toolNode(resource: string, operation: string) {
	return { name: 'Ad Performance Tool', type: AD_TOOL_NODE, parameters: { resource, operation } };
}

/** The one answer item of a tool call. */
function answerOf(result: RunWorkflowResult): IDataObject {
	expect(result.items).toHaveLength(1);
	return result.items[0].json;
}

/** A result in a workflow run's shape, for a path that is not a workflow run. */
export async function asResult(
	work: () => Promise<INodeExecutionData[]>,
): Promise<RunWorkflowResult> {
	const started = Date.now();
	try {
		const items = await work();
		return { run: undefined as never, items, nodes: {}, durationMs: Date.now() - started };
	} catch (error) {
		return {
			run: undefined as never,
			items: [],
			nodes: {},
			error: error as RunWorkflowResult['error'],
			durationMs: Date.now() - started,
		};
	}
}

const reportIdsOf = (fake: FakeService) => new Set(fake.reports().map((r) => r.id));

export const PATH_ROWS: OperationRow[] = [
	{
		name: 'tool: campaign getAll, page 2',
		prepare: (service) => {
			service.fake.addCampaigns(acmeOf(service.fake).id, 40);
			return {
				nodes: [toolNode('campaign', 'getAll')],
				items: [{ limit: 10, page: 2 }],
				injectAt: { method: 'GET', pathPrefix: '/v1/campaigns' },
				verify: (result, fake) => {
					const answer = answerOf(result);
					const expected = fake
						.campaigns()
						.slice(10, 20)
						.map((c) => c.id);
					expect((answer.results as IDataObject[]).map((r) => r.id)).toEqual(expected);
					expect(answer.hasMore).toBe(true);
				},
			};
		},
	},
	{
		name: 'tool: report generate',
		prepare: (service) => {
			const account = acmeOf(service.fake).platformAccountId;
			const before = reportIdsOf(service.fake);
			return {
				nodes: [toolNode('report', 'generate')],
				items: [
					{ account, title: 'Tool fault report', dateStart: '2026-10-01', dateEnd: '2026-10-07' },
				],
				injectAt: { method: 'POST', pathPrefix: '/v1/reports' },
				verify: (result, fake) => {
					const created = fake.reports().filter((r) => !before.has(r.id));
					// Exactly one report for the one call, and the answer names it.
					expect(created.map((r) => r.title)).toEqual(['Tool fault report']);
					expect(answerOf(result).id).toBe(created[0].id);
				},
			};
		},
	},
	{
		name: 'tool: report download (as text)',
		prepare: (service) => {
			const report = service.fake.reports().find((r) => r.status === 'completed')!;
			return {
				nodes: [toolNode('report', 'download')],
				items: [{ reportId: report.id }],
				injectAt: { method: 'GET', pathPrefix: '/v1/reports/' },
				verify: (result) => {
					const answer = answerOf(result);
					expect(answer.id).toBe(report.id);
					expect(answer.status).toBe('completed');
				},
			};
		},
	},
	{
		name: 'tool: diagnostic run',
		waitsOutLag: true,
		timeScale: 0.01,
		prepare: (service) => {
			const campaign = service.fake
				.campaigns()
				.find((c) => c.accountId === acmeOf(service.fake).id)!;
			const before = service.fake.diagnostics().length;
			return {
				nodes: [toolNode('diagnostic', 'run')],
				items: [{ campaignId: campaign.id }],
				injectAt: { method: 'POST', pathPrefix: '/v1/diagnostics' },
				verify: (result, fake) => {
					const answer = answerOf(result);
					const started = fake.diagnostics().slice(before);
					expect(started.map((d) => d.id)).toContain(answer.id);
					expect(answer.campaignId).toBe(campaign.id);
				},
			};
		},
	},
	{
		name: 'wait tool: a generating report',
		waitsOutLag: true,
		prepare: async (service) => {
			const report = await direct(service.fake, 'POST', '/reports', {
				account_id: acmeOf(service.fake).platformAccountId,
				title: 'Waited by a model',
				date_start: '2026-10-01',
				date_end: '2026-10-07',
			});
			return {
				nodes: [{ name: 'Wait Tool', type: WAIT_TOOL_NODE, parameters: {} }],
				items: [{ reportId: report.id }],
				injectAt: { method: 'GET', pathPrefix: '/v1/reports' },
				verify: (result) => {
					const answer = answerOf(result);
					expect(answer.id).toBe(report.id);
					expect(answer.status).toBe('completed');
				},
			};
		},
	},
	{
		name: 'trigger: a poll after the baseline emits each completed report once',
		rereadsListings: true,
		prepare: async (service) => {
			const { trigger, completed: reports } = await completionsAfterBaseline(
				service,
				'Polled Co',
				3,
			);
			return {
				nodes: [],
				injectAt: { method: 'GET', pathPrefix: '/v1/reports' },
				execute: () => asResult(async () => (await trigger.poll()).items ?? []),
				verify: (result) => {
					expect(result.items.map((i) => i.json.id).sort()).toEqual(
						reports.map((r) => r.id).sort(),
					);
				},
			};
		},
	},
	{
		name: 'trigger: Fetch Test Event (manual mode)',
		prepare: (service) => {
			const trigger = new ActiveTrigger(
				{ event: 'reportCompleted' },
				service.credentials().adPerformanceApi,
			);
			return {
				nodes: [],
				injectAt: { method: 'GET', pathPrefix: '/v1/reports' },
				execute: () => asResult(async () => (await trigger.poll('manual')).items ?? []),
				verify: (result, fake) => {
					expect(result.items).toHaveLength(1);
					const completed = new Set(
						fake
							.reports()
							.filter((r) => r.status === 'completed')
							.map((r) => r.id),
					);
					expect(completed.has(result.items[0].json.id as string)).toBe(true);
				},
			};
		},
	},
	{
		name: 'list search: campaigns in the editor',
		// The editor waits for it: 3 attempts (methods/listSearch.ts), so 2 faults in a row.
		maxFaults: 2,
		prepare: (service) => {
			const { listSearch } = new AdPerformance().methods!;
			return {
				nodes: [],
				injectAt: { method: 'GET', pathPrefix: '/v1/campaigns' },
				execute: () =>
					asResult(async () => {
						const found = await listSearch!.searchCampaigns.call(
							listSearchContext(service, 'campaignId'),
						);
						return found.results.map((r) => ({ json: r as unknown as IDataObject }));
					}),
				verify: (result, fake) => {
					const values = result.items.map((i) => i.json.value);
					expect(values.length).toBeGreaterThan(0);
					expect(new Set(values).size).toBe(values.length);
					// The first page of the list, in the service's order.
					const ids = fake.campaigns().map((c) => c.id);
					expect(values).toEqual(ids.slice(0, values.length));
				},
			};
		},
	},
];
