import type { IDataObject } from 'n8n-workflow';

import type { Redactor } from '../redaction';

/**
 * What a model receives from a tool call. Agent 3.x sends the model every output item's JSON,
 * with no limit and without binary data, so a tool answers with one small item: records reduced
 * to the fields a model reasons with, whole records dropped (and said so) rather than cut.
 */
export const MAX_TOOL_RESULT_CHARS = 12_000;
/** Records a tool returns by default, and at most. */
export const TOOL_DEFAULT_LIMIT = 10;
export const TOOL_MAX_LIMIT = 50;

/** Reduces a record for a model; a text of the service is cut only by `scrub.clip` (redaction). */
export type Simplifier = (record: IDataObject, scrub: Pick<Redactor, 'clip'>) => IDataObject;

/** Copies the fields that are present, in this order. */
function pick(record: IDataObject, fields: readonly string[]): IDataObject {
	const present = fields.filter(
		(field) => Object.prototype.hasOwnProperty.call(record, field) && record[field] !== undefined,
	);
	return Object.fromEntries(present.map((field) => [field, record[field]]));
}

function clipText(scrub: Pick<Redactor, 'clip'>, value: unknown, max: number): IDataObject[string] {
	return typeof value === 'string' ? scrub.clip(value, max) : (value as IDataObject[string]);
}

function withError(out: IDataObject, record: IDataObject, scrub: Pick<Redactor, 'clip'>) {
	const error = record.error as IDataObject | undefined;
	if (error && typeof error === 'object') {
		out.error = { type: error.type, message: clipText(scrub, error.message, 300) } as IDataObject;
	}
	return out;
}

export const simplifyAccount: Simplifier = (record) =>
	pick(record, [
		'id',
		'platformAccountId',
		'name',
		'connectionStatus',
		'status',
		'currency',
		'campaignCount',
		'activeCampaignCount',
		'totalSpendLast30d',
		'lastSyncedAt',
	]);

export const simplifyCampaign: Simplifier = (record) =>
	pick(record, [
		'id',
		'name',
		'status',
		'objective',
		'accountId',
		'dailyBudget',
		'currency',
		'createdAt',
	]);

/** A report as a model reads it: its state, the headline figures and where the file is. */
export const simplifyReport: Simplifier = (record, scrub) => {
	const summary = (record.summary ?? {}) as IDataObject;
	const dateRange = (record.dateRange ?? {}) as IDataObject;
	const out = pick(record, ['id', 'title', 'status', 'format', 'accountId']);
	if (dateRange.from || dateRange.to) out.dateRange = pick(dateRange, ['from', 'to']);
	if (Array.isArray(record.campaignIds)) out.campaignCount = record.campaignIds.length;
	const figures: IDataObject = {
		riskLevel: summary.overallRiskLevel,
		totalSpend: summary.totalSpend,
		avgRoas: summary.avgRoas,
		totalConversions: summary.totalConversions,
		avgCpa: summary.avgCpa,
	};
	const timesAndLink = pick(record, ['createdAt', 'completedAt', 'downloadUrl', 'expiresAt']);
	Object.assign(out, pick(figures, Object.keys(figures)), timesAndLink);
	return withError(out, record, scrub);
};

export const simplifyDiagnostic: Simplifier = (record, scrub) => {
	const out = pick(record, ['id', 'campaignId', 'status', 'riskScore', 'createdAt']);
	if (record.summary !== undefined) out.summary = clipText(scrub, record.summary, 1_000);
	if (Array.isArray(record.issues)) {
		out.issues = (record.issues as IDataObject[]).slice(0, 5).map((issue) => ({
			title: clipText(scrub, issue?.title, 200),
			severity: issue?.severity,
			riskScore: issue?.riskScore,
		}));
	}
	if (Array.isArray(record.recommendations)) {
		out.recommendations = (record.recommendations as IDataObject[]).slice(0, 3).map((item) => ({
			priority: item?.priority,
			title: clipText(scrub, item?.title, 200),
			description: clipText(scrub, item?.description, 400),
		}));
	}
	return withError(out, record, scrub);
};

/** One page of a list as a tool result; the hint says how to get what did not fit, and more. */
export function listResult(
	records: IDataObject[],
	options: {
		what: string;
		page: number;
		limit: number;
		hasMore: boolean;
		/** Why the service's page cannot be taken as complete (envelope.ts, pageContradiction). */
		incomplete?: string;
	},
): IDataObject {
	const { what, page, limit, incomplete } = options;
	const results: IDataObject[] = [];
	// The envelope and the longest hint take well under 600 characters.
	let size = 600;
	for (const record of records) {
		const length = JSON.stringify(record).length + 1;
		if (size + length > MAX_TOOL_RESULT_CHARS) break;
		results.push(record);
		size += length;
	}
	const dropped = records.length - results.length;
	const hasMore = options.hasMore || dropped > 0 || incomplete !== undefined;
	let hint: string;
	if (incomplete !== undefined) {
		hint = `The service's answer for this page did not agree with itself (${incomplete}): these may not be all the ${what}. Call again with page ${page} in a moment, or narrow the search.`;
	} else if (results.length === 0 && records.length === 0) {
		hint = page > 1 ? `No ${what} on page ${page}: there are no more.` : `No ${what} match.`;
	} else if (dropped > 0) {
		const next =
			page === 1 && results.length > 0
				? `call again with limit ${results.length} and page 2`
				: 'call again with a smaller limit';
		hint = `Only ${results.length} of the ${records.length} ${what} on this page fit in the result; to see the rest, ${next}.`;
	} else if (hasMore) {
		hint = `More ${what} exist: call again with page ${page + 1} and the same limit (${limit}).`;
	} else {
		hint = `These are all the ${what} that match.`;
	}
	return { results, returned: results.length, hasMore, page, hint };
}
