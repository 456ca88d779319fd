/** The in-process rows: the fake and n8n-core's WorkflowExecute in this process, real HTTP. */
import type { IDataObject } from 'n8n-workflow';

import { startFakeService, SERVICE_VERSION, type FakeService } from '../../sandbox/index.cjs';
import { MINIMAL_LIST_NODE, MinimalCampaignList } from './minimal-node.cjs';
import {
	registerNodeType,
	runWorkflow,
	type RunWorkflowResult,
	type WorkflowNodeInput,
} from '../harness/run-workflow.cjs';
// The package's node types are registered by the tests' helpers.
import { AD_NODE, WAIT_NODE } from '../nodes/helpers.cjs';

export { AD_NODE, WAIT_NODE };
registerNodeType(MINIMAL_LIST_NODE, () => new MinimalCampaignList());

const WINDOW_MS = 60_000;

export function credentialsFor(fake: { url: string; keys: { live: string } }, timeScale: number) {
	return {
		adPerformanceApi: {
			apiKey: fake.keys.live,
			baseUrl: fake.url,
			apiVersion: SERVICE_VERSION,
			timeScale,
		},
	};
}

export async function runNodes(
	fake: FakeService,
	timeScale: number,
	nodes: WorkflowNodeInput[],
	items?: IDataObject[],
): Promise<RunWorkflowResult> {
	const chain: WorkflowNodeInput[] = items
		? [
				{ name: 'Set Items', type: 'test.setItems', parameters: { items: JSON.stringify(items) } },
				...nodes,
			]
		: nodes;
	return await runWorkflow({ nodes: chain, credentials: credentialsFor(fake, timeScale) });
}

/** Report → Generate for every input item `{ account, title }`, under Continue On Fail. */
export const generateFromItems: WorkflowNodeInput = {
	name: 'Ad Performance',
	type: AD_NODE,
	continueOnFail: true,
	parameters: {
		resource: 'report',
		operation: 'generate',
		accountId: { __rl: true, mode: 'id', value: '={{ $json.account }}' },
		title: '={{ $json.title }}',
		dateStart: '2026-10-01',
		dateEnd: '2026-10-07',
	},
};

export function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export interface ListingResult {
	n: number;
	trials: number;
	requests: number;
	minRequests: number;
	wallMs: number;
	bareMs: number;
	rateBoundMs: number;
	surfaced429: number;
	provoked429: number;
	/** A one-request run (Limit 1): what a workflow run costs before any paging. */
	fixedMs: number;
	/** The same listing by a minimal node in the same engine (minimal-node.cts): n8n's floor. */
	minimalMs: number;
}

/** Return All over N campaigns: requests vs ceil(N/100), wall time vs a bare fetch loop. */
export async function benchListing(options: { timeScale: number; n: number; trials?: number }) {
	const { timeScale, n } = options;
	const trials = options.trials ?? 15;
	const fake = await startFakeService({ timeScale, seed: 7 });
	try {
		const acme = fake.accounts().find((a) => a.name === 'Acme Outdoor')!;
		fake.addCampaigns(acme.id, n - fake.campaigns().length);
		const expected = fake.campaigns().map((c) => c.id);
		if (expected.length !== n) throw new Error(`fake holds ${expected.length} campaigns, not ${n}`);
		const minRequests = Math.ceil(n / 100);
		// 50 reads fit in one window of 120: the rate limit itself costs nothing.
		const rateBoundMs = (Math.ceil(minRequests / 120) - 1) * WINDOW_MS * timeScale;

		const bare = async () => {
			const t0 = performance.now();
			let count = 0;
			for (let page = 1; ; page++) {
				const response = await fetch(`${fake.url}/v1/campaigns?page=${page}&page_size=100`, {
					headers: { 'x-api-key': fake.keys.live, 'service-version': SERVICE_VERSION },
				});
				const body = (await response.json()) as {
					data: unknown[];
					pagination: { hasMore: boolean };
				};
				if (!response.ok) throw new Error(`bare client got ${response.status}`);
				count += body.data.length;
				if (!body.pagination.hasMore) break;
			}
			if (count !== n) throw new Error(`bare client listed ${count}`);
			return performance.now() - t0;
		};
		const fixed = async () => {
			const t0 = performance.now();
			const result = await runNodes(fake, timeScale, [
				{
					name: 'Ad Performance',
					type: AD_NODE,
					parameters: { resource: 'campaign', operation: 'getAll', returnAll: false, limit: 1 },
				},
			]);
			if (result.error || result.items.length !== 1) throw new Error('limit-1 listing failed');
			return performance.now() - t0;
		};
		const ours = async () => {
			fake.clearLog();
			const t0 = performance.now();
			const result = await runNodes(fake, timeScale, [
				{
					name: 'Ad Performance',
					type: AD_NODE,
					parameters: { resource: 'campaign', operation: 'getAll', returnAll: true },
				},
			]);
			const wallMs = performance.now() - t0;
			const ids = result.items.map((i) => i.json.id);
			if (result.error) throw result.error;
			if (ids.length !== n || ids.some((id, i) => id !== expected[i]))
				throw new Error(`our listing returned ${ids.length} records, not the ${n} in order`);
			const log = fake.log.filter((e) => e.path === '/v1/campaigns');
			return {
				wallMs,
				requests: log.length,
				provoked429: log.filter((e) => e.status === 429).length,
				surfaced429: result.error ? 1 : 0,
			};
		};

		const minimal = async () => {
			const t0 = performance.now();
			const result = await runNodes(fake, timeScale, [
				{ name: 'Minimal', type: MINIMAL_LIST_NODE, parameters: {} },
			]);
			if (result.error) throw result.error;
			if (result.items.length !== n) throw new Error(`minimal node listed ${result.items.length}`);
			return performance.now() - t0;
		};

		// Warm every path (module loading, connection setup, the JIT) before any trial counts.
		for (let i = 0; i < 3; i++) {
			for (const run of [bare, fixed, ours, minimal]) {
				fake.resetLimits();
				await run();
			}
		}
		const minimalTimes: number[] = [];
		const bareTimes: number[] = [];
		const fixedTimes: number[] = [];
		const ourRuns: Array<Awaited<ReturnType<typeof ours>>> = [];
		const timed = async <T,>(run: () => Promise<T>): Promise<T> => {
			fake.resetLimits();
			return await run();
		};
		// Ours and the minimal node take turns going first (ABBA): each of them follows the other as
		// often as it follows the lighter rows, so neither pays more often for the garbage before it.
		for (let i = 0; i < trials; i++) {
			bareTimes.push(await timed(bare));
			fixedTimes.push(await timed(fixed));
			if (i % 2 === 0) {
				ourRuns.push(await timed(ours));
				minimalTimes.push(await timed(minimal));
			} else {
				minimalTimes.push(await timed(minimal));
				ourRuns.push(await timed(ours));
			}
		}
		return {
			n,
			trials,
			requests: Math.max(...ourRuns.map((r) => r.requests)),
			minRequests,
			wallMs: median(ourRuns.map((r) => r.wallMs)),
			bareMs: median(bareTimes),
			rateBoundMs,
			surfaced429: ourRuns.reduce((s, r) => s + r.surfaced429, 0),
			provoked429: ourRuns.reduce((s, r) => s + r.provoked429, 0),
			fixedMs: median(fixedTimes),
			minimalMs: median(minimalTimes),
		} satisfies ListingResult;
	} finally {
		await fake.stop();
	}
}

export interface GenerateResult {
	items: number;
	failed: number;
	created: number;
	wallMs: number;
	boundMs: number;
	requests: number;
}

/** N generate items at 5 generations a minute: the last can start (N-1)/5 minutes after the first. */
export async function benchGenerate(options: { timeScale: number; items: number }) {
	const { timeScale, items } = options;
	const fake = await startFakeService({ timeScale, seed: 11 });
	try {
		const accounts = fake.accounts();
		const inputs = Array.from({ length: items }, (_, i) => ({
			account: accounts[i % 3].platformAccountId,
			title: `Bench report ${i + 1}`,
		}));
		const before = fake.reports().length;
		fake.clearLog();
		const t0 = performance.now();
		const result = await runNodes(fake, timeScale, [generateFromItems], inputs);
		const wallMs = performance.now() - t0;
		const failed =
			result.items.filter((i) => i.json.error !== undefined).length +
			Math.max(0, items - result.items.length) +
			(result.error ? items : 0);
		return {
			items,
			failed: Math.min(items, failed),
			created: fake.reports().length - before,
			wallMs,
			boundMs: ((items - 1) / 5) * WINDOW_MS * timeScale,
			requests: fake.log.length,
		} satisfies GenerateResult;
	} finally {
		await fake.stop();
	}
}

export interface WaitResult {
	items: number;
	requests: number;
	sweeps: number;
	intervalMs: number;
	lastLatencyMs: number;
	meanLatencyMs: number;
}

/**
 * N reports generating at once (created directly, the limiter reset between batches so the
 * setup takes no time), then Wait for Ad Report on all of them.
 */
export async function benchWait(options: { timeScale: number; items: number }) {
	const { timeScale, items } = options;
	// A poll every 5 service seconds; reports take 10–20 service seconds.
	const intervalMs = Math.max(100, Math.round(5_000 * timeScale));
	const fake = await startFakeService({ timeScale, seed: 13 });
	try {
		const accounts = fake.accounts();
		const generated: IDataObject[] = [];
		for (let i = 0; i < items; i++) {
			if (i % 5 === 0) fake.resetLimits();
			const response = await fetch(`${fake.url}/v1/reports`, {
				method: 'POST',
				headers: {
					'x-api-key': fake.keys.live,
					'service-version': SERVICE_VERSION,
					'content-type': 'application/json',
				},
				body: JSON.stringify({
					account_id: accounts[i % 3].platformAccountId,
					title: `Waited report ${i + 1}`,
					date_start: '2026-10-01',
					date_end: '2026-10-07',
				}),
			});
			const body = (await response.json()) as { data: IDataObject };
			if (response.status !== 202) throw new Error(`setup POST answered ${response.status}`);
			generated.push(body.data);
		}
		fake.resetLimits();
		fake.clearLog();
		const result = await runNodes(
			fake,
			timeScale,
			[
				{
					name: 'Wait for Ad Report',
					type: WAIT_NODE,
					parameters: {
						pollIntervalSeconds: intervalMs / 1000,
						timeoutSeconds: 120,
						download: false,
					},
				},
			],
			generated,
		);
		if (result.error) throw result.error;
		const task = result.run.data.resultData.runData['Wait for Ad Report'][0];
		const outputAt = task.startTime + task.executionTime;
		const completedAt = new Map(
			fake.reports().map((r) => [r.id, r.completedAt ? Date.parse(r.completedAt) : Number.NaN]),
		);
		const latencies = result.items.map((item) => {
			if (item.json.status !== 'completed') throw new Error(`report ${item.json.id} not completed`);
			return outputAt - (completedAt.get(item.json.id as string) ?? Number.NaN);
		});
		if (latencies.length !== items || latencies.some((l) => !Number.isFinite(l)))
			throw new Error('wait output does not match the reports');
		const lastCompleted = Math.max(...[...generated].map((g) => completedAt.get(g.id as string)!));
		const requests = fake.log.filter((e) => e.method === 'GET' && e.path === '/v1/reports');
		return {
			items,
			requests: requests.length,
			// Every sweep starts at page 1 of the newest-first list.
			sweeps: requests.filter((e) => e.query.page === '1').length,
			intervalMs,
			lastLatencyMs: outputAt - lastCompleted,
			meanLatencyMs: latencies.reduce((s, l) => s + l, 0) / latencies.length,
		} satisfies WaitResult;
	} finally {
		await fake.stop();
	}
}

export interface SharedKeyResult {
	executions: number;
	itemsEach: number;
	failed: number;
	created: number;
	posts: number;
	rejected: number;
	wallMs: number;
	boundMs: number;
}

/**
 * The Monday-morning case: E executions at once, each generating N reports on the same key
 * (the generation limit of 5 a minute is shared). Every item must succeed, the wall time stay
 * near the (E×N−1)/5-minute bound, and the POSTs near E×N (each 429 costs one).
 */
export async function benchSharedKey(options: {
	timeScale: number;
	executions: number;
	itemsEach: number;
}) {
	const { timeScale, executions, itemsEach } = options;
	const fake = await startFakeService({ timeScale, seed: 17 });
	try {
		const accounts = fake.accounts();
		const before = fake.reports().length;
		fake.clearLog();
		const t0 = performance.now();
		const runs = await Promise.all(
			Array.from({ length: executions }, async (_, e) => {
				const inputs = Array.from({ length: itemsEach }, (__, i) => ({
					account: accounts[(e + i) % 3].platformAccountId,
					title: `Execution ${e + 1} report ${i + 1}`,
				}));
				return await runNodes(fake, timeScale, [generateFromItems], inputs);
			}),
		);
		const wallMs = performance.now() - t0;
		let failed = 0;
		for (const result of runs) {
			failed += result.error
				? itemsEach
				: result.items.filter((i) => i.json.error !== undefined).length +
					Math.max(0, itemsEach - result.items.length);
		}
		const posts = fake.log.filter((e) => e.method === 'POST' && e.path === '/v1/reports');
		const total = executions * itemsEach;
		return {
			executions,
			itemsEach,
			failed,
			created: fake.reports().length - before,
			posts: posts.length,
			rejected: posts.filter((e) => e.status === 429).length,
			wallMs,
			boundMs: ((total - 1) / 5) * WINDOW_MS * timeScale,
		} satisfies SharedKeyResult;
	} finally {
		await fake.stop();
	}
}

export interface SlowAnswerResult {
	others: number;
	slowAnswerMs: number;
	/** The slowest of the other executions' Generate runs, alone on the key. */
	aloneMs: number;
	/** The same, while one execution's Generate waits 10 s for its answer. */
	besideMs: number;
	failed: number;
}

/**
 * Head-of-line blocking (issue 26, item 1): one execution's Generate is answered after 10 real
 * seconds (the fake's fault injection); `others` other executions each send one Generate on the
 * same key meanwhile. Their wall time is compared with the same runs alone on the key: a turn on
 * the key ends when a request is sent, so the slow answer should delay them by nothing.
 */
export async function benchSlowAnswer(options: { timeScale: number; others: number }) {
	const { timeScale, others } = options;
	const slowAnswerMs = 10_000;
	const fake = await startFakeService({ timeScale, seed: 19 });
	// Our pacer outlives the fake's counts: let a whole window pass between rounds.
	const nextWindow = () =>
		new Promise((resolve) => setTimeout(resolve, WINDOW_MS * timeScale * 1.2));
	try {
		const accounts = fake.accounts();
		let failed = 0;
		const generateOne = async (title: string, account: string) => {
			const t0 = performance.now();
			const result = await runNodes(fake, timeScale, [generateFromItems], [{ account, title }]);
			if (result.error || result.items.some((i) => i.json.error !== undefined)) failed++;
			return performance.now() - t0;
		};
		const othersAtOnce = async (round: string) =>
			Math.max(
				...(await Promise.all(
					Array.from({ length: others }, async (_, i) =>
						generateOne(`${round} ${i + 1}`, accounts[(i + 1) % 3].platformAccountId),
					),
				)),
			);
		await othersAtOnce('Warm-up');
		await nextWindow();
		const aloneMs = await othersAtOnce('Alone');
		await nextWindow();
		fake.intercept({
			method: 'POST',
			pathPrefix: '/v1/reports',
			times: 1,
			respond: (_request, real) => ({ reply: real(), delayMs: slowAnswerMs }),
		});
		const slow = generateOne('Slow one', accounts[0].platformAccountId);
		// The slow one is sent first.
		await new Promise((resolve) => setTimeout(resolve, 300));
		const besideMs = await othersAtOnce('Beside the slow one');
		await slow;
		return { others, slowAnswerMs, aloneMs, besideMs, failed } satisfies SlowAnswerResult;
	} finally {
		await fake.stop();
	}
}
