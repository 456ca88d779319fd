import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { findReport } from '../../../shared/reportLedger';
import type { AdPerformanceClient } from '../../../shared/transport';
import { InputValidator } from '../../../shared/validation';

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

export const description = updateDisplayOptions(
	{ show: { resource: ['report'], operation: ['get'] } },
	properties,
);

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
