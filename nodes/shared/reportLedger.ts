import type { IDataObject } from 'n8n-workflow';

import { CLOCK_SKEW_MARGIN_MS, type AdPerformanceClient } from './transport';
import { serviceTime } from './transport/serviceClock';
import type { ServiceCampaign, ServiceReport, SingleEnvelope } from './types';

/** The format the service generates when the request names none. */
const DEFAULT_FORMAT = 'pdf';
/** Below a service time, for a `from` filter that compares exclusively or to the second. */
const FROM_MARGIN_MS = 1_000;

const ledgers = new WeakMap<AdPerformanceClient, ReportLedger>();

/** The ledger of the execution the client belongs to (one client per execution). */
export function reportLedger(client: AdPerformanceClient): ReportLedger {
	let ledger = ledgers.get(client);
	if (!ledger) {
		ledger = new ReportLedger(client);
		ledgers.set(client, ledger);
	}
	return ledger;
}

/**
 * The one home of GET and POST /v1/reports for an execution: every walk of the report list (the
 * lookups, Wait for Ad Report's sweeps, Generate's duplicate search, the trigger's polls) and every
 * report generation go through it, so two rules hold for all of them:
 *   - the time each listed record was created or completed is a reading of the service's clock
 *     (transport/serviceClock.ts), beside the Date header of every answer;
 *   - a report this execution created or recovered is claimed, and no other item takes it.
 */
export class ReportLedger {
	/** Reports this execution created or recovered, so two items never claim the same one. */
	private readonly claimed = new Set<string>();

	constructor(private readonly client: AdPerformanceClient) {}

	/**
	 * Walks GET /v1/reports (newest first) with the client's page loop, reading the service's
	 * clock from the records of every page. `visit` returns false to stop.
	 */
	async walk(
		qs: IDataObject,
		visit: (records: ServiceReport[]) => boolean | void,
		options: { itemIndex?: number; deadline?: number; pageSize?: number } = {},
	): Promise<void> {
		const clock = this.client.clock;
		await this.client.walk<ServiceReport>(
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
	 * There is no GET /v1/reports/{id} (docs/service-notes.md, Finding one report): one report is
	 * found by listing, narrowed by account and creation time when we know them, and matching its
	 * id across pages.
	 */
	async find(
		reportId: string,
		itemIndex: number,
		narrow: { accountId?: string; createdAfter?: string } = {},
	): Promise<ServiceReport> {
		let found: ServiceReport | undefined;
		const qs: IDataObject = {};
		if (narrow.accountId) qs.accountId = narrow.accountId;
		if (narrow.createdAfter) qs.from = narrow.createdAfter;
		await this.walk(
			qs,
			(records) => {
				found = records.find((report) => report.id === reportId);
				return found === undefined;
			},
			{ itemIndex },
		);
		if (!found) {
			throw reportNotFound(
				this.client,
				reportId,
				itemIndex,
				narrow.accountId || narrow.createdAfter
					? 'No report with this ID exists in this workspace for the account and creation date given under Options. Check the ID, or clear those options.'
					: 'No report with this ID exists in this workspace. Check the ID (it starts with rpt_).',
			);
		}
		return found;
	}

	/**
	 * POST /v1/reports without ever creating a duplicate, and without ever handing this item a
	 * report somebody else created. A 429 means "not created" and is resent after the wait (the
	 * transport does that). After a 5xx, a lost connection or a garbled answer the report may
	 * exist, so before resending we look for it (findCreatedBy). What remains: another execution
	 * sending an identical request within the same second or so, and a service whose list shows a
	 * new report only after more than the backoff (see the README's Security section).
	 */
	async create(body: IDataObject, itemIndex: number): Promise<ServiceReport> {
		const client = this.client;
		let firstSentAt: number | undefined;
		let lastError: Error | undefined;
		for (let attempt = 1; attempt <= client.maxAttempts; attempt++) {
			if (firstSentAt !== undefined) {
				const existing = await this.findCreatedBy(body, firstSentAt, itemIndex);
				if (existing) return existing;
			}
			const askedAt = Date.now();
			// Items are settled one at a time (actions/router.ts), so the last answered exchange of
			// the client after this write is this write's own.
			const outcome = await client.write({ path: '/reports', body, itemIndex, expect: 'record' });
			// Pacing and waiting for a turn come before the send: the answered exchange says when.
			const sentAt = Math.max(askedAt, client.clock.lastAnsweredSendAt ?? askedAt);
			if (!outcome.ambiguous) {
				const report = (outcome.response.body as SingleEnvelope<ServiceReport>).data;
				if (typeof report.id === 'string') this.claimed.add(report.id);
				client.clock.observeCreation(report.createdAt, sentAt);
				return report;
			}
			firstSentAt ??= sentAt;
			lastError = outcome.ambiguous;
			if (attempt < client.maxAttempts) await client.wait(client.backoffMs(attempt));
		}
		const existing = await this.findCreatedBy(body, firstSentAt ?? Date.now(), itemIndex);
		if (existing) return existing;
		throw lastError;
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
	private async findCreatedBy(
		body: IDataObject,
		sentAt: number,
		itemIndex: number,
	): Promise<ServiceReport | undefined> {
		const clock = this.client.clock;
		const matching = new Map<string, ServiceReport>();
		// The answers of a walk are new readings of the clock: walk again if they reach further back.
		let from = Infinity;
		for (let walks = 0; walks < 3; walks++) {
			const needed = clock.lowerBound(sentAt) - FROM_MARGIN_MS;
			if (needed >= from) break;
			from = needed;
			await this.walk(
				{ accountId: body.account_id as string, from: new Date(from).toISOString() },
				(records) => {
					for (const report of records) {
						if (!this.claimed.has(report.id) && matchesRequest(report, body))
							matching.set(report.id, report);
					}
				},
				{ itemIndex },
			);
		}
		const placed = { after: [] as ServiceReport[], unsure: [] as ServiceReport[] };
		for (const report of matching.values()) {
			const created = serviceTime(report.createdAt);
			const place = created ? clock.placeCreation(created, sentAt) : 'unsure';
			if (place !== 'before') placed[place].push(report);
		}
		// A request without campaign IDs covers every campaign of the account: another
		// execution's report for some of them is not ours.
		if (!Array.isArray(body.campaign_ids) && placed.after.length + placed.unsure.length > 0) {
			const all = await this.accountCampaignIds(body.account_id as string, itemIndex);
			placed.after = placed.after.filter((report) => sameSet(report.campaignIds, all));
			placed.unsure = placed.unsure.filter((report) => sameSet(report.campaignIds, all));
		}
		if (placed.unsure.length > 0) throw this.unsureError(placed.unsure, itemIndex);
		// The earliest one after our first attempt is the one that attempt created.
		const ours = placed.after.sort(
			(a, b) =>
				(serviceTime(a.createdAt)?.earliest ?? 0) - (serviceTime(b.createdAt)?.earliest ?? 0),
		)[0];
		if (ours) this.claimed.add(ours.id);
		return ours;
	}

	private unsureError(reports: ServiceReport[], itemIndex: number) {
		const ids = reports.map((report) => report.id).join(', ');
		const why =
			this.client.clock.disagreement() ??
			'its records do not say when they were created (no readable createdAt)';
		return this.client.apiError(
			`The answer to this report request was lost, and report ${ids} may be the one it created, or another execution's`,
			`The report matches every field of this request, but it cannot be told whether it was created before or after this item's first attempt: the service's clock readings disagree (${why}). So no report was taken (it could be another execution's) and the request was not sent again (that could create a second report). Check the report list: if ${ids} is this item's, use it with Report → Get; otherwise run the item again.`,
			itemIndex,
		);
	}

	private async accountCampaignIds(accountId: string, itemIndex: number): Promise<string[]> {
		const campaigns = await this.client.list<ServiceCampaign>(
			'/campaigns',
			{ accountId },
			{ returnAll: true, itemIndex },
		);
		return campaigns.map((campaign) => campaign.id);
	}
}

/** Report → Get: one report by id (see ReportLedger.find). */
export async function findReport(
	client: AdPerformanceClient,
	reportId: string,
	itemIndex: number,
	narrow: { accountId?: string; createdAfter?: string } = {},
): Promise<ServiceReport> {
	return await reportLedger(client).find(reportId, itemIndex, narrow);
}

/** Report → Generate: one report request, duplicate-safe (see ReportLedger.create). */
export async function createReport(
	client: AdPerformanceClient,
	body: IDataObject,
	itemIndex: number,
): Promise<ServiceReport> {
	return await reportLedger(client).create(body, itemIndex);
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

export interface ReportHint {
	accountId?: string;
	createdAt?: string;
}

/**
 * Wait for Ad Report's look at many reports with as few list requests as possible. There is no
 * GET of one report, so each sweep pages through GET /v1/reports newest first, narrowed by
 * account when all pending reports share one and by creation time when all are known, and stops
 * as soon as every pending report has been seen. 25 reports cost one request a sweep.
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
		// The hints are the service's own creation times: a filter on its clock, whatever n8n's says.
		let earliest = Infinity;
		for (const id of pending)
			earliest = Math.min(earliest, Date.parse(this.hints.get(id)?.createdAt ?? ''));
		if (Number.isFinite(earliest))
			qs.from = new Date(earliest - CLOCK_SKEW_MARGIN_MS).toISOString();
		await reportLedger(this.client).walk(
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
