import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { throughTheBoundary } from '../shared/boundary';
import {
	reportIdProperty,
	reportWaitProperties,
	requestOptionsProperty,
} from '../shared/descriptions';
import { runOperation, type Operation } from '../shared/tool/operationTool';
import {
	readReportToWaitFor,
	reportHintOf,
	settleReportWaits,
	type ReportToWaitFor,
} from '../shared/waitForReports';
import { waitTool, withWaitTool } from '../shared/tool/waitTool';

/** Wait for Ad Report: every item's report is waited for at once, by settleReportWaits. */
const waitForReport: Operation<ReportToWaitFor> = {
	readInput: readReportToWaitFor,
	async afterEveryItem(client, executed, results) {
		const waits = executed.map(({ itemIndex, input, output: [{ json }] }) => ({
			itemIndex,
			...input,
			// Where to look for a report, from the output of Report → Generate.
			hint: json.id === input.reportId ? reportHintOf(json) : undefined,
		}));
		await settleReportWaits(
			this,
			client,
			waits,
			results,
			'Check the Report ID (by default it is taken from the id field of the input).',
		);
	},
	tool: waitTool,
};

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
			reportIdProperty(
				'ID of the report to wait for. The default takes it from the output of Report → Generate.',
				'={{ $json.id }}',
			),
			...reportWaitProperties,
			requestOptionsProperty,
		]),
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await throughTheBoundary(this, function () {
			return runOperation.call(this, waitForReport);
		});
	}
}
