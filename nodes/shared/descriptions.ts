import type { INodeProperties } from 'n8n-workflow';

import { inputField, read, type InputSource } from './inputSource';
import { ANSWER_LIMITS } from './limits';

/** A collection (n8n's "Add …" list) of `options`, empty by default. */
export function collection(
	name: string,
	displayName: string,
	placeholder: string,
	options: INodeProperties[],
	more: Pick<INodeProperties, 'description' | 'displayOptions'> = {},
): INodeProperties {
	return { displayName, name, type: 'collection', placeholder, default: {}, ...more, options };
}

/** Request Options, the same on every node (read by createClient.ts). */
export const requestOptionsProperty = collection(
	'requestOptions',
	'Request Options',
	'Add option',
	[
		{
			displayName: 'Max Attempts',
			name: 'maxAttempts',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 10 },
			default: 5,
			description:
				'How many times a request is tried when the service has an internal error (500), sends a garbled answer or the connection drops. Waits grow exponentially with random jitter.',
		},
		{
			displayName: 'Max Wait When Rate Limited (Minutes)',
			name: 'rateLimitWaitMinutes',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 1440 },
			default: 15,
			description:
				'How long one request may keep waiting while the service answers "rate limit exceeded, retry after N seconds". Workflows sharing a key take turns this way instead of failing; 0 fails at the first such answer.',
		},
	],
);

/** The Report ID parameter of Report → Get and Download and of Wait for Ad Report. */
export function reportIdProperty(description: string, byDefault = ''): INodeProperties {
	return {
		displayName: 'Report ID',
		name: 'reportId',
		type: 'string',
		required: true,
		default: byDefault,
		placeholder: 'rpt_…',
		description,
	};
}

const REPORT_ID = inputField('reportId', 'Report ID', 'reportId');

/** The Report ID (argument reportId in the tools). */
export function readReportId(source: InputSource): string {
	return read(source, REPORT_ID, (name, value) => source.check.id(name, value, 'report'));
}

/** Where a downloaded report file goes: Report → Download and Wait for Ad Report. */
export const binaryPropertyNameProperty: INodeProperties = {
	displayName: 'Put Output File in Field',
	name: 'binaryPropertyName',
	type: 'string',
	required: true,
	default: 'data',
	description:
		'Name of the binary field the report file is put in; the next node (Send Email, Slack, Google Drive) reads the file from this field',
};

/** Max File Size (an entry of an options collection), read by maxFileBytesOf in reportFiles.ts. */
export const maxFileSizeOption: INodeProperties = {
	displayName: 'Max File Size (MB)',
	name: 'maxFileSizeMb',
	type: 'number',
	typeOptions: { minValue: 0.1, maxValue: ANSWER_LIMITS.maxFileMb, numberPrecision: 1 },
	// ANSWER_LIMITS.defaultFileMb; n8n's lint reads only a literal here (a test keeps them equal).
	default: 100,
	description:
		'Largest report file to download (1 MB = 1,048,576 bytes). A larger file is not output: the item gets an error instead, so a broken or hostile service cannot fill the disk or memory.',
};

/** The Account ID option of a collection: a filter of Get Many and the trigger, a hint of Get. */
export function accountIdOption(
	description: string,
	placeholder = 'act_123456789012345',
): INodeProperties {
	return {
		displayName: 'Account ID',
		name: 'accountId',
		type: 'string',
		default: '',
		placeholder,
		description,
	};
}

/**
 * How a report is waited for and output: Wait for Ad Report's parameters, and Report →
 * Generate's under Wait for Completion. The same names, defaults and reader (waitForReports.ts) in
 * both, so a workflow can swap one form for the other.
 */
export const reportWaitProperties: INodeProperties[] = [
	{
		displayName: 'Poll Interval (Seconds)',
		name: 'pollIntervalSeconds',
		type: 'number',
		typeOptions: { minValue: 0.1, numberPrecision: 1 },
		default: 5,
		description:
			'How often to check. One check covers every report of the run, so many items cost no more than one.',
	},
	{
		displayName: 'Timeout (Seconds)',
		name: 'timeoutSeconds',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 300,
		description: 'How long to wait at most. Reports usually take 10–20 seconds.',
	},
	{
		displayName: 'On Timeout',
		name: 'onTimeout',
		type: 'options',
		default: 'error',
		description: 'What to do with a report that is not finished when the timeout is reached',
		options: [
			{
				name: 'Fail',
				value: 'error',
				description: 'Stop with an error (or output { error } with Continue On Fail)',
			},
			{
				name: 'Output the Report As It Is',
				value: 'outputPending',
				description: 'Output the report with its last known status, without a file',
			},
		],
	},
	{
		displayName: 'Download File',
		name: 'download',
		type: 'boolean',
		default: true,
		description: 'Whether to download the finished report and output it as binary data',
	},
	{ ...binaryPropertyNameProperty, displayOptions: { show: { download: [true] } } },
	collection('options', 'Options', 'Add option', [maxFileSizeOption], {
		displayOptions: { show: { download: [true] } },
	}),
];

/**
 * The node versions of Wait for Completion (Report → Generate, Diagnostic → Run). Version 1 kept
 * two meanings, which its saved workflows keep; from 1.1 both are one field, on by default, whose
 * Timeout counts the wait from when the work was started (docs/waiting.md).
 */
export const VERSION_1 = { '@version': [1] };
export const FROM_VERSION_1_1 = { '@version': [{ _cnd: { gte: 1.1 } }] };
