import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { AdPerformanceClient } from '../../../shared/transport';
import { CONNECTION_STATUSES } from '../../../shared/types';
import { InputValidator } from '../../../shared/validation';
import { listRecords } from '../list';
import { returnAllOrLimit } from '../common.descriptions';

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
				displayName: 'Connection Status',
				name: 'connectionStatus',
				type: 'options',
				default: 'active',
				description: 'Only accounts whose connection to the ad platform is in this state',
				options: [
					{ name: 'Active', value: 'active' },
					{
						name: 'Disconnected',
						value: 'disconnected',
						description: 'Reconnect in the dashboard',
					},
					{
						name: 'Token Expired',
						value: 'token_expired',
						description: 'Syncing stopped; re-authenticate in the dashboard',
					},
				],
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['account'], operation: ['getAll'] } },
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
	if (filters.connectionStatus)
		qs.status = check.oneOf('Connection Status', filters.connectionStatus, CONNECTION_STATUSES);
	return await listRecords(this, client, itemIndex, '/accounts', qs);
}
