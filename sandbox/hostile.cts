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
