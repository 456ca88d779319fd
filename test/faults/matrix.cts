/**
 * Shared pieces of the fault matrix: the fault columns, the operation rows, a fresh fake per
 * case, and the checks that hold in every case (nothing lost, nothing doubled, the API key
 * nowhere in outputs, errors or logs).
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type {
	FakeService,
	FakeServiceOptions,
	FaultOptions,
	InjectRule,
} from '../../sandbox/index.cjs';
import { startFakeService, SERVICE_VERSION } from '../../sandbox/index.cjs';
import { type RunWorkflowResult, type WorkflowNodeInput } from '../harness/run-workflow.cjs';
import type { TestService } from '../nodes/helpers.cjs';
import { adNode, rl, run, WAIT_NODE } from '../nodes/helpers.cjs';

/** A service minute is 120 ms: backoff, 429 hints, report and diagnostic durations all shrink. */
export const TIME_SCALE = 0.002;

export interface FaultColumn {
	name: string;
	faults: FaultOptions;
	/** One fault of this kind is injected on the first request of the operation, so every case meets at least one. */
	inject?: InjectRule['kind'];
	/** Max Attempts for the nodes (Request Options); undefined keeps the default (5). */
	maxAttempts?: number;
	/** Faults the log must show at least once. */
	expectFaults: Array<'429' | '500' | 'drop' | 'latency'>;
}

export const FAULT_COLUMNS: FaultColumn[] = [
	{ name: '20% 429', faults: { rate429: 0.2 }, inject: '429', expectFaults: ['429'] },
	{
		name: '10% 500',
		faults: { rate500: 0.1, phase: 'random' },
		inject: '500',
		expectFaults: ['500'],
	},
	{
		name: '5% dropped connections',
		faults: { dropRate: 0.05, phase: 'random' },
		inject: 'drop',
		expectFaults: ['drop'],
	},
	{
		name: 'slow responses (20–120 ms latency)',
		faults: { latencyMs: [20, 120] },
		expectFaults: ['latency'],
	},
	{
		name: 'all at once (Max Attempts 10)',
		faults: { rate429: 0.2, rate500: 0.1, dropRate: 0.05, latencyMs: [5, 60], phase: 'random' },
		inject: '500',
		maxAttempts: 10,
		expectFaults: ['500'],
	},
];

export interface Prepared {
	nodes: WorkflowNodeInput[];
	items?: IDataObject[];
	/** Path prefix of the operation's first request, for the injected fault. */
	injectAt: { method: string; pathPrefix: string };
	/** Runs after the workflow: the operation's own checks against the fake's state. */
	verify: (result: RunWorkflowResult, fake: FakeService) => Promise<void> | void;
	/**
	 * How the case runs when it is not a workflow of `nodes` (a trigger's poll, the editor's list
	 * search: paths.cts): what it gave, in a workflow result's shape.
	 */
	execute?: () => Promise<RunWorkflowResult>;
}

export interface OperationRow {
	name: string;
	/** Time scale of this row's fake, when it must differ from TIME_SCALE. */
	timeScale?: number;
	/** Faults in a row the path recovers from (its Max Attempts − 1), when fewer than 4. */
	maxFaults?: number;
	/**
	 * Whether the path reads a listing again when it did not agree with itself, so a listing that
	 * contradicts itself once must not fail it (a tool's page says so to the model instead):
	 * listing faults are drawn only for these rows.
	 */
	rereadsListings?: boolean;
	/**
	 * Whether the path waits for what it created, so a read that lags behind the write (not found
	 * yet, not listed yet) must not fail it: lag faults are drawn only for these rows.
	 */
	waitsOutLag?: boolean;
	/**
	 * The path's own time budget (a Timeout it waits out when the service never lets it finish,
	 * as a listing that never agrees with itself does), when longer than a case's bound.
	 */
	budgetMs?: number;
	prepare: (service: TestService, maxAttempts: number | undefined) => Promise<Prepared> | Prepared;
}

function requestOptions(maxAttempts: number | undefined): IDataObject {
	return maxAttempts ? { requestOptions: { maxAttempts } } : {};
}

export function acmeOf(fake: FakeService) {
	return fake.accounts().find((a) => a.name === 'Acme Outdoor')!;
}

/** A request straight to the fake, outside any node (setup before the faults are switched on). */
export async function direct(fake: FakeService, method: string, path: string, body?: IDataObject) {
	const response = await fetch(`${fake.url}/v1${path}`, {
		method,
		headers: {
			'x-api-key': fake.keys.live,
			'service-version': SERVICE_VERSION,
			...(body ? { 'content-type': 'application/json' } : {}),
		},
		body: body ? JSON.stringify(body) : undefined,
	});
	const json = (await response.json()) as { data: IDataObject };
	if (!response.ok) throw new Error(`setup request ${method} ${path}: ${JSON.stringify(json)}`);
	return json.data;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Output ids in order, and each output paired with the input it came from. */
function ids(items: INodeExecutionData[]) {
	return items.map((item) => item.json.id);
}
function pairs(items: INodeExecutionData[]) {
	return items.map((item) => item.pairedItem);
}
function pairedInOrder(count: number) {
	return Array.from({ length: count }, (_, item) => ({ item }));
}

export const OPERATIONS: OperationRow[] = [
	{
		name: 'account getAll',
		rereadsListings: true,
		prepare: (service, maxAttempts) => {
			// Two pages of 100, so a fault can land between pages.
			for (let i = 0; i < 120; i++) service.fake.addAccount({ name: `Extra account ${i}` });
			return {
				nodes: [
					adNode({
						resource: 'account',
						operation: 'getAll',
						returnAll: true,
						...requestOptions(maxAttempts),
					}),
				],
				injectAt: { method: 'GET', pathPrefix: '/v1/accounts' },
				verify: (result, fake) => {
					const expected = fake.accounts().map((a) => a.id);
					expect(expected.length).toBe(124);
					expect(ids(result.items)).toEqual(expected);
					expect(pairs(result.items)).toEqual(expected.map(() => ({ item: 0 })));
				},
			};
		},
	},
	{
		name: 'campaign getAll',
		rereadsListings: true,
		prepare: (service, maxAttempts) => {
			service.fake.addCampaigns(acmeOf(service.fake).id, 330);
			return {
				nodes: [
					adNode({
						resource: 'campaign',
						operation: 'getAll',
						returnAll: true,
						...requestOptions(maxAttempts),
					}),
				],
				injectAt: { method: 'GET', pathPrefix: '/v1/campaigns' },
				verify: (result, fake) => {
					const expected = fake.campaigns().map((c) => c.id);
					expect(expected.length).toBeGreaterThan(300);
					expect(ids(result.items)).toEqual(expected);
					expect(new Set(ids(result.items)).size).toBe(expected.length);
					expect(pairs(result.items)).toEqual(expected.map(() => ({ item: 0 })));
				},
			};
		},
	},
	{
		name: 'campaign get',
		prepare: (service, maxAttempts) => {
			const wanted = service.fake
				.campaigns()
				.slice(0, 8)
				.map((c) => c.id);
			return {
				nodes: [
					adNode({
						resource: 'campaign',
						operation: 'get',
						campaignId: rl('={{ $json.id }}'),
						...requestOptions(maxAttempts),
					}),
				],
				items: wanted.map((id) => ({ id })),
				injectAt: { method: 'GET', pathPrefix: '/v1/campaigns/' },
				verify: (result) => {
					expect(ids(result.items)).toEqual(wanted);
					expect(pairs(result.items)).toEqual(pairedInOrder(wanted.length));
				},
			};
		},
	},
	{
		name: 'report getAll',
		rereadsListings: true,
		prepare: (service, maxAttempts) => {
			service.fake.addReports(230);
			return {
				nodes: [
					adNode({
						resource: 'report',
						operation: 'getAll',
						returnAll: true,
						...requestOptions(maxAttempts),
					}),
				],
				injectAt: { method: 'GET', pathPrefix: '/v1/reports' },
				verify: (result, fake) => {
					const expected = fake.reports().map((r) => r.id);
					expect(expected.length).toBeGreaterThan(200);
					expect(ids(result.items)).toEqual(expected);
					expect(pairs(result.items)).toEqual(expected.map(() => ({ item: 0 })));
				},
			};
		},
	},
	{
		name: 'report generate',
		prepare: (service, maxAttempts) => {
			const account = acmeOf(service.fake).platformAccountId;
			const titles = Array.from({ length: 7 }, (_, i) => `Fault matrix report ${i + 1}`);
			const before = service.fake.reports().length;
			return {
				nodes: [
					adNode({
						resource: 'report',
						operation: 'generate',
						accountId: rl(account),
						title: '={{ $json.title }}',
						dateStart: '2026-10-01',
						dateEnd: '2026-10-07',
						...requestOptions(maxAttempts),
					}),
				],
				items: titles.map((title) => ({ title })),
				injectAt: { method: 'POST', pathPrefix: '/v1/reports' },
				verify: (result, fake) => {
					// No duplicate: the service holds exactly one new report per input item.
					expect(fake.reports().length).toBe(before + titles.length);
					const created = fake.reports().filter((r) => titles.includes(r.title));
					expect(created.map((r) => r.title).sort()).toEqual([...titles].sort());
					expect(result.items.map((i) => i.json.title)).toEqual(titles);
					const createdIdOf = new Map(created.map((r) => [r.title, r.id]));
					expect(ids(result.items)).toEqual(titles.map((t) => createdIdOf.get(t)));
					expect(pairs(result.items)).toEqual(pairedInOrder(titles.length));
				},
			};
		},
	},
	{
		name: 'report get',
		rereadsListings: true,
		prepare: (service, maxAttempts) => {
			service.fake.addReports(150);
			const all = service.fake.reports();
			// From the first page and from deep pages, so lookups walk several pages.
			const wanted = [all[0], all[40], all[120], all[all.length - 1], all[5]].map((r) => r.id);
			return {
				nodes: [
					adNode({
						resource: 'report',
						operation: 'get',
						reportId: '={{ $json.id }}',
						...requestOptions(maxAttempts),
					}),
				],
				items: wanted.map((id) => ({ id })),
				injectAt: { method: 'GET', pathPrefix: '/v1/reports' },
				verify: (result) => {
					expect(ids(result.items)).toEqual(wanted);
					expect(pairs(result.items)).toEqual(pairedInOrder(wanted.length));
				},
			};
		},
	},
	{
		name: 'report download',
		prepare: (service, maxAttempts) => {
			const wanted = service.fake
				.reports()
				.filter((r) => r.status === 'completed')
				.slice(0, 4)
				.map((r) => r.id);
			return {
				nodes: [
					adNode({
						resource: 'report',
						operation: 'download',
						reportId: '={{ $json.id }}',
						...requestOptions(maxAttempts),
					}),
					INSPECTOR,
				],
				items: wanted.map((id) => ({ id })),
				injectAt: { method: 'GET', pathPrefix: '/v1/reports/' },
				verify: async (result, fake) => {
					const downloaded = result.nodes['Ad Performance'].items;
					expect(ids(downloaded)).toEqual(wanted);
					expect(pairs(downloaded)).toEqual(pairedInOrder(wanted.length));
					expect(pairs(result.items)).toEqual(pairedInOrder(wanted.length));
					// The files are whole: n8n stored exactly the bytes the service sends.
					for (const [index, id] of wanted.entries()) {
						const expected = await fileOf(fake, id);
						const stored = Buffer.from(result.items[index].json.base64 as string, 'base64');
						expect(stored.equals(expected)).toBe(true);
					}
				},
			};
		},
	},
	{
		name: 'diagnostic run with wait',
		waitsOutLag: true,
		// A diagnostic takes 50–100 ms here, longer than the first retry's backoff (≤ 10 ms), as
		// in real life (5–10 s vs ≤ 1 s): a resent POST meets the run its lost answer started.
		timeScale: 0.01,
		prepare: (service, maxAttempts) => {
			const acme = acmeOf(service.fake);
			const campaigns = service.fake
				.campaigns()
				.filter((c) => c.accountId === acme.id)
				.slice(0, 4)
				.map((c) => c.id);
			const before = service.fake.diagnostics().length;
			return {
				nodes: [
					adNode({
						resource: 'diagnostic',
						operation: 'run',
						campaignId: rl('={{ $json.campaignId }}'),
						options: { pollIntervalSeconds: 0.1, timeoutSeconds: 20 },
						...requestOptions(maxAttempts),
					}),
				],
				items: campaigns.map((campaignId) => ({ campaignId })),
				injectAt: { method: 'POST', pathPrefix: '/v1/diagnostics' },
				verify: (result, fake) => {
					const started = fake.diagnostics().slice(before);
					const startedById = new Map(started.map((d) => [d.id, d]));
					// One output per item, each a diagnostic this run started for that item's campaign.
					expect(result.items.map((i) => i.json.campaignId)).toEqual(campaigns);
					for (const item of result.items) {
						expect(startedById.get(item.json.id as string)?.campaignId).toBe(item.json.campaignId);
						expect(item.json.status).toBe('completed');
					}
					expect(new Set(ids(result.items)).size).toBe(campaigns.length);
					// The API has no way to find a diagnostic whose 202 was lost (no list endpoint),
					// so a lost answer may leave one orphaned run behind; never more than one a lost answer.
					const lostAnswers = fake.log.filter(
						(e) =>
							e.method === 'POST' &&
							e.path === '/v1/diagnostics' &&
							e.fault &&
							e.fault !== '429' &&
							e.fault !== 'latency',
					).length;
					expect(started.length).toBeLessThanOrEqual(campaigns.length + lostAnswers);
					expect(pairs(result.items)).toEqual(pairedInOrder(campaigns.length));
				},
			};
		},
	},
	{
		name: 'diagnostic get',
		prepare: async (service, maxAttempts) => {
			const acme = acmeOf(service.fake);
			const campaigns = service.fake
				.campaigns()
				.filter((c) => c.accountId === acme.id)
				.slice(0, 3);
			const wanted: string[] = [];
			for (const campaign of campaigns) {
				const diagnostic = await direct(service.fake, 'POST', '/diagnostics', {
					campaign_id: campaign.id,
				});
				wanted.push(diagnostic.id as string);
			}
			return {
				nodes: [
					adNode({
						resource: 'diagnostic',
						operation: 'get',
						diagnosticId: '={{ $json.id }}',
						...requestOptions(maxAttempts),
					}),
				],
				items: [...wanted, wanted[0]].map((id) => ({ id })),
				injectAt: { method: 'GET', pathPrefix: '/v1/diagnostics/' },
				verify: (result) => {
					expect(ids(result.items)).toEqual([...wanted, wanted[0]]);
					expect(pairs(result.items)).toEqual(pairedInOrder(wanted.length + 1));
				},
			};
		},
	},
	{
		name: 'Wait for Ad Report with download',
		rereadsListings: true,
		waitsOutLag: true,
		budgetMs: 30_000,
		prepare: async (service, maxAttempts) => {
			const accounts = service.fake.accounts().slice(0, 2);
			const generated: IDataObject[] = [];
			for (let i = 0; i < 4; i++) {
				generated.push(
					await direct(service.fake, 'POST', '/reports', {
						account_id: accounts[i % 2].platformAccountId,
						title: `Waited report ${i + 1}`,
						date_start: '2026-10-01',
						date_end: '2026-10-07',
					}),
				);
			}
			// Plus one report that finished long ago (the first sweep finds it final).
			const old = service.fake.reports().find((r) => r.status === 'completed')!;
			const items = [...generated, { id: old.id }];
			return {
				nodes: [
					{
						name: 'Wait for Ad Report',
						type: WAIT_NODE,
						parameters: {
							pollIntervalSeconds: 0.1,
							timeoutSeconds: 30,
							...requestOptions(maxAttempts),
						},
					},
					INSPECTOR,
				],
				items,
				injectAt: { method: 'GET', pathPrefix: '/v1/reports' },
				verify: async (result, fake) => {
					const waited = result.nodes['Wait for Ad Report'].items;
					expect(ids(waited)).toEqual(items.map((i) => i.id));
					expect(pairs(waited)).toEqual(pairedInOrder(items.length));
					const finished = new Map(fake.reports().map((r) => [r.id, r]));
					for (const [index, item] of waited.entries()) {
						expect(item.json.status).toBe('completed');
						expect(item.json.downloadUrl).toBe(finished.get(item.json.id as string)?.downloadUrl);
						expect(item.binary?.data?.mimeType).toBe('application/pdf');
						const stored = Buffer.from(result.items[index].json.base64 as string, 'base64');
						expect(stored.equals(await fileOf(fake, item.json.id as string))).toBe(true);
					}
				},
			};
		},
	},
];

/** Reads each item's binary the way a following n8n node does, and outputs its bytes. */
export const INSPECTOR: WorkflowNodeInput = {
	name: 'Inspect',
	type: 'test.binaryInspector',
	parameters: { binaryPropertyName: 'data' },
};

/** The file of a report as the service sends it (fetched with faults off). */
export async function fileOf(fake: FakeService, reportId: string): Promise<Buffer> {
	const response = await fetch(`${fake.url}/v1/reports/${reportId}/download`, {
		headers: { 'x-api-key': fake.keys.live, 'service-version': SERVICE_VERSION },
	});
	if (!response.ok) throw new Error(`download of ${reportId}: ${response.status}`);
	return Buffer.from(await response.arrayBuffer());
}

/** A fresh fake for one case: faults are seeded, so the case replays the same way every run. */
export async function freshService(
	seed: number,
	options: FakeServiceOptions = {},
): Promise<TestService> {
	const timeScale = options.timeScale ?? TIME_SCALE;
	const fake = await startFakeService({ seed, ...options, timeScale });
	return {
		fake,
		credentials: (overrides: IDataObject = {}) => ({
			adPerformanceApi: {
				apiKey: fake.keys.live,
				baseUrl: fake.url,
				apiVersion: SERVICE_VERSION,
				timeScale,
				...overrides,
			},
		}),
	};
}

/** Everything written to the console, stdout or stderr while `fn` runs. */
export async function captureLogs<T>(fn: () => Promise<T>): Promise<{ value: T; logs: string[] }> {
	const logs: string[] = [];
	const text = (args: unknown[]) =>
		args
			.map((a) =>
				typeof a === 'string' ? a : a instanceof Error ? `${a.message}\n${a.stack}` : safeJson(a),
			)
			.join(' ');
	const methods = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;
	const spies = methods.map((method) =>
		jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
			logs.push(text(args));
		}),
	);
	const writes = [process.stdout, process.stderr].map((stream) => {
		const original = stream.write.bind(stream);
		return jest.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
			logs.push(Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
			return (original as (...a: unknown[]) => boolean)(chunk, ...rest);
		}) as never);
	});
	try {
		const value = await fn();
		return { value, logs };
	} finally {
		for (const spy of [...spies, ...writes]) spy.mockRestore();
	}
}

function safeJson(value: unknown): string {
	try {
		return JSON.stringify(value, errorReplacer);
	} catch {
		return String(value);
	}
}

/** Serialises errors with everything n8n may show: message, description, stack, context, cause. */
export function errorReplacer(_key: string, value: unknown): unknown {
	if (value instanceof Error) {
		const e = value as Error & Record<string, unknown>;
		const out: Record<string, unknown> = {};
		for (const key of Object.getOwnPropertyNames(e)) out[key] = e[key];
		out.message = e.message;
		out.stack = e.stack;
		out.description = e.description;
		out.context = e.context;
		out.cause = e.cause;
		return out;
	}
	if (typeof value === 'bigint') return String(value);
	return value;
}

/** Everything a user or an operator could see of a run: items, errors, run data. */
export function visibleText(result: RunWorkflowResult): string {
	const seen = new WeakSet<object>();
	return JSON.stringify(
		{ items: result.items, error: result.error, nodes: result.nodes, run: result.run?.data },
		(key, value: unknown) => {
			const replaced = errorReplacer(key, value);
			if (replaced && typeof replaced === 'object') {
				if (seen.has(replaced)) return '[circular]';
				seen.add(replaced);
			}
			return replaced;
		},
	);
}

export function expectNoKey(key: string, result: RunWorkflowResult, logs: string[]): void {
	const text = visibleText(result);
	expect(text).not.toContain(key);
	for (const line of logs) expect(line).not.toContain(key);
	const { error } = result;
	if (error) {
		for (const part of [error.message, error.description, error.stack, safeJson(error.context)])
			expect(String(part ?? '')).not.toContain(key);
	}
}

export async function runCase(
	service: TestService,
	column: FaultColumn,
	prepared: Prepared,
): Promise<{ result: RunWorkflowResult; logs: string[] }> {
	service.fake.setFaults(column.faults);
	if (column.inject) {
		service.fake.injectOnce({
			kind: column.inject,
			...prepared.injectAt,
			...(column.inject === '429' ? {} : { phase: 'after' as const }),
		});
	}
	const { value: result, logs } = await captureLogs(() =>
		run(service, prepared.nodes, { items: prepared.items }),
	);
	service.fake.setFaults(undefined);
	return { result, logs };
}
