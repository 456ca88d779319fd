import type { INodeProperties } from 'n8n-workflow';

import { read, type InputSource } from '../../../shared/inputSource';
import { getRecordById } from '../listRecords';
import { CAMPAIGN_FIELD, campaignLocator } from '../common.descriptions';
import { simplifyCampaign } from '../../../shared/tool/toolResults';
import {
	CAMPAIGN_ID_ARGUMENT,
	singleRecordTool,
	type OperationTool,
} from '../../../shared/tool/operationTool';

export const properties: INodeProperties[] = [campaignLocator];

export function readInput(source: InputSource): string {
	return read(source, CAMPAIGN_FIELD, (name, value) => source.check.id(name, value, 'campaign'));
}

export const execute = getRecordById('campaign');

export const tool: OperationTool<string> = {
	description:
		'Gets one campaign by its campaignId (camp_..., as the campaigns tool returns it). Returns id, name, status, objective, accountId, dailyBudget, currency and createdAt. To judge how the campaign performs, run a diagnostic on it instead (about 5 to 10 seconds). Read-only: safe to call again.',
	args: [CAMPAIGN_ID_ARGUMENT],
	execute: singleRecordTool(execute, simplifyCampaign),
};
