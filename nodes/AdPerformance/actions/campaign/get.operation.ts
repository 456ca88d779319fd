import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { read, type InputSource } from '../../../shared/inputSource';
import { pathId, type AdPerformanceClient } from '../../../shared/transport';
import type { ServiceCampaign, SingleEnvelope } from '../../../shared/types';
import { CAMPAIGN_FIELD, campaignLocator } from '../common.descriptions';
import { simplifyCampaign } from '../../../shared/tool/toolResults';
import {
	CAMPAIGN_ID_ARGUMENT,
	singleRecordTool,
	withTool,
	type OperationTool,
} from '../../../shared/tool/operationTool';

const properties: INodeProperties[] = [campaignLocator];

export function readInput(source: InputSource): string {
	return read(source, CAMPAIGN_FIELD, (name, value) => source.check.campaignId(name, value));
}

export async function execute(
	this: IExecuteFunctions,
	client: AdPerformanceClient,
	itemIndex: number,
	campaignId: string,
): Promise<INodeExecutionData[]> {
	const envelope = await client.request<SingleEnvelope<ServiceCampaign>>({
		method: 'GET',
		path: `/campaigns/${pathId(campaignId)}`,
		itemIndex,
		subject: `campaign ${campaignId}`,
		expect: 'record',
	});
	return [{ json: envelope.data }];
}

export const tool: OperationTool<string> = {
	description:
		'Gets one campaign by its campaignId (camp_..., as the campaigns tool returns it). Returns id, name, status, objective, accountId, dailyBudget, currency and createdAt. To judge how the campaign performs, run a diagnostic on it instead (about 5 to 10 seconds). Read-only: safe to call again.',
	args: [CAMPAIGN_ID_ARGUMENT],
	execute: singleRecordTool(execute, simplifyCampaign),
};

export const description = withTool('campaign', 'get', properties, tool);
