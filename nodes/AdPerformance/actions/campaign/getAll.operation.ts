import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { AdPerformanceClient } from '../../../shared/transport';
import { CAMPAIGN_STATUSES } from '../../../shared/types';
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
				placeholder: 'act_…',
				description:
					'Only campaigns of this account (its service account ID or its ad platform account ID)',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				default: 'ACTIVE',
				description: 'Only campaigns with this status',
				options: CAMPAIGN_STATUSES.map((status) => ({
					name: status.charAt(0) + status.slice(1).toLowerCase(),
					value: status,
				})),
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['campaign'], operation: ['getAll'] } },
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
	if (filters.status)
		qs.status = check.oneOf('Filters → Status', filters.status, CAMPAIGN_STATUSES);
	return await listRecords(this, client, itemIndex, '/campaigns', qs);
}
