import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { unsupportedOperationError } from '../../shared/errors';
import { runOperation, type Operation } from '../../shared/tool/operationTool';
import * as account from './account/Account.resource';
import * as campaign from './campaign/Campaign.resource';
import * as diagnostic from './diagnostic/Diagnostic.resource';
import * as report from './report/Report.resource';

const operations: Record<string, Record<string, Operation>> = {
	account: account.operations,
	campaign: campaign.operations,
	report: report.operations,
	diagnostic: diagnostic.operations,
};

export async function executeOperation(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const handler = operations[resource]?.[operation];
	if (!handler) throw unsupportedOperationError(this.getNode(), resource, operation);
	return await runOperation.call(this, handler);
}
