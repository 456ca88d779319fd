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

/**
 * One page of a list for the editor's searchable list; the token is the next page's number. A
 * list search gets no Request Options, so it tries a few times and gives up (the user is waiting).
 */
async function searchPage<T>(
	ctx: ILoadOptionsFunctions,
	path: string,
	paginationToken: string | undefined,
): Promise<{ records: T[]; nextToken: string | undefined }> {
	const client = await AdPerformanceClient.create(ctx, { maxAttempts: 3 });
	const page = Number(paginationToken ?? 1) || 1;
	const envelope: ListEnvelope<T> = await client.listPage<T>(path, {}, page, MAX_PAGE_SIZE);
	return {
		records: envelope.data ?? [],
		nextToken: envelope.pagination?.hasMore ? String(page + 1) : undefined,
	};
}

/** Connected ad accounts; the value is the ad platform account id that Generate needs. */
export async function searchAccounts(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const { records, nextToken } = await searchPage<ServiceAccount>(
		this,
		'/accounts',
		paginationToken,
	);
	const results: INodeListSearchItems[] = records
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
	return { results, paginationToken: nextToken };
}

export async function searchCampaigns(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const { records, nextToken } = await searchPage<ServiceCampaign>(
		this,
		'/campaigns',
		paginationToken,
	);
	const results: INodeListSearchItems[] = records
		.filter((campaign) => matches(filter, campaign.name, campaign.id))
		.map((campaign) => ({
			name: `${campaign.name ?? campaign.id}${campaign.status ? ` · ${campaign.status}` : ''}`,
			value: campaign.id,
		}));
	return { results, paginationToken: nextToken };
}
