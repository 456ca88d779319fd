import { readOptional, inputField, type InputSource } from '../../../shared/inputSource';
import { CONNECTION_STATUSES } from '../../../shared/types';
import { listOperation, readListInput, type ListInput } from '../listRecords';
import { listProperties } from '../common.descriptions';
import { simplifyAccount } from '../../../shared/tool/toolResults';
import { statusArgument } from '../../../shared/tool/operationTool';

export const properties = listProperties([
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
]);

const STATUS = inputField('filters.connectionStatus', 'Connection Status', 'status');

export const { execute, tool } = listOperation(
	'Lists the ad accounts connected to the agency workspace, 10 per call by default (at most 50). Returns { results, returned, hasMore, page, hint }; each result has id, platformAccountId (act_ followed by digits), name, connectionStatus, currency, campaignCount and totalSpendLast30d. Pass either id or platformAccountId as the account to the other tools. Filter with status: active, disconnected or token_expired. When hasMore is true, call again with the next page.',
	[statusArgument('accounts whose connection is', CONNECTION_STATUSES)],
	{ path: '/accounts', what: 'accounts', simplify: simplifyAccount },
);

export function readInput(source: InputSource): ListInput {
	const status = readOptional(source, STATUS, (name, value) =>
		source.check.oneOf(name, value, CONNECTION_STATUSES),
	);
	return readListInput(source, { status });
}
