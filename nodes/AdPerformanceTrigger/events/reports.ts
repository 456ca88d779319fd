import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { CLOCK_SKEW_MARGIN_MS } from '../../shared/transport';
import { isFinished, type ServiceReport } from '../../shared/types';
import type { EventHandler, PollInput, PollOutcome } from './common';

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
 * Stored in the node's static data (persisted by n8n between polls and across restarts):
 *   - `cursor`: ISO time; invariant: every report created before it was already final when
 *     we last looked and has been handled. Next cursor =
 *       min(createdAt of the oldest still-unfinished report − 1 s,  now − CLOCK_SKEW_MARGIN)
 *     and never earlier than the current one. The 1 s covers a service that compares `from`
 *     exclusively or at second precision; CLOCK_SKEW_MARGIN (5 min) covers a service clock behind
 *     n8n's, so a report created "just now" on a lagging service is still inside the window.
 *   - `seen`: id → createdAt (ms) of every report of the watched status already emitted (or
 *     present at the baseline) and created at or after the cursor. The window overlaps the
 *     previous one (skew, unfinished reports), so finished reports come back; `seen` makes
 *     sure they are emitted once. Entries older than the cursor can never come back (the
 *     service no longer returns them), so they are pruned. Each report is emitted when first
 *     seen final, whatever order reports complete in; several completing in one interval all
 *     come out of the same poll, oldest completion first.
 *
 * Bounds: `seen` holds at most MAX_SEEN (1,000) ids, about 40 kB. Normally it holds only the
 * reports of the last few minutes (the service allows 5 generations a minute). Two things
 * could make it grow, and both are cut:
 *   - a report that never finishes would pin the cursor: one unfinished for more than
 *     MAX_HOLD (1 h; generation takes 10–20 s) no longer holds the cursor back;
 *   - a burst of more than MAX_SEEN reports inside the window: the oldest ids are dropped and
 *     the cursor moves to just after the newest dropped one, so what was dropped can no longer
 *     be returned (no duplicates). Only a report created before that point and still
 *     unfinished would then be missed, which needs > 1,000 reports within the window.
 * The query window follows the cursor, so a poll reads at most about that many reports too:
 * with nothing new it is one request.
 *
 * The first poll (no state, or the event or account filter changed) records a baseline: it
 * looks back MAX_HOLD for reports still being generated, marks every finished one as seen
 * and emits nothing.
 */

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
/** How long an unfinished report keeps the cursor from moving past it. */
const MAX_HOLD_MS = 60 * MINUTE;
/** Most ids kept in `seen`. */
const MAX_SEEN = 1_000;
/** Margin below an unfinished report's creation time (second precision, exclusive `from`). */
const HOLD_MARGIN_MS = SECOND;

interface ReportEventsCursor extends IDataObject {
	cursor: string;
	seen: Record<string, number>;
}

function readState(previous: IDataObject | undefined): ReportEventsCursor | undefined {
	if (!previous || typeof previous.cursor !== 'string' || Number.isNaN(Date.parse(previous.cursor)))
		return undefined;
	const seen: Record<string, number> = {};
	if (previous.seen && typeof previous.seen === 'object') {
		for (const [id, createdAt] of Object.entries(previous.seen as IDataObject)) {
			if (typeof createdAt === 'number' && Number.isFinite(createdAt)) seen[id] = createdAt;
		}
	}
	return { cursor: previous.cursor, seen };
}

function createdAtMs(report: ServiceReport, fallback: number): number {
	const ms = typeof report.createdAt === 'string' ? Date.parse(report.createdAt) : NaN;
	return Number.isFinite(ms) ? ms : fallback;
}

function completedAtMs(report: ServiceReport, fallback: number): number {
	const ms = typeof report.completedAt === 'string' ? Date.parse(report.completedAt) : NaN;
	return Number.isFinite(ms) ? ms : fallback;
}

function wantedStatus(event: string): 'completed' | 'failed' {
	return event === 'reportFailed' ? 'failed' : 'completed';
}

function accountQuery(accountId: string | undefined): IDataObject {
	return accountId ? { accountId } : {};
}

export const reportEvents: EventHandler = {
	async poll(this: IPollFunctions, input: PollInput): Promise<PollOutcome> {
		const { client, settings, now } = input;
		const status = wantedStatus(settings.event);
		const state = readState(input.previous);
		const baseline = state === undefined;
		const from = baseline ? now - MAX_HOLD_MS : Date.parse(state.cursor);

		// Pages may shift while we read them (new reports go on top): keep each id once.
		const reports = new Map<string, ServiceReport>();
		await client.walk<ServiceReport>(
			'/reports',
			{ from: new Date(from).toISOString(), ...accountQuery(settings.accountId) },
			(records) => {
				for (const report of records) reports.set(report.id, report);
			},
		);
		// A record without its id could be a report still generating: skipping it could move
		// the cursor past it and lose its completion. Such a poll changes nothing.
		if ([...reports.keys()].some((id) => typeof id !== 'string' || id === '')) {
			throw client.apiError(
				'The service listed a report without an ID (GET /v1/reports)',
				'Nothing was emitted and the trigger kept its cursor; the next poll tries again.',
			);
		}

		const seen = new Map<string, number>(Object.entries(state?.seen ?? {}));
		const fresh: ServiceReport[] = [];
		let oldestUnfinished = Infinity;
		for (const report of reports.values()) {
			// A report without a readable creation time is kept in `seen` as if created now.
			const createdAt = createdAtMs(report, now);
			if (!isFinished(report)) {
				// Unknown statuses count as unfinished (be liberal): they hold the cursor for a while.
				if (createdAt >= now - MAX_HOLD_MS)
					oldestUnfinished = Math.min(oldestUnfinished, createdAt);
				continue;
			}
			if (report.status !== status || seen.has(report.id)) continue;
			seen.set(report.id, createdAt);
			if (!baseline) fresh.push(report);
		}

		let cursor = Math.max(
			from,
			Math.min(oldestUnfinished - HOLD_MARGIN_MS, now - CLOCK_SKEW_MARGIN_MS),
		);
		// What was created before the cursor is never returned again: forget it.
		for (const [id, createdAt] of seen) if (createdAt < cursor) seen.delete(id);
		if (seen.size > MAX_SEEN) {
			const newestFirst = [...seen].sort((a, b) => b[1] - a[1]);
			const newestDropped = newestFirst[MAX_SEEN][1];
			cursor = Math.max(cursor, newestDropped + 1);
			for (const [id] of newestFirst.slice(MAX_SEEN)) seen.delete(id);
			for (const [id, createdAt] of seen) if (createdAt < cursor) seen.delete(id);
		}

		fresh.sort(
			(a, b) =>
				completedAtMs(a, now) - completedAtMs(b, now) || createdAtMs(a, now) - createdAtMs(b, now),
		);
		return {
			items: fresh.map((report) => ({ json: report })),
			state: { cursor: new Date(cursor).toISOString(), seen: Object.fromEntries(seen) },
		};
	},

	async sample(this: IPollFunctions, input): Promise<INodeExecutionData[]> {
		const { client, settings } = input;
		// Newest first: one record of the watched status is the most recent one.
		const [latest] = await client.list<ServiceReport>(
			'/reports',
			{ status: wantedStatus(settings.event), ...accountQuery(settings.accountId) },
			{ returnAll: false, limit: 1 },
		);
		return latest ? [{ json: latest }] : [];
	},
};
