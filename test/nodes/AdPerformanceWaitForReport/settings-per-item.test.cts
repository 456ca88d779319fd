/**
 * The one rule of the wait settings (waitForReports.ts, readWaitInput), in both nodes that wait
 * for reports: Poll Interval and Timeout are read per item, as every field is. fast-check draws
 * each item's values as an expression gives them (valid, or refused: out of range, not a number)
 * and which node waits (Wait for Ad Report, or Report → Generate with Wait for Completion); run
 * through n8n's engine against the sandbox with Continue On Fail, an item with a bad value fails
 * alone, naming the field, and every other item outputs its finished report and file. Before, Wait
 * for Ad Report read item 0's settings: a bad Poll Interval there failed every item.
 * `FC_SETTINGS_RUNS` sets the budget (8 cases); `FC_SEED=… FC_PATH=…` replays a failure.
 */
import { fc, test as fcTest } from '@fast-check/jest';

import { adNode, apiRequests, rl, run, useFakeService, WAIT_NODE } from '../helpers.cjs';

const RUNS = Number(process.env.FC_SETTINGS_RUNS ?? 8);
const replay = process.env.FC_SEED
	? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH }
	: {};

const service = useFakeService({ timeScale: 0.01 });

/** A value as an item's expression gives it, and the error it must get when it is refused. */
const pollInterval = fc.oneof(
	fc.constantFrom(0.1, 0.2, '0.1').map((value) => ({ value, refused: undefined })),
	fc
		.constantFrom(0, -1, 3601, 'soon')
		.map((value) => ({ value, refused: /^Poll Interval \(Seconds\): .* is not a number/ })),
);
const timeout = fc.oneof(
	fc.constantFrom(30, '30', 60).map((value) => ({ value, refused: undefined })),
	fc
		.constantFrom(0, -5, 86_401, 'long')
		.map((value) => ({ value, refused: /^Timeout \(Seconds\): .* is not a number/ })),
);
const item = fc.record({ poll: pollInterval, timeout });

jest.setTimeout(60_000 + RUNS * 10_000);

describe('the wait settings are read per item, in both nodes', () => {
	fcTest.prop([fc.boolean(), fc.array(item, { minLength: 2, maxLength: 4 })], {
		numRuns: RUNS,
		...replay,
	})(
		'an item with a bad Poll Interval or Timeout fails alone; every other item gets its report',
		async (viaGenerate, drawn) => {
			service.fake.resetLimits();
			const account = service.fake.accounts().find((a) => a.connectionStatus === 'active')!;
			const completed = service.fake.reports().filter((r) => r.status === 'completed');
			const items = drawn.map((each, index) => ({
				id: completed[index % completed.length].id,
				title: `Settings ${index + 1}`,
				poll: each.poll.value,
				timeout: each.timeout.value,
			}));
			const wait = {
				pollIntervalSeconds: '={{ $json.poll }}',
				timeoutSeconds: '={{ $json.timeout }}',
			};
			const node = viaGenerate
				? adNode(
						{
							resource: 'report',
							operation: 'generate',
							accountId: rl(account.platformAccountId),
							title: '={{ $json.title }}',
							dateStart: '2026-11-09',
							dateEnd: '2026-11-15',
							waitForCompletion: true,
							...wait,
						},
						{ continueOnFail: true },
					)
				: { name: 'Wait', type: WAIT_NODE, parameters: wait, continueOnFail: true };
			const result = await run(service, [node], { items });

			expect(result.error).toBeUndefined();
			expect(result.items.map((output) => output.pairedItem)).toEqual(
				drawn.map((_, index) => ({ item: index })),
			);
			drawn.forEach((each, index) => {
				const output = result.items[index];
				// Poll Interval is read first: its error is the item's when both are bad.
				const refused = each.poll.refused ?? each.timeout.refused;
				if (refused) {
					expect(output.json.error).toMatch(refused);
					expect(output.binary).toBeUndefined();
				} else {
					expect(output.json.error).toBeUndefined();
					expect(output.json.status).toBe('completed');
					expect(output.binary?.data?.mimeType).toBeDefined();
				}
			});
			// A refused item sends nothing: Generate posts only the others' reports.
			if (viaGenerate) {
				const posts = apiRequests(service, { method: 'POST' }).filter((r) => r.status === 202);
				expect(posts).toHaveLength(
					drawn.filter((each) => !each.poll.refused && !each.timeout.refused).length,
				);
			}
		},
	);
});
