import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { AdPerformanceClient, MAX_PAGE_SIZE, onePage } from '../../shared/transport';
import type { ListEnvelope, ServiceAccount, ServiceCampaign } from '../../shared/types';

/** A field of a record as text: the service's records are data of any shape, not our types. */
function textOf(value: unknown): string | undefined {
	if (typeof value === 'string') return value;
	return typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined;
}

function matches(filter: string | undefined, ...texts: unknown[]): boolean {
	if (!filter) return true;
	const needle = filter.toLowerCase();
	return texts.some((text) => textOf(text)?.toLowerCase().includes(needle));
}

/**
 * One page of a list for the editor's searchable list; the token is the next page's number. A
 * list search gets no Request Options, so it tries a few times and gives up (the user is waiting).
 */
async function searchPage<T extends IDataObject>(
	ctx: ILoadOptionsFunctions,
	path: string,
	paginationToken: string | undefined,
): Promise<{ records: T[]; nextToken: string | undefined }> {
	const client = await AdPerformanceClient.create(ctx, { maxAttempts: 3 });
	const page = Number(paginationToken ?? 1) || 1;
	const envelope: ListEnvelope<T> = await client.listPage<T>(path, {}, page, MAX_PAGE_SIZE, {
		deadline: client.deadline(),
	});
	// A page that contradicts itself is not the end of the list: the next page stays offered.
	const read = onePage(envelope, { page, pageSize: MAX_PAGE_SIZE });
	const more = read.kind === 'contradictory' || read.hasMore;
	// The editor shows what this returns without passing the nodes' output boundary: scrub here.
	return {
		records: client.redactor.value(read.records),
		nextToken: more ? String(page + 1) : undefined,
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
	const results: INodeListSearchItems[] = [];
	for (const account of records) {
		const value = textOf(account.platformAccountId);
		if (!value) continue;
		if (!matches(filter, account.name, value, account.id, account.businessName)) continue;
		const status = typeof account.connectionStatus === 'string' ? account.connectionStatus : '';
		const name = textOf(account.name) ?? textOf(account.id) ?? value;
		results.push({
			name: `${name}${status && status !== 'active' ? ` (${status.replace('_', ' ')})` : ''}`,
			value,
		});
	}
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
	const results: INodeListSearchItems[] = [];
	for (const campaign of records) {
		const value = textOf(campaign.id);
		if (!value || !matches(filter, campaign.name, value)) continue;
		const status = typeof campaign.status === 'string' ? campaign.status : '';
		results.push({
			name: `${textOf(campaign.name) ?? value}${status ? ` · ${status}` : ''}`,
			value,
		});
	}
	return { results, paginationToken: nextToken };
}
