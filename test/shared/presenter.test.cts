/**
 * The presenter (nodes/shared/tool/presenter.ts, docs/agent-tools.md): whatever the service
 * answers, what a model receives is within MAX_TOOL_RESULT_CHARS, says what it cut, and is not
 * empty when the service returned records. fast-check draws the service's answers: texts of up to
 * 5 million characters with random unicode pieces (and the API key near the cut), nested objects,
 * lists of up to 50,000 entries, and values of the wrong type where a text is expected; texts and
 * names hold lone halves of surrogate pairs and whole pairs where a cut falls, and what a model
 * receives must be well-formed Unicode. A failure prints the seed and path; `FC_SEED=… FC_PATH=…`
 * replays it.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { NodeApiError } from 'n8n-workflow';

import { Redactor } from '../../nodes/shared/redaction';
import { secretsOf } from '../../nodes/shared/credentialRules';
import {
	asToolError,
	bounded,
	clipped,
	FIELD,
	MAX_TOOL_ERROR_CHARS,
	MAX_TOOL_RESULT_CHARS,
	presented,
} from '../../nodes/shared/tool/presenter';
import {
	listResult,
	simplifyAccount,
	simplifyCampaign,
	simplifyDiagnostic,
	simplifyReport,
	type Simplifier,
} from '../../nodes/shared/tool/toolResults';

const KEY = 'service_live_abcdefghijklmnopqrstuvwxyz012345';
const scrub = new Redactor(secretsOf({ apiKey: KEY }));
const RUNS = Number(process.env.FC_PRESENTER_RUNS ?? 30);
const replay = process.env.FC_SEED
	? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH }
	: {};

const thousands = (count: number) => count.toLocaleString('en-US');

/**
 * The text as UTF-8 carries it: Node's encoder replaces each lone half of a surrogate pair with
 * U+FFFD. A text is well-formed when this leaves it as it is (an oracle independent of the
 * presenter's own replacement).
 */
const asUtf8 = (text: string) => Buffer.from(text, 'utf8').toString('utf8');
const isWellFormed = (text: string) => asUtf8(text) === text;

/** Lone halves (high, low, two highs, a low before a high), whole pairs, and plain letters. */
const surrogatePieces = fc
	.array(fc.constantFrom('\uD83D', '\uDE00', '\uDBFF\uDBFF', '\uDC00\uD800', '😀', '𝄞', 'a', 'é'), {
		maxLength: 24,
	})
	.map((pieces) => pieces.join(''));

/** A text of the service: short, or megabytes cheaply made, with unicode pieces and the key. */
const text = fc.oneof(
	{ arbitrary: fc.string({ maxLength: 40, unit: 'grapheme' }), weight: 3 },
	surrogatePieces,
	fc
		.tuple(
			fc.integer({ min: 0, max: 5_000_000 }),
			fc.oneof(fc.string({ maxLength: 12, unit: 'grapheme' }), surrogatePieces),
			fc.boolean(),
		)
		.map(([length, piece, key]) => `${piece}${'x'.repeat(length)}${key ? KEY : ''}${piece}`),
	// The key where a cut would fall: a clip must not leave a start of it.
	fc.integer({ min: 0, max: 400 }).map((at) => `${'y'.repeat(at)}${KEY} tail`),
	// Pairs and lone halves where a cut would fall.
	fc
		.tuple(fc.integer({ min: 0, max: 1_100 }), surrogatePieces)
		.map(([at, pieces]) => `${'z'.repeat(at)}${pieces.repeat(8)}`),
);

/** A list of up to 50,000 entries, cheaply made. */
const longList = fc
	.tuple(fc.integer({ min: 0, max: 50_000 }), fc.constantFrom<unknown>('x', 1, { a: 'b' }, null))
	.map(([length, entry]) => Array.from({ length }, () => entry));

/** Any JSON value, nested a few levels, of any size. */
const { value } = fc.letrec<{ value: unknown; list: unknown[]; object: IDataObject }>((tie) => ({
	value: fc.oneof(
		{ depthSize: 'small' },
		text,
		fc.double(),
		fc.boolean(),
		fc.constant(null),
		tie('list'),
		tie('object'),
	),
	list: fc.oneof(fc.array(tie('value'), { maxLength: 4 }), longList),
	object: fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), surrogatePieces), tie('value'), {
		maxKeys: 4,
	}) as never,
}));

/** A record with `fields`, each maybe missing, a text or anything else. */
function recordOf(fields: string[], more: Record<string, fc.Arbitrary<unknown>> = {}) {
	const arbitraries = Object.fromEntries(fields.map((field) => [field, value]));
	return fc.record({ ...arbitraries, ...more }, { requiredKeys: [] }) as fc.Arbitrary<IDataObject>;
}

const ACCOUNT_FIELDS = ['id', 'platformAccountId', 'name', 'status', 'currency', 'lastSyncedAt'];
const CAMPAIGN_FIELDS = ['id', 'name', 'status', 'objective', 'accountId', 'dailyBudget'];
const REPORT_FIELDS = ['id', 'title', 'status', 'format', 'accountId', 'downloadUrl', 'expiresAt'];

/** An issue or recommendation list: a few entries, up to 50,000, or not a list at all. */
const entries = (fields: string[]) =>
	fc.oneof(
		fc.array(recordOf(fields), { maxLength: 8 }),
		fc
			.tuple(fc.integer({ min: 0, max: 50_000 }), recordOf(fields))
			.map(([length, entry]) => Array.from({ length }, () => entry)),
		value,
	);

const RECORDS: Array<[string, Simplifier, fc.Arbitrary<IDataObject>]> = [
	['account', simplifyAccount, recordOf(ACCOUNT_FIELDS)],
	['campaign', simplifyCampaign, recordOf(CAMPAIGN_FIELDS)],
	[
		'report',
		simplifyReport,
		recordOf(REPORT_FIELDS, {
			summary: fc.oneof(value, recordOf(['overallRiskLevel', 'totalSpend', 'avgRoas'])),
			dateRange: fc.oneof(value, recordOf(['from', 'to'])),
			campaignIds: value,
			error: fc.oneof(value, recordOf(['type', 'message'])),
		}),
	],
	[
		'diagnostic',
		simplifyDiagnostic,
		recordOf(['id', 'campaignId', 'status', 'riskScore', 'summary'], {
			issues: entries(['title', 'severity', 'riskScore']),
			recommendations: entries(['priority', 'title', 'description']),
		}),
	],
];

/** Every text in an answer, with the path to it. */
function textsOf(answer: unknown, path = ''): Array<[string, string]> {
	if (typeof answer === 'string') return [[path, answer]];
	if (answer === null || typeof answer !== 'object') return [];
	return Object.entries(answer).flatMap(([key, entry]) => [
		...(typeof key === 'string' && key.length > 60
			? [[`${path}/key`, key] as [string, string]]
			: []),
		...textsOf(entry, `${path}/${key}`),
	]);
}

/** Every text and every property name in a value, at any depth. */
function everyText(value: unknown): string[] {
	if (typeof value === 'string') return [value];
	if (value === null || typeof value !== 'object') return [];
	return Object.entries(value).flatMap(([key, entry]) => [key, ...everyText(entry)]);
}

/**
 * What every answer must be: within the limit, the key nowhere, a cut text saying its length,
 * every text and name well-formed Unicode.
 * A tool's answer (shapedByTool) has its texts clipped to their fields' rooms as well; an answer
 * no tool shaped, which only the presenter's own property draws, is bounded as a whole: one
 * that fits is shown as it is, whatever its texts' lengths (the presenter's first bounds; every
 * tool shapes its answer before it is presented).
 */
function checkAnswer(answer: IDataObject, shapedByTool = true) {
	const json = JSON.stringify(answer);
	expect(json.length).toBeLessThanOrEqual(MAX_TOOL_RESULT_CHARS);
	expect(json).not.toContain(KEY.slice(0, 'service_live_'.length + 8));
	expect(everyText(answer).filter((shown) => !isWellFormed(shown))).toEqual([]);
	for (const [path, shown] of textsOf(answer)) {
		// No text reaches a model longer than a field's room unless it says it was clipped.
		if (shapedByTool && shown.length > 1_000 && !path.endsWith('/content')) {
			expect(shown).toMatch(/…\[clipped: [\d,]+ characters in all\]$/);
		}
	}
}

/** A drawn text field as shown: whole, or clipped saying its full (scrubbed) length. */
function checkField(drawn: unknown, shown: unknown) {
	if (drawn !== null && typeof drawn === 'object') {
		// A nested value where a text was expected: bounded, saying what it left out.
		const size = Array.isArray(drawn) ? drawn.length : Object.keys(drawn).length;
		const json = JSON.stringify(shown);
		expect(json.length).toBeLessThanOrEqual(3_000);
		if (size > FIELD.entries) expect(json).toMatch(/more (entries|fields)|not shown/);
		return;
	}
	if (typeof drawn !== 'string') return;
	// Each lone half shown as U+FFFD, one unit for one: the length said is the drawn one's.
	const whole = asUtf8(scrub.text(drawn));
	if (shown === whole) return;
	expect(shown).toEqual(expect.stringMatching(/…\[clipped: [\d,]+ characters in all\]$/));
	expect(shown).toContain(`[clipped: ${thousands(whole.length)} characters in all]`);
	expect(whole.startsWith(String(shown).replace(/…\[clipped: .*$/, ''))).toBe(true);
}

describe.each(RECORDS)('a %s as a model receives it', (_kind, simplify, record) => {
	test('fits, says what it cut, and keeps what the record had', () => {
		fc.assert(
			fc.property(record, (drawn) => {
				const answer = presented(simplify(drawn, scrub), scrub);
				checkAnswer(answer);
				for (const field of ['id', 'name', 'title', 'status']) {
					if (field in answer) checkField(drawn[field], answer[field]);
				}
				if (typeof drawn.id === 'string') expect(answer).toHaveProperty('id');
				for (const list of ['issues', 'recommendations']) {
					const drawnList = drawn[list];
					if (!Array.isArray(drawnList)) continue;
					const shown = (answer[list] as unknown[]).length;
					const omitted = (answer[`${list}Omitted`] as number | undefined) ?? 0;
					expect(shown + omitted).toBe(drawnList.length);
				}
			}),
			{ numRuns: RUNS, ...replay },
		);
	});

	test('a page of them is never empty, and what it leaves out is said', () => {
		fc.assert(
			fc.property(
				fc.array(record, { minLength: 1, maxLength: 6 }),
				fc.boolean(),
				(records, hasMore) => {
					const page = listResult(records, {
						show: (one, bounds) => simplify(one, scrub, bounds),
						what: 'records',
						page: 1,
						limit: 50,
						hasMore,
					});
					const answer = presented(page, scrub);
					checkAnswer(answer);
					const returned = (answer.results as unknown[]).length;
					expect(returned).toBeGreaterThanOrEqual(1);
					expect(answer.returned).toBe(returned);
					if (returned < records.length) {
						expect(answer.hasMore).toBe(true);
						expect(String(answer.hint)).toContain(`Only ${returned} of the ${records.length}`);
					}
				},
			),
			{ numRuns: Math.ceil(RUNS / 3), ...replay },
		);
	});
});

test('a record too big for the page on its own is shown smaller, not left out', () => {
	const huge = Object.fromEntries(
		['id', 'name', 'status', 'objective', 'accountId', 'dailyBudget', 'currency', 'createdAt'].map(
			(field) => [field, Array.from({ length: 9 }, () => 'x'.repeat(1_000_000))],
		),
	);
	const answer = listResult([huge, huge], {
		show: (one, bounds) => simplifyCampaign(one, scrub, bounds),
		what: 'campaigns',
		page: 1,
		limit: 10,
		hasMore: false,
	});
	checkAnswer(presented(answer, scrub));
	expect(answer.returned).toBe(1);
	expect(String((answer.results as IDataObject[])[0].name)).toContain('[clipped: 1,000,000');
	expect(answer.hint).toMatch(/Only 1 of the 2 campaigns/);
});

describe('the presenter on its own', () => {
	test('any answer fits, whatever it nests', () => {
		fc.assert(
			fc.property(fc.dictionary(fc.string({ maxLength: 8 }), value, { maxKeys: 6 }), (answer) => {
				const shown = presented(answer as IDataObject, scrub);
				checkAnswer(shown, false);
				// A long text shown is a drawn one, scrubbed, or says that it was cut.
				const drawn = new Set(textsOf(answer).map(([, text]) => asUtf8(scrub.text(text))));
				for (const [, text] of textsOf(shown))
					if (text.length > 1_000 && !drawn.has(text))
						expect(text).toMatch(/…\[clipped: [\d,]+ characters in all\]$/);
			}),
			{ numRuns: RUNS, ...replay },
		);
	});

	test('a text cut anywhere is well-formed, a start of the text, and says its full length', () => {
		// Any text with any room, or pairs and lone halves just where the cut of `max` falls.
		const nearTheCut = fc
			.tuple(
				fc.integer({ min: 60, max: 1_200 }),
				// The clip note takes about 40 of `max`: the cut falls within the last 60 of it.
				fc.integer({ min: 0, max: 60 }),
				surrogatePieces.filter((pieces) => pieces.length > 0),
			)
			.map(([max, before, pieces]): [string, number] => [
				`${'z'.repeat(max - before)}${pieces.repeat(Math.ceil(200 / pieces.length))}`,
				max,
			]);
		fc.assert(
			fc.property(
				fc.oneof(fc.tuple(text, fc.integer({ min: 60, max: 1_200 })), nearTheCut),
				([drawn, max]) => {
					const whole = asUtf8(scrub.text(drawn));
					const shown = clipped(scrub, drawn, max);
					expect(isWellFormed(shown)).toBe(true);
					expect(shown.length).toBeLessThanOrEqual(max);
					if (shown === whole) return;
					expect(shown).toMatch(/…\[clipped: [\d,]+ characters in all\]$/);
					// No pair split: the part shown is a start of the whole, pairs intact.
					expect(whole.startsWith(shown.replace(/…\[clipped: .*$/, ''))).toBe(true);
				},
			),
			{ numRuns: RUNS * 3, ...replay },
		);
	});

	/** An error's texts: built with the service's texts clipped (errors.ts), so a few thousand. */
	const errorText = fc.oneof(
		fc.string({ maxLength: 40, unit: 'grapheme' }),
		fc
			.tuple(fc.integer({ min: 0, max: 2_000 }), surrogatePieces)
			.map(([at, pieces]) => `${'e'.repeat(at)}${pieces.repeat(4)}`),
	);

	test('an error a model reads is well-formed, within its limit, its description too', () => {
		fc.assert(
			fc.property(errorText, fc.option(errorText, { nil: undefined }), (message, description) => {
				const error = asToolError(
					// Set after construction: NodeApiError's constructor rewrites empty texts.
					Object.assign(new NodeApiError({ name: 'Ad Performance' } as never, {}), {
						message,
						description,
					}),
				);
				expect(error.message.length).toBeLessThanOrEqual(MAX_TOOL_ERROR_CHARS);
				expect(isWellFormed(error.message)).toBe(true);
				// Only the lone halves changed.
				expect(error.description).toBe(description === undefined ? undefined : asUtf8(description));
			}),
			{ numRuns: RUNS * 3, ...replay },
		);
	});

	test('a text says its full length; a text clipped again keeps it', () => {
		const once = clipped(scrub, 'x'.repeat(5_000_000), 300);
		expect(once).toHaveLength(300);
		expect(once).toMatch(/…\[clipped: 5,000,000 characters in all\]$/);
		expect(clipped(scrub, once, 100)).toMatch(/^x+…\[clipped: 5,000,000 characters in all\]$/);
	});

	test('a value nested where a text was expected is bounded, saying what it left out', () => {
		const shown = bounded(
			{
				deep: { deeper: 1 },
				list: Array.from({ length: 50_000 }, () => 'x'),
				a: 1,
				b: 2,
				c: 3,
				d: 4,
			},
			scrub,
			{ ...FIELD, depth: 2 },
		) as IDataObject;
		expect(shown.deep).toEqual({ deeper: 1 });
		expect(shown.list).toEqual(['x', 'x', 'x', 'x', 'x', '…[49,995 more entries]']);
		expect(shown['…']).toBe('…[1 more fields]');
		expect(bounded([[[1]]], scrub, FIELD)).toEqual(['[a list of 1 entries, not shown]']);
	});
});
