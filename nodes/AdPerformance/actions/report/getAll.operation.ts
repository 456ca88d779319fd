import { accountIdOption } from '../../../shared/descriptions';
import { readOptional, inputField, type InputSource } from '../../../shared/inputSource';
import {
	REPORT_FORMAT_OPTIONS,
	REPORT_FORMATS,
	REPORT_STATUS_OPTIONS,
	REPORT_STATUSES,
} from '../../../shared/types';
import { listProperties } from '../common.descriptions';
import { listOperation, readListInput, type ListInput } from '../listRecords';
import { simplifyReport } from '../../../shared/tool/toolResults';
import { optionalArgument } from '../../../shared/tool/toolArguments';
import { ACCOUNT_FILTER_ARGUMENT, statusArgument } from '../../../shared/tool/operationTool';

export const properties = listProperties([
	accountIdOption('Only reports of this ad account'),
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
]);

const ACCOUNT = inputField('filters.accountId', 'Filters → Account ID', 'account');
const CAMPAIGN = inputField('filters.campaignId', 'Filters → Campaign ID', 'campaignId');
const STATUS = inputField('filters.status', 'Filters → Status', 'status');
const FORMAT = inputField('filters.format', 'Filters → Format', 'format');
const FROM = inputField('filters.from', 'Filters → Created After', 'from');
const TO = inputField('filters.to', 'Filters → Created Before', 'to');

export const { execute, tool } = listOperation(
	'Lists performance reports, newest first, 10 per call by default (at most 50). Returns { results, returned, hasMore, page, hint }; each result has id (rpt_...), title, status (pending, generating, completed, failed), format, accountId, dateRange, riskLevel, totalSpend, avgRoas, createdAt and, once completed, downloadUrl and expiresAt. Narrow with account, campaignId, status, format, and from/to (creation dates, YYYY-MM-DD). When hasMore is true, call again with the next page.',
	[
		ACCOUNT_FILTER_ARGUMENT,
		optionalArgument(
			'campaignId',
			'Campaign ID',
			'Only reports covering this campaign id (camp_...). Leave empty for all',
		),
		statusArgument('reports', REPORT_STATUSES),
		optionalArgument(
			'format',
			'Format',
			'Only reports of this format: pdf, markdown or json. Leave empty for all',
		),
		optionalArgument(
			'from',
			'Created From',
			'Only reports created on or after this date, YYYY-MM-DD. Leave empty for no bound',
		),
		optionalArgument(
			'to',
			'Created To',
			'Only reports created on or before this date, YYYY-MM-DD. Leave empty for no bound',
		),
	],
	{ path: '/reports', what: 'reports', simplify: simplifyReport },
);

export function readInput(source: InputSource): ListInput {
	const { check } = source;
	// A day alone is its first moment; the tool documents `to` as "on or before this date", so
	// there a day alone is its last moment (in the workflow's time zone, as the node's days).
	const toDayMeans = source.isTool ? 'end' : 'start';
	const qs = {
		accountId: readOptional(source, ACCOUNT, (name, value) => check.id(name, value, 'account')),
		campaignId: readOptional(source, CAMPAIGN, (name, value) => check.id(name, value, 'campaign')),
		status: readOptional(source, STATUS, (name, value) =>
			check.oneOf(name, value, REPORT_STATUSES),
		),
		format: readOptional(source, FORMAT, (name, value) => check.oneOf(name, value, REPORT_FORMATS)),
		from: readOptional(source, FROM, (name, value) => check.dateTime(name, value)),
		to: readOptional(source, TO, (name, value) => check.dateTime(name, value, toDayMeans)),
	};
	if (qs.from !== undefined && qs.to !== undefined) {
		check.dateTimeOrder(source.name(FROM), qs.from, source.name(TO), qs.to);
	}
	return readListInput(source, qs);
}
