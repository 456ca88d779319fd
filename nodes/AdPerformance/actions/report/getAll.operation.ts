import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { AdPerformanceClient } from '../../../shared/transport';
import {
	REPORT_FORMAT_OPTIONS,
	REPORT_FORMATS,
	REPORT_STATUS_OPTIONS,
	REPORT_STATUSES,
} from '../../../shared/types';
import { InputValidator } from '../../../shared/validation';
import { returnAllOrLimit } from '../common.descriptions';
import { listRecords } from '../list';

const properties: INodeProperties[] = [
	...returnAllOrLimit(),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Account ID',
				name: 'accountId',
				type: 'string',
				default: '',
				placeholder: 'act_123456789012345',
				description: 'Only reports of this ad account',
			},
			{
				displayName: 'Campaign ID',
				name: 'campaignId',
				type: 'string',
				default: '',
				placeholder: 'camp_…',
				description: 'Only reports covering this campaign',
			},
			{
				displayName: 'Created After',
				name: 'from',
				type: 'dateTime',
				default: '',
				description: 'Only reports created at or after this moment',
			},
			{
				displayName: 'Created Before',
				name: 'to',
				type: 'dateTime',
				default: '',
				description: 'Only reports created at or before this moment',
			},
			{
				displayName: 'Format',
				name: 'format',
				type: 'options',
				default: 'pdf',
				description: 'Only reports generated in this file format',
				options: REPORT_FORMAT_OPTIONS,
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				default: 'completed',
				description: 'Only reports with this status',
				options: REPORT_STATUS_OPTIONS,
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['report'], operation: ['getAll'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	client: AdPerformanceClient,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const check = new InputValidator(this.getNode(), itemIndex);
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const qs: IDataObject = {};
	if (filters.accountId) qs.accountId = check.accountId('Filters → Account ID', filters.accountId);
	if (filters.campaignId)
		qs.campaignId = check.campaignId('Filters → Campaign ID', filters.campaignId);
	if (filters.status) qs.status = check.oneOf('Filters → Status', filters.status, REPORT_STATUSES);
	if (filters.format) qs.format = check.oneOf('Filters → Format', filters.format, REPORT_FORMATS);
	if (filters.from) qs.from = check.timestamp('Filters → Created After', filters.from);
	if (filters.to) qs.to = check.timestamp('Filters → Created Before', filters.to);
	if (qs.from && qs.to && Date.parse(qs.from as string) > Date.parse(qs.to as string)) {
		check.fail(
			'Filters → Created After',
			`${qs.from} is after Created Before ${qs.to}`,
			'Set Created After to a moment before Created Before.',
		);
	}
	return await listRecords(this, client, itemIndex, '/reports', qs);
}
