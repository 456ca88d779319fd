import type { IDataObject } from 'n8n-workflow';

import type { AdPerformanceClient } from '../shared/transport';
import type { ServiceReport } from '../shared/types';

/** The service's clock and n8n's may differ; narrow creation-time filters with this margin. */
const CREATION_MARGIN_MS = 5 * 60_000;
/**
 * How long (service time) a report may be missing from the list before it counts as not
 * found: the list is an index that can lag behind a report just created.
 */
const NOT_FOUND_GRACE_MS = 30_000;
/** …and in at least this many complete sweeps. */
const MISSES_BEFORE_NOT_FOUND = 2;

export const NOT_FOUND = 'not_found' as const;

export type SweptReport = ServiceReport | { id: string; status: typeof NOT_FOUND };

export interface ReportHint {
	accountId?: string;
	createdAt?: string;
}

/**
 * Looks up many reports with as few list requests as possible. There is no GET of one report,
 * so each sweep pages through GET /v1/reports newest first, narrowed by account when all
 * pending reports share one and by creation time when all are known, and stops as soon as
 * every pending report has been seen. 25 reports cost one request a sweep.
 */
export class ReportSweep {
	private readonly hints = new Map<string, ReportHint>();

	/** When each pending report was first missed, and in how many sweeps since. */
	private readonly misses = new Map<string, { since: number; count: number }>();

	constructor(
		private readonly client: AdPerformanceClient,
		hints: Map<string, ReportHint>,
	) {
		for (const [id, hint] of hints) this.hints.set(id, { ...hint });
	}

	/** One sweep; every request of it is cut at `deadline` (then DeadlineReached is thrown). */
	async sweep(pending: string[], deadline: number): Promise<Map<string, SweptReport>> {
		const wanted = new Set(pending);
		const seen = new Map<string, SweptReport>();
		const qs: IDataObject = {};
		const accounts = new Set(pending.map((id) => this.hints.get(id)?.accountId));
		if (accounts.size === 1 && !accounts.has(undefined)) qs.accountId = [...accounts][0];
		const created = pending.map((id) => Date.parse(this.hints.get(id)?.createdAt ?? ''));
		if (created.every((time) => Number.isFinite(time))) {
			qs.from = new Date(Math.min(...created) - CREATION_MARGIN_MS).toISOString();
		}
		await this.client.walk<ServiceReport>(
			'/reports',
			qs,
			(records) => {
				for (const report of records) {
					if (!wanted.has(report.id)) continue;
					seen.set(report.id, report);
					this.hints.set(report.id, { accountId: report.accountId, createdAt: report.createdAt });
				}
				return seen.size < wanted.size;
			},
			{ deadline },
		);
		const now = Date.now();
		for (const id of pending) {
			if (seen.has(id)) {
				this.misses.delete(id);
				continue;
			}
			const miss = this.misses.get(id) ?? { since: now, count: 0 };
			miss.count++;
			this.misses.set(id, miss);
			if (
				miss.count >= MISSES_BEFORE_NOT_FOUND &&
				now - miss.since >= this.client.serviceMs(NOT_FOUND_GRACE_MS)
			) {
				seen.set(id, { id, status: NOT_FOUND });
			}
		}
		return seen;
	}
}
