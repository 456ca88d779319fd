/**
 * The client watch's daily run at an agency's size (examples/client-watch.json): N clients with
 * M active campaigns each, in one process (n8n-core's WorkflowExecute, the example's Code nodes
 * as imported, the Ad Performance nodes against the fake at the service's limits). The data
 * tables are stood in by items: the directory, and no finding yet. Measured: the run's wall time
 * against the diagnostics bound (the diagnostics a run asks for at 10 a minute), answers of 429,
 * and what was read more than once.
 */
import type { IDataObject } from 'n8n-workflow';

import { startFakeService } from '../../sandbox/index.cjs';
import { exampleNode } from '../examples/compose.cjs';
import { runWorkflow, type WorkflowNodeInput } from '../harness/run-workflow.cjs';
import { AD_NODE, credentialsFor } from './rows.cjs';

const FILE = 'client-watch.json';
/** The example's default (its sticky note): diagnostics a client's campaigns get per run. */
const DIAGNOSTICS_PER_CLIENT = 2;
const DIAGNOSTIC_RUNS_A_MINUTE = 10;

export interface ClientWatchResult {
	clients: number;
	campaigns: number;
	diagnostics: number;
	/** Wall time of the run, in service minutes (real time / time scale). */
	serviceMinutes: number;
	/** The least a run can take: its diagnostics at 10 a minute, the first 10 at once. */
	boundMinutes: number;
	answers429: number;
	/** GET /v1/accounts requests, and campaign listings per client (1 each when read once). */
	accountListings: number;
	campaignListingsPerClient: number;
	alerts: number;
}

export async function benchClientWatch(options: {
	timeScale: number;
	clients: number;
	campaigns: number;
}): Promise<ClientWatchResult> {
	const { timeScale, clients, campaigns } = options;
	const fake = await startFakeService({ timeScale, seed: 50 });
	try {
		const directory: IDataObject[] = [];
		for (let i = 0; i < clients; i++) {
			const account = fake.addAccount({ name: `Client ${i + 1}` });
			fake.addCampaigns(account.id, campaigns, { status: 'ACTIVE' });
			directory.push({
				account_id: account.platformAccountId,
				client_name: account.name,
				send: true,
			});
		}
		fake.resetLimits();
		fake.clearLog();
		const code = (name: string, after: string): [WorkflowNodeInput, string] => [
			{ name, type: 'test.code', parameters: exampleNode(FILE, name).parameters },
			after,
		];
		const service = (name: string, after: string): [WorkflowNodeInput, string] => {
			const node = exampleNode(FILE, name) as WorkflowNodeInput & { onError?: string };
			// a diagnostic's poll and timeout are n8n seconds: on the service's sped-up clock here
			const parameters =
				name === 'Diagnose the campaign'
					? {
							...node.parameters,
							pollIntervalSeconds: Math.max(0.1, 2.5 * timeScale),
							timeoutSeconds: Math.max(1, 300 * timeScale),
						}
					: node.parameters;
			return [
				{
					name,
					type: AD_NODE,
					typeVersion: node.typeVersion,
					parameters,
					...(node.onError ? { onError: node.onError as WorkflowNodeInput['onError'] } : {}),
				},
				after,
			];
		};
		// the example's graph without its If (every client here is connected) and its senders
		const graph: Array<[WorkflowNodeInput, string]> = [
			[
				{
					name: 'Client directory',
					type: 'test.setItems',
					parameters: { items: JSON.stringify(directory) },
				},
				'',
			],
			[
				{ name: 'Findings so far', type: 'test.setItems', parameters: { items: '[{}]' } },
				'Client directory',
			],
			service('All ad accounts', 'Findings so far'),
			code('Who to watch', 'All ad accounts'),
			service('Active campaigns', 'Who to watch'),
			code('Campaigns to diagnose', 'Active campaigns'),
			service('Diagnose the campaign', 'Campaigns to diagnose'),
			code('Findings', 'Who to watch'),
			code('Alerts per client', 'Findings'),
		];
		const connections: Record<string, { main: { node: string; type: 'main'; index: 0 }[][] }> = {};
		for (const [node, after] of graph.slice(1)) {
			connections[after] ??= { main: [[]] };
			connections[after].main[0].push({ node: node.name, type: 'main', index: 0 });
		}
		const started = Date.now();
		const result = await runWorkflow({
			nodes: graph.map(([node]) => node),
			connections,
			credentials: credentialsFor(fake, timeScale),
		});
		const wallMs = Date.now() - started;
		if (result.error) throw result.error;
		const diagnosed = result.nodes['Diagnose the campaign']?.items ?? [];
		const failed = diagnosed.filter((item) => item.json.error || item.json.status !== 'completed');
		if (failed.length) throw new Error(`${failed.length} diagnostics did not complete`);
		const diagnostics = diagnosed.length;
		if (diagnostics !== clients * Math.min(DIAGNOSTICS_PER_CLIENT, campaigns))
			throw new Error(`${diagnostics} diagnostics for ${clients} clients`);
		const listings = fake.log.filter((e) => e.method === 'GET' && e.path === '/v1/campaigns');
		const perClient = new Map<string, number>();
		for (const e of listings)
			perClient.set(e.query.accountId, (perClient.get(e.query.accountId) ?? 0) + 1);
		return {
			clients,
			campaigns,
			diagnostics,
			serviceMinutes: wallMs / timeScale / 60_000,
			boundMinutes: Math.max(0, diagnostics - DIAGNOSTIC_RUNS_A_MINUTE) / DIAGNOSTIC_RUNS_A_MINUTE,
			answers429: fake.log.filter((e) => e.status === 429).length,
			accountListings: fake.log.filter((e) => e.method === 'GET' && e.path === '/v1/accounts')
				.length,
			campaignListingsPerClient: Math.max(...perClient.values()),
			alerts: result.nodes['Alerts per client']?.items.length ?? 0,
		};
	} finally {
		await fake.stop();
	}
}
