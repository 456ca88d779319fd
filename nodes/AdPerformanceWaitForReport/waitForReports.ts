import { pollUntilFinal, type PollResult } from '../shared/polling';
import { ReportSweep, type ReportHint } from '../shared/reportLedger';
import type { AdPerformanceClient } from '../shared/transport';
import { isFinished, type ServiceReport } from '../shared/types';

/**
 * The wait of Wait for Ad Report and of its tool: one sweep per interval for every report
 * asked for, until all are finished or the time is up.
 */
export async function waitForReports(
	client: AdPerformanceClient,
	timing: { intervalSeconds: number; timeoutSeconds: number },
	reportIds: string[],
	hints: Map<string, ReportHint> = new Map(),
): Promise<PollResult<ServiceReport>> {
	const sweep = new ReportSweep(client, hints);
	return await pollUntilFinal<ServiceReport>(client, {
		ids: [...new Set(reportIds)],
		intervalMs: timing.intervalSeconds * 1000,
		timeoutMs: timing.timeoutSeconds * 1000,
		isFinal: isFinished,
		sweep: async (pending, deadline) => await sweep.sweep(pending, deadline),
	});
}
