import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { pathId, type AdPerformanceClient } from '../../../shared/transport';
import type { ServiceDiagnostic, SingleEnvelope } from '../../../shared/types';
import { InputValidator } from '../../../shared/validation';

const properties: INodeProperties[] = [
	{
		displayName: 'Diagnostic ID',
		name: 'diagnosticId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'diag_…',
		description: 'ID of the diagnostic, as returned by Run',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['diagnostic'], operation: ['get'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	client: AdPerformanceClient,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const check = new InputValidator(this.getNode(), itemIndex);
	const diagnosticId = check.diagnosticId(
		'Diagnostic ID',
		this.getNodeParameter('diagnosticId', itemIndex, ''),
	);
	const envelope = await client.request<SingleEnvelope<ServiceDiagnostic>>({
		method: 'GET',
		path: `/diagnostics/${pathId(diagnosticId)}`,
		itemIndex,
		subject: `diagnostic ${diagnosticId}`,
		expect: 'record',
	});
	return [{ json: envelope.data }];
}
