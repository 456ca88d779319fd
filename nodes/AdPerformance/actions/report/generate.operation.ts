import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { daysBeforeToday } from '../../../shared/calendar';
import {
	collection,
	FROM_VERSION_1_1,
	reportWaitProperties,
	VERSION_1,
} from '../../../shared/descriptions';
import type { ItemResults } from '../../../shared/items';
import {
	defined,
	read,
	readOptional,
	readOr,
	inputField,
	type InputSource,
} from '../../../shared/inputSource';
import { reportForRequest } from '../../../shared/reportLedger';
import type { AdPerformanceClient } from '../../../shared/transport';
import { REPORT_FORMAT_OPTIONS, REPORT_FORMATS, type ServiceReport } from '../../../shared/types';
import { accountLocator } from '../common.descriptions';
import { hiddenInTool, optionalArgument } from '../../../shared/tool/toolArguments';
import {
	platformAccountIdOf,
	type ExecutedItem,
	type OperationTool,
} from '../../../shared/tool/operationTool';
import {
	readWaitInput,
	reportHintOf,
	settleReportWaits,
	type ReportWait,
} from '../../../shared/waitForReports';

const WAIT_FOR_COMPLETION_SWITCH: INodeProperties = {
	displayName: 'Wait for Completion',
	name: 'waitForCompletion',
	type: 'boolean',
	default: true,
	description:
		'Whether to wait until the report is finished and output it as Wait for Ad Report does: the finished report, with its file as binary data when Download File is on. Off, the report is output at once, still generating. Timeout counts from when the reports were requested.',
};

export const properties: INodeProperties[] = [
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
	// The tool never waits (the wait-for-report tool does): hidden there, and not read.
	...hiddenInTool(
		[
			// Off in version 1 (its saved workflows keep it), on from 1.1 as Diagnostic → Run's.
			{ ...WAIT_FOR_COMPLETION_SWITCH, default: false, displayOptions: { show: VERSION_1 } },
			{ ...WAIT_FOR_COMPLETION_SWITCH, default: true, displayOptions: { show: FROM_VERSION_1_1 } },
			...updateDisplayOptions({ show: { waitForCompletion: [true] } }, reportWaitProperties),
		],
		['waitForCompletion', ...reportWaitProperties.map((property) => property.name)],
	),
	collection('additionalFields', 'Additional Fields', 'Add Field', [
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
	]),
];

const ACCOUNT = inputField('accountId', 'Ad Account', 'account', { locator: true });
const TITLE = inputField('title', 'Title', 'title');
const DATE_START = inputField('dateStart', 'Start Date', 'dateStart');
const DATE_END = inputField('dateEnd', 'End Date', 'dateEnd');
const CAMPAIGN_IDS = inputField('additionalFields.campaignIds', 'Campaign IDs', 'campaignIds');
const FORMAT = inputField('additionalFields.format', 'Format', 'format');
const REUSE = inputField(
	'additionalFields.reuseRecentReport',
	'Reuse a Recent Identical Report',
	undefined,
	{ setting: 'toolReuseRecentReport' },
);
const WAIT_FOR_COMPLETION = inputField('waitForCompletion', 'Wait for Completion');
const BRANDING = 'additionalFields.whiteLabel.branding';
const COMPANY_NAME = inputField(`${BRANDING}.companyName`, 'White Label → Company Name');
const LOGO_URL = inputField(`${BRANDING}.logoUrl`, 'White Label → Logo URL');
const PRIMARY_COLOR = inputField(`${BRANDING}.primaryColor`, 'White Label → Primary Color');

type ReportRequest = ReturnType<typeof readInput>;

export const sends = 'generation';

/**
 * A checked Generate: the POST /v1/reports body but its account (and how errors name it), whether
 * to reuse, and how to wait. Optional fields go into the body only when set.
 */
export function readInput(source: InputSource) {
	const { check } = source;
	let account = read(source, ACCOUNT, (name, value) => check.id(name, value, 'account'));
	// The tool also takes the service's account id, resolved with one read before the POST
	// (platformAccountIdOf); the node's list and By ID mode give the ad platform ID.
	if (!source.isTool) account = check.platformAccountId(source.name(ACCOUNT), account);
	const title = read(source, TITLE, (name, value) => check.text(name, value, { maxLength: 500 }));
	const dateStart = read(source, DATE_START, check.date);
	const dateEnd = read(source, DATE_END, check.date);
	check.dateRange(source.name(DATE_START), dateStart, source.name(DATE_END), dateEnd);
	const campaignIds = readOptional(source, CAMPAIGN_IDS, check.campaignIds);
	const whiteLabel = defined({
		companyName: readOptional(source, COMPANY_NAME, (name, value) =>
			check.text(name, value, { maxLength: 200 }),
		),
		logoUrl: readOptional(source, LOGO_URL, check.url),
		primaryColor: readOptional(source, PRIMARY_COLOR, check.color),
	});
	const body = defined({
		title,
		date_start: dateStart,
		date_end: dateEnd,
		campaign_ids: campaignIds?.length ? campaignIds : undefined,
		format: readOptional(source, FORMAT, (name, value) => check.oneOf(name, value, REPORT_FORMATS)),
		whiteLabel: Object.keys(whiteLabel).length > 0 ? whiteLabel : undefined,
	});
	const reuse = readOr(source, REUSE, check.boolean, false);
	// Wait for Completion (on by default from 1.1) and then Wait for Ad Report's settings, by their
	// own reader.
	const waits =
		!source.isTool && readOr(source, WAIT_FOR_COMPLETION, check.boolean, source.nodeVersion >= 1.1);
	const wait = waits ? readWaitInput(source) : undefined;
	return { account, accountName: source.name(ACCOUNT), body, reuse, wait };
}

/** Creates the report, or with reuse on returns a recent identical one (reportLedger.ts). */
async function generateReport(
	client: AdPerformanceClient,
	itemIndex: number,
	{ account, accountName, body, reuse }: ReportRequest,
): Promise<{ report: ServiceReport; reused: boolean }> {
	// Every field is checked before the one read an account id may need.
	const request = {
		account_id: await platformAccountIdOf(client, account, itemIndex, accountName),
		...body,
	};
	// Generate has no budget of its own: what its Request Options allow.
	return await reportForRequest(client, request, itemIndex, reuse);
}

export async function execute(
	this: IExecuteFunctions,
	client: AdPerformanceClient,
	itemIndex: number,
	input: ReportRequest,
): Promise<INodeExecutionData[]> {
	const { report, reused } = await generateReport(client, itemIndex, input);
	// Reuse off (the default): exactly the output of before the option existed.
	return [{ json: input.reuse ? { ...report, reused } : report }];
}

/**
 * Wait for Completion: one wait for every item's report on Wait for Ad Report's settle step
 * (waitForReports.ts); the Timeout counts from its start, as after Generate → Wait for Ad Report.
 */
export async function afterEveryItem(
	this: IExecuteFunctions,
	client: AdPerformanceClient,
	executed: Array<ExecutedItem<ReportRequest>>,
	results: ItemResults,
): Promise<void> {
	const waits: ReportWait[] = [];
	for (const { itemIndex, input, output } of executed) {
		if (!input.wait) continue;
		const { json } = output[0];
		if (typeof json.id !== 'string') {
			results.fail(
				itemIndex,
				client.errors.api(
					'The service created a report without an ID, so it cannot be waited for',
					'Its answer to POST /v1/reports had no id. Run the workflow again; if it persists, the service is having trouble.',
					itemIndex,
				),
			);
			continue;
		}
		waits.push({
			itemIndex,
			reportId: json.id,
			...input.wait,
			hint: reportHintOf(json),
			mark: input.reuse ? { reused: json.reused } : undefined,
		});
	}
	await settleReportWaits(
		this,
		client,
		waits,
		results,
		'The service had answered Generate with this ID; it may be slow to list new reports. Raise Timeout, or run the workflow again with Additional Fields → Reuse a Recent Identical Report on.',
	);
}

export const tool: OperationTool<ReportRequest> = {
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
		optionalArgument(
			'dateStart',
			'Start Date',
			'First day of the period, YYYY-MM-DD. Leave empty for 7 days ago',
			{ parameter: 'dateStart', whenEmpty: (timeZone) => daysBeforeToday(7, timeZone) },
		),
		optionalArgument(
			'dateEnd',
			'End Date',
			'Last day of the period, YYYY-MM-DD, at most 90 days after the start. Leave empty for yesterday',
			{ parameter: 'dateEnd', whenEmpty: (timeZone) => daysBeforeToday(1, timeZone) },
		),
		optionalArgument(
			'campaignIds',
			'Campaign IDs',
			'Up to 20 campaign ids (camp_...), comma-separated. Leave empty for all campaigns of the account',
		),
		optionalArgument('format', 'Format', 'File format: pdf, markdown or json. Leave empty for pdf'),
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
	async execute(client, itemIndex, input) {
		const { report, reused } = await generateReport(client, itemIndex, input);
		return toolAnswer(report, reused);
	},
};

/** What a Generate tool call returns: the report's id and status, and what to do next. */
function toolAnswer(report: ServiceReport, reused: boolean): IDataObject {
	const done = reused && report.status === 'completed';
	const already = `An identical report (${report.id}) was requested within the last 10 minutes, so it is returned and no new one was created.`;
	return {
		id: report.id,
		status: report.status,
		// A listed (reused) report carries no estimate; a completed one needs none.
		estimatedCompletionSeconds: done
			? 0
			: reused
				? (report.estimatedCompletionSeconds ?? null)
				: report.estimatedCompletionSeconds,
		reused,
		next: !reused
			? `Wait for report ${report.id} with the wait-for-report tool (about ${report.estimatedCompletionSeconds ?? 15} seconds), then read its results.`
			: done
				? `${already} It is completed: read its results with the wait-for-report tool, which answers at once.`
				: `${already} It is still being generated: wait for it with the wait-for-report tool (at most about 20 seconds), then read its results.`,
	};
}
