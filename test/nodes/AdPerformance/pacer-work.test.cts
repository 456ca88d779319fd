/**
 * Report → Generate tells the key's pacer how many generations its execution has still to send
 * (RateLimiter.expect): in queue mode a worker about to run out lets one with more work open
 * the next window (docs/running-at-scale.md). Run through n8n's engine against the sandbox:
 * at every POST the service receives, the pacer expects the items not yet done, this one
 * included; an item whose input is refused is never expected, one the service refuses is done,
 * and nothing is left expected once the execution ends.
 */
import { fc, test as fcTest } from '@fast-check/jest';

import { pacerFor } from '../../../nodes/shared/transport/rateLimiter';
import { adNode, rl, run, useFakeService } from '../helpers.cjs';

const TIME_SCALE = 0.01;
const service = useFakeService({ timeScale: TIME_SCALE });

/** The pacer the nodes use for the fake's key (pacerFor: one per Base URL, key and window). */
function pacer() {
	const clock = { now: () => Date.now(), random: () => Math.random() };
	return pacerFor(service.fake.url, service.fake.keys.live, 60_000 * TIME_SCALE, clock);
}

describe('Report → Generate tells the key’s pacer the generations still to come', () => {
	// Each item: its input is valid or refused before any request, and the service accepts its
	// POST or answers 400 (with no retry).
	const item = fc.record({ validInput: fc.boolean(), serviceRefuses: fc.boolean() });

	fcTest.prop([fc.array(item, { minLength: 1, maxLength: 6 })], { numRuns: 12 })(
		'the items not yet done, at every POST; none once the execution ends',
		async (items) => {
			service.fake.resetLimits();
			// What the execution told the pacer (RateLimiter.expect) since this run began.
			const told = jest.spyOn(pacer().limiter, 'expect');
			const expecting = () =>
				told.mock.calls
					.filter(([bucket]) => bucket === 'generation')
					.reduce((sum, [, change]) => sum + change, 0);
			const valid = items.filter((each) => each.validInput);
			const seen: number[] = [];
			let posted = 0;
			const release = service.fake.intercept({
				method: 'POST',
				pathPrefix: '/v1/reports',
				respond: () => {
					seen.push(expecting());
					if (!valid[posted++]?.serviceRefuses) return undefined;
					return {
						status: 400,
						json: { error: { type: 'invalid_request', message: 'Refused by the test.' } },
					};
				},
			});
			try {
				const result = await run(
					service,
					[
						adNode(
							{
								resource: 'report',
								operation: 'generate',
								accountId: rl('act_123456789012345'),
								title: 'Pacer work',
								dateStart: '2026-10-01',
								dateEnd: '={{ $json.dateEnd }}',
								additionalFields: {},
							},
							{ onError: 'continueRegularOutput' },
						),
					],
					{
						items: items.map((each) => ({
							dateEnd: each.validInput ? '2026-10-07' : '2026-09-01',
						})),
					},
				);
				expect(result.error).toBeUndefined();
			} finally {
				release();
				told.mockRestore();
			}
			expect(seen).toEqual(valid.map((_, index) => valid.length - index));
			expect(expecting()).toBe(0);
		},
	);
});
