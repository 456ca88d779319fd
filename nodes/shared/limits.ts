/**
 * How much of the service's answers the nodes read, and for how long (transport/boundedReader.ts):
 * the limits docs/security.md documents under "Answers are read within limits".
 */

const KIB = 1024;
const MIB = 1024 * KIB;

/** 1 MB of the Max File Size option, as n8n counts its own size settings (MiB). */
export const BYTES_PER_MB = MIB;

export const ANSWER_LIMITS = {
	/** One JSON answer of the API: a page of 100 records, a few KB each, is far below it. */
	jsonBytes: 16 * MIB,
	/** The body of an error answer: `{error: {type, message}}` needs a few hundred bytes. */
	errorBytes: 64 * KIB,
	/** Report → Download and Wait for Ad Report: Max File Size when the option is not set. */
	defaultFileMb: 100,
	/** The largest Max File Size one can set (Node.js holds at most 4 GiB in one buffer). */
	maxFileMb: 4096,
	/**
	 * Total time of one API request: sending, redirects and reading the whole answer. It is a
	 * total, not an idle time: an answer that trickles in byte by byte is cut here too.
	 */
	requestMs: 120_000,
	/** Total time of one download, from the request to the last byte of the file. */
	downloadMs: 10 * 60_000,
	/** A text from the service (an error message) is cut to this many characters. */
	serviceTextChars: 500,
} as const;

/** "16 MiB", "64 KiB", "100 MB": a limit as the user reads it in an error. */
export function describeBytes(bytes: number): string {
	if (bytes >= MIB && bytes % MIB === 0) return `${bytes / MIB} MiB`;
	if (bytes >= KIB && bytes % KIB === 0) return `${bytes / KIB} KiB`;
	return `${bytes} bytes`;
}
