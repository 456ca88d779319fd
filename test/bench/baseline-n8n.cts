/**
 * The same N-campaign listing the way users do it without our nodes: n8n's HTTP Request node
 * (v4.2) with its pagination, in a real n8n (scripts/e2e/n8n-instance.mjs, cached installs of
 * scripts/e2e/install-n8n.mjs), against an in-process fake at the same time scale.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

import { startFakeService, SERVICE_VERSION } from '../../sandbox/index.cjs';

export interface BaselineResult {
	skipped?: string;
	version?: string;
	requests: number;
	items: number;
	records: number;
	nodeMs: number;
	wallMs: number;
	error?: string;
	note: string;
}

interface N8nInstance {
	version: string;
	importCredentials(
		creds: Array<{ id?: string; name: string; type: string; data: object }>,
	): Promise<string[]>;
	importWorkflow(wf: { name?: string; nodes: object[]; connections: object }): Promise<string>;
	execute(
		id: string,
		options?: { timeoutMs?: number },
	): Promise<{
		exitCode: number;
		result: unknown;
		stdout: string;
		stderr: string;
		durationMs: number;
	}>;
	dispose(): Promise<void>;
}

type RunData = Record<
	string,
	Array<{
		executionTime: number;
		error?: { message?: string };
		data?: { main?: Array<Array<{ json: { data?: unknown[] } }>> };
	}>
>;

export async function runBaselineN8n(options: {
	root: string;
	timeScale: number;
	n: number;
	line: 'latest' | '1.x';
	log: (line: string) => void;
}): Promise<BaselineResult> {
	const skip = (reason: string): BaselineResult => ({
		skipped: reason,
		requests: 0,
		items: 0,
		records: 0,
		nodeMs: 0,
		wallMs: 0,
		note: '',
	});
	const modulePath = path.join(options.root, 'scripts/e2e/n8n-instance.mjs');
	if (!existsSync(modulePath)) return skip('scripts/e2e/n8n-instance.mjs does not exist');
	let createInstance: (o: object) => Promise<N8nInstance>;
	try {
		({ createInstance } = (await import(modulePath)) as {
			createInstance: (o: object) => Promise<N8nInstance>;
		});
	} catch (error) {
		return skip(`scripts/e2e/n8n-instance.mjs does not load: ${(error as Error).message}`);
	}
	let n8n: N8nInstance;
	try {
		// No install here (minutes): the bench uses a cached install or skips the row.
		n8n = await createInstance({ line: options.line, install: false });
	} catch (error) {
		return skip(
			`no cached n8n ${options.line} install (${(error as Error).message.split('\n')[0]}); run scripts/e2e/install-n8n.mjs`,
		);
	}

	const fake = await startFakeService({ timeScale: options.timeScale, seed: 7 });
	try {
		const acme = fake.accounts().find((a) => a.name === 'Acme Outdoor')!;
		fake.addCampaigns(acme.id, options.n - fake.campaigns().length);
		const [credentialId] = await n8n.importCredentials([
			{
				name: 'Ad Performance key (Header Auth)',
				type: 'httpHeaderAuth',
				data: { name: 'x-api-key', value: fake.keys.live },
			},
		]);
		const workflowId = await n8n.importWorkflow({
			name: 'List campaigns with HTTP Request',
			nodes: [
				{
					name: 'Manual Trigger',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					parameters: {},
				},
				{
					name: 'HTTP Request',
					type: 'n8n-nodes-base.httpRequest',
					typeVersion: 4.2,
					credentials: {
						httpHeaderAuth: { id: credentialId, name: 'Ad Performance key (Header Auth)' },
					},
					parameters: {
						method: 'GET',
						url: `${fake.url}/v1/campaigns`,
						authentication: 'genericCredentialType',
						genericAuthType: 'httpHeaderAuth',
						sendQuery: true,
						queryParameters: { parameters: [{ name: 'page_size', value: '100' }] },
						sendHeaders: true,
						headerParameters: { parameters: [{ name: 'service-version', value: SERVICE_VERSION }] },
						options: {
							pagination: {
								pagination: {
									paginationMode: 'updateAParameterInEachRequest',
									parameters: {
										parameters: [{ type: 'qs', name: 'page', value: '={{ $pageCount + 1 }}' }],
									},
									paginationCompleteWhen: 'other',
									completeExpression: '={{ !$response.body.pagination.hasMore }}',
								},
							},
						},
					},
				},
			],
			connections: {
				'Manual Trigger': { main: [[{ node: 'HTTP Request', type: 'main', index: 0 }]] },
			},
		});
		fake.resetLimits();
		fake.clearLog();
		options.log(`n8n ${n8n.version}: executing the HTTP Request workflow…`);
		const run = await n8n.execute(workflowId, { timeoutMs: 300_000 });
		const requests = fake.log.filter((e) => e.path === '/v1/campaigns');
		const result = run.result as
			| { data?: { resultData?: { runData?: RunData; error?: { message?: string } } } }
			| undefined;
		const task = result?.data?.resultData?.runData?.['HTTP Request']?.[0];
		const items = task?.data?.main?.[0] ?? [];
		const records = items.reduce((sum, item) => sum + (item.json.data?.length ?? 0), 0);
		const error =
			task?.error?.message ??
			result?.data?.resultData?.error?.message ??
			(run.exitCode !== 0
				? `exit ${run.exitCode}: ${run.stderr.trim().split('\n').pop() ?? ''}`
				: undefined);
		if (!task) {
			return skip(
				`n8n execute gave no run data for the HTTP Request node (exit ${run.exitCode}): ${(run.stderr || run.stdout).trim().split('\n').slice(-2).join(' ').slice(0, 200)}`,
			);
		}
		return {
			version: n8n.version,
			requests: requests.length,
			items: items.length,
			records,
			nodeMs: task.executionTime,
			wallMs: run.durationMs,
			...(error ? { error } : {}),
			note: `n8n ${n8n.version} (${options.line}) \`n8n execute\`, HTTP Request v4.2 with Header Auth x-api-key, service-version header, pagination "Update a Parameter in Each Request" page={{ $pageCount + 1 }}, page_size=100, complete when {{ !$response.body.pagination.hasMore }}: ${requests.length} requests (${requests.filter((e) => e.status === 429).length} answered 429), ${items.length} output items holding ${records} campaigns (ours: one item per campaign); node execution time ${task.executionTime} ms, whole CLI run ${run.durationMs} ms.`,
		};
	} finally {
		await fake.stop();
		await n8n.dispose();
	}
}
