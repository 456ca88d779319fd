import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import {
	binaryPropertyNameProperty,
	collection,
	maxFileSizeOption,
	readReportId,
	reportIdProperty,
} from '../../../shared/descriptions';
import {
	downloadReportFile,
	FILE_NOT_READY_WAIT_MS,
	maxFileBytesOf,
	readBinaryPropertyName,
} from '../../../shared/reportFiles';
import type { AdPerformanceClient } from '../../../shared/transport';
import type { InputSource } from '../../../shared/inputSource';
import { REPORT_ID_ARGUMENT, type OperationTool } from '../../../shared/tool/operationTool';
import { reportAsText } from './get.operation';

export const properties: INodeProperties[] = [
	reportIdProperty('ID of a completed report'),
	binaryPropertyNameProperty,
	collection('options', 'Options', 'Add option', [maxFileSizeOption]),
];

type ReportDownload = ReturnType<typeof readInput>;

export function readInput(source: InputSource) {
	return {
		reportId: readReportId(source),
		binaryPropertyName: readBinaryPropertyName(source),
		maxFileBytes: maxFileBytesOf(source),
	};
}

export async function execute(
	this: IExecuteFunctions,
	client: AdPerformanceClient,
	itemIndex: number,
	{ reportId, binaryPropertyName, maxFileBytes }: ReportDownload,
): Promise<INodeExecutionData[]> {
	const binary = await downloadReportFile(this, client, { id: reportId }, itemIndex, maxFileBytes, {
		deadline: client.deadline(),
		notReadyUntil: Date.now() + FILE_NOT_READY_WAIT_MS,
	});
	const { fileName, mimeType, fileSize } = binary;
	const json = { id: reportId, fileName, mimeType, fileSize };
	return [{ json, binary: { [binaryPropertyName]: binary } }];
}

export const tool: OperationTool<ReportDownload> = {
	description:
		'Gets a completed report for reading: pass reportId (rpt_...). A model cannot receive files, so this returns the report as text: id, title, status, format, riskLevel, totalSpend, avgRoas, totalConversions, avgCpa, downloadUrl (a signed link valid 7 days, to share with people) and expiresAt. A report that is not completed yet returns its status; wait for it with the wait-for-report tool (reports take 10 to 20 seconds).',
	args: [REPORT_ID_ARGUMENT],
	async execute(client, itemIndex, { reportId }) {
		return await reportAsText.call(this, client, itemIndex, { reportId, narrow: {} });
	},
};
