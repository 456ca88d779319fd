/**
 * The floor a listing node cannot go below inside n8n: a minimal node that pages through
 * GET /v1/campaigns with n8n's own `httpRequestWithAuthentication` in a loop and outputs one
 * item per record, with nothing else (no pacing, retries, checks or scrubbing). The bench
 * compares our Return All with it in the same engine run (issue 30, item 3).
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

export const MINIMAL_LIST_NODE = 'test.minimalCampaignList';

export class MinimalCampaignList implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Minimal campaign list',
		name: 'minimalCampaignList',
		group: ['transform'],
		version: 1,
		description: 'Bench floor',
		defaults: { name: 'Minimal campaign list' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'adPerformanceApi', required: true }],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const credentials = await this.getCredentials<{ baseUrl: string }>('adPerformanceApi');
		const out: INodeExecutionData[] = [];
		for (let page = 1; ; page++) {
			const body = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				'adPerformanceApi',
				{
					method: 'GET',
					url: `${credentials.baseUrl}/v1/campaigns`,
					qs: { page, page_size: 100 },
					json: true,
				},
			)) as { data: IDataObject[]; pagination: { hasMore: boolean } };
			for (const record of body.data) out.push({ json: record, pairedItem: { item: 0 } });
			if (!body.pagination.hasMore) break;
		}
		return [out];
	}
}
