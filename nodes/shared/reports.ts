import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { fileTooLargeError } from './errors';
import {
	fallbackFileName,
	fileNameFromContentDisposition,
	mimeTypeFromContentType,
} from './fileName';
import { ANSWER_LIMITS, BYTES_PER_MB } from './limits';
import type { AdPerformanceClient } from './transport';
import { isAnswerTimedOut, isAnswerTooLarge, pathId } from './transport';
import type { ServiceCampaign, ServiceReport, SingleEnvelope } from './types';
import type { InputValidator } from './validation';

/** The format the service generates when the request names none. */
const DEFAULT_FORMAT = 'pdf';

// Maps: the format is the service's text, and `constructor` or `__proto__` must find nothing.
const MIME_BY_FORMAT = new Map([
	['pdf', 'application/pdf'],
	['markdown', 'text/markdown'],
	['json', 'application/json'],
]);
const EXTENSION_BY_FORMAT = new Map([
	['pdf', 'pdf'],
	['markdown', 'md'],
	['json', 'json'],
]);

/**
 * There is no GET /v1/reports/{id} (docs/service-notes.md, Finding one report): one report is found by listing, narrowed
 * by account and creation time when we know them, and matching its id across pages.
 */
export async function findReport(
	client: AdPerformanceClient,
	reportId: string,
	itemIndex: number,
	narrow: { accountId?: string; createdAfter?: string } = {},
): Promise<ServiceReport> {
	let found: ServiceReport | undefined;
	const qs: Record<string, string> = {};
	if (narrow.accountId) qs.accountId = narrow.accountId;
	if (narrow.createdAfter) qs.from = narrow.createdAfter;
	await client.walk<ServiceReport>(
		'/reports',
		qs,
		(records) => {
			found = records.find((report) => report.id === reportId);
			return found === undefined;
		},
		{ itemIndex },
	);
	if (!found) {
		throw reportNotFound(
			client,
			reportId,
			itemIndex,
			narrow.accountId || narrow.createdAfter
				? 'No report with this ID exists in this workspace for the account and creation date given under Options. Check the ID, or clear those options.'
				: 'No report with this ID exists in this workspace. Check the ID (it starts with rpt_).',
		);
	}
	return found;
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

function headerOf(headers: Record<string, unknown>, name: string): string | undefined {
	const value = headers[name] ?? headers[name.toLowerCase()];
	const first = Array.isArray(value) ? value[0] : value;
	return typeof first === 'string' ? first : undefined;
}

/** Options → Max File Size (MB) of Report → Download and Wait for Ad Report, in bytes. */
export function maxFileBytesOf(check: InputValidator, options: unknown): number {
	const value = (options && typeof options === 'object' ? options : {}) as Record<string, unknown>;
	const megabytes =
		value.maxFileSizeMb === undefined
			? ANSWER_LIMITS.defaultFileMb
			: check.megabytes(
					'Options → Max File Size (MB)',
					value.maxFileSizeMb,
					0.1,
					ANSWER_LIMITS.maxFileMb,
				);
	return Math.floor(megabytes * BYTES_PER_MB);
}

/**
 * Downloads a finished report and hands the bytes to n8n's binary-data store as a stream
 * (`prepareBinaryData`), so the filesystem and S3 modes keep large files off the heap. The
 * stream fails past `maxFileBytes` (the Max File Size) or the download's total time
 * (boundedReader.ts); neither is tried again. A download cut off mid-way is a read: it is
 * fetched again, up to Max Attempts.
 */
export async function downloadReportFile(
	ctx: IExecuteFunctions,
	client: AdPerformanceClient,
	report: Pick<ServiceReport, 'id' | 'title' | 'format' | 'downloadUrl' | 'expiresAt'>,
	itemIndex: number,
	maxFileBytes: number,
): Promise<IBinaryData> {
	const url = report.downloadUrl || `${client.baseUrl}/v1/reports/${pathId(report.id)}/download`;
	const subject = `report ${report.id}`;
	const tooLarge = () =>
		fileTooLargeError(client.node, {
			reportId: report.id,
			maxFileSizeMb: Math.round((maxFileBytes / BYTES_PER_MB) * 10) / 10,
			itemIndex,
		});
	for (let attempt = 1; ; attempt++) {
		const response = await client.download(url, {
			itemIndex,
			subject,
			explain: (status) => explainMissingFile(report, status),
			maxBytes: maxFileBytes,
		});
		if (response.tooLarge) throw tooLarge();
		const headers = response.headers as Record<string, unknown>;
		const format = typeof report.format === 'string' ? report.format : '';
		const mimeType =
			mimeTypeFromContentType(headerOf(headers, 'content-type'), client.redactor) ??
			MIME_BY_FORMAT.get(format) ??
			'application/octet-stream';
		const extension = EXTENSION_BY_FORMAT.get(format) ?? extensionForMime(mimeType);
		const fileName =
			fileNameFromContentDisposition(headerOf(headers, 'content-disposition'), client.redactor) ??
			fallbackFileName(report.id, extension, client.redactor);
		try {
			return await ctx.helpers.prepareBinaryData(response.body as Buffer, fileName, mimeType);
		} catch (error) {
			client.throwIfCancelled();
			if (isAnswerTooLarge(error)) throw tooLarge();
			if (isAnswerTimedOut(error)) {
				throw client.apiError(
					`The download of report ${report.id} did not finish within ${ANSWER_LIMITS.downloadMs / 60_000} minutes`,
					'The service sent the file too slowly, and the download was stopped. Run the workflow again later; if it persists, contact the service.',
					itemIndex,
				);
			}
			if (attempt >= client.maxAttempts) {
				throw client.apiError(
					`The download of report ${report.id} was cut off before the whole file arrived`,
					`The connection broke during the download ${attempt} time(s) (${(error as Error)?.message ?? 'unknown error'}). Run the workflow again, or raise Request Options → Max Attempts.`,
					itemIndex,
				);
			}
			await client.wait(client.backoffMs(attempt));
		}
	}
}

function explainMissingFile(
	report: Pick<ServiceReport, 'id' | 'expiresAt'>,
	status: number,
): { message: string; description: string } | undefined {
	if (status !== 404) return undefined;
	const expired = report.expiresAt !== undefined && Date.parse(report.expiresAt) <= Date.now();
	return expired
		? {
				message: `The download link of report ${report.id} expired at ${report.expiresAt}`,
				description:
					'Download links are valid for 7 days. Generate the report again to get a fresh link.',
			}
		: {
				message: `The file of report ${report.id} was not found`,
				description:
					'The report does not exist in this workspace, or its download link has expired (links are valid for 7 days). Check the ID or generate the report again.',
			};
}

function extensionForMime(mimeType: string): string | undefined {
	for (const [format, mime] of MIME_BY_FORMAT) {
		if (mime === mimeType) return EXTENSION_BY_FORMAT.get(format);
	}
	return undefined;
}

/**
 * POST /v1/reports without ever creating a duplicate, and without ever handing this item a
 * report somebody else created. A 429 means "not created" and is resent after the wait (the
 * transport does that). After a 5xx, a lost connection or a garbled answer the report may
 * exist, so before resending we look for it: a report matching every field of our request
 * (account, title, dates, format with its default, the set of campaign IDs, white label where
 * the record shows it), created after our first attempt was sent by the service's own clock
 * (from the Date header of its answers), and not already claimed by another item of this
 * execution. What remains: another execution sending an identical request within the same
 * second or so could be handed the same report (see the README's Security section).
 */
export async function createReport(
	client: AdPerformanceClient,
	body: IDataObject,
	itemIndex: number,
): Promise<ServiceReport> {
	const firstAttemptAt = Date.now();
	let lastError: Error | undefined;
	for (let attempt = 1; attempt <= client.maxAttempts; attempt++) {
		if (attempt > 1) {
			const existing = await findCreatedReport(client, body, firstAttemptAt, itemIndex);
			if (existing) return existing;
		}
		const outcome = await client.write({ path: '/reports', body, itemIndex, expect: 'record' });
		if (!outcome.ambiguous) {
			const report = (outcome.response.body as SingleEnvelope<ServiceReport>).data;
			if (typeof report.id === 'string') client.claimedReportIds.add(report.id);
			return report;
		}
		lastError = outcome.ambiguous;
		if (attempt < client.maxAttempts) await client.wait(client.backoffMs(attempt));
	}
	const existing = await findCreatedReport(client, body, firstAttemptAt, itemIndex);
	if (existing) return existing;
	throw lastError;
}

async function findCreatedReport(
	client: AdPerformanceClient,
	body: IDataObject,
	firstAttemptAt: number,
	itemIndex: number,
): Promise<ServiceReport | undefined> {
	const from = new Date(client.serviceTimeLowerBound(firstAttemptAt) - 1_000).toISOString();
	const candidates: ServiceReport[] = [];
	await client.walk<ServiceReport>(
		'/reports',
		{ accountId: body.account_id as string, from },
		(records) => {
			for (const report of records) {
				if (!client.claimedReportIds.has(report.id) && matchesRequest(report, body))
					candidates.push(report);
			}
		},
		{ itemIndex },
	);
	// The walk's answers carried the service's clock: the bound is as tight as it gets now.
	const sentAt = client.serviceTimeLowerBound(firstAttemptAt);
	const recent = candidates.filter((report) => createdAtMs(report) >= sentAt);
	// A request without campaign IDs covers every campaign of the account: another
	// execution's report for some of them is not ours.
	const wholeAccount =
		recent.length > 0 && !Array.isArray(body.campaign_ids)
			? await accountCampaignIds(client, body.account_id as string, itemIndex)
			: undefined;
	const ours = recent
		.filter((report) => !wholeAccount || sameSet(report.campaignIds, wholeAccount))
		// The earliest one after our first attempt is the one that attempt created.
		.sort((a, b) => createdAtMs(a) - createdAtMs(b))[0];
	if (ours) client.claimedReportIds.add(ours.id);
	return ours;
}

async function accountCampaignIds(
	client: AdPerformanceClient,
	accountId: string,
	itemIndex: number,
): Promise<string[]> {
	const campaigns = await client.list<ServiceCampaign>(
		'/campaigns',
		{ accountId },
		{ returnAll: true, itemIndex },
	);
	return campaigns.map((campaign) => campaign.id);
}

/** Creation time in ms, rounded down to the second when the service writes whole seconds. */
function createdAtMs(report: ServiceReport): number {
	const text = typeof report.createdAt === 'string' ? report.createdAt : '';
	const ms = Date.parse(text);
	if (!Number.isFinite(ms)) return -Infinity;
	// A time without fractions may be up to 999 ms earlier than the moment it stands for.
	return /\.\d/.test(text) ? ms : ms + 999;
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
