import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { createReport, reuseOrCreateReport } from '../../../shared/reportLedger';
import type { AdPerformanceClient } from '../../../shared/transport';
import { REPORT_FORMAT_OPTIONS, REPORT_FORMATS, type ServiceReport } from '../../../shared/types';
import { InputValidator } from '../../../shared/validation';
import { accountLocator } from '../common.descriptions';
import { platformAccountIdOf, withTool, type OperationTool } from '../../../shared/tool/operationTool';

const properties: INodeProperties[] = [
	accountLocator,
	{
		displayName: 'Title',
		name: 'title',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'Weekly performance – Acme Outdoor',
		description: 'Title printed on the report',
	},
	{
		displayName: 'Start Date',
		name: 'dateStart',
		type: 'string',
		required: true,
		default: "={{ $today.minus({ days: 7 }).toFormat('yyyy-MM-dd') }}",
		placeholder: 'YYYY-MM-DD',
		description: 'First day of the period, as YYYY-MM-DD. The default is 7 days ago.',
	},
	{
		displayName: 'End Date',
		name: 'dateEnd',
		type: 'string',
		required: true,
		default: "={{ $today.minus({ days: 1 }).toFormat('yyyy-MM-dd') }}",
		placeholder: 'YYYY-MM-DD',
		description:
			'Last day of the period, as YYYY-MM-DD; after the start date and at most 90 days from it. The default is yesterday.',
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Campaign IDs',
				name: 'campaignIds',
				type: 'string',
				default: '',
				placeholder: 'camp_abc,camp_def',
				description:
					'Up to 20 campaigns to cover, comma-separated (or an expression returning a list). Empty covers all campaigns of the account.',
			},
			{
				displayName: 'Format',
				name: 'format',
				type: 'options',
				default: 'pdf',
				options: REPORT_FORMAT_OPTIONS,
				description: 'File format of the finished report',
			},
			{
				displayName: 'Reuse a Recent Identical Report',
				name: 'reuseRecentReport',
				type: 'boolean',
				default: false,
				description:
					'Whether to output a report requested within the last 10 minutes with the same account, title, dates, format and campaigns (marked reused: true) instead of generating another. Makes re-running a crashed or failed execution safe. A failed report is not reused.',
				// The tool variant has its own switch (toolReuseRecentReport), on by default.
				displayOptions: { hide: { '@tool': [true] } } as INodeProperties['displayOptions'],
			},
			{
				displayName: 'White Label',
				name: 'whiteLabel',
				type: 'fixedCollection',
				default: {},
				placeholder: 'Add White Label',
				description: 'Brand the report as your agency (Agency plan)',
				options: [
					{
						displayName: 'Branding',
						name: 'branding',
						values: [
							{
								displayName: 'Company Name',
								name: 'companyName',
								type: 'string',
								default: '',
								description: 'Your agency name, printed on the report instead of the service’s',
							},
							{
								displayName: 'Logo URL',
								name: 'logoUrl',
								type: 'string',
								default: '',
								placeholder: 'https://example.com/logo.png',
								description: 'Address (http or https) of the logo printed on the report',
							},
							{
								displayName: 'Primary Color',
								name: 'primaryColor',
								type: 'color',
								default: '#1a73e8',
								description: 'Brand color of the report, as #rrggbb',
							},
						],
					},
				],
			},
		],
	},
];

export const tool: OperationTool = {
	description:
		'Starts an AI performance report of one ad account. Pass account (the account id or platformAccountId from the accounts tool), title, and optionally dateStart and dateEnd (YYYY-MM-DD, at most 90 days; default the last 7 days), campaignIds (comma-separated camp_ ids, at most 20) and format (pdf, markdown or json). Returns { id, status, estimatedCompletionSeconds, reused, next }: then wait for it with the wait-for-report tool. Write limits: 5 report generations a minute per key; a report takes 10 to 20 seconds. An identical call within 10 minutes returns the same report with reused true.',
	args: [
		{
			key: 'account',
			parameter: 'accountId',
			displayName: 'Ad Account',
			type: 'string',
			description:
				'The ad account: its id or its platformAccountId (act_ followed by digits), as the accounts tool returned it',
			locator: true,
		},
		{
			key: 'title',
			parameter: 'title',
			displayName: 'Title',
			type: 'string',
			description:
				'Title printed on the report, for example Weekly performance of the account name',
		},
		{
			key: 'dateStart',
			parameter: 'dateStart',
			displayName: 'Start Date',
			type: 'string',
			description: 'First day of the period, YYYY-MM-DD. Leave empty for 7 days ago',
			default: '',
		},
		{
			key: 'dateEnd',
			parameter: 'dateEnd',
			displayName: 'End Date',
			type: 'string',
			description:
				'Last day of the period, YYYY-MM-DD, at most 90 days after the start. Leave empty for yesterday',
			default: '',
		},
		{
			key: 'campaignIds',
			parameter: 'toolCampaignIds',
			displayName: 'Campaign IDs',
			type: 'string',
			description:
				'Up to 20 campaign ids (camp_...), comma-separated. Leave empty for all campaigns of the account',
			default: '',
		},
		{
			key: 'format',
			parameter: 'toolFormat',
			displayName: 'Format',
			type: 'string',
			description: 'File format: pdf, markdown or json. Leave empty for pdf',
			default: '',
			allowed: REPORT_FORMATS,
		},
	],
	settings: [
		{
			displayName: 'Reuse a Recent Identical Report',
			name: 'toolReuseRecentReport',
			type: 'boolean',
			default: true,
			description:
				'Whether a call identical to one made within the last 10 minutes (same account, title, dates, format and campaigns) returns that report, marked reused, instead of generating another. Keeps an agent that repeats a call from creating duplicate reports. A failed report is not reused.',
		},
	],
	async execute(client, itemIndex, args) {
		const check = new InputValidator(client.node, itemIndex);
		const account = args.text('account', { required: true }) as string;
		const title = check.text('argument title', args.text('title', { required: true }), {
			maxLength: 500,
		});
		const daysAgo = (days: number) =>
			new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
		const dateStart = check.date('argument dateStart', args.text('dateStart') ?? daysAgo(7));
		const dateEnd = check.date('argument dateEnd', args.text('dateEnd') ?? daysAgo(1));
		check.dateRange('argument dateStart', dateStart, 'argument dateEnd', dateEnd);
		const body: IDataObject = { title, date_start: dateStart, date_end: dateEnd };
		const campaignIds = args.text('campaignIds');
		if (campaignIds) {
			const ids = check.campaignIds('argument campaignIds', campaignIds);
			if (ids.length > 0) body.campaign_ids = ids;
		}
		const format = args.text('format');
		if (format) body.format = format;
		// Every argument is checked before the one read an account id may need.
		body.account_id = await platformAccountIdOf(client, account, itemIndex);
		const reuse = this.getNodeParameter('toolReuseRecentReport', itemIndex, true) !== false;
		if (!reuse) return toolAnswer(await createReport(client, body, itemIndex), false);
		const { report, reused } = await reuseOrCreateReport(client, body, itemIndex);
		return toolAnswer(report, reused);
	},
};

/** What a Generate tool call returns: the report's id and status, and what to do next. */
function toolAnswer(report: ServiceReport, reused: boolean): IDataObject {
	if (!reused) {
		return {
			id: report.id,
			status: report.status,
			estimatedCompletionSeconds: report.estimatedCompletionSeconds,
			reused: false,
			next: `Wait for report ${report.id} with the wait-for-report tool (about ${report.estimatedCompletionSeconds ?? 15} seconds), then read its results.`,
		};
	}
	const done = report.status === 'completed';
	const already = `An identical report (${report.id}) was requested within the last 10 minutes, so it is returned and no new one was created.`;
	return {
		id: report.id,
		status: report.status,
		// A listed report carries no estimate; a completed one needs none.
		estimatedCompletionSeconds: done ? 0 : (report.estimatedCompletionSeconds ?? null),
		reused: true,
		next: done
			? `${already} It is completed: read its results with the wait-for-report tool, which answers at once.`
			: `${already} It is still being generated: wait for it with the wait-for-report tool (at most about 20 seconds), then read its results.`,
	};
}

export const description = withTool('report', 'generate', properties, tool);

/** Builds the POST /v1/reports body, sending optional fields only when the user set them. */
function buildReportRequest(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	const check = new InputValidator(ctx.getNode(), itemIndex);
	const accountId = check.platformAccountId(
		'Ad Account',
		ctx.getNodeParameter('accountId', itemIndex, '', { extractValue: true }),
	);
	const title = check.text('Title', ctx.getNodeParameter('title', itemIndex, ''), {
		maxLength: 500,
	});
	const dateStart = check.date('Start Date', ctx.getNodeParameter('dateStart', itemIndex, ''));
	const dateEnd = check.date('End Date', ctx.getNodeParameter('dateEnd', itemIndex, ''));
	check.dateRange('Start Date', dateStart, 'End Date', dateEnd);
	const body: IDataObject = {
		account_id: accountId,
		title,
		date_start: dateStart,
		date_end: dateEnd,
	};

	const additional = ctx.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	if (additional.campaignIds !== undefined && additional.campaignIds !== '') {
		const ids = check.campaignIds('Campaign IDs', additional.campaignIds);
		if (ids.length > 0) body.campaign_ids = ids;
	}
	if (additional.format) body.format = check.oneOf('Format', additional.format, REPORT_FORMATS);
	const branding = (additional.whiteLabel as IDataObject | undefined)?.branding as
		| IDataObject
		| undefined;
	if (branding) {
		const whiteLabel: IDataObject = {};
		if (branding.companyName)
			whiteLabel.companyName = check.text('White Label → Company Name', branding.companyName, {
				maxLength: 200,
			});
		if (branding.logoUrl)
			whiteLabel.logoUrl = check.url('White Label → Logo URL', branding.logoUrl);
		if (branding.primaryColor)
			whiteLabel.primaryColor = check.color('White Label → Primary Color', branding.primaryColor);
		if (Object.keys(whiteLabel).length > 0) body.whiteLabel = whiteLabel;
	}
	return body;
}

/** Run for every item before the first report is created, so bad input creates nothing. */
export const prepare = buildReportRequest;

export async function execute(
	this: IExecuteFunctions,
	client: AdPerformanceClient,
	itemIndex: number,
	body: IDataObject = buildReportRequest(this, itemIndex),
): Promise<INodeExecutionData[]> {
	const additional = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	// Off (the default): exactly the output of before the option existed.
	if (additional.reuseRecentReport !== true)
		return [{ json: await createReport(client, body, itemIndex) }];
	const { report, reused } = await reuseOrCreateReport(client, body, itemIndex);
	return [{ json: { ...report, reused } }];
}
