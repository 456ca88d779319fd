import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { binaryPropertyNameProperty, maxFileSizeOption } from '../../../shared/descriptions';
import { downloadReportFile, maxFileBytesOf } from '../../../shared/reportFiles';
import type { AdPerformanceClient } from '../../../shared/transport';
import { InputValidator } from '../../../shared/validation';
import { REPORT_ID_ARGUMENT, withTool, type OperationTool } from '../../../shared/tool/operationTool';
import { reportAsText } from './get.operation';

const properties: INodeProperties[] = [
	{
		displayName: 'Report ID',
		name: 'reportId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'rpt_…',
		description: 'ID of a completed report',
	},
	binaryPropertyNameProperty,
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [maxFileSizeOption],
	},
];

export const tool: OperationTool = {
	description:
		'Gets a completed report for reading: pass reportId (rpt_...). A model cannot receive files, so this returns the report as text: id, title, status, format, riskLevel, totalSpend, avgRoas, totalConversions, avgCpa, downloadUrl (a signed link valid 7 days, to share with people) and expiresAt. A report that is not completed yet returns its status; wait for it with the wait-for-report tool (reports take 10 to 20 seconds).',
	args: [REPORT_ID_ARGUMENT],
	execute: reportAsText,
};

export const description = withTool('report', 'download', properties, tool);

export async function execute(
	this: IExecuteFunctions,
	client: AdPerformanceClient,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const check = new InputValidator(this.getNode(), itemIndex);
	const reportId = check.reportId('Report ID', this.getNodeParameter('reportId', itemIndex, ''));
	const binaryPropertyName = check.text(
		'Put Output File in Field',
		this.getNodeParameter('binaryPropertyName', itemIndex, 'data'),
		{ maxLength: 200 },
	);
	const maxFileBytes = maxFileBytesOf(check, this.getNodeParameter('options', itemIndex, {}));
	const binary = await downloadReportFile(this, client, { id: reportId }, itemIndex, maxFileBytes);
	return [
		{
			json: {
				id: reportId,
				fileName: binary.fileName,
				mimeType: binary.mimeType,
				fileSize: binary.fileSize,
			},
			binary: { [binaryPropertyName]: binary },
		},
	];
}
