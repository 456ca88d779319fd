import { inputField, read, readOr, type InputSource } from './inputSource';
import { ANSWER_LIMITS, BYTES_PER_MB } from './limits';
import { maxFileBytesOf, readBinaryPropertyName } from './reportFiles';

/**
 * The input of Wait for Ad Report, from either source (inputSource.ts), and of Report → Generate
 * with Wait for Completion. The tool's Timeout is its own setting (a tool call answers within a
 * conversation: at most 10 minutes); it outputs no file.
 */
export interface WaitSettings {
	intervalSeconds: number;
	timeoutSeconds: number;
	download: boolean;
	onTimeout: 'error' | 'outputPending';
	/** Options → Max File Size, in bytes. */
	maxFileBytes: number;
}

export const REPORT_ID = inputField('reportId', 'Report ID', 'reportId');
const POLL_INTERVAL = inputField('pollIntervalSeconds', 'Poll Interval (Seconds)', undefined, {
	default: 5,
});
const TIMEOUT = inputField('timeoutSeconds', 'Timeout (Seconds)', undefined, {
	default: 300,
	setting: 'toolTimeoutSeconds',
});
const ON_TIMEOUT = inputField('onTimeout', 'On Timeout', undefined, { default: 'error' });
const DOWNLOAD = inputField('download', 'Download File', undefined, { default: true });

/** The timing and output settings; one wait serves every item of the node, so item 0's. */
export function readWaitSettings(source: InputSource): WaitSettings {
	const { check } = source;
	const intervalSeconds = read(source, POLL_INTERVAL, (name, value) =>
		check.number(name, value, 0.1, 3600, 'seconds'),
	);
	const timeoutSeconds = read(source, TIMEOUT, (name, value) =>
		check.number(name, value, 1, source.isTool ? 600 : 86_400, 'seconds'),
	);
	const download = !source.isTool && readOr(source, DOWNLOAD, check.boolean, true);
	return {
		intervalSeconds,
		timeoutSeconds,
		download,
		maxFileBytes: download ? maxFileBytesOf(source) : ANSWER_LIMITS.defaultFileMb * BYTES_PER_MB,
		// A tool call that times out answers "call again" (waitTool.ts), never an error.
		onTimeout: source.isTool
			? 'outputPending'
			: read(source, ON_TIMEOUT, (name, value) =>
					check.oneOf(name, value, ['error', 'outputPending'] as const),
				),
	};
}

/** The field an item's file goes in when the settings download it; else undefined. */
export function readFileField(source: InputSource, settings: WaitSettings): string | undefined {
	return settings.download ? readBinaryPropertyName(source) : undefined;
}

/** One item's report, and the field its file goes in when the settings download it. */
export function readItemInput(
	source: InputSource,
	settings: WaitSettings,
): { reportId: string; binaryPropertyName?: string } {
	return {
		reportId: read(source, REPORT_ID, (name, value) => source.check.id(name, value, 'report')),
		binaryPropertyName: readFileField(source, settings),
	};
}
