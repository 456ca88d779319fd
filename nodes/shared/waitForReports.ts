import {
	unansweredError,
	waitUntilFinished,
	type WaitOutcome,
	type WaitUntilFinishedResult,
} from './waitUntilFinished';
import { reportNotFound, ReportSweep, type ReportHint } from './reportLedger';
import type { AdPerformanceClient } from './transport';
import { isFinished, type ServiceReport } from './types';

/**
 * The wait of Wait for Ad Report and of its tool: one sweep per interval for every report
 * asked for, until all are finished or the time is up.
 */
export async function waitForReports(
	client: AdPerformanceClient,
	timing: { intervalSeconds: number; timeoutSeconds: number },
	reportIds: string[],
	hints: Map<string, ReportHint> = new Map(),
): Promise<WaitUntilFinishedResult<ServiceReport>> {
	const sweep = new ReportSweep(client, hints);
	return await waitUntilFinished<ServiceReport>(client, {
		ids: [...new Set(reportIds)],
		intervalMs: timing.intervalSeconds * 1000,
		timeoutMs: timing.timeoutSeconds * 1000,
		isFinal: isFinished,
		sweep: async (pending, deadline) => await sweep.sweep(pending, deadline),
		listedCompletely: () => sweep.listedCompletely,
	});
}

/**
 * The error for a report the wait did not see finished, named for what was observed
 * (waitUntilFinished.ts, outcomeOf): "not found" only when the last look was answered with a
 * list that did not hold it; when the last look got no answer, that the service could not be
 * reached or did not answer in time (saying which, from the client's failures since that look
 * began), since nothing was listed because nothing answered.
 */
export function unseenReportError(
	client: AdPerformanceClient,
	outcome: Extract<WaitOutcome<ServiceReport>, { kind: 'unlisted' | 'unanswered' }>,
	report: { id: string; itemIndex: number; timeoutSeconds: number },
	notFoundDescription: string,
) {
	if (outcome.kind === 'unlisted' && !outcome.listedCompletely) {
		// Not "not found": the list that did not hold it did not agree with itself either.
		return client.apiError(
			`Report ${report.id} was not in the report list, but the list did not agree with itself`,
			`The service's pages of GET /v1/reports contradicted one another until the Timeout (${report.timeoutSeconds} seconds), so their not holding the report does not mean it does not exist. Run the wait again; if it persists, the service is having trouble.`,
			report.itemIndex,
			'protocol_error',
		);
	}
	if (outcome.kind === 'unlisted') {
		return reportNotFound(client, report.id, report.itemIndex, notFoundDescription);
	}
	const status = outcome.lastSeen?.status;
	return unansweredError(client, outcome, {
		subject: `report ${report.id}`,
		timeoutSeconds: report.timeoutSeconds,
		lastSeen: outcome.lastSeen
			? `as ${typeof status === 'string' ? status : 'unknown'}`
			: undefined,
		itemIndex: report.itemIndex,
	});
}
