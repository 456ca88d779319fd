import type { IDataObject } from 'n8n-workflow';

import type { AdPerformanceClient } from '../shared/transport';
import type { ServiceReport } from '../shared/types';

/** The service's clock and n8n's may differ; narrow creation-time filters with this margin. */
const CREATION_MARGIN_MS = 5 * 60_000;
/** A report missing from this many complete sweeps does not exist (or is not ours). */
const MISSES_BEFORE_NOT_FOUND = 2;

export const NOT_FOUND = 'not_found' as const;

export interface ReportHint {
	accountId?: string;
	createdAt?: string;
}

/**
 * Looks up many reports with as few list requests as possible. There is no GET of one report
 * (open-points A6), so each sweep pages through GET /v1/reports newest first, narrowed by
 * account when all pending reports share one and by creation time when all are known, and
 * stops as soon as every pending report has been seen. 25 reports cost one request a sweep.
 */
export class ReportSweep {
	private readonly hints = new Map<string, ReportHint>();

	private readonly misses = new Map<string, number>();

	requests = 0;

	constructor(
		private readonly client: AdPerformanceClient,
		hints: Map<string, ReportHint>,
	) {
		for (const [id, hint] of hints) this.hints.set(id, { ...hint });
	}

	async sweep(
		pending: string[],
	): Promise<Map<string, ServiceReport | { id: string; status: typeof NOT_FOUND }>> {
		const wanted = new Set(pending);
		const seen = new Map<string, ServiceReport | { id: string; status: typeof NOT_FOUND }>();
		const qs: IDataObject = {};
		const accounts = new Set(pending.map((id) => this.hints.get(id)?.accountId));
		if (accounts.size === 1 && !accounts.has(undefined)) qs.accountId = [...accounts][0];
		const created = pending.map((id) => Date.parse(this.hints.get(id)?.createdAt ?? ''));
		if (created.every((time) => Number.isFinite(time))) {
			qs.from = new Date(Math.min(...created) - CREATION_MARGIN_MS).toISOString();
		}
		await this.client.walk<ServiceReport>('/reports', qs, (records) => {
			this.requests++;
			for (const report of records) {
				if (!wanted.has(report.id)) continue;
				seen.set(report.id, report);
				this.hints.set(report.id, { accountId: report.accountId, createdAt: report.createdAt });
			}
			return seen.size < wanted.size;
		});
		for (const id of pending) {
			if (seen.has(id)) {
				this.misses.delete(id);
				continue;
			}
			const misses = (this.misses.get(id) ?? 0) + 1;
			this.misses.set(id, misses);
			if (misses >= MISSES_BEFORE_NOT_FOUND) seen.set(id, { id, status: NOT_FOUND });
		}
		return seen;
	}
}
