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
import { AdPerformanceTrigger } from '../../../nodes/AdPerformanceTrigger/AdPerformanceTrigger.node';
import { TestCredentialsHelper } from '../../harness/credentials-helper.cjs';
import { initBinaryData, nodeTypes, registerNodeType } from '../../harness/run-workflow.cjs';

export const TRIGGER_TYPE = 'n8n-nodes-ad-performance.adPerformanceTrigger';
registerNodeType(TRIGGER_TYPE, () => new AdPerformanceTrigger());

const NODE_NAME = 'Ad Performance Trigger';

export interface PollResult {
	/** What poll() returned: null, or the items of its one output. */
	items: INodeExecutionData[] | null;
	/** The node's static data after the poll, as n8n would persist it. */
	nodeStaticData: IDataObject;
}

/**
 * One activated trigger: a Workflow holding the trigger node and its static data, polled the
 * way n8n's ActiveWorkflows does it (a PollContext from n8n-core, then the node type's poll).
 * The workflow's `staticData` object survives between polls, as n8n keeps it; `restart()`
 * makes a new Workflow from a deep copy of it, as n8n does after reading it from its database.
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
			type: TRIGGER_TYPE,
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
		const output = await nodeType.poll!.call(context);
		const nodeStaticData = (this.staticData[`node:${NODE_NAME}`] ?? {}) as IDataObject;
		return { items: output ? output[0] : null, nodeStaticData };
	}
}

export function ids(items: INodeExecutionData[] | null): string[] {
	return (items ?? []).map((item) => String(item.json.id));
}
