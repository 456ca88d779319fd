import type { IDataObject } from 'n8n-workflow';

import {
	CLOCK_SKEW_MARGIN_MS,
	LISTING_READS,
	type AdPerformanceClient,
	type WalkResult,
} from './transport';
import { serviceTime } from './transport/serviceClock';
import { errorTypeOf } from './errorTypes';
import type { ServiceCampaign, ServiceReport, SingleEnvelope } from './types';

/** Below a service time, for a `from` filter that compares exclusively or to the second. */
const FROM_MARGIN_MS = 1_000;
/**
 * Reuse a Recent Identical Report: how far back an identical request's report is reused. It is
 * compared with the service's timestamps, which run at real pace even in a sped-up sandbox (only
 * durations are scaled there), so it is not scaled by the clock's speed.
 */
export const REUSE_WINDOW_MS = 10 * 60_000;
/** Reports worth reusing: alive or done. A failed one (or a status we do not know) is not. */
const REUSABLE_STATUSES = new Set(['pending', 'generating', 'completed']);

/*
 * The report ledger: the one home of GET and POST /v1/reports. Every walk of the report list (the
 * lookups, Wait for Ad Report's sweeps in waitForReports.ts, Generate's duplicate search and its
 * search for a recent identical report, the trigger's polls) goes through walkReports, and every
 * report generation through createReport, so two rules hold for all of them:
 *   - the time each listed record was created or completed is a reading of the service's clock
 *     (transport/serviceClock.ts), beside the Date header of every answer;
 *   - a report an execution created or recovered is claimed (`client.claimedReports`, one client
 *     per execution), and no other item of it takes it.
 */

/**
 * Walks GET /v1/reports (newest first) with the client's page loop, reading the service's clock
 * from the records of every page. `visit` returns false to stop.
 */
export async function walkReports(
	client: AdPerformanceClient,
	qs: IDataObject,
	visit: (records: ServiceReport[]) => boolean | void,
	options: Parameters<AdPerformanceClient['walk']>[3],
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
 * Report → Get. There is no GET /v1/reports/{id} (docs/service-notes.md, Finding one report): one
 * report is found by listing, narrowed by account and creation time when we know them, and
 * matching its id across pages.
 */
export async function findReport(
	client: AdPerformanceClient,
	reportId: string,
	itemIndex: number,
	narrow: { accountId?: string; createdAfter?: string },
	deadline: number,
): Promise<ServiceReport> {
	const qs: IDataObject = {};
	if (narrow.accountId) qs.accountId = narrow.accountId;
	if (narrow.createdAfter) qs.from = narrow.createdAfter;
	let reason = '';
	for (let read = 0; read < LISTING_READS; read++) {
		let found: ServiceReport | undefined;
		const walked = await walkReports(
			client,
			qs,
			(records) => {
				found = records.find((report) => report.id === reportId);
				return found === undefined;
			},
			{ itemIndex, deadline, acceptIncomplete: true },
		);
		if (found) return found;
		if (walked.kind === 'incomplete') {
			reason = walked.reason;
			continue;
		}
		// Absent from a complete listing: only that is "not found".
		throw reportNotFound(
			client,
			reportId,
			itemIndex,
			narrow.accountId || narrow.createdAfter
				? 'No report with this ID exists in this workspace for the account and creation date given under Options. Check the ID, or clear those options.'
				: 'No report with this ID exists in this workspace. Check the ID (it starts with rpt_).',
		);
	}
	throw listingIncomplete(client, reason, `whether report ${reportId} exists`, itemIndex);
}

/**
 * The reports `keep` keeps of GET /v1/reports with `qs`, from a listing read to its end: records
 * come only with a complete listing (a caller cannot read them without handling the other
 * case), since "there is none" may be concluded from nothing less. A listing that does not
 * agree with itself (records shifted while it was paged, a page contradicting itself) is read
 * again, up to LISTING_READS times.
 */
async function completeListing(
	client: AdPerformanceClient,
	qs: IDataObject,
	keep: (report: ServiceReport) => boolean,
	options: { itemIndex: number; deadline: number },
): Promise<
	{ kind: 'complete'; records: ServiceReport[] } | { kind: 'incomplete'; reason: string }
> {
	let reason = '';
	for (let read = 0; read < LISTING_READS; read++) {
		const kept = new Map<string, ServiceReport>();
		const walked = await walkReports(
			client,
			qs,
			(records) => {
				for (const report of records) if (keep(report)) kept.set(report.id, report);
			},
			{ ...options, acceptIncomplete: true },
		);
		if (walked.kind !== 'incomplete') return { kind: 'complete', records: [...kept.values()] };
		reason = walked.reason;
	}
	return { kind: 'incomplete', reason };
}

/**
 * The reports of the request's account listed since `from` (n8n time on the service's clock)
 * that `keep` keeps, from a complete listing: one that never agreed with itself fails the item,
 * since it cannot tell `question`, and nothing is created or sent on the strength of it.
 */
async function reportsSince(
	client: AdPerformanceClient,
	body: IDataObject,
	from: number,
	keep: (report: ServiceReport) => boolean,
	question: string,
	options: { itemIndex: number; deadline: number },
): Promise<ServiceReport[]> {
	const qs = { accountId: body.account_id as string, from: new Date(from).toISOString() };
	const listing = await completeListing(client, qs, keep, options);
	if (listing.kind === 'incomplete')
		throw listingIncomplete(client, listing.reason, question, options.itemIndex);
	return listing.records;
}

/** The error of a question a listing that never agreed with itself could not answer. */
function listingIncomplete(
	client: AdPerformanceClient,
	reason: string,
	question: string,
	itemIndex: number,
) {
	return client.apiError(
		`The report list did not agree with itself (${reason}), so it cannot tell ${question}`,
		`It was read ${LISTING_READS} times. Nothing was created or sent again. Run the workflow again in a minute; if it persists, contact the service.`,
		itemIndex,
		'protocol_error',
	);
}

/**
 * Report → Generate: POST /v1/reports without ever creating a duplicate, and without ever handing
 * this item a report somebody else created. Identical requests of executions running at the same
 * moment in this process share one POST (single-flight, transport/pipeline.ts), and so one
 * report. A 429 means "not created" and is resent after the wait. After a 5xx, a lost connection
 * or a garbled answer the report may exist, so the transport's retry loop asks findCreatedBy
 * before anything is resent. What remains: another n8n process (queue mode) sending an identical
 * request within the same second or so, and a service whose list shows a new report only after
 * more than the backoff (see the README's Security section).
 */
export async function createReport(
	client: AdPerformanceClient,
	body: IDataObject,
	itemIndex: number,
	deadline: number,
): Promise<ServiceReport> {
	return await client.attempts<ServiceReport>(
		async (round) => {
			const outcome = await client.writeOnce(
				{
					path: '/reports',
					writeLimit: 'generation',
					body,
					itemIndex,
					expect: 'record',
					singleFlight: true,
					deadline,
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
			deadline,
			onAmbiguous: async (sentAt) =>
				await searchAfterLostAnswer(client, body, sentAt, itemIndex, deadline),
		},
	);
}

/**
 * findCreatedBy, named for what was seen when the search itself fails (no answer, or error
 * answers until the attempts ran out): the report may exist (the request's answer was lost) and nothing says it does not, so the item
 * fails as ambiguous_outcome ("check before calling again"), with what the search met, never
 * as the search's error alone (which would invite a resend that makes a second report).
 */
async function searchAfterLostAnswer(
	client: AdPerformanceClient,
	body: IDataObject,
	sentAt: number,
	itemIndex: number,
	deadline: number,
): Promise<ServiceReport | undefined> {
	let failure: unknown;
	try {
		return await findCreatedBy(client, body, sentAt, itemIndex, deadline);
	} catch (error) {
		failure = error;
	}
	client.throwIfCancelled();
	// Already named for what the search saw (a report that may be ours or another's).
	if (errorTypeOf(failure) === 'ambiguous_outcome') throw failure as Error;
	const seen = failure instanceof Error ? failure.message : String(failure);
	throw client.apiError(
		`The answer to this report request was lost, and the search for the report it may have created failed: ${seen}`,
		'The report may or may not have been created: the service gave no usable answer to the search for it, so the request was not sent again (that could create a second report). Check the report list (Report → Get Many) before running the item again.',
		itemIndex,
		'ambiguous_outcome',
	);
}

/**
 * Report → Generate with Reuse a Recent Identical Report: the report an identical request asked
 * for within the last 10 minutes (see findRecent), or a new one. No POST is sent when one is
 * reused.
 */
export async function reuseOrCreateReport(
	client: AdPerformanceClient,
	body: IDataObject,
	itemIndex: number,
	deadline: number,
): Promise<{ report: ServiceReport; reused: boolean }> {
	const recent = await findRecent(client, body, itemIndex, deadline);
	if (recent) return { report: recent, reused: true };
	return { report: await createReport(client, body, itemIndex, deadline), reused: false };
}

/**
 * The report an attempt sent at `sentAt` (n8n time) created, if any: one matching every field
 * of the request (account, title, dates, format with its default, the set of campaign IDs,
 * white label where the record shows it), not claimed by another item of this execution, and
 * created after `sentAt` by every standing reading of the service's clock. A matching report
 * that some reading places before and another after that moment (the Date header and the
 * records disagree) could be ours or another execution's: then nothing is taken and nothing
 * is resent, and the item fails saying so.
 */
async function findCreatedBy(
	client: AdPerformanceClient,
	body: IDataObject,
	sentAt: number,
	itemIndex: number,
	deadline: number,
): Promise<ServiceReport | undefined> {
	const clock = client.clock;
	const matching = new Map<string, ServiceReport>();
	// The answers of a walk are new readings of the clock: walk again if they reach further back.
	let from = Infinity;
	for (let walks = 0; walks < 3; walks++) {
		const needed = clock.lowerBound(sentAt) - FROM_MARGIN_MS;
		if (needed >= from) break;
		from = needed;
		const listed = await reportsSince(
			client,
			body,
			from,
			(report) => !client.claimedReports.has(report.id) && matchesRequest(report, body),
			'whether the lost request created a report',
			{ itemIndex, deadline },
		);
		for (const report of listed) matching.set(report.id, report);
	}
	const placed = { after: [] as ServiceReport[], unsure: [] as ServiceReport[] };
	for (const report of matching.values()) {
		const created = serviceTime(report.createdAt);
		const place = created ? clock.placeCreation(created, sentAt) : 'unsure';
		if (place !== 'before') placed[place].push(report);
	}
	[placed.after, placed.unsure] = await sameCampaigns(
		client,
		body,
		[placed.after, placed.unsure],
		itemIndex,
		deadline,
	);
	if (placed.unsure.length > 0) throw unsureError(client, placed.unsure, itemIndex);
	// The earliest one after our first attempt is the one that attempt created.
	const ours = placed.after.sort(
		(a, b) => (serviceTime(a.createdAt)?.earliest ?? 0) - (serviceTime(b.createdAt)?.earliest ?? 0),
	)[0];
	if (ours) client.claimedReports.add(ours.id);
	return ours;
}

/**
 * Reuse a Recent Identical Report: a report that the same request (account, title, dates,
 * format with its default, the set of campaign IDs, white label where the record shows it)
 * asked for within the last REUSE_WINDOW_MS by the service's clock, that has not failed;
 * undefined when there is none. The newest such report is the one returned.
 *
 * GET /v1/reports (newest first) narrowed by account and by `from`, to its end (one page of
 * 100 records unless the window holds more): the window below the earliest time the service's
 * clock can show now, widened by CLOCK_SKEW_MARGIN_MS. A second read (with an earlier `from`) is made only when the first
 * answer shows the service's clock further behind n8n's than that margin, so that `from` may
 * have cut off part of the window.
 * A whole-account request also reads the account's campaigns once, as the lost-answer search
 * does, and only when some report is otherwise identical.
 *
 * Recency under clock disagreement: a report is recent when ANY standing reading of the
 * service's clock places its creation within the window ("after" or "unsure" in
 * placeCreation). The option exists so that a re-run never creates a second report; so the
 * window is never shorter than 10 minutes by any reading, and may be longer by as much as
 * the readings disagree. The price of that choice is reusing an identical report somewhat
 * older than 10 minutes, still the report the request asks for; the other choice would create
 * the duplicate the user turned the option on to prevent. A report whose creation time cannot
 * be read is not reused: nothing says it is recent at all.
 */
async function findRecent(
	client: AdPerformanceClient,
	body: IDataObject,
	itemIndex: number,
	deadline: number,
): Promise<ServiceReport | undefined> {
	const clock = client.clock;
	const since = Date.now() - REUSE_WINDOW_MS;
	const matching = new Map<string, ServiceReport>();
	// To the end of the window: "none" is concluded from a complete listing, never from a first
	// page (a busy account can have more than 100 reports in 10 minutes) or a shifted one.
	const walkFrom = async (from: number) => {
		const listed = await reportsSince(
			client,
			body,
			from,
			(report) => REUSABLE_STATUSES.has(report.status as string) && matchesRequest(report, body),
			'whether an identical report exists',
			{ itemIndex, deadline },
		);
		for (const report of listed) matching.set(report.id, report);
	};
	const from = clock.lowerBound(since) - CLOCK_SKEW_MARGIN_MS;
	await walkFrom(from);
	// The answer's Date header is a new reading: past the margin, the window reaches further back.
	if (clock.lowerBound(since) < from)
		await walkFrom(clock.lowerBound(since) - CLOCK_SKEW_MARGIN_MS);
	const recent = [...matching.values()].filter((report) => {
		const created = serviceTime(report.createdAt);
		return created !== undefined && clock.placeCreation(created, since) !== 'before';
	});
	const [identical] = await sameCampaigns(client, body, [recent], itemIndex, deadline);
	return identical.sort(
		(a, b) => (serviceTime(b.createdAt)?.earliest ?? 0) - (serviceTime(a.createdAt)?.earliest ?? 0),
	)[0];
}

/** The format the service generates when the request names none. */
const DEFAULT_FORMAT = 'pdf';

/**
 * Whether a listed report is the one a Generate request asked for (the rule both searches share):
 * same account, title, dates and format (pdf when the request names none), the same set of
 * campaigns when the request names them, and the same white label where the record shows one.
 */
function matchesRequest(report: ServiceReport, body: IDataObject): boolean {
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
 * Keeps, of each list of reports matching a request, those for the same campaigns. A request
 * without campaign IDs covers every campaign of the account: a report for some of them is
 * another request's. That takes one read of the account's campaigns, done only when some
 * report is left to check.
 */
async function sameCampaigns(
	client: AdPerformanceClient,
	body: IDataObject,
	lists: ServiceReport[][],
	itemIndex: number,
	deadline: number,
): Promise<ServiceReport[][]> {
	if (Array.isArray(body.campaign_ids) || lists.every((list) => list.length === 0)) return lists;
	const campaigns = await client.list<ServiceCampaign>(
		'/campaigns',
		{ accountId: body.account_id as string },
		{ returnAll: true, itemIndex, deadline },
	);
	const all = campaigns.map((campaign) => campaign.id);
	return lists.map((list) => list.filter((report) => sameSet(report.campaignIds, all)));
}

function unsureError(client: AdPerformanceClient, reports: ServiceReport[], itemIndex: number) {
	const ids = reports.map((report) => report.id).join(', ');
	const why =
		client.clock.disagreement() ??
		'its records do not say when they were created (no readable createdAt)';
	return client.apiError(
		`The answer to this report request was lost, and report ${ids} may be the one it created, or another execution's`,
		`The report matches every field of this request, but it cannot be told whether it was created before or after this item's first attempt: the service's clock readings disagree (${why}). So no report was taken (it could be another execution's) and the request was not sent again (that could create a second report). Check the report list: if ${ids} is this item's, use it with Report → Get; otherwise run the item again.`,
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
	return client.serviceError({
		status: 404,
		type: 'not_found',
		itemIndex,
		message: `Report ${reportId} was not found`,
		description,
	});
}
