import { ExecuteContext, LoadOptionsContext, RoutingNode } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeType,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { createRunExecutionData, NodeOperationError, Workflow } from 'n8n-workflow';

// The nodes by their compiled name (`.node.js`): outside jest (the bench, under tsx's CommonJS
// hook) `AdPerformance.node` alone resolves to the codex file AdPerformance.node.json, which Node
// tries before a .ts file.
import { AdPerformanceApi } from '../../credentials/AdPerformanceApi.credentials';
import { AdPerformance } from '../../nodes/AdPerformance/AdPerformance.node.js';
import { AdPerformanceTrigger } from '../../nodes/AdPerformanceTrigger/AdPerformanceTrigger.node.js';
import { AdPerformanceWaitForReport } from '../../nodes/AdPerformanceWaitForReport/AdPerformanceWaitForReport.node.js';
import { AdPerformanceClient } from '../../nodes/shared/transport';
import type { FakeService, FakeServiceOptions } from '../../sandbox/index.cjs';
import { startFakeService } from '../../sandbox/index.cjs';
import type { RunWorkflowResult, WorkflowNodeInput } from '../harness/run-workflow.cjs';
import { TestCredentialsHelper } from '../harness/credentials-helper.cjs';
import { nodeTypes, registerNodeType, runWorkflow } from '../harness/run-workflow.cjs';

export const AD_NODE = 'n8n-nodes-ad-performance.adPerformance';
export const WAIT_NODE = 'n8n-nodes-ad-performance.adPerformanceWaitForReport';
export const TRIGGER_NODE = 'n8n-nodes-ad-performance.adPerformanceTrigger';

// Every node type of the package, and below its tool variants, is registered here, once: the
// tests, the trigger's poll harness and the bench rows take them from these helpers.
registerNodeType(AD_NODE, () => new AdPerformance());
registerNodeType(WAIT_NODE, () => new AdPerformanceWaitForReport());
registerNodeType(TRIGGER_NODE, () => new AdPerformanceTrigger());

/** The `…Tool` variants n8n makes of usableAsTool nodes (docs/agent-tools.md). */
export const AD_TOOL_NODE = `${AD_NODE}Tool`;
export const WAIT_TOOL_NODE = `${WAIT_NODE}Tool`;

/**
 * A node's tool variant as n8n's CLI makes it (tool-generation/ai-tools.ts): the same node
 * under a name ending in Tool, which is what `@tool` display options and the nodes' own
 * `isToolVariant` look at. Inputs and outputs stay `main`, so the harness can feed it the
 * arguments a model would pass (`$fromAI` reads them from the input item) and collect its
 * result.
 */
export function toolVariant<T extends INodeType>(node: T): T {
	const variant = Object.create(node) as T;
	variant.description = {
		...node.description,
		name: `${node.description.name}Tool`,
		displayName: `${node.description.displayName} Tool`,
	};
	return variant;
}
registerNodeType(AD_TOOL_NODE, () => toolVariant(new AdPerformance()));
registerNodeType(WAIT_TOOL_NODE, () => toolVariant(new AdPerformanceWaitForReport()));

/**
 * A test-only node that sends one raw request through our transport, so that every error
 * type of the spec can be provoked even where the nodes' own validation would stop the
 * request first.
 */
class RawRequest implements INodeType {
	description = {
		displayName: 'Raw Request',
		name: 'rawRequest',
		group: ['transform'],
		version: 1,
		description: 'Sends one request through the Ad Performance transport',
		defaults: { name: 'Raw Request' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'adPerformanceApi', required: true }],
		properties: [
			{ displayName: 'Method', name: 'method', type: 'string', default: 'GET' },
			{ displayName: 'Path', name: 'path', type: 'string', default: '/accounts' },
			{ displayName: 'Body', name: 'body', type: 'json', default: '' },
			{ displayName: 'Max Attempts', name: 'maxAttempts', type: 'number', default: 1 },
			// Empty: the client's default (15 service minutes of waiting on 429 + retry hint).
			{ displayName: 'Rate Limit Wait', name: 'rateLimitWaitMinutes', type: 'string', default: '' },
		],
	} as INodeType['description'];

	async execute(this: IExecuteFunctions) {
		const rateLimitWait = this.getNodeParameter('rateLimitWaitMinutes', 0, '') as string | number;
		const client = await AdPerformanceClient.create(this, {
			maxAttempts: this.getNodeParameter('maxAttempts', 0) as number,
			...(rateLimitWait === '' ? {} : { rateLimitWaitMinutes: Number(rateLimitWait) }),
		});
		const rawBody = this.getNodeParameter('body', 0) as string | IDataObject;
		const body =
			typeof rawBody === 'string' && rawBody
				? (JSON.parse(rawBody) as IDataObject)
				: ((rawBody || undefined) as IDataObject | undefined);
		const method = this.getNodeParameter('method', 0) as 'GET' | 'POST';
		if (method !== 'GET' && method !== 'POST')
			throw new NodeOperationError(this.getNode(), 'bad method');
		const result = await client.request<IDataObject>({
			method,
			path: this.getNodeParameter('path', 0) as string,
			body,
			itemIndex: 0,
			deadline: client.deadline(),
		});
		return [[{ json: result, pairedItem: { item: 0 } }]];
	}
}
registerNodeType('test.rawRequest', () => new RawRequest());

export interface TestService {
	fake: FakeService;
	credentials: (overrides?: IDataObject) => { adPerformanceApi: ICredentialDataDecryptedObject };
}

/** Starts a fake service for a describe block and stops it afterwards. */
export function useFakeService(options: FakeServiceOptions = {}): TestService {
	const holder = {} as TestService;
	const timeScale = options.timeScale ?? 0.01;
	beforeAll(async () => {
		holder.fake = await startFakeService({ timeScale, ...options });
	});
	afterAll(async () => {
		await holder.fake?.stop();
	});
	holder.credentials = (overrides: IDataObject = {}) => ({
		adPerformanceApi: {
			apiKey: holder.fake.keys.live,
			baseUrl: holder.fake.url,
			apiVersion: '2026-03-01',
			timeScale,
			...overrides,
		} as ICredentialDataDecryptedObject,
	});
	return holder;
}

export function adNode(
	parameters: IDataObject,
	extra: Partial<WorkflowNodeInput> = {},
): WorkflowNodeInput {
	return { name: 'Ad Performance', type: AD_NODE, parameters, ...extra };
}

export function rl(value: string, mode: 'id' | 'list' = 'id') {
	return { __rl: true, mode, value };
}

/**
 * Report → Generate's parameters: the first week of October 2026 for a fixed account ID, titled
 * "Weekly". `overrides` replaces any of them; `additionalFields` is the collection as given.
 */
export function generateParameters(
	overrides: IDataObject = {},
	additionalFields: IDataObject = {},
): IDataObject {
	return {
		resource: 'report',
		operation: 'generate',
		accountId: rl('act_123456789012345'),
		title: 'Weekly',
		dateStart: '2026-10-01',
		dateEnd: '2026-10-07',
		additionalFields,
		...overrides,
	};
}

/** What `run` takes besides the nodes: input items, credential overrides, when to press Stop. */
export interface RunOptions {
	items?: IDataObject[];
	credentials?: IDataObject;
	cancelAfterMs?: number;
	cancelWhen?: Promise<unknown>;
	/** The workflow's time zone (workflow settings); n8n's default when not given. */
	timezone?: string;
}

/**
 * A Stop for `cancelWhen`, pressed `afterMs` after `mark()` is first called (from an intercept's
 * `respond`, say: once a request has reached the fake) rather than at a fixed time from the run's
 * start, which a busy machine stretches: the run is where the test means it to be when stopped.
 */
export function stopAfterMark(afterMs: number): { mark: () => void; stop: Promise<void> } {
	let mark!: () => void;
	const marked = new Promise<void>((resolve) => (mark = resolve));
	const stop = marked.then(() => new Promise<void>((resolve) => setTimeout(resolve, afterMs)));
	return { mark, stop };
}

/** Runs [Manual Trigger → (Set Items) → nodes] and clears the fake's log first. */
export async function run(
	service: TestService,
	nodes: WorkflowNodeInput[],
	options: RunOptions = {},
): Promise<RunWorkflowResult> {
	service.fake.clearLog();
	const chain = options.items
		? [
				{
					name: 'Set Items',
					type: 'test.setItems',
					parameters: { items: JSON.stringify(options.items) },
				},
				...nodes,
			]
		: nodes;
	return await runWorkflow({
		nodes: chain,
		credentials: service.credentials(options.credentials),
		cancelAfterMs: options.cancelAfterMs,
		cancelWhen: options.cancelWhen,
		timezone: options.timezone,
	});
}

/**
 * One call of a tool variant as a model makes it: the Ad Performance Tool with `resource` and
 * `operation` (or Wait for Ad Report Tool for `wait`), `args` as the `$fromAI` values.
 */
export async function callTool(
	service: TestService,
	tool: { resource: string; operation: string } | 'wait',
	args: IDataObject,
	options: { parameters?: IDataObject; credentials?: IDataObject } = {},
): Promise<RunWorkflowResult> {
	const node =
		tool === 'wait'
			? { name: 'Wait for Ad Report Tool', type: WAIT_TOOL_NODE, parameters: {} }
			: { name: 'Ad Performance Tool', type: AD_TOOL_NODE, parameters: { ...tool } };
	node.parameters = { ...node.parameters, ...options.parameters };
	return await run(service, [node], { items: [args], credentials: options.credentials });
}

/** Requests that reached the fake's /v1 API (the control API is never logged). */
export function apiRequests(
	service: TestService,
	filter: { method?: string; pathPrefix?: string } = {},
) {
	return service.fake.log.filter(
		(entry) =>
			(!filter.method || entry.method === filter.method) &&
			(!filter.pathPrefix || entry.path.startsWith(filter.pathPrefix)),
	);
}

/**
 * The context n8n gives a resource locator's list search in the editor (Report → Generate's
 * Account or Campaign field), with the service's credential.
 */
export function listSearchContext(
	service: TestService,
	field: 'accountId' | 'campaignId' = 'accountId',
): LoadOptionsContext {
	const node: INode = {
		id: 'n',
		name: 'Ad Performance',
		type: AD_NODE,
		typeVersion: 1,
		position: [0, 0],
		parameters: { resource: 'report', operation: 'generate' },
		credentials: { adPerformanceApi: { id: 'c', name: 'Ad Performance account' } },
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const additionalData = {
		credentialsHelper: new TestCredentialsHelper(
			{ adPerformanceApi: new AdPerformanceApi() },
			service.credentials(),
		),
	} as unknown as IWorkflowExecuteAdditionalData;
	return new LoadOptionsContext(workflow, node, additionalData, `parameters.${field}`);
}

/** What n8n's credential tester answers the editor's Test button. */
export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

/**
 * The credential's Test button, run as n8n runs it (packages/cli, CredentialsTester
 * runRequestTest, read in n8n 2.41.1): the type's declarative `test` request as the one
 * property of a temporary node, sent by n8n-core's RoutingNode through
 * httpRequestWithAuthentication (which applies `authenticate`), and the answer judged by the
 * tester's rules: an error answer matching a `responseCode` rule gives that rule's message, any
 * other status outside 2xx "Received HTTP status code …" (or its status text).
 */
export async function testCredential(
	credentials: ICredentialDataDecryptedObject,
): Promise<CredentialTestResult> {
	const type = new AdPerformanceApi();
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { adPerformanceApi: { id: 'cred-1', name: 'Ad Performance account' } },
	};
	const nodeType = {
		description: {
			displayName: 'No Operation',
			name: 'noOp',
			group: ['organization'],
			version: 1,
			description: 'Temporary node of the credential test',
			defaults: { name: 'Temp' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: 'adPerformanceApi', required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: type.test.request },
					default: '',
				},
			],
		},
	} as unknown as INodeType;
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: {
			getByName: () => nodeType,
			getByNameAndVersion: () => nodeType,
			getKnownTypes: () => ({}),
		},
	});
	const additionalData = {
		credentialsHelper: new TestCredentialsHelper(
			{ adPerformanceApi: type },
			{ adPerformanceApi: credentials },
		),
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678/',
		variables: {},
		userId: 'user-1',
		currentNodeParameters: node.parameters,
	} as unknown as IWorkflowExecuteAdditionalData;
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		createRunExecutionData(),
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);
	const decrypted = {
		id: 'cred-1',
		name: 'Ad Performance account',
		type: 'adPerformanceApi',
		data: credentials,
	};
	try {
		await new RoutingNode(context, nodeType, decrypted).runNode();
	} catch (error) {
		const { cause, message } = error as {
			cause?: { response?: { status: number; statusText?: string }; code?: string };
			message: string;
		};
		if (cause?.response) {
			const { status, statusText } = cause.response;
			for (const rule of type.test.rules ?? []) {
				if (rule.type === 'responseCode' && rule.properties.value === status)
					return { status: 'Error', message: rule.properties.message };
			}
			if (status < 199 || status > 299)
				return { status: 'Error', message: statusText || `Received HTTP status code: ${status}` };
		} else if (cause?.code) return { status: 'Error', message: cause.code };
		return { status: 'Error', message: String(message) };
	}
	return { status: 'OK', message: 'Connection successful!' };
}
