/**
 * Races (#30), driven by fast-check's scheduler: 2–5 executions of Report → Generate on one key
 * in one process, some with identical requests (which share one POST while it is in flight),
 * each with a Stop. The scheduler decides the order of everything that races: when each
 * execution starts, when each Stop is pressed, and when the service's answer to each POST is
 * let through (the fake holds it until the scheduler releases it). Whatever the order:
 *   - an execution that was not stopped outputs a report of its own title;
 *   - no title gets more reports than executions asked for it (identical requests in flight at
 *     once share one);
 *   - a stopped execution ends as cancelled or finished, and nothing fails as unreachable;
 *   - every case ends within its bound.
 * A failure prints its seed and the scheduler's order; `FC_SEED=… FC_PATH=…` replays it.
 */
import fc from 'fast-check';

import { runWorkflow, type RunWorkflowResult } from '../harness/run-workflow.cjs';
import { adNode, generateParameters, rl } from '../nodes/helpers.cjs';
import { acmeOf, freshService } from './matrix.cjs';

const RUNS = Number(process.env.FC_RACE_RUNS ?? 30);
const replay = process.env.FC_SEED
	? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH }
	: {};
const CASE_BOUND_MS = 20_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test(
	`races between executions on one key, ordered by fast-check's scheduler: ${RUNS} cases`,
	async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.scheduler(),
				fc.array(fc.record({ title: fc.constantFrom('A', 'B'), stops: fc.boolean() }), {
					minLength: 2,
					maxLength: 5,
				}),
				fc.integer({ min: 1, max: 1_000_000 }),
				async (s, executions, seed) => {
					const service = await freshService(seed, { timeScale: 0.01 });
					try {
						const account = acmeOf(service.fake).platformAccountId;
						const titleOf = (title: string) => `Race ${seed} ${title}`;
						service.fake.intercept({
							method: 'POST',
							pathPrefix: '/v1/reports',
							// The work is done when the request arrives; the answer waits for the scheduler.
							respond: async (request, real) => {
								const reply = real();
								const { title } = request.body as { title: string };
								await s.schedule(Promise.resolve(), `answer to a POST for ${title}`);
								return { reply };
							},
						});
						const started = Date.now();
						const runs: Array<Promise<RunWorkflowResult>> = executions.map(
							async ({ title, stops }, index) => {
								await s.schedule(Promise.resolve(), `start execution ${index} (${title})`);
								return await runWorkflow({
									credentials: service.credentials(),
									nodes: [
										adNode(generateParameters({ accountId: rl(account), title: titleOf(title) })),
									],
									cancelWhen: stops
										? s.schedule(Promise.resolve(), `stop execution ${index}`)
										: undefined,
								});
							},
						);
						// Answers arrive over real HTTP: keep releasing what is scheduled until all end.
						let settled = false;
						const all = Promise.all(runs).finally(() => (settled = true));
						while (!settled) {
							await s.waitAll();
							await sleep(5);
						}
						const results = await all;
						expect(Date.now() - started).toBeLessThan(CASE_BOUND_MS);
						for (const [index, result] of results.entries()) {
							const { title, stops } = executions[index];
							const status = result.run.status;
							if (!stops) expect(result.error?.message).toBeUndefined();
							if (status === 'canceled') {
								expect(stops).toBe(true);
								continue;
							}
							expect(result.error?.message).toBeUndefined();
							const reportId = result.items[0]?.json.id;
							const report = service.fake.reports().find((r) => r.id === reportId);
							expect(report?.title).toBe(titleOf(title));
						}
						for (const title of ['A', 'B']) {
							const asked = executions.filter((e) => e.title === title).length;
							const made = service.fake.reports().filter((r) => r.title === titleOf(title)).length;
							expect(made).toBeLessThanOrEqual(asked);
						}
					} finally {
						service.fake.clearIntercepts();
						await service.fake.stop();
					}
				},
			),
			{ numRuns: RUNS, ...replay },
		);
	},
	60_000 + RUNS * 10_000,
);
