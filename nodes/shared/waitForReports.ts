import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { readReportId } from './descriptions';
import { ERROR_TYPES } from './errorTypes';
import { inputField, read, readOr, type InputSource } from './inputSource';
import type { ItemResults } from './items';
import { ANSWER_LIMITS, BYTES_PER_MB } from './limits';
import { reportNotFound, walkReports } from './reportLedger';
import { downloadReportFile, maxFileBytesOf, readBinaryPropertyName } from './reportFiles';
import { CLOCK_SKEW_MARGIN_MS, type AdPerformanceClient } from './transport';
import { isFinished, type ServiceReport } from './types';
import {
	verdictOf,
	waitUntilFinished,
	type Unseen,
	type Verdict,
	type WaitUntilFinishedResult,
} from './waitUntilFinished';

const POLL_INTERVAL = inputField('pollIntervalSeconds', 'Poll Interval (Seconds)', undefined, {
	default: 5,
});
const TIMEOUT = inputField('timeoutSeconds', 'Timeout (Seconds)', undefined, {
	default: 300,
	setting: 'toolTimeoutSeconds',
});
const ON_TIMEOUT = inputField('onTimeout', 'On Timeout', undefined, { default: 'error' });
const DOWNLOAD = inputField('download', 'Download File');

/**
 * The one reader of the wait settings (descriptions.ts, reportWaitProperties), per item
 * (docs/waiting.md), and of the field the file goes in (undefined: no download). The tool's
 * Timeout is its own setting (a tool call answers within a conversation: at most 10 minutes); it
 * outputs no file.
 */
export function readWaitInput(source: InputSource) {
	const { check } = source;
	const intervalSeconds = read(source, POLL_INTERVAL, (name, value) =>
		check.number(name, value, 0.1, 3600, 'seconds'),
	);
	const timeoutSeconds = read(source, TIMEOUT, (name, value) =>
		check.number(name, value, 1, source.isTool ? 600 : 86_400, 'seconds'),
	);
	const download = !source.isTool && readOr(source, DOWNLOAD, check.boolean, true);
	const settings = {
		intervalSeconds,
		timeoutSeconds,
		maxFileBytes: download ? maxFileBytesOf(source) : ANSWER_LIMITS.defaultFileMb * BYTES_PER_MB,
		// A tool call that times out answers "call again" (waitTool.ts), never an error.
		onTimeout: source.isTool
			? 'outputPending'
			: read(source, ON_TIMEOUT, (name, value) =>
					check.oneOf(name, value, ['error', 'outputPending'] as const),
				),
	};
	return { settings, binaryPropertyName: download ? readBinaryPropertyName(source) : undefined };
}

/** What Wait for Ad Report waits for, for one item: its report and how. */
export type ReportToWaitFor = ReturnType<typeof readReportToWaitFor>;

/** Wait for Ad Report's input, of the regular node and of its tool. */
export function readReportToWaitFor(source: InputSource) {
	return { reportId: readReportId(source), ...readWaitInput(source) };
}

/**
 * A report's verdict after the wait (verdictOf), its errors named for what the wait saw (the
 * rules: docs/waiting.md). `notFound` says why a report never listed may be missing.
 */
export function reportVerdict(
	client: AdPerformanceClient,
	found: WaitUntilFinishedResult<ServiceReport>,
	{
		reportId: id,
		itemIndex,
		settings: { timeoutSeconds },
	}: ReportToWaitFor & { itemIndex: number },
	notFound: string,
): Verdict<ServiceReport> {
	const statusOf = (seen?: ServiceReport) =>
		typeof seen?.status === 'string' ? seen.status : 'unknown';
	// Also with On Timeout → output: a report last seen before the service fell silent is not one
	// seen still unfinished at the timeout.
	const unseen = (outcome: Unseen<ServiceReport>) => {
		if (outcome.kind === 'deleted') {
			return client.errors.api(
				`Report ${id} was deleted while it was waited for: the service listed it as ${statusOf(outcome.lastSeen)}, and then no longer`,
				'Complete listings of GET /v1/reports stopped holding the report, so there is nothing left to wait for or download. Generate the report again.',
				itemIndex,
				'deleted',
			);
		}
		if (outcome.kind === 'unlisted' && !outcome.listedCompletely) {
			// Not "not found": the list that did not hold it did not agree with itself either.
			return client.errors.api(
				`Report ${id} was not in the report list, but the list did not agree with itself`,
				`The service's pages of GET /v1/reports contradicted one another until the Timeout (${timeoutSeconds} seconds), so their not holding the report does not mean it does not exist. Run the wait again; if it persists, the service is having trouble.`,
				itemIndex,
			);
		}
		if (outcome.kind === 'unlisted') {
			const description = `No report with this ID was listed within the timeout (${timeoutSeconds} seconds). ${notFound}`;
			return reportNotFound(client, id, itemIndex, description);
		}
		return client.errors.unanswered(
			{
				subject: `report ${id}`,
				timeoutSeconds,
				failure: outcome.failure,
				lastSeen: outcome.lastSeen ? `as ${statusOf(outcome.lastSeen)}` : undefined,
			},
			itemIndex,
		);
	};
	return verdictOf(found, id, {
		unseen,
		failed: (state) =>
			client.errors.workFailed({
				what: `Report ${id}`,
				error: state.error,
				itemIndex,
				description: ERROR_TYPES.get('generation_failed')!.fix!,
			}),
	});
}

type ReportHint = ReturnType<typeof reportHintOf>;

/**
 * Where to look for a report, from its record (Report → Generate's output, a listing's): texts and
 * numbers only, as a field of another shape would narrow the next sweep to nothing. Generate's
 * `estimatedCompletionSeconds` counts service seconds from `createdAt`.
 */
export function reportHintOf(json: IDataObject) {
	const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
	const { accountId, createdAt, estimatedCompletionSeconds } = json;
	return {
		accountId: text(accountId),
		createdAt: text(createdAt),
		estimatedCompletionSeconds:
			typeof estimatedCompletionSeconds === 'number' ? estimatedCompletionSeconds : undefined,
	};
}

/**
 * The report wait: one sweep per interval for all its reports (there is no GET of one report),
 * paging GET /v1/reports newest first, narrowed by account and creation time when all pending
 * reports share them, until every one was seen.
 */
export async function waitForReports(
	client: AdPerformanceClient,
	timing: { intervalSeconds: number; timeoutSeconds: number },
	reportIds: string[],
	givenHints: Map<string, ReportHint> = new Map(),
): Promise<WaitUntilFinishedResult<ServiceReport>> {
	const hints = new Map(givenHints);
	/** Whether the last sweep's listing was whole, or held every report it looked for. */
	let listedCompletely = true;
	// The service's own estimate of when each report is done: looked at then, not a beat later.
	const expectedAt = new Map<string, number>();
	for (const [id, hint] of givenHints) {
		const created = Date.parse(hint.createdAt ?? '');
		const seconds = hint.estimatedCompletionSeconds;
		if (Number.isFinite(created) && typeof seconds === 'number' && seconds >= 0 && seconds <= 3600)
			expectedAt.set(id, created + client.clock.realMs(seconds * 1000));
	}
	return await waitUntilFinished<ServiceReport>(client, {
		ids: [...new Set(reportIds)],
		expectedAt,
		intervalMs: timing.intervalSeconds * 1000,
		timeoutMs: timing.timeoutSeconds * 1000,
		isFinal: isFinished,
		listedCompletely: () => listedCompletely,
		sweep: async (pending, deadline) => {
			const wanted = new Set(pending);
			const seen = new Map<string, ServiceReport>();
			const qs: IDataObject = {};
			const accounts = new Set(pending.map((id) => hints.get(id)?.accountId));
			if (accounts.size === 1 && !accounts.has(undefined)) qs.accountId = [...accounts][0];
			// The hints are the service's own creation times: a filter on its clock, whatever n8n's says.
			let earliest = Infinity;
			for (const id of pending)
				earliest = Math.min(earliest, Date.parse(hints.get(id)?.createdAt ?? ''));
			if (Number.isFinite(earliest))
				qs.from = new Date(earliest - CLOCK_SKEW_MARGIN_MS).toISOString();
			const walked = await walkReports(
				client,
				qs,
				(records) => {
					for (const report of records) {
						if (!wanted.has(report.id)) continue;
						seen.set(report.id, report);
						hints.set(report.id, reportHintOf(report));
					}
					return seen.size < wanted.size;
				},
				{ deadline, incomplete: 'returned' },
			);
			listedCompletely = walked.kind !== 'incomplete' || seen.size === wanted.size;
			return seen;
		},
	});
}

/** What one item waits for, how, and where it goes in the output. */
export interface ReportWait extends ReportToWaitFor {
	itemIndex: number;
	/** Where to look for it, from Report → Generate's output. */
	hint?: ReportHint;
	/** Fields the output record gets besides the report's (Generate's `reused` mark). */
	mark?: IDataObject;
}

/**
 * The settle step of Wait for Ad Report and of Report → Generate with Wait for Completion: one
 * wait per Poll Interval and Timeout for the reports of every item, then each item settled with
 * its report (and its file) or its error; a sweep that failed for good fails every item waiting.
 */
export async function settleReportWaits(
	ctx: IExecuteFunctions,
	client: AdPerformanceClient,
	waits: ReportWait[],
	results: ItemResults,
	notFound: string,
): Promise<void> {
	const byTiming = new Map<string, ReportWait[]>();
	for (const wait of waits) {
		const key = `${wait.settings.intervalSeconds}/${wait.settings.timeoutSeconds}`;
		byTiming.set(key, [...(byTiming.get(key) ?? []), wait]);
	}
	for (const group of byTiming.values()) {
		const hints = new Map<string, ReportHint>();
		for (const wait of group) if (wait.hint) hints.set(wait.reportId, wait.hint);
		const found = waitForReports(
			client,
			group[0].settings,
			group.map((wait) => wait.reportId),
			hints,
		);
		for (const wait of group) {
			await results.run(wait.itemIndex, async () => [
				await reportOutput(ctx, client, wait, await found, notFound),
			]);
		}
	}
}

/** The output item of one wait: the finished report with its file, or an error. */
async function reportOutput(
	ctx: IExecuteFunctions,
	client: AdPerformanceClient,
	wait: ReportWait,
	found: WaitUntilFinishedResult<ServiceReport>,
	notFound: string,
): Promise<INodeExecutionData> {
	const { itemIndex, reportId, settings } = wait;
	const { timeoutSeconds } = settings;
	const verdict = reportVerdict(client, found, wait, notFound);
	const report = { ...verdict.state, ...wait.mark };
	if (verdict.kind === 'pending') {
		if (settings.onTimeout === 'outputPending') return { json: report };
		throw client.errors.timedOut(
			`Report ${reportId} was still ${report.status ?? 'unknown'} after ${timeoutSeconds} seconds`,
			'Reports usually take 10–20 seconds, longer when the service is busy. Raise Timeout, or set On Timeout to output the report as it is and check it later.',
			itemIndex,
		);
	}
	if (wait.binaryPropertyName === undefined) return { json: report };
	// After the wait, the download is an operation of its own: its Request Options bound it. A
	// file the list showed finished and not ready yet is waited for within the Timeout.
	const file = await downloadReportFile(ctx, client, report, itemIndex, settings.maxFileBytes, {
		deadline: client.deadline(),
		notReadyUntil: found.startedAt + timeoutSeconds * 1000,
		listedFinished: true,
		pollMs: client.clock.serviceMs(settings.intervalSeconds * 1000),
	});
	return { json: report, binary: { [wait.binaryPropertyName]: file } };
}
