import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { binaryPropertyNameProperty, maxFileSizeOption } from '../../../shared/descriptions';
import { downloadReportFile, maxFileBytesOf } from '../../../shared/reports';
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
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [maxFileSizeOption],
	},
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
