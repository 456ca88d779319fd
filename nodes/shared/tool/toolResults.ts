import type { IDataObject } from 'n8n-workflow';

import { bounded, FIELD, MAX_TOOL_RESULT_CHARS, type Bounds, type Scrub } from './presenter';

/**
 * A tool answers with one small item (docs/agent-tools.md, Results): records reduced to the
 * fields a model reasons with, whole records dropped (and said so) rather than a page cut.
 */
/** Records a tool returns by default, and at most. */
export const TOOL_DEFAULT_LIMIT = 10;
export const TOOL_MAX_LIMIT = 50;

/** Reduces a record for a model, every field within `bounds` (FIELD unless told smaller). */
export type Simplifier = (record: IDataObject, scrub: Scrub, bounds?: Bounds) => IDataObject;

/** The fields that are present, in this order, each bounded (a text, or a wrong type, of any size). */
function pick(
	record: unknown,
	fields: readonly string[],
	scrub: Scrub,
	bounds: Bounds,
): IDataObject {
	if (record === null || typeof record !== 'object') return {};
	const present = fields.filter(
		(field) =>
			Object.prototype.hasOwnProperty.call(record, field) &&
			(record as IDataObject)[field] !== undefined,
	);
	return Object.fromEntries(
		present.map((field) => [field, bounded((record as IDataObject)[field], scrub, bounds)]),
	);
}

/** A field's own room for a text (a summary, a link): FIELD's, else no more than `bounds` allow. */
const room = (bounds: Bounds, text: number): Bounds => ({
	...bounds,
	text: bounds === FIELD ? text : Math.min(text, bounds.text),
});

/** The first `count` entries of a list, and `<name>Omitted`: how many were left out. */
function firstOf(
	out: IDataObject,
	name: string,
	list: unknown,
	count: number,
	show: (entry: unknown) => IDataObject,
	scrub: Scrub,
	bounds: Bounds,
) {
	if (list === undefined) return;
	if (!Array.isArray(list)) out[name] = bounded(list, scrub, bounds);
	else {
		out[name] = list.slice(0, count).map(show);
		if (list.length > count) out[`${name}Omitted`] = list.length - count;
	}
}

function withError(out: IDataObject, record: IDataObject, scrub: Scrub, bounds: Bounds) {
	const error = record.error;
	if (error && typeof error === 'object') {
		out.error = {
			...pick(error, ['type'], scrub, bounds),
			...pick(error, ['message'], scrub, room(bounds, 300)),
		};
	}
	return out;
}

export const simplifyAccount: Simplifier = (record, scrub, bounds = FIELD) =>
	pick(
		record,
		[
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
		],
		scrub,
		bounds,
	);

export const simplifyCampaign: Simplifier = (record, scrub, bounds = FIELD) =>
	pick(
		record,
		['id', 'name', 'status', 'objective', 'accountId', 'dailyBudget', 'currency', 'createdAt'],
		scrub,
		bounds,
	);

/** A report as a model reads it: its state, the headline figures and where the file is. */
export const simplifyReport: Simplifier = (record, scrub, bounds = FIELD) => {
	const summary = (record.summary ?? {}) as IDataObject;
	const dateRange = (record.dateRange ?? {}) as IDataObject;
	const out = pick(record, ['id', 'title', 'status', 'format', 'accountId'], scrub, bounds);
	if (dateRange.from || dateRange.to)
		out.dateRange = pick(dateRange, ['from', 'to'], scrub, bounds);
	if (Array.isArray(record.campaignIds)) out.campaignCount = record.campaignIds.length;
	const figures: IDataObject = {
		riskLevel: summary.overallRiskLevel,
		totalSpend: summary.totalSpend,
		avgRoas: summary.avgRoas,
		totalConversions: summary.totalConversions,
		avgCpa: summary.avgCpa,
	};
	// A signed link is useless cut: it gets room for a long one.
	const timesAndLink = pick(
		record,
		['createdAt', 'completedAt', 'downloadUrl', 'expiresAt'],
		scrub,
		room(bounds, 1_000),
	);
	Object.assign(out, pick(figures, Object.keys(figures), scrub, bounds), timesAndLink);
	return withError(out, record, scrub, bounds);
};

/** A diagnostic: its state, summary, the first issues and recommendations, and how many more. */
export const simplifyDiagnostic: Simplifier = (record, scrub, bounds = FIELD) => {
	const out = pick(record, ['id', 'campaignId', 'status', 'riskScore', 'createdAt'], scrub, bounds);
	Object.assign(out, pick(record, ['summary'], scrub, room(bounds, 1_000)));
	const issue = (entry: unknown) => ({
		...pick(entry, ['title'], scrub, room(bounds, 200)),
		...pick(entry, ['severity', 'riskScore'], scrub, bounds),
	});
	const recommendation = (entry: unknown) => ({
		...pick(entry, ['priority'], scrub, bounds),
		...pick(entry, ['title'], scrub, room(bounds, 200)),
		...pick(entry, ['description'], scrub, room(bounds, 400)),
	});
	firstOf(out, 'issues', record.issues, 5, issue, scrub, bounds);
	firstOf(out, 'recommendations', record.recommendations, 3, recommendation, scrub, bounds);
	return withError(out, record, scrub, bounds);
};

/** A record too big for the page on its own is shown this small rather than left out. */
const SMALL: Bounds = { text: 60, entries: 2, depth: 1 };

/**
 * One page of a list as a tool result; the hint says how to get what did not fit, and more.
 * `show` simplifies a record (within FIELD, or the bounds given); only those shown are.
 */
export function listResult(
	records: IDataObject[],
	options: {
		show: (record: IDataObject, bounds?: Bounds) => IDataObject;
		what: string;
		page: number;
		limit: number;
		hasMore: boolean;
		/** Why the service's page cannot be taken as complete (envelope.ts, pageContradiction). */
		incomplete?: string;
	},
): IDataObject {
	const { show, what, page, limit, incomplete } = options;
	const results: IDataObject[] = [];
	// The envelope and the longest hint take well under 600 characters.
	let size = 600;
	for (const record of records) {
		let shown = show(record);
		// The first record always fits, smaller if need be: a page is never empty for its size.
		if (results.length === 0 && size + JSON.stringify(shown).length > MAX_TOOL_RESULT_CHARS) {
			shown = show(record, SMALL);
		}
		const length = JSON.stringify(shown).length + 1;
		if (size + length > MAX_TOOL_RESULT_CHARS) break;
		results.push(shown);
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
