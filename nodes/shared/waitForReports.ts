import type { IDataObject } from 'n8n-workflow';

import { reportNotFound, walkReports } from './reportLedger';
import { CLOCK_SKEW_MARGIN_MS, type AdPerformanceClient } from './transport';
import { isFinished, type ServiceReport } from './types';
import { waitUntilFinished, type Unseen, type WaitUntilFinishedResult } from './waitUntilFinished';

/**
 * The error for a report the wait did not see: "not found" only when the last look was answered
 * with a complete list that did not hold it, "deleted" when an earlier look had shown it; else
 * what the look met.
 */
export function unseenReportError(
	client: AdPerformanceClient,
	outcome: Unseen<ServiceReport>,
	report: { id: string; itemIndex: number; timeoutSeconds: number },
	notFoundDescription: string,
) {
	if (outcome.kind === 'deleted') {
		const status = outcome.lastSeen.status;
		return client.apiError(
			`Report ${report.id} was deleted while it was waited for: the service listed it as ${typeof status === 'string' ? status : 'unknown'}, and then no longer`,
			'Complete listings of GET /v1/reports stopped holding the report, so there is nothing left to wait for or download. Generate the report again.',
			report.itemIndex,
			'deleted',
		);
	}
	if (outcome.kind === 'unlisted' && !outcome.listedCompletely) {
		// Not "not found": the list that did not hold it did not agree with itself either.
		return client.apiError(
			`Report ${report.id} was not in the report list, but the list did not agree with itself`,
			`The service's pages of GET /v1/reports contradicted one another until the Timeout (${report.timeoutSeconds} seconds), so their not holding the report does not mean it does not exist. Run the wait again; if it persists, the service is having trouble.`,
			report.itemIndex,
		);
	}
	if (outcome.kind === 'unlisted') {
		return reportNotFound(client, report.id, report.itemIndex, notFoundDescription);
	}
	const status = outcome.lastSeen?.status;
	return client.errors.unanswered(
		{
			subject: `report ${report.id}`,
			timeoutSeconds: report.timeoutSeconds,
			failure: outcome.failure,
			lastSeen: outcome.lastSeen
				? `as ${typeof status === 'string' ? status : 'unknown'}`
				: undefined,
		},
		report.itemIndex,
	);
}

export interface ReportHint {
	accountId?: string;
	createdAt?: string;
	/** Report → Generate's `estimatedCompletionSeconds` (service seconds from `createdAt`). */
	estimatedCompletionSeconds?: number;
}

/**
 * The wait of Wait for Ad Report and its tool: one sweep per interval for all its reports, in few
 * requests (there is no GET of one report). Each sweep pages GET /v1/reports newest first,
 * narrowed by account and creation time when all pending reports share them, until every one
 * was seen (25 reports: one request). A report missing from a sweep is looked for again until the
 * Timeout: the list can lag behind a new one.
 */
export async function waitForReports(
	client: AdPerformanceClient,
	timing: { intervalSeconds: number; timeoutSeconds: number },
	reportIds: string[],
	givenHints: Map<string, ReportHint> = new Map(),
): Promise<WaitUntilFinishedResult<ServiceReport>> {
	const hints = new Map(givenHints);
	/** Whether the last sweep's listing was whole, or held every report it looked for. */
	let listedCompletely = true;
	// The service's own estimate of when each report is done: looked at then, not a beat later.
	const expectedAt = new Map<string, number>();
	for (const [id, hint] of givenHints) {
		const created = Date.parse(hint.createdAt ?? '');
		const seconds = hint.estimatedCompletionSeconds;
		if (Number.isFinite(created) && typeof seconds === 'number' && seconds >= 0 && seconds <= 3600)
			expectedAt.set(id, created + client.clock.realMs(seconds * 1000));
	}
	return await waitUntilFinished<ServiceReport>(client, {
		ids: [...new Set(reportIds)],
		expectedAt,
		intervalMs: timing.intervalSeconds * 1000,
		timeoutMs: timing.timeoutSeconds * 1000,
		isFinal: isFinished,
		listedCompletely: () => listedCompletely,
		sweep: async (pending, deadline) => {
			const wanted = new Set(pending);
			const seen = new Map<string, ServiceReport>();
			const qs: IDataObject = {};
			const accounts = new Set(pending.map((id) => hints.get(id)?.accountId));
			if (accounts.size === 1 && !accounts.has(undefined)) qs.accountId = [...accounts][0];
			// The hints are the service's own creation times: a filter on its clock, whatever n8n's says.
			let earliest = Infinity;
			for (const id of pending)
				earliest = Math.min(earliest, Date.parse(hints.get(id)?.createdAt ?? ''));
			if (Number.isFinite(earliest))
				qs.from = new Date(earliest - CLOCK_SKEW_MARGIN_MS).toISOString();
			const walked = await walkReports(
				client,
				qs,
				(records) => {
					for (const report of records) {
						if (!wanted.has(report.id)) continue;
						seen.set(report.id, report);
						// Only texts narrow the next sweep: a field of another shape would
						// narrow it to nothing.
						hints.set(report.id, {
							accountId: typeof report.accountId === 'string' ? report.accountId : undefined,
							createdAt: typeof report.createdAt === 'string' ? report.createdAt : undefined,
						});
					}
					return seen.size < wanted.size;
				},
				{ deadline, incomplete: 'returned' },
			);
			listedCompletely = walked.kind !== 'incomplete' || seen.size === wanted.size;
			return seen;
		},
	});
}
