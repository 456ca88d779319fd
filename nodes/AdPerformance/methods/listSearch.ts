import type {
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { AdPerformanceClient, MAX_PAGE_SIZE } from '../../shared/transport';
import type { ListEnvelope, ServiceAccount, ServiceCampaign } from '../../shared/types';

function matches(filter: string | undefined, ...texts: Array<string | undefined>): boolean {
	if (!filter) return true;
	const needle = filter.toLowerCase();
	return texts.some((text) => text?.toLowerCase().includes(needle));
}

function nextPage(envelope: ListEnvelope<unknown>, page: number): string | undefined {
	return envelope.pagination?.hasMore ? String(page + 1) : undefined;
}

/** Connected ad accounts; the value is the ad platform account id that Generate needs. */
export async function searchAccounts(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const client = await AdPerformanceClient.create(this, { maxAttempts: 3 });
	const page = Number(paginationToken ?? 1) || 1;
	const envelope = await client.listPage<ServiceAccount>('/accounts', {}, page, MAX_PAGE_SIZE);
	const results: INodeListSearchItems[] = (envelope.data ?? [])
		.filter((account) => account.platformAccountId)
		.filter((account) =>
			matches(
				filter,
				account.name,
				account.platformAccountId,
				account.id,
				account.businessName as string,
			),
		)
		.map((account) => ({
			name: `${account.name ?? account.id}${account.connectionStatus && account.connectionStatus !== 'active' ? ` (${account.connectionStatus.replace('_', ' ')})` : ''}`,
			value: account.platformAccountId as string,
		}));
	return { results, paginationToken: nextPage(envelope, page) };
}

export async function searchCampaigns(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const client = await AdPerformanceClient.create(this, { maxAttempts: 3 });
	const page = Number(paginationToken ?? 1) || 1;
	const envelope = await client.listPage<ServiceCampaign>('/campaigns', {}, page, MAX_PAGE_SIZE);
	const results: INodeListSearchItems[] = (envelope.data ?? [])
		.filter((campaign) => matches(filter, campaign.name, campaign.id))
		.map((campaign) => ({
			name: `${campaign.name ?? campaign.id}${campaign.status ? ` · ${campaign.status}` : ''}`,
			value: campaign.id,
		}));
	return { results, paginationToken: nextPage(envelope, page) };
}
