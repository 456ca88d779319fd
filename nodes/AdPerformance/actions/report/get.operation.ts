import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { findReport } from '../../../shared/reportLedger';
import type { AdPerformanceClient } from '../../../shared/transport';
import { InputValidator } from '../../../shared/validation';
import { simplifyReport } from '../../../shared/tool/toolResults';
import { REPORT_ID_ARGUMENT, withTool, type OperationTool } from '../../../shared/tool/operationTool';

const properties: INodeProperties[] = [
	{
		displayName: 'Report ID',
		name: 'reportId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'rpt_…',
		description: 'ID of the report, as returned by Generate',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		description: 'The service finds one report by listing; narrowing the search makes it faster',
		options: [
			{
				displayName: 'Account ID',
				name: 'accountId',
				type: 'string',
				default: '',
				placeholder: 'act_123456789012345',
				description: 'Ad account of the report',
			},
			{
				displayName: 'Created After',
				name: 'createdAfter',
				type: 'dateTime',
				default: '',
				description: 'A moment before the report was created',
			},
		],
	},
];

/** A report as text for a model: shared by the Get and Download tools. */
export const reportAsText: OperationTool['execute'] = async function (client, itemIndex, args) {
	const check = new InputValidator(client.node, itemIndex);
	const reportId = check.reportId('argument reportId', args.text('reportId', { required: true }));
	return simplifyReport(await findReport(client, reportId, itemIndex, {}), client.redactor);
};

export const tool: OperationTool = {
	description:
		'Gets one report by its reportId (rpt_...). Returns id, title, status (pending, generating, completed, failed), format, accountId, dateRange, riskLevel, totalSpend, avgRoas, totalConversions, avgCpa and, once completed, downloadUrl and expiresAt; a failed report has error. A report takes 10 to 20 seconds to generate: to wait for one, use the wait-for-report tool rather than calling this repeatedly.',
	args: [REPORT_ID_ARGUMENT],
	execute: reportAsText,
};

export const description = withTool('report', 'get', properties, tool);

export async function execute(
	this: IExecuteFunctions,
	client: AdPerformanceClient,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const check = new InputValidator(this.getNode(), itemIndex);
	const reportId = check.reportId('Report ID', this.getNodeParameter('reportId', itemIndex, ''));
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const narrow: { accountId?: string; createdAfter?: string } = {};
	if (options.accountId)
		narrow.accountId = check.accountId('Options → Account ID', options.accountId);
	if (options.createdAfter)
		narrow.createdAfter = check.timestamp('Options → Created After', options.createdAfter);
	const report = await findReport(client, reportId, itemIndex, narrow);
	return [{ json: report }];
}
