import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { inputField } from '../../shared/inputSource';

/** The Operation selector of a resource, shown for that resource. */
export function operationSelector(
	resource: string,
	operations: INodePropertyOptions[],
	defaultOperation: string,
): INodeProperties {
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options: operations,
		default: defaultOperation,
	};
}

/** The properties of a Get Many: Return All, Limit and a Filters collection of `filters`. */
export function listProperties(filters: INodeProperties[]): INodeProperties[] {
	return [
		...returnAllOrLimit(),
		{
			displayName: 'Filters',
			name: 'filters',
			type: 'collection',
			placeholder: 'Add Filter',
			default: {},
			options: filters,
		},
	];
}

export function returnAllOrLimit(): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { returnAll: [false] } },
		},
	];
}

export const campaignLocator: INodeProperties = {
	displayName: 'Campaign',
	name: 'campaignId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The campaign, picked from the list or given by its ID (camp_…)',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			typeOptions: { searchListMethod: 'searchCampaigns', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'camp_8h2k4m9x1z7q',
			validation: [
				{
					type: 'regex',
					properties: {
						regex: 'camp_[A-Za-z0-9_-]+',
						errorMessage: 'A campaign ID starts with camp_',
					},
				},
			],
		},
	],
};

export const accountLocator: INodeProperties = {
	displayName: 'Ad Account',
	name: 'accountId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description:
		'The connected ad account, picked from the list or given by its ad platform account ID (act_ followed by digits)',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			typeOptions: { searchListMethod: 'searchAccounts', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'act_123456789012345',
			validation: [
				{
					type: 'regex',
					properties: {
						regex: 'act_[0-9]+',
						errorMessage: 'An ad platform account ID is act_ followed by digits',
					},
				},
			],
		},
	],
};

/** The campaign of Campaign → Get and Diagnostic → Run (campaignLocator; argument campaignId). */
export const CAMPAIGN_FIELD = inputField('campaignId', 'Campaign', 'campaignId', { locator: true });

/** The Report ID parameter of Report → Get and Download. */
export function reportIdProperty(description: string): INodeProperties {
	return {
		displayName: 'Report ID',
		name: 'reportId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'rpt_…',
		description,
	};
}

/** The report of Report → Get and Download (argument reportId). */
export const REPORT_ID_FIELD = inputField('reportId', 'Report ID', 'reportId');
