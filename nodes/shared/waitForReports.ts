import { waitUntilFinished, type WaitUntilFinishedResult } from './waitUntilFinished';
import { ReportSweep, type ReportHint } from './reportLedger';
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
