import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

import { serviceError } from './errors';
import type { AdPerformanceClient } from './transport';
import { pathId } from './transport';
import type { ServiceReport } from './types';

const MIME_BY_FORMAT: Record<string, string> = {
	pdf: 'application/pdf',
	markdown: 'text/markdown',
	json: 'application/json',
};
const EXTENSION_BY_FORMAT: Record<string, string> = { pdf: 'pdf', markdown: 'md', json: 'json' };

export function isFinalReport(report: ServiceReport): boolean {
	return report.status === 'completed' || report.status === 'failed';
}

/**
 * There is no GET /v1/reports/{id} (open-points A6): one report is found by listing, narrowed
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
		itemIndex,
	);
	if (!found) {
		throw serviceError(client.node, {
			status: 404,
			type: 'not_found',
			itemIndex,
			message: `Report ${reportId} was not found`,
			description:
				narrow.accountId || narrow.createdAfter
					? 'No report with this ID exists in this workspace for the account and creation date given under Options. Check the ID, or clear those options.'
					: 'No report with this ID exists in this workspace. Check the ID (it starts with rpt_).',
		});
	}
	return found;
}

function slug(text: string): string {
	const cleaned = text
		.normalize('NFKD')
		.replace(/[\u0300-\u036f]/g, '')
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, '-')
		.replace(/^-+|-+$/g, '')
		.slice(0, 80);
	return cleaned || 'report';
}

/** `attachment; filename="a.pdf"` or RFC 5987 `filename*=UTF-8''a%20b.pdf`. */
export function fileNameFromContentDisposition(header: unknown): string | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (typeof value !== 'string') return undefined;
	const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(value);
	if (extended) {
		try {
			return sanitiseFileName(decodeURIComponent(extended[1].trim().replace(/^"|"$/g, '')));
		} catch {
			// fall through to the plain form
		}
	}
	const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/.exec(value);
	const name = plain ? (plain[2] ?? plain[1]).trim() : undefined;
	return name ? sanitiseFileName(name) : undefined;
}

/** Only a base name: a header must never place a file outside where the user saves it. */
function sanitiseFileName(name: string): string | undefined {
	const base = name
		.split(/[\\/]/)
		.pop()
		?.replace(/\p{Cc}/gu, '')
		.trim();
	return base && base !== '.' && base !== '..' ? base : undefined;
}

function headerOf(headers: Record<string, unknown>, name: string): string | undefined {
	const value = headers[name] ?? headers[name.toLowerCase()];
	const first = Array.isArray(value) ? value[0] : value;
	return typeof first === 'string' ? first : undefined;
}

/**
 * Downloads a finished report and hands the bytes to n8n's binary-data store as a stream
 * (`prepareBinaryData`), so the filesystem and S3 modes keep large files off the heap.
 */
export async function downloadReportFile(
	ctx: IExecuteFunctions,
	client: AdPerformanceClient,
	report: Pick<ServiceReport, 'id' | 'title' | 'format' | 'downloadUrl' | 'expiresAt'>,
	itemIndex: number,
): Promise<IBinaryData> {
	const url = report.downloadUrl || `${client.baseUrl}/v1/reports/${pathId(report.id)}/download`;
	const subject = `report ${report.id}`;
	const response = await client.download(url, itemIndex, subject, (status) => {
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
	});
	const headers = response.headers as Record<string, unknown>;
	const format = report.format ?? '';
	const contentType = headerOf(headers, 'content-type');
	const mimeType =
		contentType?.split(';')[0].trim() || MIME_BY_FORMAT[format] || 'application/octet-stream';
	const extension = EXTENSION_BY_FORMAT[format] ?? extensionForMime(mimeType);
	const fileName =
		fileNameFromContentDisposition(headerOf(headers, 'content-disposition')) ??
		`${slug(report.title ?? report.id)}${extension ? `.${extension}` : ''}`;
	return await ctx.helpers.prepareBinaryData(response.body as Buffer, fileName, mimeType);
}

function extensionForMime(mimeType: string): string | undefined {
	for (const [format, mime] of Object.entries(MIME_BY_FORMAT)) {
		if (mime === mimeType) return EXTENSION_BY_FORMAT[format];
	}
	return undefined;
}
