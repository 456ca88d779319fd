import { createHash } from 'crypto';

import { defined } from '../../shared/inputSource';
import { reportsSince, walkReports } from '../../shared/reportLedger';
import { CLOCK_SKEW_MARGIN_MS, serviceTime } from '../../shared/transport';
import { isFinished, type ServiceReport } from '../../shared/types';
import type { EventKind } from './eventKind';
import { ownValue, readCursor, readEntries, readStoredTime, STATE_LIMITS } from './storedState';

/*
 * Report Completed / Report Failed: each final report emitted exactly once (docs/security.md,
 * "Every trigger event is emitted once" and "Times are the service's, not n8n's").
 *
 * The list's `from` filters on CREATION time, but the event is COMPLETION, and a report created
 * before the last poll may complete after it. So each poll lists every report created since a
 * cursor, whatever its status (reportsSince): the unfinished ones tell how far the cursor may
 * move. Every time here is the SERVICE's (transport/serviceClock.ts).
 *
 * Stored state (storedState.ts):
 *   - `cursor`: every report created before it was final when we last looked, and handled.
 *     Next cursor = min(oldest unfinished createdAt − 1 s, service now − 5 min), never moving
 *     back. 1 s: a `from` compared exclusively or to the second; 5 min (CLOCK_SKEW_MARGIN): a
 *     report listed a little later than its timestamp says.
 *   - `emitted`: [key, createdAt] of the reports of the watched status emitted (or final at the
 *     baseline), at most MAX_EMITTED, oldest dropped first: windows overlap. The key is the id,
 *     or its digest past MAX_KEPT_ID_LENGTH.
 *
 * An unfinished report holds the cursor for MAX_HOLD at most (generation takes 10–20 s); a burst
 * of more than MAX_EMITTED moves the cursor past the newest dropped one (a report then still
 * unfinished among them could be missed). A cursor the service's clock has not reached (a clock
 * set back) would blind every poll: such a poll looks back MAX_HOLD from the service's now, and
 * `emitted` keeps what was emitted from coming again.
 */

const MAX_HOLD_MS = 60 * 60_000;
const MAX_EMITTED = 1_000;
const HOLD_MARGIN_MS = 1_000;
const MAX_KEPT_ID_LENGTH = 128;

interface CompletionState {
	cursor: number;
	emitted: Map<string, number>;
}

function emittedKey(id: string): string {
	return id.length <= MAX_KEPT_ID_LENGTH
		? id
		: `sha256:${createHash('sha256').update(id).digest('base64')}`;
}

function wantedStatus(event: string): 'completed' | 'failed' {
	return event === 'reportFailed' ? 'failed' : 'completed';
}

function completedAtMs(report: ServiceReport): number {
	return serviceTime(report.completedAt)?.earliest ?? Infinity;
}

export const reportCompletions: EventKind<CompletionState> = {
	readState(stored) {
		const cursor = readCursor(ownValue(stored, 'cursor'), 'the cursor');
		const emitted = readEntries(
			ownValue(stored, 'emitted'),
			'the list of emitted reports',
			{ maxEntries: MAX_EMITTED, maxKeyChars: MAX_KEPT_ID_LENGTH },
			// A creation time as the service wrote it: not bounded like the cursor, only readable.
			(createdAt) => readStoredTime(createdAt, 'a creation time in the list of emitted reports'),
		);
		return { cursor, emitted };
	},

	async poll({ client, settings, previous, startedAt, deadline }) {
		const clock = client.clock;
		const status = wantedStatus(settings.event);

		// Where to look from, by the service's clock (it judges the cursor only once it has answered).
		const lookBack = () => clock.lowerBound(startedAt) - MAX_HOLD_MS;
		const start = () =>
			previous && !clock.notYetReached(previous.cursor, Date.now()) ? previous.cursor : lookBack();
		const listed = await reportsSince(
			client,
			defined({ accountId: settings.accountId }),
			start,
			{ marginMs: 0, toleranceMs: 0 },
			() => true,
			'which reports were completed, so nothing was emitted and the trigger kept its cursor',
			{ deadline },
		);
		const { from } = listed;
		// A cursor the service's clock puts more than a day ahead was not written against it.
		const ruledOut =
			previous !== undefined &&
			clock.notYetReached(previous.cursor - STATE_LIMITS.aheadMs, Date.now());
		const emitted = new Map(ruledOut ? [] : (previous?.emitted ?? []));
		const reports = new Map(listed.reports.map((report) => [report.id, report]));
		// A record without its id could be a report still generating: skipping it could move
		// the cursor past it and lose its completion. Such a poll changes nothing.
		if ([...reports.keys()].some((id) => typeof id !== 'string' || id === '')) {
			throw client.errors.api(
				'The service listed a report without an ID (GET /v1/reports)',
				'Nothing was emitted and the trigger kept its cursor; the next poll tries again.',
			);
		}

		const now = clock.lowerBound(startedAt);
		const fresh: ServiceReport[] = [];
		let oldestUnfinished = Infinity;
		for (const report of reports.values()) {
			// A report without a readable creation time counts as created now.
			const created = serviceTime(report.createdAt) ?? { earliest: now, latest: now };
			const createdAt = created.earliest;
			// A service whose `from` filter is coarser than asked (it returns reports created
			// earlier the same day) lists reports from before the cursor: those were handled when
			// they were inside the window, and are neither emitted nor allowed to hold the cursor.
			if (created.latest < from) continue;
			if (!isFinished(report)) {
				// Unknown statuses count as unfinished (be liberal): they hold the cursor for a while.
				if (createdAt >= now - MAX_HOLD_MS)
					oldestUnfinished = Math.min(oldestUnfinished, createdAt);
				continue;
			}
			if (report.status !== status) continue;
			const key = emittedKey(report.id);
			if (emitted.has(key)) continue;
			emitted.set(key, createdAt);
			fresh.push(report);
		}

		let cursor = Math.max(
			from,
			Math.min(oldestUnfinished - HOLD_MARGIN_MS, now - CLOCK_SKEW_MARGIN_MS),
		);
		if (emitted.size > MAX_EMITTED) {
			const oldestFirst = [...emitted].sort((a, b) => a[1] - b[1]);
			const dropped = oldestFirst.slice(0, emitted.size - MAX_EMITTED);
			for (const [key] of dropped) emitted.delete(key);
			// What was dropped must never come back: it is now before the cursor.
			cursor = Math.max(cursor, dropped[dropped.length - 1][1] + 1);
		}

		fresh.sort(
			(a, b) =>
				completedAtMs(a) - completedAtMs(b) ||
				(serviceTime(a.createdAt)?.earliest ?? 0) - (serviceTime(b.createdAt)?.earliest ?? 0),
		);
		const baseline = ruledOut
			? "the cursor is more than a day past the service's clock"
			: undefined;
		return { events: fresh, state: { cursor, emitted }, baseline };
	},

	async sample({ client, settings, deadline }) {
		// Newest first: one record of the watched status is the most recent one.
		let latest: ServiceReport | undefined;
		await walkReports(
			client,
			defined({ status: wantedStatus(settings.event), accountId: settings.accountId }),
			(records) => {
				latest = records[0];
				return false;
			},
			{ pageSize: 1, deadline, incomplete: 'fails' },
		);
		return latest;
	},
};
