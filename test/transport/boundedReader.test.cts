/**
 * The bounded reader on its own: byte limit (announced, read, on the wire), total deadline,
 * cancel signal, and that a body it stops reading is destroyed. The same reader under n8n's
 * engine against the fake: test/attacks/bounded-answers.test.cts.
 */
import { getEventListeners } from 'node:events';
import { Readable } from 'node:stream';
import { createGunzip, gzipSync } from 'node:zlib';

import { ANSWER_LIMITS } from '../../nodes/shared/limits';
import { maxFileSizeOption } from '../../nodes/shared/descriptions';
import { Redactor } from '../../nodes/shared/redaction';
import {
	AnswerCancelled,
	AnswerTimedOut,
	AnswerTooLarge,
	boundedStream,
	ExchangeDeadline,
	readBounded,
} from '../../nodes/shared/transport/boundedReader';

/** A stream that sends `piece` every `everyMs` without end, counting what was taken from it. */
function trickle(piece: Buffer, everyMs: number) {
	const source = { taken: 0, stream: undefined as unknown as Readable };
	let timer: NodeJS.Timeout | undefined;
	source.stream = new Readable({
		read() {
			timer = setTimeout(() => {
				source.taken += piece.length;
				this.push(piece);
			}, everyMs);
		},
		destroy(error, callback) {
			clearTimeout(timer);
			callback(error);
		},
	});
	return source;
}

/** A stream that sends 64 KiB chunks without end (as fast as it is read). */
function endless(chunk = Buffer.alloc(64 * 1024, 0x20)) {
	const source = { taken: 0, stream: undefined as unknown as Readable };
	source.stream = new Readable({
		read() {
			source.taken += chunk.length;
			this.push(chunk);
		},
	});
	return source;
}

describe('bounded reader', () => {
	test('reads a whole body within its limit', async () => {
		const deadline = new ExchangeDeadline(5_000);
		const bytes = await readBounded(Readable.from([Buffer.from('{"data":'), Buffer.from('[]}')]), {
			maxBytes: 100,
			deadline,
		});
		deadline.dispose();
		expect(Buffer.isBuffer(bytes) && bytes.toString()).toBe('{"data":[]}');
	});

	test('an endless body stops at the limit, is destroyed, and nothing of it is kept', async () => {
		const source = endless();
		const deadline = new ExchangeDeadline(5_000);
		const outcome = await readBounded(source.stream, { maxBytes: 1024 * 1024, deadline });
		deadline.dispose();
		expect(outcome).toBeInstanceOf(AnswerTooLarge);
		expect((outcome as AnswerTooLarge).message).toBe(
			'the answer was larger than 1 MiB, the limit for it; reading stopped there',
		);
		expect(source.stream.destroyed).toBe(true);
		// The limit, plus what the stream had buffered ahead (its high-water mark and one chunk).
		expect(source.taken).toBeLessThanOrEqual(1024 * 1024 + 3 * 64 * 1024);
	});

	test('an announced length past the limit is refused without reading a byte', async () => {
		const source = endless();
		source.stream.pause();
		const deadline = new ExchangeDeadline(5_000);
		const outcome = await readBounded(source.stream, {
			maxBytes: 1000,
			deadline,
			announcedBytes: 10 * 1024 * 1024,
		});
		deadline.dispose();
		expect((outcome as AnswerTooLarge).seenIn).toBe('announced');
		expect(source.stream.destroyed).toBe(true);
	});

	test('a gzip bomb stops at the limit of unpacked bytes', async () => {
		const packed = gzipSync(Buffer.alloc(16 * 1024 * 1024, 0x20));
		expect(packed.length).toBeLessThan(32 * 1024);
		const gunzip = createGunzip();
		gunzip.end(packed);
		const deadline = new ExchangeDeadline(5_000);
		const outcome = await readBounded(gunzip, { maxBytes: 2 * 1024 * 1024, deadline });
		deadline.dispose();
		expect((outcome as AnswerTooLarge).seenIn).toBe('read');
		expect(gunzip.destroyed).toBe(true);
	});

	test('packed bytes on the wire count against the limit too', async () => {
		// Unpacks to little, but has taken in more than the limit (bytesWritten, as zlib shows it).
		const stream = Readable.from([Buffer.from('x'), Buffer.from('y')]) as Readable & {
			bytesWritten?: number;
		};
		stream.bytesWritten = 10 * 1024 * 1024;
		const deadline = new ExchangeDeadline(5_000);
		const outcome = await readBounded(stream, { maxBytes: 1024 * 1024, deadline });
		deadline.dispose();
		expect((outcome as AnswerTooLarge).seenIn).toBe('wire');
	});

	test('a trickling body is cut at the total deadline, though it never falls silent', async () => {
		const source = trickle(Buffer.from('x'), 50);
		const started = Date.now();
		const deadline = new ExchangeDeadline(600);
		await expect(
			readBounded(source.stream, { maxBytes: 1024 * 1024, deadline }),
		).rejects.toBeInstanceOf(AnswerTimedOut);
		const took = Date.now() - started;
		expect(took).toBeGreaterThanOrEqual(590);
		expect(took).toBeLessThan(1_500);
		expect(source.taken).toBeGreaterThan(3);
		expect(source.stream.destroyed).toBe(true);
		// Named as any network timeout, so the retry policy treats it as one.
		expect(deadline.reason).toMatchObject({ code: 'ETIMEDOUT' });
	});

	test('the cancel signal stops a read at once and destroys the body', async () => {
		const source = trickle(Buffer.from('x'), 50);
		const cancel = new AbortController();
		const deadline = new ExchangeDeadline(60_000, cancel.signal);
		const reading = readBounded(source.stream, { maxBytes: 1024, deadline });
		await new Promise((resolve) => setTimeout(resolve, 200));
		const cancelledAt = Date.now();
		cancel.abort();
		await expect(reading).rejects.toBeInstanceOf(AnswerCancelled);
		expect(Date.now() - cancelledAt).toBeLessThan(50);
		expect(source.stream.destroyed).toBe(true);
	});

	test('a finished exchange leaves no listener on the execution’s cancel signal', async () => {
		const cancel = new AbortController();
		const deadline = new ExchangeDeadline(60_000, cancel.signal);
		expect(getEventListeners(cancel.signal, 'abort')).toHaveLength(1);
		await readBounded(Readable.from([Buffer.from('{}')]), { maxBytes: 10, deadline });
		deadline.dispose();
		expect(getEventListeners(cancel.signal, 'abort')).toHaveLength(0);
		cancel.abort();
		expect(deadline.reason).toBeUndefined();
	});

	test('a bounded stream ends in AnswerTooLarge past its limit, for the binary store to fail on', async () => {
		const source = endless();
		const deadline = new ExchangeDeadline(5_000);
		let settled = 0;
		const stream = boundedStream(source.stream, {
			maxBytes: 512 * 1024,
			deadline,
			onSettled: () => settled++,
		}) as Readable;
		expect(stream).toBeInstanceOf(Readable);
		let received = 0;
		await expect(
			(async () => {
				for await (const chunk of stream) received += (chunk as Buffer).length;
			})(),
		).rejects.toBeInstanceOf(AnswerTooLarge);
		expect(received).toBeLessThanOrEqual(512 * 1024);
		expect(source.stream.destroyed).toBe(true);
		expect(settled).toBeGreaterThanOrEqual(1);
	});

	test('a bounded stream passes a body within its limit through unchanged', async () => {
		const chunks = [Buffer.from('%PDF-1.4\n'), Buffer.alloc(100_000, 0x20)];
		const deadline = new ExchangeDeadline(5_000);
		const stream = boundedStream(Readable.from(chunks), {
			maxBytes: 200_000,
			deadline,
		}) as Readable;
		const out: Buffer[] = [];
		for await (const chunk of stream) out.push(chunk as Buffer);
		expect(Buffer.concat(out).equals(Buffer.concat(chunks))).toBe(true);
	});
});

describe('texts from the service', () => {
	const clipServiceText = (text: string) => new Redactor([]).clip(text);
	test('are cut to the documented length with an ellipsis, never inside a character', () => {
		const max = ANSWER_LIMITS.serviceTextChars;
		expect(clipServiceText('short')).toBe('short');
		const long = clipServiceText('a'.repeat(5 * 1024 * 1024));
		expect(long).toHaveLength(max);
		expect(long.endsWith('…')).toBe(true);
		// An emoji (two UTF-16 units) straddling the cut is dropped whole.
		const straddling = clipServiceText(`${'a'.repeat(max - 2)}😀${'b'.repeat(10)}`);
		expect(straddling).toBe(`${'a'.repeat(max - 2)}…`);
	});
});

test('Max File Size shows the documented default (n8n reads only a literal there)', () => {
	expect(maxFileSizeOption.default).toBe(ANSWER_LIMITS.defaultFileMb);
});
