import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { collection } from '../../shared/descriptions';
import { inputField } from '../../shared/inputSource';
import type { OperationTool } from '../../shared/tool/operationTool';
import { hiddenInTool, toolProperties } from '../../shared/tool/toolArguments';

/**
 * A resource's Operation selector (shown for it), a choice per operation, then each operation's
 * properties and its tool's, shown for the resource and that operation.
 */
export function resourceProperties<Name extends string>(
	resource: string,
	operations: Record<Name, { properties: INodeProperties[]; tool: OperationTool }>,
	choices: Record<NoInfer<Name>, Omit<INodePropertyOptions, 'value'>>,
	defaultOperation: NoInfer<Name>,
): INodeProperties[] {
	const selector: INodeProperties = {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options: Object.entries<Omit<INodePropertyOptions, 'value'>>(choices).map(
			([value, choice]) => ({ ...choice, value }),
		),
		default: defaultOperation,
	};
	const each = Object.entries<{ properties: INodeProperties[]; tool: OperationTool }>(
		operations,
	).map(([operation, { properties, tool }]) => {
		const show = { resource: [resource], operation: [operation] };
		const standIns = tool.args.map((argument) => argument.parameter);
		return [
			// Return All has no place in a tool (results are bounded), nor do parameters that an
			// argument of the same name stands in for.
			...hiddenInTool(updateDisplayOptions({ show }, properties), [...standIns, 'returnAll']),
			...toolProperties(show, tool.description, tool.args, tool.settings),
		];
	});
	return [selector, ...each.flat()];
}

/** The properties of a Get Many: Return All, Limit and a Filters collection of `filters`. */
export function listProperties(filters: INodeProperties[]): INodeProperties[] {
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
		collection('filters', 'Filters', 'Add Filter', filters),
	];
}

/** A required resource locator: picked from the list `searchListMethod` gives, or by its ID. */
function locator(
	property: Pick<INodeProperties, 'displayName' | 'name' | 'description'>,
	searchListMethod: string,
	byId: { placeholder: string; regex: string; errorMessage: string },
): INodeProperties {
	const { placeholder, regex, errorMessage } = byId;
	return {
		...property,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod, searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder,
				validation: [{ type: 'regex', properties: { regex, errorMessage } }],
			},
		],
	};
}

export const campaignLocator = locator(
	{
		displayName: 'Campaign',
		name: 'campaignId',
		description: 'The campaign, picked from the list or given by its ID (camp_…)',
	},
	'searchCampaigns',
	{
		placeholder: 'camp_8h2k4m9x1z7q',
		regex: 'camp_[A-Za-z0-9_-]+',
		errorMessage: 'A campaign ID starts with camp_',
	},
);

export const accountLocator = locator(
	{
		displayName: 'Ad Account',
		name: 'accountId',
		description:
			'The connected ad account, picked from the list or given by its ad platform account ID (act_ followed by digits)',
	},
	'searchAccounts',
	{
		placeholder: 'act_123456789012345',
		regex: 'act_[0-9]+',
		errorMessage: 'An ad platform account ID is act_ followed by digits',
	},
);

/** The campaign of Campaign → Get and Diagnostic → Run (campaignLocator). */
export const CAMPAIGN_FIELD = inputField('campaignId', 'Campaign', 'campaignId', { locator: true });
