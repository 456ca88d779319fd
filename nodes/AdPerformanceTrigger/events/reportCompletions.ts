import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { walkReports } from '../../shared/reportLedger';
import { CLOCK_SKEW_MARGIN_MS } from '../../shared/transport';
import { serviceTime } from '../../shared/transport/serviceClock';
import { isFinished, type ServiceReport } from '../../shared/types';
import { eventKind, isEntryList } from './eventKind';

/*
 * Report Completed / Report Failed: how each final report is emitted exactly once.
 *
 * The list's `from` filters on CREATION time, but the event is COMPLETION, and a report
 * created before the last poll may complete after it (created A, then B; B may finish first).
 * So each poll asks for every report created since a cursor, whatever its status:
 *
 *     GET /v1/reports?from=<cursor>[&accountId=…]      (all pages, newest first)
 *
 * No `status` filter: the unfinished reports in that answer are what tells us how far the
 * cursor may move. (Filtering by status would hide them and need more requests.)
 *
 * Every time here is the SERVICE's: the cursor is compared with the records' `createdAt`, and
 * "now" is the earliest the service's clock can show by every reading of it (the Date header of
 * its answers, its record times and n8n's clock, see transport/serviceClock.ts). So a service
 * whose clock is half an hour behind n8n's still has its new reports inside the window.
 *
 * Stored state (see storedState.ts for where):
 *   - `cursor`: service time; invariant: every report created before it was already final when
 *     we last looked and has been handled. Next cursor =
 *       min(createdAt of the oldest still-unfinished report − 1 s,  service now − 5 min)
 *     and never earlier than the current one. The 1 s covers a service that compares `from`
 *     exclusively or at second precision; the 5 min (CLOCK_SKEW_MARGIN) a report listed a little
 *     later than its timestamp says.
 *   - `emitted`: [key, createdAt] of the reports of the watched status already emitted (or
 *     final at the baseline), at most MAX_EMITTED (1,000), the oldest created dropped first.
 *     The key is the report id (a digest of it when the id is over 128 characters), so the
 *     state stays bounded whatever ids the service sends; it is read into a Map, so an id is
 *     only ever data (a report whose id is `__proto__` is a report).
 *
 * Emitted once, by two rules applied to every listed report:
 *   - a report created before the cursor is never emitted: it was handled when it was inside
 *     the window, so a service whose `from` filter is coarser than asked (it returns reports
 *     created earlier the same day) repeats nothing;
 *   - a report already in `emitted` is not emitted again: the window overlaps the previous one.
 * Each report is emitted when first seen final, whatever order reports complete in; several
 * completing in one interval come out of the same poll, oldest completion first.
 *
 * Bounds. A report that never finishes would pin the cursor: one unfinished for more than
 * MAX_HOLD (1 h; generation takes 10–20 s) no longer holds it back. A burst of more than
 * MAX_EMITTED reports inside the window moves the cursor to just after the newest dropped one,
 * so what was dropped is older than the cursor. Only a report created before that point and
 * still unfinished would then be missed, which needs > 1,000 reports within the window.
 *
 * Clock trouble. A stored cursor that the service's clock has not reached (n8n's clock jumped
 * ahead and back, or the service's clock was set back) would make every poll blind: a poll that
 * finds one looks back MAX_HOLD from the service's now instead, and `emitted` keeps what was
 * already emitted from coming out again.
 *
 * The first poll (no state, or the event or account filter changed) records a baseline: it
 * looks back MAX_HOLD for reports still being generated, marks every finished one as emitted
 * and emits nothing.
 */

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
/** How long an unfinished report keeps the cursor from moving past it. */
const MAX_HOLD_MS = 60 * MINUTE;
/** Most reports kept in `emitted`. */
const MAX_EMITTED = 1_000;
/** Margin below an unfinished report's creation time (second precision, exclusive `from`). */
const HOLD_MARGIN_MS = SECOND;
/** Longest id kept as it is in `emitted`; a longer one is kept as a digest. */
const MAX_KEPT_ID_LENGTH = 128;

interface CompletionState {
	cursor: number;
	emitted: Map<string, number>;
}

function isTime(value: unknown): value is number {
	return typeof value === 'number' && Number.isFinite(value);
}

function emittedKey(id: string): string {
	return id.length <= MAX_KEPT_ID_LENGTH
		? id
		: `sha256:${createHash('sha256').update(id).digest('base64')}`;
}

function wantedStatus(event: string): 'completed' | 'failed' {
	return event === 'reportFailed' ? 'failed' : 'completed';
}

function accountQuery(accountId: string | undefined): IDataObject {
	return accountId ? { accountId } : {};
}

function completedAtMs(report: ServiceReport): number {
	return serviceTime(report.completedAt)?.earliest ?? Infinity;
}

export const reportCompletions = eventKind<CompletionState>({
	readState(stored) {
		const state = stored as IDataObject | undefined;
		if (!isTime(state?.cursor) || !isEntryList(state.emitted, isTime)) return undefined;
		const emitted = new Map(state.emitted);
		if (emitted.size !== state.emitted.length || emitted.size > MAX_EMITTED) return undefined;
		return { cursor: state.cursor, emitted };
	},

	writeState(state) {
		return { cursor: state.cursor, emitted: [...state.emitted] };
	},

	async poll({ client, settings, previous, startedAt, deadline }) {
		const clock = client.clock;
		const status = wantedStatus(settings.event);
		const emitted = new Map(previous?.emitted ?? []);

		// Where to look from, by the service's clock; only known once it has answered.
		const lookBack = () => clock.lowerBound(startedAt) - MAX_HOLD_MS;
		const start = () => {
			if (!previous) return lookBack();
			return clock.notYetReached(previous.cursor, Date.now()) ? lookBack() : previous.cursor;
		};
		let from = previous?.cursor ?? startedAt - MAX_HOLD_MS - CLOCK_SKEW_MARGIN_MS;
		let reports = new Map<string, ServiceReport>();
		for (let walks = 0; walks < 2; walks++) {
			reports = new Map();
			await walkReports(
				client,
				{ from: new Date(from).toISOString(), ...accountQuery(settings.accountId) },
				(records) => {
					// Pages may shift while we read them (new reports go on top): keep each id once.
					for (const report of records) reports.set(report.id, report);
				},
				{ deadline },
			);
			const needed = start();
			if (needed >= from) break;
			from = needed;
		}
		// A record without its id could be a report still generating: skipping it could move
		// the cursor past it and lose its completion. Such a poll changes nothing.
		if ([...reports.keys()].some((id) => typeof id !== 'string' || id === '')) {
			throw client.apiError(
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
		return { events: fresh, state: { cursor, emitted } };
	},

	async sample({ client, settings, deadline }) {
		// Newest first: one record of the watched status is the most recent one.
		let latest: ServiceReport | undefined;
		await walkReports(
			client,
			{ status: wantedStatus(settings.event), ...accountQuery(settings.accountId) },
			(records) => {
				latest = records[0];
				return false;
			},
			{ pageSize: 1, deadline },
		);
		return latest ? [{ json: latest }] : [];
	},
});
