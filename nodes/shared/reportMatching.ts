import type { IDataObject } from 'n8n-workflow';

import type { ServiceReport } from './types';

/*
 * Whether a listed report is the one a Generate request asked for: the rule the ledger's
 * searches share (the report a lost request created, a recent identical report to reuse).
 * Pure functions of a record and a request body.
 */

/** The format the service generates when the request names none. */
const DEFAULT_FORMAT = 'pdf';

/**
 * Same account, title, dates and format (pdf when the request names none), the same set of
 * campaigns when the request names them, and the same white label where the record shows one.
 */
export function matchesRequest(report: ServiceReport, body: IDataObject): boolean {
	if (report.accountId !== undefined && report.accountId !== body.account_id) return false;
	if (report.title !== body.title) return false;
	if (report.dateRange?.from !== body.date_start || report.dateRange?.to !== body.date_end)
		return false;
	if (report.format !== undefined && report.format !== (body.format ?? DEFAULT_FORMAT))
		return false;
	if (
		Array.isArray(body.campaign_ids) &&
		!sameSet(report.campaignIds, body.campaign_ids as string[])
	)
		return false;
	if ('whiteLabel' in report && !sameJson(report.whiteLabel, body.whiteLabel)) return false;
	return true;
}

export function sameSet(actual: unknown, expected: string[]): boolean {
	if (!Array.isArray(actual)) return false;
	const set = new Set(actual);
	return set.size === new Set(expected).size && expected.every((id) => set.has(id));
}

function sameJson(a: unknown, b: unknown): boolean {
	const canonical = (value: unknown): unknown =>
		value && typeof value === 'object' && !Array.isArray(value)
			? Object.fromEntries(
					Object.entries(value as IDataObject)
						.sort(([x], [y]) => x.localeCompare(y))
						.map(([key, entry]) => [key, canonical(entry)]),
				)
			: value;
	return JSON.stringify(canonical(a) ?? null) === JSON.stringify(canonical(b) ?? null);
}
