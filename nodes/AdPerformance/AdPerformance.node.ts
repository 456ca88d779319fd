import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as account from './actions/account/Account.resource';
import * as campaign from './actions/campaign/Campaign.resource';
import { throughTheBoundary } from '../shared/boundary';
import { requestOptionsProperty } from '../shared/descriptions';
import { unsupportedOperationError } from '../shared/errors';
import { runOperation, type Operation } from '../shared/tool/operationTool';
import * as diagnostic from './actions/diagnostic/Diagnostic.resource';
import * as report from './actions/report/Report.resource';
import * as listSearch from './methods/listSearch';

const resources: Record<
	string,
	{ description: INodeProperties[]; operations: Record<string, Operation> }
> = { account, campaign, diagnostic, report };

// Programmatic, not declarative: retries with backoff and jitter, pacing by the service's
// remaining-request counts, and the duplicate-safe report creation (look for the report a lost
// answer may have created before resending) cannot be expressed in declarative routing.
export class AdPerformance implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Ad Performance',
		name: 'adPerformance',
		icon: {
			light: 'file:../../icons/adPerformance.svg',
			dark: 'file:../../icons/adPerformance.dark.svg',
		},
		group: ['transform'],
		// 1.1: one meaning of Wait for Completion (descriptions.ts, FROM_VERSION_1_1).
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description:
			'Ad Performance Reporting Service: list connected ad accounts and campaigns, generate AI performance reports, download them, and run campaign diagnostics',
		defaults: { name: 'Ad Performance' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'adPerformanceApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Account', value: 'account', description: 'Connected ad accounts' },
					{
						name: 'Campaign',
						value: 'campaign',
						description: 'Campaigns of the connected accounts',
					},
					{ name: 'Diagnostic', value: 'diagnostic', description: 'AI analysis of one campaign' },
					{ name: 'Report', value: 'report', description: 'AI-written performance reports' },
				],
				default: 'report',
			},
			...Object.values(resources).flatMap((resource) => resource.description),
			requestOptionsProperty,
		],
	};

	methods = { listSearch };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await throughTheBoundary(this, function () {
			const resource = this.getNodeParameter('resource', 0) as string;
			const operation = this.getNodeParameter('operation', 0) as string;
			const handler = resources[resource]?.operations?.[operation];
			if (!handler) throw unsupportedOperationError(this.getNode(), resource, operation);
			return runOperation.call(this, handler);
		});
	}
}
