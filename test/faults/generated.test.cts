/**
 * The generated fault matrix (#30): fast-check draws an operation (every row of the matrix:
 * each operation of the Ad Performance node, Wait for Ad Report) and a sequence of faults from a
 * catalogue of what the fake can do wrong, scripted onto the operation's first requests, and a
 * clock offset of the service; then it runs the case through n8n's engine against a fresh fake
 * and checks the invariants every path must keep:
 *   - it ends, well within a bound (no wait outlives its deadline);
 *   - every fault of the catalogue is recoverable within Max Attempts 10, so the workflow
 *     succeeds and the row's own checks hold: each record once, no item lost, no report or
 *     diagnostic made twice, the file whole;
 *   - no spelling of the key (as it is, percent-encoded, escaped, HTML references, its head in
 *     capitals, its secret part alone, folded over two lines) appears in
 *     the output, the error, the run data or a log line, though faults echo it.
 * A failure prints fast-check's seed and path; `FC_SEED=… FC_PATH=…` replays it.
 * `npm test` runs 10 cases (for its time budget); `npm run test:faults` 5,000 in FC_FAULT_PARTS
 * parts side by side; `.ci/run` 1,000.
 */
import fc from 'fast-check';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';

import { collectParts, type ReportFile } from '../../sandbox/files.cjs';
import { endlessJsonAnswer, type ScriptedAnswer } from '../../sandbox/index.cjs';
import { LISTING_READS } from '../../nodes/shared/transport';
import { run } from '../nodes/helpers.cjs';
import {
	captureLogs,
	expectNoKey,
	freshService,
	OPERATIONS,
	visibleText,
	type OperationRow,
} from './matrix.cjs';
import { PATH_ROWS } from './paths.cjs';

/** The matrix's budget: `npm test` 10 cases; `npm run test:faults` FC_FAULT_RUNS (5,000; `.ci/run` 1,000). */
const BUDGET = Number(process.env.FC_FAULT_RUNS ?? 10);
/**
 * `npm run test:faults` splits the budget into FC_FAULT_PARTS parts that jest runs side by side:
 * this file is part 1, and each `generated-part-N.cts` (listed by the script) imports it as part N.
 * A case mostly waits (on the fake's scaled clock, on its own fresh fake), so parts take the
 * matrix's time apart: 1,000 cases in one file were 470-520 s, the whole of test:faults' time.
 * Each part draws its own seed; a failure's FC_SEED and FC_PATH replay it in this file.
 */
const PARTS = Math.max(1, Number(process.env.FC_FAULT_PARTS ?? 1));
const PART = Number(/generated-part-(\d+)\.cts$/.exec(expect.getState().testPath ?? '')?.[1] ?? 1);
if (!(PART >= 1 && PART <= PARTS)) throw new Error(`fault matrix part ${PART} of ${PARTS}`);
/** This part's share of the budget (the parts' shares add up to it). */
const RUNS = Math.floor((BUDGET * PART) / PARTS) - Math.floor((BUDGET * (PART - 1)) / PARTS);
const replay = process.env.FC_SEED
	? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH }
	: {};
/**
 * An endless answer streams 16 MiB before the reader cuts it: drawn by the large budgets
 * (`.ci/run`, `npm run test:faults`); `npm test`'s few cases leave it to bounded-answers.test.
 */
const DRAWS_ENDLESS = BUDGET >= 100;
/** What one case may take: the faults' waits are on the fake's sped-up clock. */
const CASE_BOUND_MS = 20_000;

/** One fault of the catalogue, as the fake scripts it onto one request. */
type Fault =
	| { kind: 'status'; status: 429 | 500 | 502 | 503; retryAfter?: string; after: boolean }
	| { kind: 'drop'; after: boolean }
	| { kind: 'slow'; ms: number }
	| { kind: 'truncated'; after: boolean }
	| { kind: 'notJson'; after: boolean }
	| { kind: 'gzipDamaged'; after: boolean; coding: 'gzip' | 'deflate' | 'br' }
	| { kind: 'gzipOverPlain'; after: boolean }
	| { kind: 'echoKey'; status: 500 | 503; spelling: number }
	/** The fake's own answer (the work done) in raw bytes that HTTP allows or a liar sends. */
	| { kind: 'wire'; shape: WireShape }
	/**
	 * A list page that disagrees with itself: once (the next read is the service's own), or in
	 * every read (`lasting`), which may fail the path only as the list's contradiction.
	 */
	| { kind: 'listing'; how: 'totalDrift' | 'endsEarly' | 'repeat'; lasting: boolean }
	/**
	 * A read that lags behind a write (the next GET of a record or list, not of a file): a record
	 * is not found yet, a list does not hold its newest record yet (its total agreeing).
	 */
	| { kind: 'lag' }
	/** A JSON answer that never ends (the reader's size limit cuts it), before or after the work. */
	| { kind: 'endless'; after: boolean };

/**
 * interim: 1xx answers before the real one · headers: hundreds of header lines · slowHead: the
 * status line and headers a few bytes at a time · longLength: a Content-Length beyond the body,
 * then the connection closes · shortLength: a Content-Length short of the body (a JSON answer:
 * a file's lie cannot be told from the file, so a file gets the long lie instead).
 */
type WireShape = 'interim' | 'headers' | 'slowHead' | 'longLength' | 'shortLength';

const retryAfter = fc.option(
	fc.constantFrom(
		'0',
		'1',
		'2',
		' 1 ',
		'soon',
		'-1',
		'1.5',
		new Date(Date.now() + 1000).toUTCString(),
	),
	{ nil: undefined },
);
const FAULTS: fc.Arbitrary<Fault> = fc.oneof(
	fc.record({
		kind: fc.constant('status' as const),
		status: fc.constantFrom(429 as const, 500 as const, 502 as const, 503 as const),
		retryAfter,
		after: fc.boolean(),
	}),
	fc.record({ kind: fc.constant('drop' as const), after: fc.boolean() }),
	fc.record({ kind: fc.constant('slow' as const), ms: fc.integer({ min: 10, max: 400 }) }),
	fc.record({ kind: fc.constant('truncated' as const), after: fc.boolean() }),
	fc.record({ kind: fc.constant('notJson' as const), after: fc.boolean() }),
	fc.record({
		kind: fc.constant('gzipDamaged' as const),
		after: fc.boolean(),
		coding: fc.constantFrom('gzip' as const, 'deflate' as const, 'br' as const),
	}),
	fc.record({ kind: fc.constant('gzipOverPlain' as const), after: fc.boolean() }),
	fc.record({
		kind: fc.constant('echoKey' as const),
		status: fc.constantFrom(500 as const, 503 as const),
		spelling: fc.nat({ max: 8 }),
	}),
	fc.record({ kind: fc.constant('lag' as const) }),
	fc.record({ kind: fc.constant('endless' as const), after: fc.boolean() }),
	fc.record({
		kind: fc.constant('listing' as const),
		how: fc.constantFrom('totalDrift' as const, 'endsEarly' as const, 'repeat' as const),
		lasting: fc.boolean(),
	}),
	fc.record({
		kind: fc.constant('wire' as const),
		shape: fc.constantFrom<WireShape>(
			'interim',
			'headers',
			'slowHead',
			'longLength',
			'shortLength',
		),
	}),
);

/** The fake's own answer as raw HTTP/1.1 bytes, shaped by `shape`. */
async function wireAnswer(
	reply: { status: number; json?: unknown; file?: ReportFile },
	shape: WireShape,
): Promise<ScriptedAnswer> {
	const body = reply.file
		? await collectParts(reply.file.parts)
		: Buffer.from(JSON.stringify(reply.json ?? {}), 'utf8');
	const lie = shape === 'shortLength' && reply.file ? 'longLength' : shape;
	const length =
		lie === 'longLength' ? body.length + 64 : lie === 'shortLength' ? body.length - 5 : body.length;
	const headers = [
		`Content-Type: ${reply.file ? reply.file.contentType : 'application/json; charset=utf-8'}`,
		...(reply.file ? [`Content-Disposition: attachment; filename="${reply.file.filename}"`] : []),
		`Content-Length: ${length}`,
		'Connection: close',
		...(lie === 'headers' ? Array.from({ length: 300 }, (_, n) => `X-Filler-${n}: x`) : []),
	];
	const head = Buffer.from(
		`HTTP/1.1 ${reply.status} Answer\r\n${headers.join('\r\n')}\r\n\r\n`,
		'latin1',
	);
	const interim = Buffer.from(
		'HTTP/1.1 102 Processing\r\n\r\n'.repeat(lie === 'interim' ? 20 : 0),
		'latin1',
	);
	const bytes = Buffer.concat([interim, head, body]);
	const pieces: Buffer[] = [];
	const size = lie === 'slowHead' ? 16 : bytes.length;
	for (let at = 0; at < head.length + interim.length && lie === 'slowHead'; at += size)
		pieces.push(bytes.subarray(at, Math.min(at + size, head.length + interim.length)));
	pieces.push(bytes.subarray(lie === 'slowHead' ? head.length + interim.length : 0));
	return { wire: { pieces, everyMs: lie === 'slowHead' ? 2 : 0 } };
}

/** The key as a service might echo it. */
function spelled(key: string, spelling: number): string {
	switch (spelling) {
		case 1:
			return encodeURIComponent(key).replace(/_/g, '%5F');
		case 2:
			return key.replace(/_/g, '\\u005f');
		case 3:
			return key.replace(/_/g, '&#95;');
		case 4:
			return key.replace(/e/g, '%65');
		case 5:
			return key.slice(0, 24);
		// #39: the public head in capitals, the secret part alone, the key folded over two lines.
		case 6:
			return key.replace(/^service_(live|test)_/, (head) => head.toUpperCase());
		case 7:
			return key.replace(/^service_(live|test)_/, '');
		case 8:
			return `${key.slice(0, 20)}\n    ${key.slice(20)}`;
		default:
			return key;
	}
}

/** Every decoding a reader of a text might apply, until nothing changes. */
function decoded(text: string): string {
	let current = text;
	for (let round = 0; round < 4; round++) {
		const next = current
			.replace(/%([0-9a-fA-F]{2})/g, (_, code: string) => String.fromCharCode(parseInt(code, 16)))
			.replace(/\\+u([0-9a-fA-F]{4})/g, (_, code: string) =>
				String.fromCharCode(parseInt(code, 16)),
			)
			.replace(/&#(\d+);?/g, (_, code: string) => String.fromCharCode(Number(code)));
		if (next === current) break;
		current = next;
	}
	return current;
}

/** The scripted answer of `fault`; `real` runs the fake's own handling (the work is done). */
function answerOf(
	fault: Fault,
	key: string,
	real: () => { status: number; json?: unknown; file?: ReportFile },
): ScriptedAnswer | Promise<ScriptedAnswer> {
	const json = 'application/json';
	const work = (after: boolean) => (after ? real() : undefined);
	switch (fault.kind) {
		case 'status':
			// A 429 means "not done" by the service's contract: never after the work.
			work(fault.after && fault.status !== 429);
			return {
				status: fault.status,
				headers: {
					'Content-Type': json,
					...(fault.retryAfter === undefined ? {} : { 'Retry-After': fault.retryAfter }),
				},
				json: {
					error: {
						type: fault.status === 429 ? 'rate_limit_error' : 'api_error',
						message: fault.status === 429 ? 'Rate limit exceeded' : 'Internal error',
					},
				},
			};
		case 'echoKey':
			return {
				status: fault.status,
				headers: { 'Content-Type': json },
				json: {
					error: { type: 'api_error', message: `Bad key ${spelled(key, fault.spelling)} here` },
					[spelled(key, fault.spelling)]: spelled(key, fault.spelling),
				},
			};
		case 'slow': {
			const reply = real();
			return { reply: reply as never, delayMs: fault.ms };
		}
		case 'truncated': {
			const reply = work(fault.after);
			const body = JSON.stringify(reply?.json ?? { data: [] });
			return {
				status: 200,
				headers: { 'Content-Type': json },
				body,
				truncateAfterBytes: Math.floor(body.length / 2),
			};
		}
		case 'notJson':
			work(fault.after);
			return {
				status: 200,
				headers: { 'Content-Type': 'text/html' },
				body: '<html>Bad gateway</html>',
			};
		case 'gzipDamaged': {
			// Packed in the drawn coding and damaged so that it cannot be unpacked: gzip's and
			// deflate's checksums at the end broken; a brotli stream (it has no checksum: damaged
			// bytes may unpack to other bytes) cut short before its last block.
			const reply = work(fault.after);
			const plain = Buffer.from(JSON.stringify(reply?.json ?? { data: [] }));
			const pack = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync }[fault.coding];
			let packed = pack(plain);
			if (fault.coding === 'br') packed = packed.subarray(0, packed.length - 3);
			else
				for (let index = packed.length - 4; index < packed.length; index++) packed[index] ^= 0xff;
			return {
				status: 200,
				headers: { 'Content-Type': json, 'Content-Encoding': fault.coding },
				body: packed,
			};
		}
		case 'gzipOverPlain': {
			const reply = work(fault.after);
			return {
				status: 200,
				headers: { 'Content-Type': json, 'Content-Encoding': 'gzip' },
				body: JSON.stringify(reply?.json ?? { data: [] }),
			};
		}
		case 'wire':
			return wireAnswer(real(), fault.shape);
		case 'listing': {
			const reply = real();
			const body = reply.json as { data?: unknown[]; pagination?: Record<string, unknown> };
			// Not a list answer: the fault does nothing here.
			if (!Array.isArray(body?.data) || !body.pagination) return { reply };
			const pagination = { ...body.pagination };
			let data = body.data;
			if (fault.how === 'totalDrift' && typeof pagination.total === 'number') pagination.total += 1;
			if (fault.how === 'endsEarly') pagination.hasMore = false;
			if (fault.how === 'repeat' && data.length > 1) data = [data[0], ...data.slice(0, -1)];
			return { status: reply.status, json: { ...body, data, pagination } };
		}
		case 'lag': {
			const reply = real();
			const body = reply.json as { data?: unknown; pagination?: Record<string, unknown> };
			// A file is not a record read (a missing file is an expired link, not a lag).
			if (reply.file || reply.status !== 200) return { reply };
			if (!Array.isArray(body?.data))
				return {
					status: 404,
					headers: { 'Content-Type': json },
					json: { error: { type: 'not_found', message: 'Not found' } },
				};
			if (!body.pagination || body.data.length === 0 || Number(body.pagination.page ?? 1) !== 1)
				return { reply };
			const pagination = { ...body.pagination };
			if (typeof pagination.total === 'number') pagination.total -= 1;
			return { status: reply.status, json: { ...body, data: body.data.slice(1), pagination } };
		}
		case 'endless':
			work(fault.after);
			return endlessJsonAnswer();
		case 'drop':
			// Not scripted as an answer: the fake's own injected drop (before or after the work).
			throw new Error('drop is injected, not answered');
	}
}

/** What an error a case ended in is judged by. */
interface CaseFacts {
	row: OperationRow;
	faults: Fault[];
	clockOffsetMs: number;
	/** The error's description. */
	description: string;
	/** Reports the case made (the fake's count after less before). */
	reportsMade: number;
	/** The items the case's workflow ran. */
	items: number;
}

/**
 * The errors a case may end in instead of succeeding: each is the designed outcome of what was
 * drawn (`when`), with what must still hold (`check`). Every other error fails the case; a case
 * without an error must pass its row's checks.
 */
const ALLOWED_ERRORS: {
	type: string;
	when: (facts: CaseFacts) => boolean;
	check?: (facts: CaseFacts) => void;
}[] = [
	// A listing that contradicts itself in every read: named as such, never records lost or
	// doubled. Every read: a lasting fault, or one-time faults enough to meet each of the
	// LISTING_READS reads an operation may spend (three in a row at 1 in 5,000 cases).
	{
		type: 'protocol_error',
		when: ({ faults }) =>
			faults.some(isLastingListing) ||
			faults.filter((fault) => fault.kind === 'listing').length >= LISTING_READS,
	},
	// A wait whose listing never agrees runs out its own Timeout, naming what it last saw.
	{
		type: 'timeout',
		when: ({ faults, row }) => faults.some(isLastingListing) && row.budgetMs !== undefined,
	},
	// The service's clock is off n8n's and its records could not confirm its Date header in time
	// (a slow machine between the lost answer and the search), or no answer yet carried a Date
	// header (raw answers): a report that could be another execution's is not taken, and nothing
	// is resent. Never a report more than the Generates asked for.
	{
		type: 'ambiguous_outcome',
		when: ({ clockOffsetMs, description }) =>
			clockOffsetMs !== 0 && /clock cannot be read closely enough/.test(description),
		check: ({ reportsMade, items }) => expect(reportsMade).toBeLessThanOrEqual(items),
	},
];

function isLastingListing(fault: Fault): boolean {
	return fault.kind === 'listing' && fault.lasting;
}

/** `FC_ROWS=tool,trigger` draws only the rows whose name holds one of the words (for a replay). */
const rowFilter = (process.env.FC_ROWS ?? '').split(',').filter(Boolean);
const rows = [...OPERATIONS, ...PATH_ROWS]
	.filter((row) => rowFilter.length === 0 || rowFilter.some((word) => row.name.includes(word)))
	.map((row, index) => ({ row, index }));

test(
	`generated fault matrix${PARTS > 1 ? ` (part ${PART} of ${PARTS})` : ''}: ${RUNS} cases of operation × fault sequence × clock offset`,
	async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.constantFrom(...rows),
				fc.array(FAULTS, { minLength: 1, maxLength: 4 }),
				fc.constantFrom(0, 0, 90_000, -90_000, 3_600_000),
				fc.integer({ min: 1, max: 1_000_000 }),
				async ({ row }: { row: OperationRow }, drawn, clockOffsetMs, seed) => {
					const faults = drawn
						.filter((fault) => fault.kind !== 'listing' || row.rereadsListings)
						.filter((fault) => fault.kind !== 'lag' || row.waitsOutLag)
						.filter((fault) => fault.kind !== 'endless' || DRAWS_ENDLESS)
						.slice(0, row.maxFaults ?? drawn.length);
					const service = await freshService(seed, { timeScale: row.timeScale });
					try {
						const key = service.fake.keys.live;
						const prepared = await row.prepare(service, 10);
						service.fake.setClockOffset(clockOffsetMs);
						let scripted = 0;
						for (const fault of faults) {
							if (fault.kind === 'drop') {
								service.fake.injectOnce({
									kind: 'drop',
									phase: fault.after ? 'after' : 'before',
									pathPrefix: '/v1/',
								});
							} else {
								service.fake.intercept({
									pathPrefix: '/v1/',
									// A lag is of a read: it meets the next GET; a lasting listing fault, every one.
									...(fault.kind === 'lag' || fault.kind === 'listing' ? { method: 'GET' } : {}),
									times: fault.kind === 'listing' && fault.lasting ? undefined : 1,
									respond: (request, real) => {
										scripted++;
										// A file that never ends is the Max File Size's to stop, as an error: the
										// fault meets the request and leaves its answer as it is.
										if (fault.kind === 'endless' && request.path.endsWith('/download'))
											return undefined;
										// The log says which answers were lost after the fake did the work (the
										// rows' checks allow one extra diagnostic for each: those cannot be found).
										const entry = service.fake.log[service.fake.log.length - 1];
										const lost =
											('after' in fault && fault.after) ||
											(fault.kind === 'wire' && /Length/.test(fault.shape));
										if (lost && !(fault.kind === 'status' && fault.status === 429) && entry)
											entry.fault = '500';
										return answerOf(fault, key, real);
									},
								});
							}
						}
						const reportsBefore = service.fake.reports().length;
						const started = Date.now();
						const { value: result, logs } = await captureLogs(
							() => prepared.execute?.() ?? run(service, prepared.nodes, { items: prepared.items }),
						);
						const tookMs = Date.now() - started;
						// The faults happened: the first request met the first (a fault that still answers,
						// a slow one, may leave later ones unmet when the operation needs few requests).
						if (faults.length > 0)
							expect(
								scripted + service.fake.log.filter((entry) => entry.fault === 'drop').length,
							).toBeGreaterThan(0);
						// Within the case's bound, or the path's own budget plus a constant.
						expect(tookMs).toBeLessThan(Math.max(CASE_BOUND_MS, (row.budgetMs ?? 0) + 5_000));
						expectNoKey(key, result, logs);
						const seen = decoded([visibleText(result), ...logs].join('\n'));
						expect(seen.includes(key.slice(0, 21))).toBe(false);
						// Nor the secret part's start, in any case, once line breaks and spaces are gone.
						const secretStart = key
							.replace(/^service_(live|test)_/, '')
							.slice(0, 8)
							.toLowerCase();
						expect(seen.replace(/\s+/g, '').toLowerCase().includes(secretStart)).toBe(false);
						const error = result.error;
						if (!error) {
							await prepared.verify(result, service.fake);
							return;
						}
						const facts: CaseFacts = {
							row,
							faults,
							clockOffsetMs,
							description: String(error.description),
							reportsMade: service.fake.reports().length - reportsBefore,
							items: prepared.items?.length ?? 1,
						};
						const type = (error.context as { errorType?: string } | undefined)?.errorType;
						const allowed = ALLOWED_ERRORS.find(
							(entry) => entry.type === type && entry.when(facts),
						);
						// Any other error fails the case, showing its message.
						if (!allowed) expect(error.message).toBeUndefined();
						allowed?.check?.(facts);
					} finally {
						service.fake.clearIntercepts();
						await service.fake.stop();
					}
				},
			),
			{ numRuns: RUNS, ...replay },
		);
	},
	60_000 + RUNS * 3_000,
);
