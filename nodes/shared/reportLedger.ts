import type { IDataObject } from 'n8n-workflow';

import {
	CLOCK_SKEW_MARGIN_MS,
	LISTING_READS,
	readAgreeing,
	RereadBudget,
	serviceTime,
	type AdPerformanceClient,
	type WalkCall,
	type WalkResult,
} from './transport';
import { errorTypeOf } from './errorTypes';
import type { ServiceCampaign, ServiceReport, SingleEnvelope } from './types';

/** Below a service time, for a `from` filter that compares exclusively or to the second. */
const FROM_MARGIN_MS = 1_000;
/**
 * How far back Reuse a Recent Identical Report looks, on the service's clock (whose timestamps run
 * at real pace even in a sped-up sandbox, so it is not scaled).
 */
const REUSE_WINDOW_MS = 10 * 60_000;
/** Reports worth reusing: alive or done. A failed one (or a status we do not know) is not. */
const REUSABLE_STATUSES = new Set(['pending', 'generating', 'completed']);

/** An item's search or generation: its item, and the deadline all its requests share. */
type ItemCall = { itemIndex: number; deadline: number };

/*
 * The report ledger: every search of the report list goes through walkReports and every
 * generation through createReport, so the listed times are readings of the service's clock, and a
 * report an execution created or recovered is claimed (`client.claimedReports`) by one item only.
 */

/** Walks GET /v1/reports (newest first), reading the service's clock from every record. */
export async function walkReports(
	client: AdPerformanceClient,
	qs: IDataObject,
	visit: (records: ServiceReport[]) => boolean | void,
	options: WalkCall,
): Promise<WalkResult> {
	const clock = client.clock;
	return await client.walk<ServiceReport>(
		'/reports',
		qs,
		(records) => {
			const receivedAt = Date.now();
			for (const report of records) {
				clock.observeRecordTime(report?.createdAt, receivedAt);
				clock.observeRecordTime(report?.completedAt, receivedAt);
			}
			return visit(records);
		},
		options,
	);
}

/**
 * walkReports read until it agrees with itself (readAgreeing); `visitor` makes each read's visit.
 * A listing that never agreed fails: it cannot tell `question`.
 */
async function readReports(
	client: AdPerformanceClient,
	qs: IDataObject,
	visitor: () => (records: ServiceReport[]) => boolean | void,
	question: string,
	options: { itemIndex?: number; deadline: number; budget?: RereadBudget },
): Promise<void> {
	const { budget, ...call } = options;
	const walked = await readAgreeing(
		async () => await walkReports(client, qs, visitor(), { ...call, incomplete: 'returned' }),
		budget,
	);
	if (walked.kind !== 'incomplete') return;
	throw client.errors.api(
		`The report list did not agree with itself (${walked.reason}), so it cannot tell ${question}`,
		`Its listings were read up to ${LISTING_READS} times, and nothing was created, sent or emitted on its strength. Run again in a minute; if it persists, contact the service.`,
		call.itemIndex,
	);
}

/**
 * Report → Get. There is no GET /v1/reports/{id} (docs/service-notes.md): the report is found by
 * listing, narrowed by account and creation time when known. Only its absence from a complete
 * listing is "not found".
 */
export async function findReport(
	client: AdPerformanceClient,
	reportId: string,
	itemIndex: number,
	narrow: { accountId?: string; createdAfter?: string },
): Promise<ServiceReport> {
	const qs: IDataObject = {};
	if (narrow.accountId) qs.accountId = narrow.accountId;
	if (narrow.createdAfter) qs.from = narrow.createdAfter;
	let found: ServiceReport | undefined;
	// A visit that finds it stops the walk: a listing that found it never ends incomplete.
	await readReports(
		client,
		qs,
		() => (records) => {
			found = records.find((report) => report.id === reportId);
			return found === undefined;
		},
		`whether report ${reportId} exists`,
		{ itemIndex, deadline: client.deadline() },
	);
	if (found) return found;
	throw reportNotFound(
		client,
		reportId,
		itemIndex,
		narrow.accountId || narrow.createdAfter
			? 'No report with this ID exists in this workspace for the account and creation date given under Options. Check the ID, or clear those options.'
			: 'No report with this ID exists in this workspace. Check the ID (it starts with rpt_).',
	);
}

/**
 * The reports of GET /v1/reports with `qs` that `keep` keeps, listed since `bound()` less
 * `marginMs` (n8n time on the service's clock), from complete listings only (readReports). A
 * walk's answers are new clock readings: the list is walked again (at most 3 walks) while they
 * move `bound()` before the last walk's start by more than `toleranceMs`. With the reports comes
 * the last walk's start (`from`).
 */
export async function reportsSince(
	client: AdPerformanceClient,
	qs: IDataObject,
	bound: () => number,
	window: { marginMs: number; toleranceMs: number },
	keep: (report: ServiceReport) => boolean,
	question: string,
	options: { itemIndex?: number; deadline: number },
): Promise<{ reports: ServiceReport[]; from: number }> {
	const matching = new Map<string, ServiceReport>();
	let from = Infinity;
	// Its walks share one budget of re-reads: at most 3 walks + 2 re-reads, not 3 × 3 listings.
	const budget = new RereadBudget();
	for (let walks = 0; walks < 3; walks++) {
		const needed = bound() - window.marginMs;
		if (needed >= from - window.toleranceMs) break;
		from = needed;
		let kept: ServiceReport[] = [];
		await readReports(
			client,
			{ ...qs, from: new Date(from).toISOString() },
			() => {
				kept = [];
				return (records) => {
					for (const report of records) if (keep(report)) kept.push(report);
				};
			},
			question,
			{ ...options, budget },
		);
		for (const report of kept) matching.set(report.id, report);
	}
	return { reports: [...matching.values()], from };
}

/**
 * Report → Generate: POST /v1/reports, never creating a duplicate nor handing this item a report
 * somebody else created. After a 5xx, a lost connection or a garbled answer the report may exist,
 * so the retry loop asks findCreatedBy before anything is resent (limits: docs/security.md).
 */
async function createReport(
	client: AdPerformanceClient,
	body: IDataObject,
	call: ItemCall,
): Promise<ServiceReport> {
	return await client.attempts<ServiceReport>(
		async (round) => {
			const outcome = await client.writeOnce(
				{
					path: '/reports',
					writeLimit: 'generation',
					body,
					expect: 'record',
					singleFlight: true,
					...call,
				},
				round,
			);
			if (outcome.kind !== 'done') return outcome;
			const report = (outcome.value.body as SingleEnvelope<ServiceReport>).data;
			if (typeof report.id === 'string') client.claimedReports.add(report.id);
			client.clock.observeCreation(report.createdAt, outcome.sentAt ?? Date.now());
			return { kind: 'done', value: report };
		},
		{
			deadline: call.deadline,
			onAmbiguous: async (sentAt) => await findCreatedBy(client, body, sentAt, call),
		},
	);
}

/** Report → Generate: with `reuse`, findRecent's report when there is one; else a new one. */
export async function reportForRequest(
	client: AdPerformanceClient,
	body: IDataObject,
	itemIndex: number,
	reuse: boolean,
): Promise<{ report: ServiceReport; reused: boolean }> {
	const call = { itemIndex, deadline: client.deadline() };
	const recent = reuse ? await findRecent(client, body, call) : undefined;
	if (recent) return { report: recent, reused: true };
	return { report: await createReport(client, body, call), reused: false };
}

/**
 * The report an attempt sent at `sentAt` (n8n time) created, if any: one matching the request,
 * claimed by no other item, created after `sentAt` by every standing reading of the service's
 * clock (docs/security.md, "Times are the service's"). A failed search fails the item as
 * ambiguous_outcome, never as the search's error alone, which would invite a second report.
 */
async function findCreatedBy(
	client: AdPerformanceClient,
	body: IDataObject,
	sentAt: number,
	call: ItemCall,
): Promise<ServiceReport | undefined> {
	const clock = client.clock;
	try {
		const { reports: matching } = await reportsSince(
			client,
			{ accountId: body.account_id },
			() => clock.lowerBound(sentAt, true),
			{ marginMs: FROM_MARGIN_MS, toleranceMs: 0 },
			(report) => !client.claimedReports.has(report.id) && matchesRequest(report, body),
			'whether the lost request created a report',
			call,
		);
		// Placed before the campaigns are read: that read's answer is a new clock reading.
		const places = new Map<ServiceReport, 'before' | 'after' | 'unsure'>();
		for (const report of matching) {
			const created = serviceTime(report.createdAt);
			places.set(report, created ? clock.placeCreation(created, sentAt, true) : 'unsure');
		}
		const notBefore = matching.filter((report) => places.get(report) !== 'before');
		const candidates = await sameCampaigns(client, body, notBefore, call);
		const unsure = candidates.filter((report) => places.get(report) === 'unsure');
		if (unsure.length > 0) throw unsureError(client, unsure, call.itemIndex);
		// The earliest one after our first attempt is the one that attempt created.
		const ours = candidates.sort((a, b) => createdEarliest(a) - createdEarliest(b))[0];
		if (ours) client.claimedReports.add(ours.id);
		return ours;
	} catch (failure) {
		client.waiting.throwIfCancelled();
		// Already named for what the search saw (a report that may be ours or another's).
		if (errorTypeOf(failure) === 'ambiguous_outcome') throw failure as Error;
		const seen = failure instanceof Error ? failure.message : String(failure);
		throw client.errors.api(
			`The answer to this report request was lost, and the search for the report it may have created failed: ${seen}`,
			'The report may or may not have been created: the service gave no usable answer to the search for it, so the request was not sent again (that could create a second report). Check the report list (Report → Get Many) before running the item again.',
			call.itemIndex,
			'ambiguous_outcome',
		);
	}
}

/**
 * Reuse a Recent Identical Report: the newest report matching the request that has not failed
 * and was asked for within REUSE_WINDOW_MS, or undefined. A report is recent when ANY standing
 * reading of the service's clock places it in the window: the option exists so that a re-run
 * never creates a second report. One whose creation time cannot be read is not reused.
 */
async function findRecent(
	client: AdPerformanceClient,
	body: IDataObject,
	call: ItemCall,
): Promise<ServiceReport | undefined> {
	const clock = client.clock;
	const since = Date.now() - REUSE_WINDOW_MS;
	const { reports: matching } = await reportsSince(
		client,
		{ accountId: body.account_id },
		() => clock.lowerBound(since),
		{ marginMs: CLOCK_SKEW_MARGIN_MS, toleranceMs: CLOCK_SKEW_MARGIN_MS },
		(report) => REUSABLE_STATUSES.has(report.status as string) && matchesRequest(report, body),
		'whether an identical report exists',
		call,
	);
	const recent = matching.filter((report) => {
		const created = serviceTime(report.createdAt);
		return created !== undefined && clock.placeCreation(created, since) !== 'before';
	});
	const identical = await sameCampaigns(client, body, recent, call);
	return identical.sort((a, b) => createdEarliest(b) - createdEarliest(a))[0];
}

/** When a listed report was created, by the earliest reading (0 when it cannot be read). */
function createdEarliest(report: ServiceReport): number {
	return serviceTime(report.createdAt)?.earliest ?? 0;
}

/**
 * Whether a listed report is the one a Generate request asked for (both searches): same account,
 * title, dates, format (pdf by default), set of campaigns, and white label where shown.
 */
function matchesRequest(report: ServiceReport, body: IDataObject): boolean {
	return (
		(report.accountId === undefined || report.accountId === body.account_id) &&
		report.title === body.title &&
		report.dateRange?.from === body.date_start &&
		report.dateRange?.to === body.date_end &&
		(report.format === undefined || report.format === (body.format ?? 'pdf')) &&
		(!Array.isArray(body.campaign_ids) ||
			sameSet(report.campaignIds, body.campaign_ids as string[])) &&
		(!('whiteLabel' in report) || sameJson(report.whiteLabel, body.whiteLabel))
	);
}

function sameSet(actual: unknown, expected: string[]): boolean {
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

/**
 * The reports for the request's campaigns. A request without campaign IDs covers all the
 * account's campaigns (one read of them, only when some report is left to check).
 */
async function sameCampaigns(
	client: AdPerformanceClient,
	body: IDataObject,
	reports: ServiceReport[],
	call: ItemCall,
): Promise<ServiceReport[]> {
	if (Array.isArray(body.campaign_ids) || reports.length === 0) return reports;
	const campaigns = await client.list<ServiceCampaign>(
		'/campaigns',
		{ accountId: body.account_id as string },
		{ returnAll: true, ...call },
	);
	const all = campaigns.map((campaign) => campaign.id);
	return reports.filter((report) => sameSet(report.campaignIds, all));
}

function unsureError(client: AdPerformanceClient, reports: ServiceReport[], itemIndex: number) {
	const ids = reports.map((report) => report.id).join(', ');
	const why =
		client.clock.disagreement(true) ??
		'its records do not say when they were created (no readable createdAt)';
	return client.errors.api(
		`The answer to this report request was lost, and report ${ids} may be the one it created, or another execution's`,
		`The report matches every field of this request, but it cannot be told whether it was created before or after this item's first attempt: the service's clock cannot be read closely enough (${why}). So no report was taken (it could be another execution's) and the request was not sent again (that could create a second report). Check the report list: if ${ids} is this item's, use it with Report → Get; otherwise run the item again.`,
		itemIndex,
		'ambiguous_outcome',
	);
}

/** The error for a report the list does not hold; `description` says where to look. */
export function reportNotFound(
	client: AdPerformanceClient,
	reportId: string,
	itemIndex: number,
	description: string,
) {
	return client.errors.service({
		status: 404,
		type: 'not_found',
		itemIndex,
		message: `Report ${reportId} was not found`,
		description,
	});
}
