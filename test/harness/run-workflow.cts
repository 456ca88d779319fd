import './env.cjs';

import { BinaryDataService, ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IConnections,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IRun,
	IRunExecutionData,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { createDeferredPromise, createRunExecutionData, NodeHelpers, Workflow } from 'n8n-workflow';
import path from 'node:path';

import { AdPerformanceApi } from '../../credentials/AdPerformanceApi.credentials';
import { TestCredentialsHelper } from './credentials-helper.cjs';
import { Assignments, BinaryInspector, Code, ManualTrigger, SetItems } from './test-nodes.cjs';

/** Every node type a harness workflow can use, keyed by the type id saved in workflows. */
const nodeTypeClasses: Record<string, () => INodeType | IVersionedNodeType> = {
	'n8n-nodes-base.manualTrigger': () => new ManualTrigger(),
	'test.setItems': () => new SetItems(),
	'test.binaryInspector': () => new BinaryInspector(),
	'test.assignments': () => new Assignments(),
	'test.code': () => new Code(),
};

/**
 * Adds a node type: the package's are added by test/nodes/helpers.cts, test-only ones by the
 * file that uses them (kept lazy so a broken node fails only its tests).
 */
export function registerNodeType(type: string, factory: () => INodeType | IVersionedNodeType) {
	nodeTypeClasses[type] = factory;
}

const credentialTypes: Record<string, ICredentialType> = {
	adPerformanceApi: new AdPerformanceApi(),
};

class HarnessNodeTypes implements INodeTypes {
	private cache = new Map<string, INodeType | IVersionedNodeType>();

	getByName(type: string): INodeType | IVersionedNodeType {
		let nodeType = this.cache.get(type);
		if (!nodeType) {
			const factory = nodeTypeClasses[type];
			if (!factory) throw new Error(`Unknown node type in test workflow: ${type}`);
			nodeType = factory();
			this.cache.set(type, nodeType);
		}
		return nodeType;
	}

	getByNameAndVersion(type: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(type), version);
	}

	getKnownTypes() {
		return {};
	}
}

export const nodeTypes = new HarnessNodeTypes();

/**
 * n8n-core registers its services in the DI container of the `@n8n/di` copy it resolves
 * itself; npm may hoist a different copy to the top, so take the one next to n8n-core.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Container } = require(
	require.resolve('@n8n/di', { paths: [path.dirname(require.resolve('n8n-core'))] }),
) as typeof import('@n8n/di');

let binaryDataReady: Promise<void> | undefined;
/** n8n initialises its binary-data store once at start-up; so do we. */
export function initBinaryData(): Promise<void> {
	binaryDataReady ??= Container.get(BinaryDataService).init();
	return binaryDataReady;
}

export interface WorkflowNodeInput {
	name: string;
	type: string;
	parameters?: IDataObject;
	typeVersion?: number;
	credentials?: INode['credentials'];
	continueOnFail?: boolean;
	onError?: INode['onError'];
}

export interface RunWorkflowInput {
	/** Nodes after the Manual Trigger; the trigger is added and connected to the first of them. */
	nodes: WorkflowNodeInput[];
	/** Connections between the given nodes by name; by default they form a chain in order. */
	connections?: IConnections;
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** Cancel the execution after this many milliseconds (as the Stop button does). */
	cancelAfterMs?: number;
	/**
	 * Cancel the execution when this settles (as the Stop button does): a Stop tied to what the
	 * run has reached (a request arrived at the fake) rather than to the clock, so a busy machine
	 * cannot move it before or after that point.
	 */
	cancelWhen?: Promise<unknown>;
	/** The workflow's time zone (its settings), as n8n's `$today` and the nodes' days follow it. */
	timezone?: string;
}

export interface NodeRunResult {
	items: INodeExecutionData[];
	error?: Error & { description?: string; httpCode?: string; context?: IDataObject; node?: INode };
}

export interface RunWorkflowResult {
	run: IRun;
	/** Output of the last node of the chain (or the node that failed). */
	items: INodeExecutionData[];
	/** The error of the node that stopped the workflow, as n8n reports it. */
	error?: NodeRunResult['error'];
	/** Output of every node that ran, by name. */
	nodes: Record<string, NodeRunResult>;
	durationMs: number;
	/** Parameter issues per node name when n8n refused to start the workflow. */
	issues?: Record<string, { parameters?: Record<string, string[]> }>;
}

const TRIGGER_NAME = 'Manual Trigger';

/**
 * Runs a workflow through n8n-core's WorkflowExecute, the engine n8n itself uses, with our
 * credential applied as n8n applies it and real HTTP to wherever the credential points.
 */
export async function runWorkflow(input: RunWorkflowInput): Promise<RunWorkflowResult> {
	await initBinaryData();
	const nodes: INode[] = [
		{
			id: 'trigger',
			name: TRIGGER_NAME,
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		...input.nodes.map((node, index) => ({
			id: `node-${index}`,
			name: node.name,
			type: node.type,
			typeVersion: node.typeVersion ?? 1,
			position: [200 * (index + 1), 0] as [number, number],
			parameters: (node.parameters ?? {}) as INode['parameters'],
			credentials:
				node.credentials ??
				(input.credentials?.adPerformanceApi
					? { adPerformanceApi: { id: 'cred-1', name: 'Ad Performance account' } }
					: undefined),
			continueOnFail: node.continueOnFail,
			onError: node.onError,
		})),
	];
	const chain = [TRIGGER_NAME, ...input.nodes.map((n) => n.name)];
	const connections: IConnections = { ...(input.connections ?? {}) };
	if (!input.connections) {
		for (let i = 0; i < chain.length - 1; i++) {
			connections[chain[i]] = { main: [[{ node: chain[i + 1], type: 'main', index: 0 }]] };
		}
	} else if (!connections[TRIGGER_NAME]) {
		connections[TRIGGER_NAME] = { main: [[{ node: chain[1], type: 'main', index: 0 }]] };
	}

	const workflow = new Workflow({
		id: 'harness-workflow',
		name: 'Harness workflow',
		nodes,
		connections,
		nodeTypes,
		active: false,
		staticData: {},
		settings: { executionOrder: 'v1', ...(input.timezone ? { timezone: input.timezone } : {}) },
	});

	const hooks = new ExecutionLifecycleHooks('manual', `exec-${Date.now()}`, {
		id: 'harness-workflow',
		name: 'Harness workflow',
		nodes,
		connections,
		active: false,
		activeVersionId: null,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as never);
	const finished = createDeferredPromise<IRun>();
	hooks.addHandler('workflowExecuteAfter', (fullRunData) => finished.resolve(fullRunData));

	const additionalData = {
		hooks,
		credentialsHelper: new TestCredentialsHelper(credentialTypes, input.credentials ?? {}),
		currentNodeParameters: undefined,
		executeWorkflow: async () => {
			throw new Error('Sub-workflows are not part of the harness');
		},
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678/',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
		variables: {},
		userId: 'user-1',
		setExecutionStatus: () => {},
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('Task runners are not part of the harness');
		},
	} as unknown as IWorkflowExecuteAdditionalData;

	const runExecutionData: IRunExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{ node: workflow.getNode(TRIGGER_NAME)!, data: { main: [[{ json: {} }]] }, source: null },
			],
		},
	});

	const started = Date.now();
	const execute = new WorkflowExecute(additionalData, 'manual', runExecutionData);
	// n8n refuses to start a workflow whose parameters have issues (a required field left
	// empty, a resource locator ID failing its pattern) and shows them on the node in the
	// editor; report them the same way.
	const issues = execute.checkReadyForExecution(workflow, { startNode: TRIGGER_NAME });
	if (issues !== null) {
		const error = Object.assign(
			new Error(
				'The workflow has issues and cannot be executed for that reason. Please fix them first.',
			),
			{
				name: 'WorkflowHasIssuesError',
			},
		);
		return {
			run: undefined as unknown as IRun,
			items: [],
			error,
			nodes: {},
			durationMs: 0,
			issues,
		};
	}
	const running = execute.processRunExecutionData(workflow);
	if (input.cancelAfterMs !== undefined) {
		const timer = setTimeout(() => running.cancel(), input.cancelAfterMs);
		void finished.promise.finally(() => clearTimeout(timer));
	}
	if (input.cancelWhen) {
		const cancel = () => running.cancel(); // no effect once the run has ended
		input.cancelWhen.then(cancel, cancel);
	}
	await running;
	// What n8n records for the execution: on cancel the hook reports it as canceled at once.
	const run = await finished.promise;
	const durationMs = Date.now() - started;

	const nodesOut: Record<string, NodeRunResult> = {};
	let lastRan: string | undefined;
	for (const name of chain) {
		const taskData = run.data.resultData.runData[name]?.[0];
		if (!taskData) continue;
		lastRan = name;
		nodesOut[name] = {
			items: taskData.data?.main?.[0] ?? [],
			error: taskData.error as NodeRunResult['error'],
		};
	}
	const last = lastRan ? nodesOut[lastRan] : { items: [] };
	return {
		run,
		items: last.items,
		error: (run.data.resultData.error as NodeRunResult['error']) ?? last.error,
		nodes: nodesOut,
		durationMs,
	};
}
