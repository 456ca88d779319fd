import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { pathId, type AdPerformanceClient } from '../../../shared/transport';
import type { ServiceCampaign, SingleEnvelope } from '../../../shared/types';
import { InputValidator } from '../../../shared/validation';
import { campaignLocator } from '../common.descriptions';

const properties: INodeProperties[] = [campaignLocator];

export const description = updateDisplayOptions(
	{ show: { resource: ['campaign'], operation: ['get'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	client: AdPerformanceClient,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const check = new InputValidator(this.getNode(), itemIndex);
	const campaignId = check.campaignId(
		'Campaign',
		this.getNodeParameter('campaignId', itemIndex, '', { extractValue: true }),
	);
	const envelope = await client.request<SingleEnvelope<ServiceCampaign>>({
		method: 'GET',
		path: `/campaigns/${pathId(campaignId)}`,
		itemIndex,
		subject: `campaign ${campaignId}`,
		expect: 'record',
	});
	return [{ json: envelope.data }];
}
