import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import type { AdPerformanceClient } from '../../../shared/transport';
import { CAMPAIGN_STATUSES } from '../../../shared/types';
import { InputValidator } from '../../../shared/validation';
import { returnAllOrLimit } from '../common.descriptions';
import { listRecords } from '../listRecords';
import { simplifyCampaign } from '../../../shared/tool/toolResults';
import {
	ACCOUNT_FILTER_ARGUMENT,
	filteredListTool,
	LIMIT_ARGUMENT,
	PAGE_ARGUMENT,
	statusArgument,
	withTool,
	type OperationTool,
} from '../../../shared/tool/operationTool';

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

export const tool: OperationTool = {
	description:
		'Lists campaigns of the connected ad accounts, 10 per call by default (at most 50). Returns { results, returned, hasMore, page, hint }; each result has id (camp_...), name, status, objective, dailyBudget and currency. Narrow with account (an account id or platformAccountId from the accounts tool) and status (ACTIVE, PAUSED, ARCHIVED or DELETED). Pass a result id as campaignId to get a campaign or run a diagnostic. When hasMore is true, call again with the next page.',
	args: [
		ACCOUNT_FILTER_ARGUMENT,
		statusArgument('campaigns', CAMPAIGN_STATUSES),
		LIMIT_ARGUMENT,
		PAGE_ARGUMENT,
	],
	execute: filteredListTool('/campaigns', 'campaigns', simplifyCampaign),
};

export const description = withTool('campaign', 'getAll', properties, tool);

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
