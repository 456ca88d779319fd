import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import type { AdPerformanceClient } from '../../shared/transport';
import type { ServiceAccount } from '../../shared/types';
import type { EventHandler, PollInput, PollOutcome } from './common';

/*
 * Account Connection Changed.
 *
 * Each poll lists every connected account (all pages, 100 a page: one request for up to 100
 * accounts) and compares each account's `connectionStatus` with the snapshot stored in the
 * node's static data, `statuses`: service account id → connection status. The snapshot holds
 * one short entry per account, so it is bounded by the number of accounts.
 *
 * Emitted, one item per change: `{ account, previousStatus, currentStatus }`, e.g.
 * active → token_expired, active → disconnected, token_expired → active.
 *
 * Decisions where the service's documentation is silent:
 *   - An account that appears after the baseline (newly connected in the dashboard) is
 *     emitted with `previousStatus: null`: connecting an account is a change of its connection,
 *     and a workflow that, say, posts "account X is now active" should hear about it. A
 *     workflow that wants only changes of known accounts filters on previousStatus.
 *   - An account that disappears from the list (removed from the workspace) is emitted once
 *     with `currentStatus: null` and `account: { id }` (the list no longer has its record).
 *   - A missing `connectionStatus` counts as null; unknown values are passed through.
 *   - A change and its reversal between two polls (active → token_expired → active) is not
 *     visible to polling.
 */

interface AccountState extends IDataObject {
	statuses: Record<string, string | null>;
}

function readState(previous: IDataObject | undefined): AccountState | undefined {
	if (!previous || !previous.statuses || typeof previous.statuses !== 'object') return undefined;
	const statuses: Record<string, string | null> = {};
	for (const [id, status] of Object.entries(previous.statuses as IDataObject)) {
		statuses[id] = typeof status === 'string' ? status : null;
	}
	return { statuses };
}

function statusOf(account: ServiceAccount): string | null {
	return typeof account.connectionStatus === 'string' ? account.connectionStatus : null;
}

/** The accounts the filter selects: it may name the service id or the ad platform id. */
async function listAccounts(
	client: AdPerformanceClient,
	accountId: string | undefined,
	options: { returnAll: boolean; limit?: number } = { returnAll: true },
): Promise<ServiceAccount[]> {
	const accounts = await client.list<ServiceAccount>('/accounts', {}, options);
	// Without its id an account cannot be compared with the snapshot: it would look removed.
	if (accounts.some((account) => typeof account.id !== 'string' || account.id === '')) {
		throw client.apiError(
			'The service listed an ad account without an ID (GET /v1/accounts)',
			'Nothing was emitted and the stored account statuses were kept; the next poll tries again.',
		);
	}
	return accounts.filter(
		(account) => !accountId || account.id === accountId || account.platformAccountId === accountId,
	);
}

export const accountEvents: EventHandler = {
	async poll(this: IPollFunctions, input: PollInput): Promise<PollOutcome> {
		const { client, settings } = input;
		const state = readState(input.previous);
		const accounts = await listAccounts(client, settings.accountId);

		const previous = state ? new Map(Object.entries(state.statuses)) : undefined;
		const statuses = new Map<string, string | null>();
		const items: INodeExecutionData[] = [];
		for (const account of accounts) {
			const currentStatus = statusOf(account);
			statuses.set(account.id, currentStatus);
			if (!previous) continue; // baseline: record only
			const known = previous.has(account.id);
			const previousStatus = known ? (previous.get(account.id) ?? null) : null;
			if (known && previousStatus === currentStatus) continue;
			items.push({ json: { account, previousStatus, currentStatus } });
		}
		for (const [id, previousStatus] of previous ?? []) {
			if (statuses.has(id)) continue;
			items.push({ json: { account: { id }, previousStatus, currentStatus: null } });
		}
		return { items, state: { statuses: Object.fromEntries(statuses) } };
	},

	async sample(this: IPollFunctions, input): Promise<INodeExecutionData[]> {
		const { client, settings } = input;
		// Without a filter the first account will do, so one small page is enough.
		const [account] = await listAccounts(
			client,
			settings.accountId,
			settings.accountId ? { returnAll: true } : { returnAll: false, limit: 1 },
		);
		if (!account) return [];
		const currentStatus = statusOf(account);
		// A sample of the output shape: the status as it is now on both sides.
		return [{ json: { account, previousStatus: currentStatus, currentStatus } }];
	},
};
