import { accountIdOption } from '../../../shared/descriptions';
import { readOptional, inputField, type InputSource } from '../../../shared/inputSource';
import { CAMPAIGN_STATUSES } from '../../../shared/types';
import { listProperties } from '../common.descriptions';
import { listOperation, readListInput, type ListInput } from '../listRecords';
import { simplifyCampaign } from '../../../shared/tool/toolResults';
import { ACCOUNT_FILTER_ARGUMENT, statusArgument } from '../../../shared/tool/operationTool';

export const properties = listProperties([
	accountIdOption(
		'Only campaigns of this account (its service account ID or its ad platform account ID)',
		'act_…',
	),
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
]);

const ACCOUNT = inputField('filters.accountId', 'Filters → Account ID', 'account');
const STATUS = inputField('filters.status', 'Filters → Status', 'status');

export const { execute, tool } = listOperation(
	'Lists campaigns of the connected ad accounts, 10 per call by default (at most 50). Returns { results, returned, hasMore, page, hint }; each result has id (camp_...), name, status, objective, dailyBudget and currency. Narrow with account (an account id or platformAccountId from the accounts tool) and status (ACTIVE, PAUSED, ARCHIVED or DELETED). Pass a result id as campaignId to get a campaign or run a diagnostic. When hasMore is true, call again with the next page.',
	[ACCOUNT_FILTER_ARGUMENT, statusArgument('campaigns', CAMPAIGN_STATUSES)],
	{ path: '/campaigns', what: 'campaigns', simplify: simplifyCampaign },
);

export function readInput(source: InputSource): ListInput {
	const { check } = source;
	return readListInput(source, {
		accountId: readOptional(source, ACCOUNT, (name, value) => check.id(name, value, 'account')),
		status: readOptional(source, STATUS, (name, value) =>
			check.oneOf(name, value, CAMPAIGN_STATUSES),
		),
	});
}
