/**
 * Ready-made hostile answers for `fake.intercept({ respond: () => … })` and the control API's
 * POST /__fake/answers: bodies that never end, a gzip bomb, and a trickling version of any
 * answer. See streaming.cts for how they are sent.
 */
import type { ScriptedAnswer } from './server.cjs';

const JSON_TYPE = { 'Content-Type': 'application/json; charset=utf-8' };

/** One campaign-like record of about 1 KiB, the unit an endless list repeats. */
const ENDLESS_RECORD = `{"id":"camp_endless","name":"${'n'.repeat(980)}","status":"ACTIVE"},`;

/**
 * A 200 list answer that never ends: `{"data":[` and then one record after another. With
 * `stopAfterBytes` it ends there (still not valid JSON: its list is never closed).
 */
export function endlessJsonAnswer(options: { stopAfterBytes?: number } = {}): ScriptedAnswer {
	return {
		status: 200,
		headers: JSON_TYPE,
		body: '{"data":[',
		endless: { fill: ENDLESS_RECORD, stopAfterBytes: options.stopAfterBytes },
	};
}

/** A 200 file download that never ends: a PDF's first line, then spaces. */
export function endlessFileAnswer(
	options: { stopAfterBytes?: number; filename?: string } = {},
): ScriptedAnswer {
	return {
		status: 200,
		headers: {
			'Content-Type': 'application/pdf',
			'Content-Disposition': `attachment; filename="${options.filename ?? 'endless.pdf'}"`,
		},
		body: '%PDF-1.4\n',
		endless: { fill: ' ', stopAfterBytes: options.stopAfterBytes },
	};
}

/**
 * A gzip bomb: a complete, valid, empty list answer of `unpackedBytes` (a string field of
 * spaces pads it), sent gzip-packed, about a thousandth of that on the wire.
 */
export function gzipBombAnswer(unpackedBytes: number): ScriptedAnswer {
	const head =
		'{"data":[],"pagination":{"page":1,"page_size":100,"total":0,"hasMore":false},"meta":{"remaining_requests":100},"pad":"';
	const end = '"}';
	return {
		status: 200,
		headers: JSON_TYPE,
		body: head,
		endless: { fill: ' ', stopAfterBytes: Math.max(head.length, unpackedBytes - end.length), end },
		gzip: true,
	};
}

/** `answer`, sent `bytes` at a time, one piece every `everyMs` real milliseconds. */
export function trickling(answer: ScriptedAnswer, bytes: number, everyMs: number): ScriptedAnswer {
	return { ...answer, trickle: { bytes, everyMs } };
}

const STATUS_TEXT: Record<number, string> = {
	200: 'OK',
	404: 'Not Found',
	500: 'Internal Server Error',
};

/** One whole HTTP/1.1 answer as raw text: status line, headers, the JSON body. */
function rawHttpAnswer(status: number, json: unknown): Buffer {
	const body = Buffer.from(JSON.stringify(json), 'utf8');
	const head =
		`HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Status'}\r\n` +
		'Content-Type: application/json; charset=utf-8\r\n' +
		`Content-Length: ${body.length}\r\n` +
		'Connection: close\r\n\r\n';
	return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

function* inPieces(bytes: Buffer, size: number): Generator<Buffer> {
	for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/**
 * A whole answer (the fake's own, from `real()`) sent `bytes` at a time from its very first
 * byte, one piece every `everyMs`: the status line and the headers come as slowly as the body.
 */
export function slowHeadAnswer(
	reply: { status: number; json?: unknown },
	bytes: number,
	everyMs: number,
): ScriptedAnswer {
	return {
		wire: { pieces: inPieces(rawHttpAnswer(reply.status, reply.json ?? {}), bytes), everyMs },
	};
}

/** Interim answers without end: `HTTP/1.1 102 Processing`, one every `everyMs`, never a final one. */
export function endlessInterimAnswers(everyMs: number): ScriptedAnswer {
	function* pieces(): Generator<string> {
		for (;;) yield 'HTTP/1.1 102 Processing\r\n\r\n';
	}
	return { wire: { pieces: pieces(), everyMs } };
}

/** A status line, then one short header line every `everyMs`, never the blank line that ends them. */
export function endlessHeaderLines(everyMs: number): ScriptedAnswer {
	function* pieces(): Generator<string> {
		yield 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n';
		for (let n = 0; ; n++) yield `X-Filler-${n % 1000}: x\r\n`;
	}
	return { wire: { pieces: pieces(), everyMs } };
}

/**
 * The smallest unit of each coding that unpacks to nothing, and how a stream of them starts:
 * an empty gzip member (a gzip stream may hold any number of members), a non-final empty stored
 * block of deflate (zlib format: its two-byte header first), an empty metadata block of brotli
 * (after the window-size bits, in the first byte).
 */
const EMPTY_UNITS = {
	gzip: {
		start: Buffer.alloc(0),
		unit: Buffer.from('1f8b080000000000000303000000000000000000', 'hex'),
	},
	deflate: { start: Buffer.from('789c', 'hex'), unit: Buffer.from('000000ffff', 'hex') },
	br: { start: Buffer.from('0c', 'hex'), unit: Buffer.from('06', 'hex') },
} as const;

/**
 * A 200 answer in `coding` that never ends and unpacks to nothing: empty units one after the
 * other (see EMPTY_UNITS), sent as fast as the client takes them. Only the bytes on the wire
 * can stop it.
 */
export function endlessEmptyCoding(coding: keyof typeof EMPTY_UNITS): ScriptedAnswer {
	const { start, unit } = EMPTY_UNITS[coding];
	return {
		status: 200,
		headers: { ...JSON_TYPE, 'Content-Encoding': coding },
		body: start,
		endless: { fill: unit },
	};
}
