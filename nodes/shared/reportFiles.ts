import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

import { fileTooLargeError } from './errors';
import { collectionOption, inputField, read, type InputSource } from './inputSource';
import { mimeTypeFromContentType, reportFileName } from './fileName';
import { ANSWER_LIMITS, BYTES_PER_MB } from './limits';
import {
	DeadlineReached,
	decide,
	discardBody,
	failedAttempt,
	headerOf,
	isAnswerTimedOut,
	isAnswerTooLarge,
	peekBody,
	type AdPerformanceClient,
	type Attempt,
	type Round,
} from './transport';
import type { ServiceReport } from './types';

// A finished report's file, fetched into n8n's binary store and named (finding: reportLedger.ts).

// A Map: the format is the service's text, and `constructor` or `__proto__` must find nothing.
const FILE_TYPES = new Map([
	['pdf', { mimeType: 'application/pdf', extension: 'pdf' }],
	['markdown', { mimeType: 'text/markdown', extension: 'md' }],
	['json', { mimeType: 'application/json', extension: 'json' }],
]);

/** A web page's Content-Type (HTML or XHTML), in any case, with any parameters. */
const WEB_PAGE_TYPE = /^\s*(?:text\/html|application\/(?:vnd\.wap\.)?xhtml\+xml)\b/i;
/** How much of a file is read to tell a web page (its prolog and root are within it). */
const WEB_PAGE_HEAD_BYTES = 1_024;
/** What may come before a web page's root: white space (a byte-order mark), comments, `<?xml …?>`. */
const PAGE_PROLOG = /^(?:\s+|<!--[\s\S]*?-->|<\?[\s\S]*?\?>)*/;
/** A web page's doctype or root, in any case: `<!DOCTYPE html`, `<html>`, `<html xmlns=…>`. */
const PAGE_ROOT = /^<(?:!doctype\s+html\b|html(?:[\s/>]|$))/i;

/** Whether a file begins as a web page (a proxy's): no report format begins with a doctype or root. */
function beginsAsWebPage(head: Buffer): boolean {
	const text = textOf(head);
	const prolog = PAGE_PROLOG.exec(text)?.[0].length ?? 0;
	return PAGE_ROOT.test(text.slice(prolog));
}

/** A file's head as text: UTF-16 after its byte-order mark (either order), else UTF-8. */
function textOf(head: Buffer): string {
	const mark = head.length >= 2 ? head.readUInt16BE(0) : 0;
	// UTF-8's mark decodes to U+FEFF, which the prolog skips as white space.
	if (mark !== 0xfffe && mark !== 0xfeff) return head.toString('utf8');
	const units = Buffer.from(head.subarray(2, head.length - (head.length % 2)));
	return (mark === 0xfeff ? units.swap16() : units).toString('utf16le');
}

/** The file type of a report's format, if it is one of ours. */
function knownFormat(report: Pick<ServiceReport, 'format'>) {
	return FILE_TYPES.get(typeof report.format === 'string' ? report.format : '');
}

const OPTIONS = inputField('options', 'Options', undefined, { default: {} });
const BINARY_PROPERTY = inputField('binaryPropertyName', 'Put Output File in Field', undefined, {
	default: 'data',
});

/** Put Output File in Field of Report → Download and Wait for Ad Report. */
export function readBinaryPropertyName(source: InputSource): string {
	return read(source, BINARY_PROPERTY, (name, value) =>
		source.check.text(name, value, { maxLength: 200 }),
	);
}

/** Options → Max File Size (MB) of Report → Download and Wait for Ad Report, in bytes. */
export function maxFileBytesOf(source: InputSource): number {
	const name = 'Options → Max File Size (MB)';
	const value = collectionOption(source.check, source.value(OPTIONS), 'maxFileSizeMb', name);
	const megabytes =
		value === undefined
			? ANSWER_LIMITS.defaultFileMb
			: source.check.number(name, value, 0.1, ANSWER_LIMITS.maxFileMb, 'MB');
	return Math.floor(megabytes * BYTES_PER_MB);
}

type ReportFile = Pick<ServiceReport, 'id' | 'format' | 'downloadUrl' | 'expiresAt'>;

/** How long Report → Download waits for a file that is not ready yet (it has no Timeout of its own). */
export const FILE_NOT_READY_WAIT_MS = 5 * 60_000;
/** The longest wait between asks for a file not ready yet, with no Poll Interval (service ms). */
const FILE_NOT_READY_POLL_MS = 30_000;

/**
 * Where a download stands: `notReadyUntil` (n8n time) is how long "not yet" answers are waited
 * out (425, the file host's Retry-After, and with `listedFinished` the service's 409
 * report_not_ready: the list showed the report finished, so its file is on its way).
 */
interface FileWait {
	deadline: number;
	notReadyUntil: number;
	listedFinished?: boolean;
	/** The caller's Poll Interval (service ms): the longest wait between asks. */
	pollMs?: number;
}

/**
 * Fetches a finished report's file and hands its body to `keep`, in the transport's retry loop
 * (decide): a file cut off, packed or answered with a web page is fetched again up to Max
 * Attempts. Past `maxBytes` it is `tooLarge`'s; past the download's total time it fails for good.
 */
async function fetchFile<T>(
	client: AdPerformanceClient,
	report: ReportFile,
	itemIndex: number,
	maxBytes: number,
	wait: FileWait,
	keep: {
		/** Reads the body (a bounded stream) into what the caller keeps. */
		body(body: unknown, headers: Parameters<typeof headerOf>[0]): Promise<T>;
		/** The file is larger than `maxBytes`: the caller's value or error. */
		tooLarge(): { value: T } | { error: Error };
	},
): Promise<T> {
	const after = (round: Round, seen: Parameters<typeof decide>[0], error: Error) =>
		failedAttempt<T>(decide(seen, { resendable: true }, round), error, Date.now());
	const tooLarge = (round: Round): Attempt<T> => {
		const outcome = keep.tooLarge();
		return 'error' in outcome
			? after(round, { kind: 'refused' }, outcome.error)
			: { kind: 'done', value: outcome.value };
	};
	return await client.attempts<T>(
		async (round) => {
			const answer = await client.downloadOnce(
				report.downloadUrl ||
					`${client.baseUrl}/v1/reports/${encodeURIComponent(report.id)}/download`,
				{
					itemIndex,
					subject: `report ${report.id}`,
					explain: (status) => explainMissingFile(report, status, wait),
					maxBytes,
					deadline: wait.deadline,
					notYet: {
						statuses: wait.listedFinished ? [409, 425] : [425],
						pollMs: wait.pollMs ?? FILE_NOT_READY_POLL_MS,
						until: wait.notReadyUntil,
					},
				},
				round,
			);
			if (answer.kind !== 'done') return answer;
			const response = answer.value;
			if (response.tooLarge) return tooLarge(round);
			// A body that is not the file is never stored: dropped, and fetched again.
			const garbled = (message: string, description: string) => {
				discardBody(response.body);
				return after(
					round,
					{ kind: 'garbled' },
					client.errors.api(message, description, itemIndex),
				);
			};
			// Packed although asked for unpacked: n8n's helper would unpack a cut file without an error.
			if (response.packed) {
				return garbled(
					`The download of report ${report.id} came packed (Content-Encoding), though it was asked for as it is`,
					'A packed file cannot be checked to be whole, so nothing was stored. Run the workflow again later; if it persists, the service (or a proxy in front of it) ignores Accept-Encoding: identity.',
				);
			}
			const { headers } = response;
			const webPage = () =>
				garbled(
					`The download of report ${report.id} answered with a web page instead of the file`,
					'The service (or a proxy in front of it) sent an HTML page where the report file belongs; nothing was stored. Run the workflow again later.',
				);
			if (WEB_PAGE_TYPE.test(headerOf(headers, 'content-type') ?? '')) return webPage();
			try {
				// Whatever its Content-Type, a file of ours (or of no stated format) is looked at first.
				const peeked =
					report.format === undefined || knownFormat(report)
						? await peekBody(response.body, WEB_PAGE_HEAD_BYTES)
						: undefined;
				if (peeked && beginsAsWebPage(peeked.head)) return webPage();
				return { kind: 'done', value: await keep.body(peeked?.body ?? response.body, headers) };
			} catch (error) {
				client.waiting.throwIfCancelled();
				if (isAnswerTooLarge(error)) return tooLarge(round);
				if (isAnswerTimedOut(error)) {
					// We stopped reading at the download's time limit: refused, not resent.
					return after(
						round,
						{ kind: 'refused' },
						client.errors.api(
							`The download of report ${report.id} did not finish within ${ANSWER_LIMITS.downloadMs / 60_000} minutes`,
							'The service sent the file too slowly, and the download was stopped. Run the workflow again later; if it persists, contact the service.',
							itemIndex,
							// Named for what was seen: no whole answer in time, not a malformed one.
							'timeout',
						),
					);
				}
				return after(
					round,
					{ kind: 'garbled' },
					client.errors.api(
						`The download of report ${report.id} was cut off before the whole file arrived`,
						`The connection broke during the download ${round.failures + 1} time(s) (${(error as Error)?.message ?? 'unknown error'}). Run the workflow again, or raise Request Options → Max Attempts.`,
						itemIndex,
					),
				);
			}
		},
		{ deadline: wait.deadline },
	);
}

/**
 * Downloads a finished report into n8n's binary-data store as a stream, so the filesystem and S3
 * modes keep large files off the heap; only a whole `200` is stored (retry.ts, decide).
 */
export async function downloadReportFile(
	ctx: IExecuteFunctions,
	client: AdPerformanceClient,
	report: ReportFile,
	itemIndex: number,
	maxFileBytes: number,
	wait: FileWait,
): Promise<IBinaryData> {
	const error = fileTooLargeError(client.node, {
		reportId: report.id,
		maxFileSizeMb: Math.round((maxFileBytes / BYTES_PER_MB) * 10) / 10,
		itemIndex,
	});
	return await fetchFile(client, report, itemIndex, maxFileBytes, wait, {
		tooLarge: () => ({ error }),
		body: async (body, headers) => {
			const known = knownFormat(report);
			const mimeType =
				mimeTypeFromContentType(headerOf(headers, 'content-type'), client.redactor) ??
				known?.mimeType ??
				'application/octet-stream';
			const extension =
				known?.extension ??
				[...FILE_TYPES.values()].find((type) => type.mimeType === mimeType)?.extension;
			const fileName = reportFileName(
				headerOf(headers, 'content-disposition'),
				report.id,
				extension,
				client.redactor,
			);
			return await ctx.helpers.prepareBinaryData(body as Buffer, fileName, mimeType);
		},
	});
}

function explainMissingFile(
	report: Pick<ServiceReport, 'id' | 'expiresAt'>,
	status: number,
	wait: FileWait,
): { message: string; description: string } | undefined {
	if (wait.listedFinished && (status === 409 || status === 425)) {
		return {
			message: `The file of report ${report.id} was still not ready to download when the wait ran out`,
			description:
				'The service listed the report as finished, but its download kept answering "not ready" until the Timeout. Raise Timeout, or run the workflow again in a minute.',
		};
	}
	if (status !== 404) return undefined;
	const expired = report.expiresAt !== undefined && Date.parse(report.expiresAt) <= Date.now();
	if (!expired && wait.listedFinished) {
		return {
			message: `The file of report ${report.id} was gone, though the service had just listed the report as finished`,
			description:
				'The report was deleted (or its download link withdrawn) after the wait saw it finish. Generate the report again.',
		};
	}
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

/** How long the tool may take to read a short report's text for the model (real ms). */
const TEXT_CONTENT_BUDGET_MS = 30_000;
/** The largest file whose text is read for a tool result (which must still fit its cap: waitTool.ts). */
const MAX_TEXT_CONTENT_BYTES = 8_000;

/**
 * A short Markdown or JSON report's text, for a tool result (a model receives no files), or
 * undefined: the text is a courtesy (the result has the download link), so it gets a short budget
 * of its own and is left out when that runs out or the file is larger than MAX_TEXT_CONTENT_BYTES.
 */
export async function reportTextContent(
	client: AdPerformanceClient,
	report: ReportFile,
	itemIndex: number,
): Promise<string | undefined> {
	const deadline = client.deadline(TEXT_CONTENT_BUDGET_MS);
	const wait = { deadline, notReadyUntil: deadline, listedFinished: true };
	return await fetchFile<string | undefined>(
		client,
		report,
		itemIndex,
		MAX_TEXT_CONTENT_BYTES,
		wait,
		{
			tooLarge: () => ({ value: undefined }),
			body: async (body) => {
				const chunks: Buffer[] = [];
				for await (const chunk of body as AsyncIterable<Buffer>) chunks.push(chunk);
				return Buffer.concat(chunks).toString('utf8');
			},
		},
	).catch((error: unknown) => {
		if (error instanceof DeadlineReached) return undefined;
		throw error;
	});
}
