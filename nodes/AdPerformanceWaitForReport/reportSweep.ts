import type { IDataObject } from 'n8n-workflow';

import { CLOCK_SKEW_MARGIN_MS, type AdPerformanceClient } from '../shared/transport';
import type { ServiceReport } from '../shared/types';

export interface ReportHint {
	accountId?: string;
	createdAt?: string;
}

/**
 * Looks up many reports with as few list requests as possible. There is no GET of one report,
 * so each sweep pages through GET /v1/reports newest first, narrowed by account when all
 * pending reports share one and by creation time when all are known, and stops as soon as
 * every pending report has been seen. 25 reports cost one request a sweep.
 *
 * A report missing from a sweep is not declared "not found" there: the list is an index that
 * can lag behind a report just created, so a report keeps being looked for until the node's
 * Timeout, which is the one patience the user set.
 */
export class ReportSweep {
	private readonly hints = new Map<string, ReportHint>();

	constructor(
		private readonly client: AdPerformanceClient,
		hints: Map<string, ReportHint>,
	) {
		for (const [id, hint] of hints) this.hints.set(id, { ...hint });
	}

	/** One sweep; every request of it is cut at `deadline` (then DeadlineReached is thrown). */
	async sweep(pending: string[], deadline: number): Promise<Map<string, ServiceReport>> {
		const wanted = new Set(pending);
		const seen = new Map<string, ServiceReport>();
		const qs: IDataObject = {};
		const accounts = new Set(pending.map((id) => this.hints.get(id)?.accountId));
		if (accounts.size === 1 && !accounts.has(undefined)) qs.accountId = [...accounts][0];
		const created = pending.map((id) => Date.parse(this.hints.get(id)?.createdAt ?? ''));
		if (created.every((time) => Number.isFinite(time))) {
			qs.from = new Date(Math.min(...created) - CLOCK_SKEW_MARGIN_MS).toISOString();
		}
		await this.client.walk<ServiceReport>(
			'/reports',
			qs,
			(records) => {
				for (const report of records) {
					if (!wanted.has(report.id)) continue;
					seen.set(report.id, report);
					// Only texts narrow the next sweep: a field of another shape would narrow it to nothing.
					this.hints.set(report.id, {
						accountId: typeof report.accountId === 'string' ? report.accountId : undefined,
						createdAt: typeof report.createdAt === 'string' ? report.createdAt : undefined,
					});
				}
				return seen.size < wanted.size;
			},
			{ deadline },
		);
		return seen;
	}
}
