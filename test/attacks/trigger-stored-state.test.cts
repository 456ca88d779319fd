/**
 * Attack: the trigger's stored state, drawn by fast-check. Static data is whatever n8n read from
 * its database (a workflow imported with `staticData`, a database edited by hand, an older
 * version of the node) or what a static data object in memory holds (NaN, ±Infinity, -0, which
 * JSON cannot carry). Each run puts a drawn value where the trigger keeps its state, then polls
 * through n8n-core's PollContext against the fake service:
 *   - no poll throws;
 *   - state the node could not have written is announced in n8n's log and is a fresh baseline:
 *     the poll emits nothing (no flood of old reports or account changes), the next poll emits
 *     nothing, a report completed (an account connected) after it is emitted once;
 *   - state the node could have written is read without a word, and the same follow-up holds.
 * Both event families: Report Completed and Account Connection Changed.
 *
 * Budget: FC_STATE_RUNS runs per family (`npm test` runs 25, for its time budget).
 * A failure prints the seed and path; `FC_SEED=… FC_PATH=…` replays it.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import {
	ActiveTrigger,
	ids,
	triggerLog,
	type PollResult,
} from '../nodes/AdPerformanceTrigger/poll-harness.cjs';
import { useFakeService } from '../nodes/helpers.cjs';

const service = useFakeService({ timeScale: 0.01 });
// Every run provokes a warning on purpose; the polls' `log` holds them.
beforeAll(() => {
	triggerLog.print = false;
});
afterAll(() => {
	triggerLog.print = true;
});

const RUNS = Number(process.env.FC_STATE_RUNS ?? 25);
const replay = process.env.FC_SEED
	? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH }
	: {};

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();
/**
 * The earliest cursor the trigger reads, and how far past the service's clock one may be (the
 * fake's clock is n8n's here; trigger-clock-skew.test.cts draws it days off).
 */
const EARLIEST = Date.UTC(2000, 0, 1);
const AHEAD = DAY;

/**
 * A drawn stored state: where it goes (through JSON, as n8n reads it from its database, or into
 * the live object, as memory holds it) and what the trigger must make of it: a `baseline` it
 * announces, the `first` poll's baseline (nothing stored but junk-free emptiness: n8n's debug
 * level), state it `read`s silently, or `unstorable` (no object to keep state in: every poll is
 * a baseline, announced, and never fails).
 */
interface Drawn {
	value: unknown;
	live: boolean;
	expect: 'baseline' | 'first' | 'read' | 'unstorable';
}

/** Junk of every JSON-ish kind, nested, with prototype-ish keys among the keys. */
const junk: fc.Arbitrary<unknown> = fc.anything({
	key: fc.oneof(
		fc.string(),
		fc.constantFrom('__proto__', 'constructor', 'prototype', 'version', 'scope', 'state'),
	),
	maxDepth: 3,
	maxKeys: 5,
	withBoxedValues: false,
	withMap: false,
	withSet: false,
	withBigInt: false,
	// A Date can be in no static data: n8n wraps it in a Proxy, and JSON.stringify of that
	// throws when n8n saves it (the harness's copy too).
	withDate: false,
	withTypedArray: false,
	withSparseArray: true,
	withNullPrototype: true,
	withObjectString: true,
});

/**
 * Numbers no cursor can be: beyond Date's range, non-finite, before 2000, after 9999 (refused at
 * the door), a day or more ahead of the service's clock (ruled out once it has answered).
 */
const badTime = (now: number): fc.Arbitrary<number> =>
	fc.oneof(
		{
			arbitrary: fc.constantFrom(
				-1e16,
				1e16,
				Number.NaN,
				Number.POSITIVE_INFINITY,
				Number.NEGATIVE_INFINITY,
				-0,
				0,
				8.64e15 + 1,
				-8.64e15 - 1,
				Number.MAX_VALUE,
				-Number.MAX_VALUE,
				Number.MIN_VALUE,
				EARLIEST - 1,
			),
			weight: 4,
		},
		fc.double({ noNaN: true, max: EARLIEST - 1 }),
		fc.double({ noNaN: true, min: now + AHEAD + 10 * MINUTE }),
		fc.integer({ min: 2, max: 100 * 365 }).map((days) => now + days * DAY),
	);

/** Anything but a number where a number belongs. */
const notANumber = fc.oneof(
	fc.constantFrom(null, true, '', '1700000000000', [], {}),
	fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
	junk.filter((value) => typeof value !== 'number'),
);

/**
 * What is drawn as "not a list of entries": no list at all, since notANumber's `[]` (or junk's
 * list of good entries) is a valid `emitted` or `statuses` that the trigger rightly reads.
 */
const notAList = notANumber.filter((value) => !Array.isArray(value));

/** Junk drawn as one bad entry: a two-element list could be a good entry by chance. */
const notAnEntry = junk.filter((value) => !(Array.isArray(value) && value.length === 2));

/** A report key as the trigger writes it: an id up to 128 characters, prototype-ish ones too. */
const reportKey = fc.oneof(
	fc.string({ minLength: 1, maxLength: 128 }),
	fc.constantFrom('__proto__', 'constructor', 'hasOwnProperty', 'rpt_1'),
);

function validEmitted(now: number) {
	return fc.uniqueArray(fc.tuple(reportKey, fc.integer({ min: now - 3 * DAY, max: now })), {
		maxLength: 50,
		selector: ([key]) => key,
	});
}

/** An `emitted` list that breaks one rule: size, entry shape, key, time, duplicates. */
function badEmitted(now: number): fc.Arbitrary<unknown> {
	const entry = fc.tuple(reportKey, fc.integer({ min: now - DAY, max: now }));
	const oneBad = fc.oneof(
		fc.tuple(fc.string({ minLength: 129, maxLength: 400 }), fc.constant(now)),
		fc.tuple(fc.constant(''), fc.constant(now)),
		fc.tuple(fc.oneof(fc.integer(), fc.constant(null)), fc.constant(now)),
		fc.tuple(
			reportKey,
			fc.oneof(
				badTime(now).filter((t) => Math.abs(t) > 8.64e15 || !Number.isFinite(t)),
				notANumber,
			),
		),
		fc.tuple(reportKey, fc.constant(now), fc.constant(now)),
		fc.tuple(reportKey),
		notAnEntry,
	);
	return fc.oneof(
		// Too many: up to 100,000 entries, right or wrong in shape.
		fc
			.record({ length: fc.integer({ min: 1_001, max: 100_000 }), shaped: fc.boolean() })
			.map(({ length, shaped }) =>
				Array.from({ length }, (_, i) => (shaped ? [`rpt_${i}`, now - i] : { i })),
			),
		// One bad entry among good ones.
		fc.tuple(fc.array(entry, { maxLength: 20 }), oneBad, fc.nat()).map(([entries, bad, at]) => {
			const list: unknown[] = entries.map(([key], i) => [`${key}#${i}`, now - i]);
			list.splice(at % (list.length + 1), 0, bad);
			return list;
		}),
		// The same key twice.
		reportKey.map((key) => [
			[key, now],
			[key, now - 1],
		]),
		// Not a list of entries at all.
		fc.oneof(notAList, fc.dictionary(reportKey, fc.integer())),
	);
}

const accountId = fc.oneof(
	fc.string({ minLength: 1, maxLength: 1_024 }),
	fc.constantFrom('__proto__', 'constructor', 'act_gone'),
);
const accountStatus = fc.oneof(
	fc.constantFrom('active', 'token_expired', 'disconnected', null),
	fc.string({ maxLength: 50 }),
);

function badStatuses(): fc.Arbitrary<unknown> {
	const oneBad = fc.oneof(
		fc.tuple(fc.string({ minLength: 1_025, maxLength: 2_000 }), fc.constant('active')),
		fc.tuple(fc.constant(''), fc.constant('active')),
		fc.tuple(fc.integer(), fc.constant('active')),
		fc.tuple(accountId, fc.oneof(fc.integer(), fc.constant(Number.NaN), fc.boolean())),
		fc.tuple(accountId, fc.string({ minLength: 1_025, maxLength: 2_000 })),
		fc.tuple(accountId),
		notAnEntry,
	);
	return fc.oneof(
		fc
			.record({ length: fc.integer({ min: 100_001, max: 120_000 }), shaped: fc.boolean() })
			.map(({ length, shaped }) =>
				Array.from({ length }, (_, i) => (shaped ? [`act_${i}`, 'active'] : i)),
			),
		fc
			.tuple(fc.array(fc.tuple(accountId, accountStatus), { maxLength: 20 }), oneBad, fc.nat())
			.map(([entries, bad, at]) => {
				const list: unknown[] = entries.map(([id, status], i) => [`${id}#${i}`, status]);
				list.splice(at % (list.length + 1), 0, bad);
				return list;
			}),
		accountId.map((id) => [
			[id, 'active'],
			[id, null],
		]),
		// 0.1.0's layout: an object keyed by id.
		fc.dictionary(accountId, accountStatus, { minKeys: 1 }),
		notAList,
	);
}

/** A lease that keeps no poll out: garbage, expired, or claiming to last far too long. */
function deadLease(now: number): fc.Arbitrary<unknown> {
	return fc.oneof(
		junk,
		fc.record({
			holder: fc.oneof(fc.string(), junk),
			until: fc.oneof(
				badTime(now).filter((t) => !(t > now && t < now + 10 * MINUTE)),
				fc.integer({ min: 0, max: now }),
				notANumber,
			),
		}),
	);
}

/** The wrapper around a state, correct or with junk in one of its fields. */
function wrapped(
	scope: string,
	state: fc.Arbitrary<unknown>,
	now: number,
): fc.Arbitrary<{ value: IDataObject; intact: boolean }> {
	return fc
		.record({
			// Junk may draw 2, the right version: not junk then.
			version: fc.option(
				fc.oneof(
					fc.constantFrom(1, 3, '2', 2.5, -0),
					junk.filter((value) => value !== 2),
				),
				{ freq: 3 },
			),
			scope: fc.option(
				fc.oneof(fc.constantFrom(`${scope} `, scope.toUpperCase(), 'reportFailed:'), junk),
				{ freq: 3 },
			),
			lease: fc.option(deadLease(now), { freq: 2 }),
			state,
		})
		.map((drawn) => {
			const value: IDataObject = {
				// Not `??`: junk draws undefined too, and that is a missing field, not the right one.
				version: (drawn.version === null ? 2 : drawn.version) as IDataObject[string],
				scope: (drawn.scope === null ? scope : drawn.scope) as IDataObject[string],
				state: drawn.state as IDataObject[string],
			};
			if (drawn.lease !== null) value.lease = drawn.lease as IDataObject[string];
			return { value, intact: drawn.version === null && drawn.scope === null };
		});
}

function drawReportState(scope: string, now: number): fc.Arbitrary<Drawn> {
	const goodCursor = fc.integer({ min: now - 3 * DAY, max: now + AHEAD - 10 * MINUTE });
	const state = (cursor: fc.Arbitrary<unknown>, emitted: fc.Arbitrary<unknown>) =>
		fc.record({ cursor, emitted });
	const broken = fc.oneof(
		{
			arbitrary: state(
				fc.oneof({ arbitrary: badTime(now), weight: 3 }, notANumber),
				fc.oneof(validEmitted(now), fc.constant([])),
			),
			weight: 3,
		},
		{ arbitrary: state(goodCursor, badEmitted(now)), weight: 2 },
		junk,
	);
	return fc.oneof(
		// Junk in place of the whole node static data (a string, null, an array, an object).
		junk.map((value) => ({ value, live: true, expect: storable(value) })),
		{
			arbitrary: fc.tuple(wrapped(scope, broken, now), fc.boolean()).map(([{ value }, live]) => ({
				value,
				live,
				expect: 'baseline' as const,
			})),
			weight: 4,
		},
		fc
			.tuple(wrapped(scope, state(goodCursor, validEmitted(now)), now), fc.boolean())
			.map(([{ value, intact }, live]) => ({
				value,
				live,
				expect: intact ? ('read' as const) : ('baseline' as const),
			})),
	);
}

function drawAccountState(now: number): fc.Arbitrary<Drawn> {
	const scope = 'accountConnectionChanged:';
	const goodStatuses = fc.uniqueArray(fc.tuple(accountId, accountStatus), {
		maxLength: 30,
		selector: ([id]) => id,
	});
	return fc.oneof(
		junk.map((value) => ({ value, live: true, expect: storable(value) })),
		{
			arbitrary: fc
				.tuple(
					wrapped(scope, fc.oneof(fc.record({ statuses: badStatuses() }), junk), now),
					fc.boolean(),
				)
				.map(([{ value }, live]) => ({ value, live, expect: 'baseline' as const })),
			weight: 3,
		},
		fc
			.tuple(wrapped(scope, fc.record({ statuses: goodStatuses }), now), fc.boolean())
			.map(([{ value, intact }, live]) => ({
				value,
				live,
				expect: intact ? ('read' as const) : ('baseline' as const),
			})),
	);
}

/**
 * Whether the node can keep state in this value: only in a plain object, as n8n saves it as JSON
 * (an array keeps only its elements, a boxed string its text). undefined: n8n makes a new object,
 * as for a trigger that never stored anything; an object without keys is such a first poll too.
 */
function storable(value: unknown): Drawn['expect'] {
	if (value === undefined) return 'first';
	if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'unstorable';
	const prototype: unknown = Object.getPrototypeOf(value);
	if (prototype !== Object.prototype && prototype !== null) return 'unstorable';
	return Object.keys(value).every((key) => key === 'lease') ? 'first' : 'baseline';
}

function place(t: ActiveTrigger, drawn: Drawn) {
	if (drawn.live) t.placeLiveNodeStaticData(drawn.value);
	else t.seedNodeStaticData(drawn.value as IDataObject);
}

/** Whether the poll said in n8n's log that it records a baseline, not reading stored state. */
function announcedBaseline(result: PollResult): boolean {
	return result.log.some((line) => /new baseline/.test(line.message));
}

/** What a drawn value looks like in a failure message (it may hold 100,000 entries). */
function shown(drawn: Drawn): string {
	let text: string;
	try {
		text = JSON.stringify(drawn.value, (_, v: unknown) =>
			typeof v === 'number' && !Number.isFinite(v) ? String(v) : Object.is(v, -0) ? '-0' : v,
		);
	} catch {
		text = String(drawn.value);
	}
	return `${drawn.expect} ${drawn.live ? 'live' : 'json'} ${text?.slice(0, 300)}`;
}

/** The first poll after the state was placed; it must not throw, whatever was there. */
async function firstPoll(t: ActiveTrigger, drawn: Drawn): Promise<PollResult> {
	try {
		return await t.poll();
	} catch (error) {
		throw new Error(`the poll threw ${String(error)} on ${shown(drawn)}`);
	}
}

function checkAnnouncement(first: PollResult, drawn: Drawn) {
	const context = shown(drawn);
	if (drawn.expect === 'read') {
		expect({ context, log: first.log }).toEqual({ context, log: [] });
	} else if (drawn.expect === 'first') {
		expect({ context, items: first.items }).toEqual({ context, items: null });
	} else {
		expect({ context, announced: announcedBaseline(first) }).toEqual({ context, announced: true });
		expect({ context, items: first.items }).toEqual({ context, items: null });
		expect(first.log.every((line) => line.level === 'warn' || line.level === 'info')).toBe(true);
	}
	if (drawn.expect !== 'unstorable') {
		// What the poll left is the trigger's own layout again.
		expect(first.nodeStaticData).toMatchObject({ version: 2, scope: expect.any(String) });
		expect(first.nodeStaticData.lease).toBeUndefined();
	}
}

describe('stored state drawn by fast-check: a poll never fails, and what the node did not write is a fresh baseline', () => {
	test('Report Completed', async () => {
		const account = service.fake.addAccount({ name: 'Drawn State Co' });
		const filter = account.platformAccountId;
		const scope = `reportCompleted:${filter}`;
		const now = Date.now();
		// Old completions a reader that took the state would flood: within the hour a poll looks
		// back when the cursor is ahead, three days ago, in 2010 and before 2000.
		for (const createdAt of [
			now - 30 * MINUTE,
			now - 3 * DAY,
			Date.UTC(2010, 5, 1),
			Date.UTC(1999, 0, 1),
		]) {
			service.fake.addReports(1, {
				accountId: filter,
				createdAt: iso(createdAt),
				completedAt: iso(createdAt + MINUTE),
			});
		}
		await fc.assert(
			fc.asyncProperty(drawReportState(scope, now), async (drawn) => {
				const t = new ActiveTrigger(
					{ event: 'reportCompleted', filters: { accountId: filter } },
					service.credentials().adPerformanceApi,
				);
				place(t, drawn);
				const first = await firstPoll(t, drawn);
				checkAnnouncement(first, drawn);
				// A state that was read may rightly emit what completed since its cursor.
				expect((await t.poll()).items).toBeNull();
				const stamp = Date.now();
				const [report] = service.fake.addReports(1, {
					accountId: filter,
					createdAt: iso(stamp),
					completedAt: iso(stamp),
				});
				const emitted = ids((await t.poll()).items);
				expect({ context: shown(drawn), emitted }).toEqual({
					context: shown(drawn),
					emitted: drawn.expect === 'unstorable' ? [] : [report.id],
				});
				expect((await t.poll()).items).toBeNull();
			}),
			{
				numRuns: RUNS,
				// The measured break (issue 39): this cursor made every poll fail, for ever.
				examples: [
					[
						{
							value: { version: 2, scope, state: { cursor: -1e16, emitted: [] } },
							live: false,
							expect: 'baseline',
						},
					],
					[
						{
							value: { version: 2, scope, state: { cursor: Number.NaN, emitted: [] } },
							live: true,
							expect: 'baseline',
						},
					],
				],
				...replay,
			},
		);
	}, 120_000);

	test('Account Connection Changed', async () => {
		const now = Date.now();
		let n = 0;
		await fc.assert(
			fc.asyncProperty(drawAccountState(now), async (drawn) => {
				const t = new ActiveTrigger(
					{ event: 'accountConnectionChanged' },
					service.credentials().adPerformanceApi,
				);
				place(t, drawn);
				const first = await firstPoll(t, drawn);
				checkAnnouncement(first, drawn);
				// A snapshot that was read may rightly differ from the accounts: it emits the changes.
				expect((await t.poll()).items).toBeNull();
				const account = service.fake.addAccount({ name: `Drawn Account ${++n}` });
				const changes = ((await t.poll()).items ?? []).map(
					({ json }) => (json.account as IDataObject).id,
				);
				expect({ context: shown(drawn), changes }).toEqual({
					context: shown(drawn),
					changes: drawn.expect === 'unstorable' ? [] : [account.id],
				});
				expect((await t.poll()).items).toBeNull();
			}),
			{ numRuns: RUNS, ...replay },
		);
	}, 120_000);
});
