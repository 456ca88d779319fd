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
 * The editor's searchable list of `path`: one page a call, each record as `toItem` shows it, or
 * left out by the filter. A list search gets no Request Options, so it tries a few times and
 * gives up (the user is waiting).
 */
function searchList<T extends IDataObject>(
	path: string,
	toItem: (record: T, filter: string | undefined) => INodeListSearchItems | undefined,
) {
	return async function (
		this: ILoadOptionsFunctions,
		filter?: string,
		paginationToken?: string,
	): Promise<INodeListSearchResult> {
		const client = await AdPerformanceClient.create(this, { maxAttempts: 3 });
		const page = Number(paginationToken ?? 1) || 1;
		const envelope: ListEnvelope<T> = await client.listPage<T>(path, {}, page, MAX_PAGE_SIZE, {
			deadline: client.deadline(),
		});
		// A page that contradicts itself is not the end of the list: the next page stays offered.
		const read = onePage(envelope, { page, pageSize: MAX_PAGE_SIZE });
		const more = read.kind === 'contradictory' || read.hasMore;
		// The editor shows what this returns without passing the nodes' output boundary: scrub here.
		const records = client.redactor.value(read.records);
		return {
			results: records.flatMap((record) => toItem(record, filter) ?? []),
			paginationToken: more ? String(page + 1) : undefined,
		};
	};
}

/** Connected ad accounts; the value is the ad platform account id that Generate needs. */
export const searchAccounts = searchList<ServiceAccount>('/accounts', (account, filter) => {
	const value = textOf(account.platformAccountId);
	if (!value || !matches(filter, account.name, value, account.id, account.businessName)) return;
	const status = typeof account.connectionStatus === 'string' ? account.connectionStatus : '';
	const name = textOf(account.name) ?? textOf(account.id) ?? value;
	return {
		name: `${name}${status && status !== 'active' ? ` (${status.replace('_', ' ')})` : ''}`,
		value,
	};
});

export const searchCampaigns = searchList<ServiceCampaign>('/campaigns', (campaign, filter) => {
	const value = textOf(campaign.id);
	if (!value || !matches(filter, campaign.name, value)) return;
	const status = typeof campaign.status === 'string' ? campaign.status : '';
	return { name: `${textOf(campaign.name) ?? value}${status ? ` · ${status}` : ''}`, value };
});
