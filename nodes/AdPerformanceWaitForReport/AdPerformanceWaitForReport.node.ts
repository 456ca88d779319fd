import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { throughTheBoundary } from '../shared/boundary';
import { reportWaitProperties, requestOptionsProperty } from '../shared/descriptions';
import { everyItemFailed, ItemResults } from '../shared/items';
import { createClient } from '../shared/createClient';
import type { AdPerformanceClient } from '../shared/transport';
import { isToolVariant } from '../shared/tool/toolArguments';
import { NodeParameters } from '../shared/inputSource';
import {
	readReportId,
	readWaitInput,
	reportHintOf,
	settleReportWaits,
	type ReportWait,
} from '../shared/waitForReports';
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
			...reportWaitProperties,
			requestOptionsProperty,
		]),
	};

	/**
	 * One wait serves every item: each item's input is checked before any request, then one sweep
	 * per interval looks for all reports (per timing: waitForReports.ts), and each item is settled
	 * with its report or its error.
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await throughTheBoundary(
			this,
			isToolVariant(this) ? waitAsTool : AdPerformanceWaitForReport.waitForEveryItem,
		);
	}

	static async waitForEveryItem(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		let client: AdPerformanceClient;
		try {
			client = await createClient(this, this.getNodeParameter('requestOptions', 0, {}));
		} catch (error) {
			return [everyItemFailed(this, items.length, error)];
		}
		const results = new ItemResults(this);

		const waits: ReportWait[] = [];
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				const source = new NodeParameters(this, itemIndex);
				const reportId = readReportId(source);
				const { json } = items[itemIndex];
				// Where to look for a report, from the output of Report → Generate.
				const hint = json.id === reportId ? reportHintOf(json) : undefined;
				waits.push({ itemIndex, reportId, hint, ...readWaitInput(source) });
			} catch (error) {
				results.fail(itemIndex, error);
			}
		}
		await settleReportWaits(
			this,
			client,
			waits,
			results,
			'Check the Report ID (by default it is taken from the id field of the input).',
		);
		return [results.list()];
	}
}
