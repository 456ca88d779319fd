import { createRequire } from 'node:module';

import { getExecutePollFunctions } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeExecutionData,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { AdPerformanceApi } from '../../../credentials/AdPerformanceApi.credentials';
import type { Report } from '../../../sandbox/index.cjs';
import { TestCredentialsHelper } from '../../harness/credentials-helper.cjs';
import { initBinaryData, nodeTypes } from '../../harness/run-workflow.cjs';
import type { TestService } from '../helpers.cjs';
import { TRIGGER_NODE } from '../helpers.cjs';

const NODE_NAME = 'Ad Performance Trigger';

export interface PollResult {
	/** What poll() returned: null, or the items of its one output. */
	items: INodeExecutionData[] | null;
	/** The node's static data after the poll, as n8n would persist it. */
	nodeStaticData: IDataObject;
	/** How long poll() took, in ms. */
	durationMs: number;
	/**
	 * What n8n's logger received from this trigger while the poll ran (polls of the same trigger
	 * that overlap see each other's lines). Captured, not printed.
	 */
	log: LogLine[];
}

export interface LogLine {
	level: 'error' | 'warn' | 'info' | 'debug';
	message: string;
	meta?: unknown;
}

/**
 * n8n-core's own copies of its DI container and logger (it keeps them in its node_modules): the
 * logger a node gets as `this.logger` is the one in that container.
 */
const coreRequire = createRequire(require.resolve('n8n-core'));
const { Container } = coreRequire('@n8n/di') as typeof import('@n8n/di');
const { Logger } = coreRequire('@n8n/backend-common') as typeof import('@n8n/backend-common');

/** The lines of the polls running now: the logger's calls are copied into each. */
const listeners = new Set<LogLine[]>();

/**
 * Whether n8n's logger still prints while the polls record its lines (the default, so that
 * suites capturing the console, such as the secret checks, see what n8n would log). A suite that
 * provokes many log lines on purpose may set it false.
 */
export const triggerLog = { print: true };

/**
 * Copies n8n's logger (the one a node gets as `this.logger`, from n8n-core's DI container) into
 * the running polls' `log`: its private `log` is where every level it has not switched off goes
 * (below N8N_LOG_LEVEL, `info` by default, a level is a no-op). Installed again when jest has
 * restored the spies.
 */
function captureLogger(): void {
	type Log = (level: LogLine['level'], message: string, meta?: unknown) => void;
	const logger = Container.get(Logger) as unknown as { log: Log };
	if (jest.isMockFunction(logger.log)) return;
	const original = logger.log.bind(logger);
	jest.spyOn(logger, 'log').mockImplementation((level, message, meta) => {
		for (const lines of listeners) lines.push({ level, message, meta });
		if (triggerLog.print) original(level, message, meta);
	});
}

/** A deep copy of arrays and plain or prototype-less objects; anything else as it is. */
function copyLive(value: unknown): unknown {
	if (typeof value !== 'object' || value === null) return value;
	if (Array.isArray(value)) {
		const copy: unknown[] = new Array<unknown>(value.length);
		for (const index of Object.keys(value)) copy[Number(index)] = copyLive(value[Number(index)]);
		return copy;
	}
	const prototype: unknown = Object.getPrototypeOf(value);
	if (prototype !== Object.prototype && prototype !== null) return value;
	const copy = Object.create(prototype as object | null) as Record<string, unknown>;
	for (const [key, entry] of Object.entries(value)) {
		// defineProperty: a key `__proto__` stays an own key, as in the original.
		Object.defineProperty(copy, key, {
			value: copyLive(entry),
			enumerable: true,
			writable: true,
			configurable: true,
		});
	}
	return copy;
}

/**
 * One activated trigger: a Workflow holding the trigger node and its static data, polled the
 * way n8n's ActiveWorkflows does it (a PollContext from n8n-core, then the node type's poll).
 * The workflow's `staticData` object survives between polls, as n8n keeps it; `restart()`
 * makes a new Workflow from a deep copy of it, as n8n does after reading it from its database.
 * Polls may overlap (`pollOverlapping`), as n8n's cron starts each poll on schedule whether or
 * not the previous one has finished: they share the one Workflow and its static data.
 */
export class ActiveTrigger {
	private workflow: Workflow;

	constructor(
		private readonly parameters: IDataObject,
		private readonly credentials: IDataObject,
		staticData: IDataObject = {},
	) {
		this.workflow = this.makeWorkflow(staticData);
	}

	private makeWorkflow(staticData: IDataObject): Workflow {
		const node: INode = {
			id: 'trigger-node',
			name: NODE_NAME,
			type: TRIGGER_NODE,
			typeVersion: 1,
			position: [0, 0],
			parameters: this.parameters as INode['parameters'],
			credentials: { adPerformanceApi: { id: 'cred-1', name: 'Ad Performance account' } },
		};
		return new Workflow({
			id: 'trigger-workflow',
			name: 'Trigger workflow',
			nodes: [node],
			connections: {},
			nodeTypes,
			active: true,
			staticData,
			settings: { executionOrder: 'v1' },
		});
	}

	/** The whole workflow static data (what n8n saves), as plain JSON. */
	get staticData(): IDataObject {
		return JSON.parse(JSON.stringify(this.workflow.staticData)) as IDataObject;
	}

	/** Simulates an n8n restart: the persisted static data is read back into a new Workflow. */
	restart(): void {
		this.workflow = this.makeWorkflow(this.staticData);
	}

	/** The trigger node's static data, as plain JSON. */
	get nodeStaticData(): IDataObject {
		return (this.staticData[`node:${NODE_NAME}`] ?? {}) as IDataObject;
	}

	/**
	 * Replaces the trigger node's static data, as if n8n read this from its database at a
	 * restart (what an older version of the node stored, or something damaged).
	 */
	seedNodeStaticData(data: IDataObject): void {
		this.workflow = this.makeWorkflow({
			...this.staticData,
			[`node:${NODE_NAME}`]: JSON.parse(JSON.stringify(data)) as IDataObject,
		});
	}

	/**
	 * Puts `value` as the trigger node's static data without a trip through JSON, as a static
	 * data object in memory can hold it: NaN, ±Infinity, -0, a shared or a non-plain object, a
	 * string or null in place of the object. n8n's Workflow wraps it as it wraps what it reads.
	 * A copy goes in (n8n's wrapping and the polls change what they are given), one that keeps
	 * what JSON would lose: numbers as they are, holes, objects without a prototype.
	 */
	placeLiveNodeStaticData(value: unknown): void {
		this.workflow = this.makeWorkflow({
			...this.staticData,
			[`node:${NODE_NAME}`]: copyLive(value) as IDataObject,
		});
	}

	/**
	 * Changes the live static data object the polls share, as another poll of the same trigger
	 * in the same n8n process would (while a poll is running).
	 */
	editLiveNodeStaticData(edit: (data: IDataObject) => void): void {
		edit(this.workflow.getStaticData('node', this.workflow.getNode(NODE_NAME)!));
	}

	/**
	 * Starts one poll per entry of `startsAfterMs` (ms after the call), without waiting for the
	 * earlier ones to finish, and settles them all.
	 */
	async pollOverlapping(
		startsAfterMs: number[],
		mode: WorkflowExecuteMode = 'trigger',
	): Promise<Array<PromiseSettledResult<PollResult>>> {
		return await Promise.allSettled(
			startsAfterMs.map(async (delay) => {
				await new Promise((resolve) => setTimeout(resolve, delay));
				return await this.poll(mode);
			}),
		);
	}

	async poll(mode: WorkflowExecuteMode = 'trigger'): Promise<PollResult> {
		await initBinaryData();
		const node = this.workflow.getNode(NODE_NAME)!;
		const additionalData = {
			credentialsHelper: new TestCredentialsHelper(
				{ adPerformanceApi: new AdPerformanceApi() },
				{ adPerformanceApi: this.credentials as ICredentialDataDecryptedObject },
			),
			restApiUrl: 'http://127.0.0.1:5678/rest',
			instanceBaseUrl: 'http://127.0.0.1:5678/',
			webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
			webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting',
			webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
			formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
			variables: {},
			userId: 'user-1',
			currentNodeParameters: undefined,
		} as unknown as IWorkflowExecuteAdditionalData;
		const context = getExecutePollFunctions(
			this.workflow,
			node,
			additionalData,
			mode,
			mode === 'manual' ? 'manual' : 'activate',
		);
		const nodeType = this.workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
		captureLogger();
		const log: LogLine[] = [];
		listeners.add(log);
		const started = Date.now();
		try {
			const output = await nodeType.poll!.call(context);
			const durationMs = Date.now() - started;
			return {
				items: output ? output[0] : null,
				nodeStaticData: this.nodeStaticData,
				durationMs,
				log,
			};
		} finally {
			listeners.delete(log);
		}
	}
}

export function ids(items: INodeExecutionData[] | null): string[] {
	return (items ?? []).map((item) => String(item.json.id));
}

/**
 * A Report Completed trigger on a new account `accountName`, past its first poll (the baseline,
 * which emits nothing), and `count` reports of that account completed after it: what the next
 * poll must emit, each once.
 */
export async function completionsAfterBaseline(
	service: TestService,
	accountName: string,
	count: number,
): Promise<{ trigger: ActiveTrigger; completed: Report[] }> {
	const account = service.fake.addAccount({ name: accountName });
	const trigger = new ActiveTrigger(
		{ event: 'reportCompleted', filters: { accountId: account.platformAccountId } },
		service.credentials().adPerformanceApi,
	);
	expect((await trigger.poll()).items).toBeNull();
	const now = new Date().toISOString();
	const completed = service.fake.addReports(count, {
		accountId: account.platformAccountId,
		createdAt: now,
		completedAt: now,
	});
	return { trigger, completed };
}
