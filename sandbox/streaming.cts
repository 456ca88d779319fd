/**
 * Answers the fake sends piece by piece, for the attacks on how answers are read: a body that
 * trickles in (N bytes every M ms), a body that never ends (JSON or a file), and gzip-packed
 * answers, a gzip bomb among them (small on the wire, huge unpacked). Every piece waits for the
 * socket to take it (back-pressure), so the fake itself never holds more than one piece, and
 * sending stops as soon as the client goes away.
 */
import type { ServerResponse } from 'node:http';
import { createGzip, type Gzip } from 'node:zlib';

/** One piece of an endless fill: 64 KiB, so that a long fill costs no more writes than a file. */
const FILL_PIECE_BYTES = 64 * 1024;

export interface StreamingOptions {
	/** Sends the body `bytes` at a time, one piece every `everyMs` real milliseconds. */
	trickle?: { bytes: number; everyMs: number };
	/**
	 * After the body, sends `fill` over and over without end (no Content-Length). With
	 * `stopAfterBytes` it stops once the body has that many bytes and sends `end` last, so that
	 * a finite bomb can be a complete, valid answer.
	 */
	endless?: { fill: string | Buffer; stopAfterBytes?: number; end?: string | Buffer };
	/** Packs what is sent with gzip (Content-Encoding: gzip). */
	gzip?: boolean;
}

/** What the fake saw of a streamed answer, for the request log. */
export interface StreamingOutcome {
	/** Bytes of the body before packing. */
	bodyBytes: number;
	/** Bytes that left for the socket (packed, with gzip). */
	sentBytes: number;
	/** The client closed the connection before the body was complete. */
	closedByClient: boolean;
}

export function isStreaming(options: StreamingOptions): boolean {
	return Boolean(options.trickle || options.endless || options.gzip);
}

function toBuffer(value: string | Buffer): Buffer {
	return Buffer.isBuffer(value) ? value : Buffer.from(value, 'utf8');
}

/** The body's bytes in the order they are sent: the body, then the fill (if endless), then `end`. */
function* pieces(body: Buffer, options: StreamingOptions): Generator<Buffer> {
	const size = options.trickle ? Math.max(1, options.trickle.bytes) : FILL_PIECE_BYTES;
	for (let at = 0; at < body.length; at += size) yield body.subarray(at, at + size);
	if (!options.endless) return;
	const unit = toBuffer(options.endless.fill);
	if (unit.length === 0) throw new Error('endless.fill must not be empty');
	const repeated = Buffer.alloc(
		Math.max(unit.length, FILL_PIECE_BYTES - (FILL_PIECE_BYTES % unit.length)),
	);
	for (let at = 0; at < repeated.length; at += unit.length) unit.copy(repeated, at);
	const stopAt = options.endless.stopAfterBytes ?? Infinity;
	let sent = body.length;
	while (sent < stopAt) {
		const left = Math.min(repeated.length, stopAt - sent);
		for (let at = 0; at < left; at += size) yield repeated.subarray(at, Math.min(left, at + size));
		sent += left;
	}
	if (options.endless.end !== undefined) yield toBuffer(options.endless.end);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Writes the head and streams the body as `options` say. Resolves when the body is complete
 * or the client has gone away.
 */
export async function sendStreaming(
	res: ServerResponse,
	status: number,
	headers: Record<string, string>,
	body: Buffer,
	options: StreamingOptions,
): Promise<StreamingOutcome> {
	const outcome: StreamingOutcome = { bodyBytes: 0, sentBytes: 0, closedByClient: false };
	const head = { ...headers };
	// The length is unknown (endless) or not the packed one (gzip): sent chunked.
	if (options.endless || options.gzip) {
		for (const name of Object.keys(head)) {
			if (name.toLowerCase() === 'content-length') delete head[name];
		}
	}
	if (options.gzip) head['Content-Encoding'] = 'gzip';
	res.writeHead(status, head);
	let complete = false;
	res.once('close', () => {
		if (!complete) outcome.closedByClient = true;
	});

	const gzip: Gzip | undefined = options.gzip ? createGzip() : undefined;
	const out = gzip ?? res;
	if (gzip) {
		gzip.on('data', (chunk: Buffer) => {
			outcome.sentBytes += chunk.length;
			if (!res.write(chunk)) gzip.pause();
		});
		res.on('drain', () => gzip.resume());
	}
	const gone = () => res.destroyed || outcome.closedByClient;
	const write = (chunk: Buffer): Promise<boolean> =>
		new Promise((resolve) => {
			if (gone()) return resolve(false);
			outcome.bodyBytes += chunk.length;
			if (!gzip) outcome.sentBytes += chunk.length;
			if (out.write(chunk)) return resolve(true);
			const onDrain = () => {
				res.off('close', onClose);
				resolve(!gone());
			};
			const onClose = () => {
				out.off('drain', onDrain);
				resolve(false);
			};
			out.once('drain', onDrain);
			res.once('close', onClose);
		});

	let first = true;
	for (const piece of pieces(body, options)) {
		if (options.trickle && !first) {
			await sleep(options.trickle.everyMs);
			if (gone()) break;
		}
		first = false;
		if (!(await write(piece))) break;
		// A trickled piece is meant to leave now, not when gzip's window is full.
		if (gzip && options.trickle) await new Promise<void>((resolve) => gzip.flush(() => resolve()));
	}
	if (gone()) {
		gzip?.destroy();
		return outcome;
	}
	if (gzip) {
		await new Promise<void>((resolve) => {
			gzip.once('end', resolve);
			gzip.end();
		});
	}
	complete = true;
	res.end();
	return outcome;
}
