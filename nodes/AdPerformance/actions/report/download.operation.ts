import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { binaryPropertyNameProperty } from '../../../shared/descriptions';
import { downloadReportFile } from '../../../shared/reportFiles';
import type { AdPerformanceClient } from '../../../shared/transport';
import { InputValidator } from '../../../shared/validation';

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
];

export const description = updateDisplayOptions(
	{ show: { resource: ['report'], operation: ['download'] } },
	properties,
);

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
	const binary = await downloadReportFile(this, client, { id: reportId }, itemIndex);
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
