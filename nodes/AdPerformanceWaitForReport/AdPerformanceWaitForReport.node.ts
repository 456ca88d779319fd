import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { throughTheBoundary } from '../shared/boundary';
import {
	binaryPropertyNameProperty,
	maxFileSizeOption,
	requestOptionsProperty,
} from '../shared/descriptions';
import { everyItemFailed, ItemResults } from '../shared/items';
import { settle, type WaitUntilFinishedResult } from '../shared/waitUntilFinished';
import { downloadReportFile } from '../shared/reportFiles';
import { createClient } from '../shared/createClient';
import type { AdPerformanceClient } from '../shared/transport';
import type { ServiceReport } from '../shared/types';
import { isToolVariant } from '../shared/tool/toolArguments';
import { NodeParameters } from '../shared/inputSource';
import { readItemInput, readWaitSettings, type WaitSettings } from '../shared/waitInput';
import { unseenReportError, waitForReports, type ReportHint } from '../shared/waitForReports';
import { waitAsTool, withWaitTool } from '../shared/tool/waitTool';

export class AdPerformanceWaitForReport implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Wait for Ad Report',
		name: 'adPerformanceWaitForReport',
		icon: {
			light: 'file:../../icons/adPerformanceWait.svg',
			dark: 'file:../../icons/adPerformanceWait.dark.svg',
		},
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
		properties: withWaitTool([
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
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				displayOptions: { show: { download: [true] } },
				options: [maxFileSizeOption],
			},
			requestOptionsProperty,
		]),
	};

	/**
	 * One wait serves every item: each item's input is checked before any request, then one sweep
	 * per interval looks for all reports, and each item is settled with its report or its error.
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await throughTheBoundary(
			this,
			isToolVariant(this) ? waitAsTool : AdPerformanceWaitForReport.waitForEveryItem,
		);
	}

	static async waitForEveryItem(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		let settings: WaitSettings;
		let client: AdPerformanceClient;
		try {
			settings = readWaitSettings(new NodeParameters(this, 0));
			client = await createClient(this, this.getNodeParameter('requestOptions', 0, {}));
		} catch (error) {
			return [everyItemFailed(this, items.length, error)];
		}
		const results = new ItemResults(this);

		const waits: ItemWait[] = [];
		// Where to look for a report, from the output of Report → Generate.
		const hints = new Map<string, ReportHint>();
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				const input = readItemInput(new NodeParameters(this, itemIndex), settings);
				const { id, accountId, createdAt, estimatedCompletionSeconds } = items[itemIndex].json;
				const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
				if (id === input.reportId) {
					hints.set(input.reportId, {
						accountId: text(accountId),
						createdAt: text(createdAt),
						estimatedCompletionSeconds:
							typeof estimatedCompletionSeconds === 'number' ? estimatedCompletionSeconds : undefined,
					});
				}
				waits.push({ itemIndex, ...input });
			} catch (error) {
				results.fail(itemIndex, error);
			}
		}

		const found = waitForReports(
			client,
			settings,
			waits.map((wait) => wait.reportId),
			hints,
		);
		// Each item settles on the one wait: a sweep that failed for good (the key was revoked, the
		// service is down) fails every item still waiting; with Continue On Fail each gets the error.
		for (const wait of waits) {
			await results.settle(wait.itemIndex, async () => [
				await settleReport(this, client, settings, wait, await found),
			]);
		}
		return [results.list()];
	}
}

/** What one item waits for, and where it goes in the output. */
interface ItemWait {
	itemIndex: number;
	reportId: string;
	/** Output field of the file; undefined when nothing is downloaded. */
	binaryPropertyName?: string;
}

/** The output item of one input: the finished report with its file, or an error. */
async function settleReport(
	ctx: IExecuteFunctions,
	client: AdPerformanceClient,
	settings: WaitSettings,
	wait: ItemWait,
	found: WaitUntilFinishedResult<ServiceReport>,
): Promise<INodeExecutionData> {
	const { itemIndex, reportId } = wait;
	const { timeoutSeconds, maxFileBytes } = settings;
	const settled = settle(found, reportId, {
		// Also with On Timeout → output: a report last seen before the service fell silent is
		// not one seen still unfinished at the timeout.
		unseen: (outcome) =>
			unseenReportError(
				client,
				outcome,
				{ id: reportId, itemIndex, timeoutSeconds },
				`No report with this ID was listed within the timeout (${timeoutSeconds} seconds). Check the Report ID (by default it is taken from the id field of the input).`,
			),
		failed: (report) => client.errors.reportFailed({ ...report, id: reportId }, itemIndex),
	});
	const report = settled.state;
	if (settled.kind === 'pending') {
		if (settings.onTimeout === 'outputPending') return { json: report };
		throw client.errors.timedOut(
			`Report ${reportId} was still ${report.status ?? 'unknown'} after ${timeoutSeconds} seconds`,
			'Reports usually take 10–20 seconds, longer when the service is busy. Raise Timeout, or set On Timeout to output the report as it is and check it later.',
			itemIndex,
		);
	}
	if (wait.binaryPropertyName === undefined) return { json: report };
	// After the wait, the download is an operation of its own: its Request Options bound it. A
	// file the list showed finished and not ready yet is waited for within the Timeout.
	const file = await downloadReportFile(ctx, client, report, itemIndex, maxFileBytes, {
		deadline: client.deadline(),
		notReadyUntil: found.startedAt + timeoutSeconds * 1000,
		listedFinished: true,
	});
	return { json: report, binary: { [wait.binaryPropertyName]: file } };
}
