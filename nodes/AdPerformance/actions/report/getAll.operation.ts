import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import type { AdPerformanceClient } from '../../../shared/transport';
import {
	REPORT_FORMAT_OPTIONS,
	REPORT_FORMATS,
	REPORT_STATUS_OPTIONS,
	REPORT_STATUSES,
} from '../../../shared/types';
import { InputValidator } from '../../../shared/validation';
import { returnAllOrLimit } from '../common.descriptions';
import { listRecords } from '../listRecords';
import { simplifyReport } from '../../../shared/tool/toolResults';
import {
	ACCOUNT_FILTER_ARGUMENT,
	LIMIT_ARGUMENT,
	listFilters,
	listForTool,
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

export const tool: OperationTool = {
	description:
		'Lists performance reports, newest first, 10 per call by default (at most 50). Returns { results, returned, hasMore, page, hint }; each result has id (rpt_...), title, status (pending, generating, completed, failed), format, accountId, dateRange, riskLevel, totalSpend, avgRoas, createdAt and, once completed, downloadUrl and expiresAt. Narrow with account, campaignId, status, format, and from/to (creation dates, YYYY-MM-DD). When hasMore is true, call again with the next page.',
	args: [
		ACCOUNT_FILTER_ARGUMENT,
		{
			key: 'campaignId',
			parameter: 'toolCampaignId',
			displayName: 'Campaign ID',
			type: 'string',
			description: 'Only reports covering this campaign id (camp_...). Leave empty for all',
			default: '',
		},
		statusArgument('reports', REPORT_STATUSES),
		{
			key: 'format',
			parameter: 'toolFormat',
			displayName: 'Format',
			type: 'string',
			description: 'Only reports of this format: pdf, markdown or json. Leave empty for all',
			default: '',
			allowed: REPORT_FORMATS,
		},
		{
			key: 'from',
			parameter: 'toolFrom',
			displayName: 'Created From',
			type: 'string',
			description:
				'Only reports created on or after this date, YYYY-MM-DD. Leave empty for no bound',
			default: '',
		},
		{
			key: 'to',
			parameter: 'toolTo',
			displayName: 'Created To',
			type: 'string',
			description:
				'Only reports created on or before this date, YYYY-MM-DD. Leave empty for no bound',
			default: '',
		},
		LIMIT_ARGUMENT,
		PAGE_ARGUMENT,
	],
	async execute(client, itemIndex, args) {
		const check = new InputValidator(client.node, itemIndex);
		const qs = listFilters(client, itemIndex, args);
		const campaignId = args.text('campaignId');
		if (campaignId) qs.campaignId = check.campaignId('argument campaignId', campaignId);
		const format = args.text('format');
		if (format) qs.format = format;
		const from = args.text('from');
		if (from) qs.from = `${check.date('argument from', from)}T00:00:00.000Z`;
		const to = args.text('to');
		if (to) qs.to = `${check.date('argument to', to)}T23:59:59.999Z`;
		if (qs.from && qs.to && String(qs.from) > String(qs.to)) {
			check.fail(
				'argument from',
				`${from} is after to ${to}`,
				'Pass a from date before the to date.',
			);
		}
		return await listForTool(
			client,
			itemIndex,
			args,
			{ path: '/reports', qs, what: 'reports' },
			simplifyReport,
		);
	},
};

export const description = withTool('report', 'getAll', properties, tool);

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
