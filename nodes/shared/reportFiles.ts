import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

import type { AdPerformanceClient } from './transport';
import { pathId } from './transport';
import type { ServiceReport } from './types';

/*
 * A finished report's file: fetching it into n8n's binary store and naming it. Finding the report
 * itself is reportLedger.ts.
 */

const MIME_BY_FORMAT: Record<string, string> = {
	pdf: 'application/pdf',
	markdown: 'text/markdown',
	json: 'application/json',
};
const EXTENSION_BY_FORMAT: Record<string, string> = { pdf: 'pdf', markdown: 'md', json: 'json' };

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
function fileNameFromContentDisposition(header: unknown): string | undefined {
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
 * (`prepareBinaryData`), so the filesystem and S3 modes keep large files off the heap. A
 * download is a read: one cut off mid-way is fetched again, up to Max Attempts.
 */
export async function downloadReportFile(
	ctx: IExecuteFunctions,
	client: AdPerformanceClient,
	report: Pick<ServiceReport, 'id' | 'title' | 'format' | 'downloadUrl' | 'expiresAt'>,
	itemIndex: number,
): Promise<IBinaryData> {
	const url = report.downloadUrl || `${client.baseUrl}/v1/reports/${pathId(report.id)}/download`;
	const subject = `report ${report.id}`;
	for (let attempt = 1; ; attempt++) {
		const response = await client.download(url, {
			itemIndex,
			subject,
			explain: (status) => explainMissingFile(report, status),
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
		try {
			return await ctx.helpers.prepareBinaryData(response.body as Buffer, fileName, mimeType);
		} catch (error) {
			client.throwIfCancelled();
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
	for (const [format, mime] of Object.entries(MIME_BY_FORMAT)) {
		if (mime === mimeType) return EXTENSION_BY_FORMAT[format];
	}
	return undefined;
}
