import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { pathId, type AdPerformanceClient } from '../../../shared/transport';
import type { ServiceCampaign, SingleEnvelope } from '../../../shared/types';
import { InputValidator } from '../../../shared/validation';
import { campaignLocator } from '../common.descriptions';
import { simplifyCampaign } from '../../../shared/tool/toolResults';
import { CAMPAIGN_ID_ARGUMENT, singleRecordTool, withTool, type OperationTool } from '../../../shared/tool/operationTool';

const properties: INodeProperties[] = [campaignLocator];

export const tool: OperationTool = {
	description:
		'Gets one campaign by its campaignId (camp_..., as the campaigns tool returns it). Returns id, name, status, objective, accountId, dailyBudget, currency and createdAt. To judge how the campaign performs, run a diagnostic on it instead (about 5 to 10 seconds). Read-only: safe to call again.',
	args: [CAMPAIGN_ID_ARGUMENT],
	execute: singleRecordTool('campaignId', execute, simplifyCampaign),
};

export const description = withTool('campaign', 'get', properties, tool);

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
