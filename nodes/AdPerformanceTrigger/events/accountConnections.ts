import type { IDataObject } from 'n8n-workflow';

import type { AdPerformanceClient } from '../../shared/transport';
import type { ServiceAccount } from '../../shared/types';
import type { EventKind } from './eventKind';
import { ownValue, readEntries, StateRejected } from './storedState';

/*
 * Account Connection Changed. Each poll lists every connected account and compares each one's
 * `connectionStatus` with the snapshot the last poll stored ([id, status] entries). Emitted, one
 * item per change: `{ account, previousStatus, currentStatus }`.
 *
 * Decisions where the service's documentation is silent:
 *   - An account that appears after the baseline (newly connected) is emitted with
 *     `previousStatus: null`: connecting an account is a change of its connection. A workflow
 *     that wants only changes of known accounts filters on previousStatus.
 *   - An account that disappears from the list is emitted once with `currentStatus: null` and
 *     `account: { id }`. Absence is read only from a complete listing (pageWalker.ts): pages read
 *     while accounts come and go can skip one, and then accounts not seen keep their status.
 *   - A missing `connectionStatus` counts as null; unknown values are passed through.
 *   - A change and its reversal between two polls is not visible to polling.
 */

interface AccountSnapshot {
	statuses: Map<string, string | null>;
}

/** Most accounts a stored snapshot holds: one poll reads at most 240 pages of 100 in its 30 s. */
const MAX_ACCOUNTS = 100_000;
/** Longest account id and status kept; the service's are short words and ids. */
const MAX_TEXT_CHARS = 1_024;
const isKeptText = (value: unknown): value is string =>
	typeof value === 'string' && value.length <= MAX_TEXT_CHARS;

function readStatus(value: unknown): string | null {
	if (value === null || isKeptText(value)) return value;
	throw new StateRejected(
		`the account snapshot holds a status that is neither null nor a text of at most ${MAX_TEXT_CHARS} characters`,
	);
}

/** The status the snapshot keeps: a longer text is no status the service documents (null). */
function statusOf(account: ServiceAccount): string | null {
	return isKeptText(account.connectionStatus) ? account.connectionStatus : null;
}

/** The accounts the filter selects: it may name the service id or the ad platform id. */
async function listAccounts(
	client: AdPerformanceClient,
	accountId: string | undefined,
	options: { limit?: number; deadline: number },
): Promise<{ accounts: ServiceAccount[]; complete: boolean }> {
	const accounts: ServiceAccount[] = [];
	const wanted = options.limit ?? Infinity;
	const walked = await client.walk<ServiceAccount>(
		'/accounts',
		{},
		(page) => {
			for (const account of page) {
				// Without its id an account cannot be compared with the snapshot: it would look removed.
				// One too long to keep would make the stored snapshot unreadable (MAX_TEXT_CHARS).
				if (!isKeptText(account?.id) || account.id === '') {
					throw client.errors.api(
						typeof account?.id === 'string' && account.id !== ''
							? `The service listed an ad account with an ID longer than ${MAX_TEXT_CHARS} characters (GET /v1/accounts)`
							: 'The service listed an ad account without an ID (GET /v1/accounts)',
						'Nothing was emitted and the stored account statuses were kept; the next poll tries again.',
					);
				}
				if (!accountId || account.id === accountId || account.platformAccountId === accountId)
					accounts.push(account);
			}
			return accounts.length < wanted;
		},
		{
			deadline: options.deadline,
			pageSize: Number.isFinite(wanted) ? wanted : undefined,
			incomplete: 'returnedIfShifted',
		},
	);
	return { accounts: accounts.slice(0, wanted), complete: walked.kind === 'complete' };
}

export const accountConnections: EventKind<AccountSnapshot> = {
	readState(stored) {
		const statuses = readEntries(
			ownValue(stored, 'statuses'),
			'the account snapshot',
			{ maxEntries: MAX_ACCOUNTS, maxKeyChars: MAX_TEXT_CHARS },
			readStatus,
		);
		return { statuses };
	},

	async poll({ client, settings, previous, deadline }) {
		const { accounts, complete } = await listAccounts(client, settings.accountId, { deadline });
		const statuses = new Map<string, string | null>();
		const events: IDataObject[] = [];
		for (const account of accounts) {
			// Pages may shift while we read them: an account listed twice is one account.
			if (statuses.has(account.id)) continue;
			const currentStatus = statusOf(account);
			statuses.set(account.id, currentStatus);
			const known = previous?.statuses.has(account.id) ?? false;
			const previousStatus = known ? (previous?.statuses.get(account.id) ?? null) : null;
			if (known && previousStatus === currentStatus) continue;
			events.push({ account, previousStatus, currentStatus });
		}
		for (const [id, previousStatus] of previous?.statuses ?? []) {
			if (statuses.has(id)) continue;
			if (complete) events.push({ account: { id }, previousStatus, currentStatus: null });
			else statuses.set(id, previousStatus);
		}
		return { events, state: { statuses } };
	},

	async sample({ client, settings, deadline }) {
		// Without a filter the first account will do, so one small page is enough.
		const { accounts } = await listAccounts(client, settings.accountId, {
			deadline,
			limit: settings.accountId ? undefined : 1,
		});
		const account = accounts[0];
		if (!account) return undefined;
		const currentStatus = statusOf(account);
		// A sample of the output shape: the status as it is now on both sides.
		return { account, previousStatus: currentStatus, currentStatus };
	},
};
