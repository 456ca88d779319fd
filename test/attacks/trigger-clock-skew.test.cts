/**
 * Attack: the service's clock days off n8n's, drawn by fast-check. The trigger's cursor is in the
 * service's time, so it is judged by the service's clock and never by n8n's: with the service
 * three days ahead, a cursor three days past n8n's clock is the trigger's own, not junk to
 * refuse (before, every poll refused it and started a new baseline: the trigger never emitted).
 *
 * Each run draws a skew (± days, hours, or none), the event (Report Completed or Failed) and
 * rounds of reports completing between polls (done at once, still generating, of the other
 * status; finished seconds to minutes before the poll), an n8n restart between polls (the static
 * data read back through JSON) and how long each round lasts. Old reports, finished before the
 * first poll, wait in the account: a few from 30 minutes to 5 days before it, and maybe more than
 * the trigger remembers (1,050 in the 17 hours before it). Then:
 *   - every report of the watched status that finished after the first poll is emitted, once;
 *   - none of the old ones is ever emitted (nothing replayed), and no poll fails;
 *   - no poll announces a baseline after the first.
 *
 * Budget: FC_SKEW_RUNS runs (`npm test` runs 12). A failure prints the seed and path;
 * `FC_SEED=… FC_PATH=…` replays it.
 */
import fc from 'fast-check';

import {
	ActiveTrigger,
	ids,
	type PollResult,
} from '../nodes/AdPerformanceTrigger/poll-harness.cjs';
import { useFakeService } from '../nodes/helpers.cjs';

const service = useFakeService({ timeScale: 0.01, limits: { read: 100_000 } });
afterEach(() => service.fake.setClockOffset(0));

const RUNS = Number(process.env.FC_SKEW_RUNS ?? 12);
const replay = process.env.FC_SEED
	? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH }
	: {};

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A report generates for 15 service seconds: 150 ms at this time scale. */
const GENERATION_MS = 150;

const skew = fc.oneof(
	fc.constantFrom(3 * DAY, -3 * DAY, DAY + HOUR, -(DAY + HOUR), 0),
	fc.integer({ min: -5 * DAY, max: 5 * DAY }),
	fc.integer({ min: -2 * HOUR, max: 2 * HOUR }),
);

/** What happens in the service between two polls. */
const round = fc.record({
	/** Finished, of the watched status, `agoMs` ago. */
	done: fc.nat({ max: 2 }),
	/**
	 * Service ms before the poll that the round's finished reports finished: a list whose newest
	 * record is seconds old does not confirm the Date header, so n8n's clock stands beside it.
	 * Within the 5 minutes a record may be listed later than its time says.
	 */
	agoMs: fc.oneof(fc.constant(0), fc.integer({ min: 3_000, max: 4 * MINUTE })),
	/** Created now, finished about GENERATION_MS later (so maybe after the next poll). */
	generating: fc.nat({ max: 2 }),
	/** Finished `agoMs` ago, of the status not watched. */
	other: fc.nat({ max: 1 }),
	/** n8n restarts before the poll: its static data comes back through JSON. */
	restart: fc.boolean(),
	/** Real ms before the poll. */
	waitMs: fc.integer({ min: 0, max: 2 * GENERATION_MS }),
});

test('a service clock days off n8n’s: every finished report emitted once, nothing old replayed', async () => {
	let runs = 0;
	await fc.assert(
		fc.asyncProperty(
			skew,
			fc.constantFrom('reportCompleted' as const, 'reportFailed' as const),
			fc.array(round, { minLength: 2, maxLength: 5 }),
			// A report generating at the first poll: its fresh record confirms the Date header, so
			// the baseline looks back an hour of the service's time only.
			fc.boolean(),
			// More old reports than the trigger remembers (1,000): they must stay behind its cursor.
			fc.boolean(),
			async (skewMs, event, rounds, busyAtStart, burst) => {
				service.fake.setClockOffset(skewMs);
				const serviceNow = () => Date.now() + skewMs;
				const account = service.fake.addAccount({ name: `Skewed ${++runs}` }).platformAccountId;
				const watched = event === 'reportFailed' ? 'failed' : 'completed';
				const unwatched = watched === 'failed' ? 'completed' : 'failed';
				// A finished report generated for 15 service seconds and finished at `at` (the fake
				// fails a report 15 s after its creation); a generating one was created at `at`.
				const add = (status: 'completed' | 'failed' | 'generating', at = serviceNow()) =>
					service.fake.addReports(1, {
						accountId: account,
						status,
						createdAt: iso(status === 'generating' ? at : at - 15_000),
						...(status === 'completed' ? { completedAt: iso(at) } : {}),
					})[0];
				// What an n8n-clock reading would take for new: minutes to days before the service's now.
				const old = [30 * MINUTE, 2 * HOUR, DAY, 3 * DAY, 5 * DAY].flatMap((ago) => [
					add(watched, serviceNow() - ago).id,
					add(unwatched, serviceNow() - ago).id,
				]);
				// One a minute, finished, over the last 17 hours and a half.
				if (burst)
					old.push(
						...service.fake
							.addReports(1_050, { accountId: account, status: watched })
							.map((report) => report.id),
					);
				const t = new ActiveTrigger(
					{ event, filters: { accountId: account } },
					service.credentials().adPerformanceApi,
				);
				const expected: string[] = [];
				if (busyAtStart) {
					const report = add('generating');
					if (watched === 'completed') expected.push(report.id);
				}
				const polls: PollResult[] = [await t.poll()];
				for (const step of rounds) {
					const at = serviceNow() - step.agoMs;
					for (let i = 0; i < step.done; i++) expected.push(add(watched, at).id);
					for (let i = 0; i < step.generating; i++) {
						const report = add('generating');
						// The fake decides its fate: completed unless scripted to fail.
						if (watched === 'completed') expected.push(report.id);
					}
					for (let i = 0; i < step.other; i++) add(unwatched, at);
					await sleep(step.waitMs);
					if (step.restart) t.restart();
					polls.push(await t.poll());
				}
				// Whatever still generates finishes, and two more polls collect it.
				await sleep(2 * GENERATION_MS);
				polls.push(await t.poll(), await t.poll());

				const emitted = polls.flatMap((poll) => ids(poll.items));
				const context = { skewMs, event, rounds, busyAtStart, burst };
				expect({ context, emitted: [...emitted].sort() }).toEqual({
					context,
					emitted: [...expected].sort(),
				});
				expect(emitted.filter((id) => old.includes(id))).toEqual([]);
				const baselines = polls
					.slice(1)
					.flatMap((poll) => poll.log.filter((line) => /new baseline/.test(line.message)));
				expect({ context, baselines }).toEqual({ context, baselines: [] });
			},
		),
		{
			numRuns: RUNS,
			// The measured break (issue 49): three days ahead, the trigger never emitted.
			examples: [
				[
					3 * DAY,
					'reportCompleted',
					[
						{ done: 1, agoMs: 0, generating: 1, other: 0, restart: false, waitMs: 0 },
						{ done: 1, agoMs: 0, generating: 0, other: 1, restart: true, waitMs: 200 },
					],
					false,
					false,
				],
			],
			...replay,
		},
	);
}, 120_000);
