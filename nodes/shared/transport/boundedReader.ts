import { sleep } from 'n8n-workflow';

import { describeBytes } from '../limits';

/**
 * The one reader of every answer body: n8n's request helper would buffer a body without any
 * limit, so requests ask it for a stream, read here under a byte limit (on the unpacked bytes,
 * and on the packed ones as they go in), a total deadline (a trickle is cut too) and the
 * execution's cancel signal. A body we stop reading is destroyed, freeing its connection.
 */

/** An answer larger than its limit; `message` says so in words for the user. */
export class AnswerTooLarge extends Error {
	constructor(
		readonly limitBytes: number,
		/** Where it was seen: the announced Content-Length, the bytes read, or the packed bytes. */
		readonly seenIn: 'announced' | 'read' | 'wire',
	) {
		super(
			seenIn === 'announced'
				? `the answer announced more than ${describeBytes(limitBytes)}, the limit for it, and was not read`
				: `the answer was larger than ${describeBytes(limitBytes)}, the limit for it; reading stopped there`,
		);
		this.name = 'AnswerTooLarge';
	}
}

export class AnswerTimedOut extends Error {
	/** The code a network library gives a timeout, so the retry policy treats it as one. */
	readonly code = 'ETIMEDOUT';

	constructor(readonly totalMs: number) {
		super(`the answer did not arrive in full within ${describeDuration(totalMs)} (timed out)`);
		this.name = 'AnswerTimedOut';
	}
}

/** An answer whose body ended short of, or past, the Content-Length it announced: garbled. */
export class AnswerCut extends Error {
	constructor(read: number, announced: number) {
		super(`the answer ended after ${read} of the ${announced} bytes it announced`);
		this.name = 'AnswerCut';
	}
}

export class AnswerCancelled extends Error {
	constructor() {
		super('The execution was cancelled');
		this.name = 'AnswerCancelled';
	}
}

/** Tells our errors apart also when a library passed them on (n8n's binary store does). */
export function isAnswerTooLarge(error: unknown): error is AnswerTooLarge {
	return error instanceof AnswerTooLarge || (error as Error | undefined)?.name === 'AnswerTooLarge';
}

export function isAnswerTimedOut(error: unknown): error is AnswerTimedOut {
	return error instanceof AnswerTimedOut || (error as Error | undefined)?.name === 'AnswerTimedOut';
}

/** "1.5 s", "2 min", "3 h": a duration as the user reads it in an error. */
export function describeDuration(ms: number): string {
	const [amount, unit] =
		ms < 120_000 ? [ms / 1000, 's'] : ms < 7_200_000 ? [ms / 60_000, 'min'] : [ms / 3_600_000, 'h'];
	return `${Math.round(amount * 10) / 10} ${unit}`;
}

/** Slices of the deadline's watch: ending a sleepWithAbort early costs n8n a stack trace. */
const SLICE_MS = 500;

/** The total deadline and the cancel signal of one exchange, as one signal and one reason. */
export class ExchangeDeadline {
	readonly endsAt: number;
	private readonly controller = new AbortController();
	readonly signal: AbortSignal = this.controller.signal;
	private disposed = false;
	/** The execution's cancel signal, and any other n8n hands over. */
	private readonly cancelSignals: AbortSignal[] = [];

	constructor(
		readonly totalMs: number,
		cancelSignal?: AbortSignal,
	) {
		this.endsAt = Date.now() + Math.max(1, Math.ceil(totalMs));
		void this.watchDeadline();
		this.follow(cancelSignal);
	}

	/** Stops the exchange as cancelled when `cancelSignal` aborts (until disposed). */
	follow(cancelSignal: AbortSignal | undefined): void {
		if (!cancelSignal || this.cancelSignals.includes(cancelSignal)) return;
		if (typeof cancelSignal.addEventListener !== 'function') return;
		if (cancelSignal.aborted) return this.onCancel();
		if (this.disposed) return;
		this.cancelSignals.push(cancelSignal);
		cancelSignal.addEventListener('abort', this.onCancel);
	}

	/** Why the exchange must stop (timed out or cancelled); undefined while it may go on. */
	get reason(): Error | undefined {
		return this.signal.reason as Error | undefined;
	}

	remainingMs(): number {
		return Math.max(1, this.endsAt - Date.now());
	}

	/** Ends the deadline's watch and lets go of the cancel signal once the answer is read. */
	dispose(): void {
		this.disposed = true;
		for (const signal of this.cancelSignals.splice(0)) {
			signal.removeEventListener('abort', this.onCancel);
		}
	}

	private async watchDeadline(): Promise<void> {
		for (let left = this.endsAt - Date.now(); left > 0; left = this.endsAt - Date.now()) {
			await sleep(Math.min(left, SLICE_MS));
			if (this.disposed) return;
		}
		if (!this.disposed) this.stop(new AnswerTimedOut(this.totalMs));
	}

	private readonly onCancel = () => this.stop(new AnswerCancelled());

	private stop(reason: Error) {
		if (this.signal.aborted) return;
		this.dispose();
		this.controller.abort(reason);
	}
}

interface ReadBounds {
	maxBytes: number;
	deadline: ExchangeDeadline;
	/** The Content-Length the answer announced, if any: more than the limit is refused unread. */
	announcedBytes?: number;
	/** Called once when the body is finished with, read whole or not. */
	onSettled?: () => void;
}

/** Lets go of a body we will not read (further), so its connection is freed at once. */
export function discardBody(body: unknown): void {
	const stream = body as { destroy?: () => void } | undefined;
	if (stream && typeof stream.destroy === 'function') stream.destroy();
}

function isAsyncIterable(body: unknown): body is AsyncIterable<unknown> {
	return (
		typeof body === 'object' &&
		body !== null &&
		typeof (body as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
	);
}

function bytesOf(value: unknown): Buffer {
	if (Buffer.isBuffer(value)) return value;
	if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.length);
	if (value instanceof ArrayBuffer) return Buffer.from(value);
	if (value === undefined || value === null) return Buffer.alloc(0);
	return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value), 'utf8');
}

interface UnpackingStream {
	/** The packed bytes zlib has taken in so far (gzip, deflate and brotli alike). */
	bytesWritten: number;
	write?: (chunk: unknown, ...rest: unknown[]) => boolean;
	destroy?: () => void;
}

/**
 * Counts the packed bytes of an answer being unpacked as they enter the unpacker, and destroys
 * the body past `wireLimit`: endless empty gzip members or brotli metadata give the reader no
 * chunk to check. Undefined for a body not being unpacked (its bytes read are its wire bytes).
 */
function watchWireBytes(body: unknown, wireLimit: number): (() => boolean) | undefined {
	const unpacker = body as UnpackingStream;
	if (typeof unpacker.bytesWritten !== 'number') return undefined;
	let exceeded = false;
	const write = unpacker.write;
	if (typeof write === 'function') {
		let wire = unpacker.bytesWritten;
		unpacker.write = function (chunk: unknown, ...rest: unknown[]): boolean {
			wire += (chunk as { length?: number } | null)?.length ?? 0;
			if (wire > wireLimit) exceeded = true;
			if (!exceeded) return write.call(this, chunk, ...rest);
			discardBody(unpacker);
			return false;
		};
	}
	return () => exceeded || unpacker.bytesWritten > wireLimit;
}

/** Packing bytes that do not pack adds a little (block headers, gzip's header): allow for it. */
function wireLimitOf(maxBytes: number): number {
	return maxBytes + Math.ceil(maxBytes / 1024) + 1024;
}

/** `promise`, unless the deadline or the cancel signal comes first: then its reason is thrown. */
async function beforeStop<T>(promise: Promise<T>, deadline: ExchangeDeadline): Promise<T> {
	const signal = deadline.signal;
	return await new Promise<T>((resolve, reject) => {
		const onStop = () => reject(deadline.reason ?? new AnswerCancelled());
		if (signal.aborted) onStop();
		signal.addEventListener('abort', onStop, { once: true });
		void promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onStop));
	});
}

/** The body's chunks, each awaited within the bounds; past the byte limit it throws AnswerTooLarge. */
async function* boundedChunks(body: unknown, bounds: ReadBounds): AsyncGenerator<Buffer> {
	const { maxBytes, deadline } = bounds;
	let ended = false;
	try {
		if (deadline.reason) throw deadline.reason;
		// A packed answer announces its packed size: held to the wire's limit.
		if (bounds.announcedBytes !== undefined && bounds.announcedBytes > wireLimitOf(maxBytes))
			throw new AnswerTooLarge(maxBytes, 'announced');
		if (!isAsyncIterable(body)) {
			// Bytes already in memory (a helper that buffered them): only the limit is left to check.
			const bytes = bytesOf(body);
			ended = true;
			if (bytes.length > maxBytes) throw new AnswerTooLarge(maxBytes, 'read');
			if (bytes.length > 0) yield bytes;
			return;
		}
		const wireExceeded = watchWireBytes(body, wireLimitOf(maxBytes));
		const chunks = body[Symbol.asyncIterator]();
		let read = 0;
		for (;;) {
			const next = await beforeStop(chunks.next(), deadline).catch((error: unknown) => {
				// The wire count destroyed the body: its error (premature close) says less.
				if (wireExceeded?.() && !deadline.reason) return undefined;
				throw error;
			});
			if (next === undefined || wireExceeded?.()) throw new AnswerTooLarge(maxBytes, 'wire');
			if (next.done) {
				ended = true;
				// Unpacked bytes cannot be held to a packed length; plain ones must be all it announced.
				const announced = bounds.announcedBytes;
				if (!wireExceeded && announced !== undefined && read !== announced)
					throw new AnswerCut(read, announced);
				return;
			}
			const chunk = bytesOf(next.value);
			read += chunk.length;
			if (read > maxBytes) throw new AnswerTooLarge(maxBytes, 'read');
			yield chunk;
		}
	} finally {
		if (!ended) discardBody(body);
		bounds.onSettled?.();
	}
}

/** Reads a whole body within the bounds: its bytes, or the AnswerTooLarge that stopped it. */
export async function readBounded(
	body: unknown,
	bounds: ReadBounds,
): Promise<Buffer | AnswerTooLarge> {
	const read = async () => {
		const chunks: Buffer[] = [];
		for await (const chunk of boundedChunks(body, bounds)) chunks.push(chunk);
		return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
	};
	return await read().catch((error: unknown) => {
		if (error instanceof AnswerTooLarge) return error;
		throw error;
	});
}

interface ReadableClass {
	from(
		iterable: AsyncIterable<unknown>,
		options?: { objectMode?: boolean },
	): { once(event: 'close', listener: () => void): unknown };
}

/**
 * `chunks` as a Readable, with Node's Readable class found through the body's own class chain
 * (node code may not import `stream`, and n8n's binary store takes a Buffer or a Readable);
 * undefined when the body is no Node stream. A stream destroyed before its first read never
 * runs the generator's clean-up: `onClose` does it.
 */
function readableOf(body: unknown, chunks: AsyncIterable<Buffer>, onClose: () => void): unknown {
	if (typeof body !== 'object' || body === null) return undefined;
	let candidate: unknown = (body as { constructor?: unknown }).constructor;
	for (let depth = 0; typeof candidate === 'function' && depth < 10; depth++) {
		const from = (candidate as Partial<ReadableClass>).from;
		if (candidate.name === 'Readable' && typeof from === 'function') {
			const stream = (candidate as unknown as ReadableClass).from(chunks, { objectMode: false });
			stream.once('close', onClose);
			return stream;
		}
		candidate = Object.getPrototypeOf(candidate);
	}
	return undefined;
}

/**
 * The body as a Readable that fails where a bound is reached, for n8n's binary store to write
 * from as it reads (memory never holds the file); undefined when the body is no Node stream.
 */
export function boundedStream(body: unknown, bounds: ReadBounds): unknown {
	return readableOf(body, boundedChunks(body, bounds), () => {
		discardBody(body);
		bounds.onSettled?.();
	});
}

/**
 * The first `bytes` of a body and the body again, whole, to be read as it would have been: a
 * file is judged by how it begins before it is stored. A stream's head is read within its bounds.
 */
export async function peekBody(
	body: unknown,
	bytes: number,
): Promise<{ head: Buffer; body: unknown }> {
	if (!isAsyncIterable(body)) return { head: bytesOf(body).subarray(0, bytes), body };
	const chunks = body[Symbol.asyncIterator]();
	const read: Buffer[] = [];
	let length = 0;
	let ended = false;
	while (length < bytes && !ended) {
		const next = await chunks.next();
		ended = next.done === true;
		if (!ended) {
			read.push(bytesOf(next.value));
			length += read[read.length - 1].length;
		}
	}
	async function* whole(): AsyncGenerator<Buffer> {
		let finished = ended;
		try {
			yield* read;
			while (!finished) {
				const next = await chunks.next();
				finished = next.done === true;
				if (!finished) yield bytesOf(next.value);
			}
		} finally {
			// Left before its end (the store failed): the body is let go of, its connection freed.
			if (!finished) await chunks.return?.();
		}
	}
	const rest = whole();
	const head = Buffer.concat(read).subarray(0, bytes);
	return { head, body: readableOf(body, rest, () => discardBody(body)) ?? rest };
}
