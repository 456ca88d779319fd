import { waitUntilFinished, type WaitUntilFinishedResult } from './waitUntilFinished';
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
	});
}

/**
 * The error for a report the wait never saw, named for what was observed: "not found" only
 * when the service answered with a list that did not hold it; when no sweep got a whole
 * answer, that the service could not be reached or did not answer in time (saying which, from
 * the client's last failure), since nothing was listed because nothing answered.
 */
export function unseenReportError(
	client: AdPerformanceClient,
	found: WaitUntilFinishedResult<ServiceReport>,
	report: { id: string; itemIndex: number; timeoutSeconds: number },
	notFoundDescription: string,
) {
	if (found.answered) {
		return reportNotFound(client, report.id, report.itemIndex, notFoundDescription);
	}
	return client.errors.unanswered(
		{
			subject: `report ${report.id}`,
			timeoutSeconds: report.timeoutSeconds,
			since: found.startedAt,
		},
		report.itemIndex,
	);
}
