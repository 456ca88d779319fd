import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { errorItem, withItemIndex } from '../AdPerformance/actions/router';
import { requestOptionsProperty } from '../AdPerformance/actions/common.descriptions';
import { serviceError } from '../shared/errors';
import { pollUntilFinal } from '../shared/polling';
import { downloadReportFile } from '../shared/reports';
import { AdPerformanceClient } from '../shared/transport';
import type { ServiceReport } from '../shared/types';
import { InputValidator } from '../shared/validation';
import { NOT_FOUND, ReportSweep, type ReportHint } from './reportSweep';

type ReportState = ServiceReport | { id: string; status: typeof NOT_FOUND };

interface WaitSettings {
	intervalSeconds: number;
	timeoutSeconds: number;
	download: boolean;
	onTimeout: 'error' | 'outputPending';
}

export class AdPerformanceWaitForReport implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Wait for Ad Report',
		name: 'adPerformanceWaitForReport',
		icon: { light: 'file:adPerformanceWait.svg', dark: 'file:adPerformanceWait.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["download"] ? "Wait and download" : "Wait" }}',
		description:
			'Waits until Ad Performance reports are generated and outputs each report with its file (PDF, Markdown or JSON) as binary data, ready for e-mail, Slack or Drive',
		defaults: { name: 'Wait for Ad Report' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'adPerformanceApi', required: true }],
		properties: [
			{
				displayName: 'Report ID',
				name: 'reportId',
				type: 'string',
				required: true,
				default: '={{ $json.id }}',
				placeholder: 'rpt_…',
				description:
					'ID of the report to wait for. The default takes it from the output of Report → Generate.',
			},
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
			{
				displayName: 'Put Output File in Field',
				name: 'binaryPropertyName',
				type: 'string',
				required: true,
				default: 'data',
				hint: 'The name of the output binary field to put the file in',
				displayOptions: { show: { download: [true] } },
			},
			requestOptionsProperty,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const output: Array<INodeExecutionData | undefined> = new Array(items.length);
		const fail = (error: unknown, itemIndex: number) => {
			if (!this.continueOnFail()) throw withItemIndex(error, itemIndex);
			output[itemIndex] = errorItem(error, itemIndex);
		};

		let client: AdPerformanceClient;
		let settings: WaitSettings;
		try {
			// One wait serves every item, so its timing comes from the first item.
			const check = new InputValidator(this.getNode(), 0);
			settings = {
				intervalSeconds: check.seconds(
					'Poll Interval (Seconds)',
					this.getNodeParameter('pollIntervalSeconds', 0, 5),
					0.1,
					3600,
				),
				timeoutSeconds: check.seconds(
					'Timeout (Seconds)',
					this.getNodeParameter('timeoutSeconds', 0, 300),
					1,
					86_400,
				),
				download: this.getNodeParameter('download', 0, true) !== false,
				onTimeout: check.oneOf('On Timeout', this.getNodeParameter('onTimeout', 0, 'error'), [
					'error',
					'outputPending',
				] as const),
			};
			const maxAttempts = this.getNodeParameter('requestOptions.maxAttempts', 0, 5) as number;
			client = await AdPerformanceClient.create(this, { maxAttempts });
		} catch (error) {
			if (!this.continueOnFail()) throw withItemIndex(error, 0);
			return [items.map((_, itemIndex) => errorItem(error, itemIndex))];
		}

		// Which report each item waits for, checked before any request.
		const reportOfItem = new Map<number, string>();
		const hints = new Map<string, ReportHint>();
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				const check = new InputValidator(this.getNode(), itemIndex);
				const reportId = check.reportId(
					'Report ID',
					this.getNodeParameter('reportId', itemIndex, ''),
				);
				if (settings.download) {
					check.text(
						'Put Output File in Field',
						this.getNodeParameter('binaryPropertyName', itemIndex, 'data'),
						{ maxLength: 200 },
					);
				}
				reportOfItem.set(itemIndex, reportId);
				// The output of Report → Generate tells where to look for the report.
				const json = items[itemIndex].json as IDataObject;
				if (json.id === reportId && !hints.has(reportId)) {
					hints.set(reportId, {
						accountId: typeof json.accountId === 'string' ? json.accountId : undefined,
						createdAt: typeof json.createdAt === 'string' ? json.createdAt : undefined,
					});
				}
			} catch (error) {
				fail(error, itemIndex);
			}
		}

		const sweep = new ReportSweep(client, hints);
		const result = await pollUntilFinal<string, ReportState>(client, {
			keys: [...new Set(reportOfItem.values())],
			intervalMs: settings.intervalSeconds * 1000,
			timeoutMs: settings.timeoutSeconds * 1000,
			isFinal: (report) =>
				report.status === 'completed' || report.status === 'failed' || report.status === NOT_FOUND,
			sweep: async (pending) => await sweep.sweep(pending),
		});

		for (const [itemIndex, reportId] of reportOfItem) {
			try {
				output[itemIndex] = await settleReport.call(
					this,
					client,
					settings,
					itemIndex,
					reportId,
					result.states.get(reportId),
					result.timedOut.includes(reportId),
				);
			} catch (error) {
				fail(error, itemIndex);
			}
		}
		return [output.filter((item): item is INodeExecutionData => item !== undefined)];
	}
}

/** The output item of one input: the finished report with its file, or an error. */
async function settleReport(
	this: IExecuteFunctions,
	client: AdPerformanceClient,
	settings: WaitSettings,
	itemIndex: number,
	reportId: string,
	state: ReportState | undefined,
	timedOut: boolean,
): Promise<INodeExecutionData> {
	if (timedOut) {
		const status = state?.status ?? 'unknown';
		if (settings.onTimeout === 'outputPending') {
			return {
				json: (state as IDataObject | undefined) ?? { id: reportId, status },
				pairedItem: { item: itemIndex },
			};
		}
		throw new NodeOperationError(
			this.getNode(),
			`Report ${reportId} was still ${status} after ${settings.timeoutSeconds} seconds`,
			{
				description:
					'Reports usually take 10–20 seconds, longer when the service is busy. Raise Timeout, or set On Timeout to output the report as it is and check it later.',
				itemIndex,
			},
		);
	}
	if (!state || state.status === NOT_FOUND) {
		throw serviceError(client.node, {
			status: 404,
			type: 'not_found',
			itemIndex,
			message: `Report ${reportId} was not found`,
			description:
				'No report with this ID exists in this workspace. Check the Report ID (by default it is taken from the id field of the input).',
		});
	}
	const report = state as ServiceReport;
	if (report.status === 'failed') {
		throw serviceError(client.node, {
			status: 200,
			type: report.error?.type ?? 'generation_failed',
			serviceMessage: report.error?.message,
			itemIndex,
			message: `Report ${reportId} failed${report.error?.message ? `: ${report.error.message}` : ''}`,
			description:
				'The service could not generate this report. Generate it again; if it keeps failing, check the account connection in the dashboard.',
		});
	}
	const item: INodeExecutionData = { json: report, pairedItem: { item: itemIndex } };
	if (settings.download) {
		const binaryPropertyName = this.getNodeParameter(
			'binaryPropertyName',
			itemIndex,
			'data',
		) as string;
		item.binary = {
			[binaryPropertyName]: await downloadReportFile(this, client, report, itemIndex),
		};
	}
	return item;
}
