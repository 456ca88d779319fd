/**
 * The loop of attempts (attempts.ts): a run of attempts cut by its deadline carries what its last
 * failed attempt met on the DeadlineReached it throws, so the item that ran it, and only that
 * item, can say what it saw (#39: nothing travels beside the item, in the client).
 */
import { fc, test as fcTest } from '@fast-check/jest';

import { DeadlineReached } from '../../nodes/shared/errors';
import { runAttempts, type Attempt, type RetryParts } from '../../nodes/shared/transport/attempts';

type Step = 'retry' | 'ambiguous' | 'scheduled' | 'notYet';

function partsCutAfter(waits: number): RetryParts {
	let waited = 0;
	return {
		maxAttempts: 100,
		rateLimitWaitMs: 60_000,
		clock: { realMs: (ms: number) => ms / 1000 },
		waiting: {
			throwIfCancelled: () => undefined,
			waitWithin: async () => {
				if (++waited > waits) throw new DeadlineReached();
			},
		},
	};
}

describe('runAttempts', () => {
	fcTest.prop([
		fc.array(fc.constantFrom<Step>('retry', 'ambiguous', 'scheduled', 'notYet'), {
			minLength: 1,
			maxLength: 12,
		}),
		fc.nat({ max: 12 }),
	])(
		'a deadline that cuts the run carries the error of its last failed attempt',
		async (steps, cutAfterWaits) => {
			const errors = steps.map((step, index) => new Error(`${step} ${index}`));
			let index = 0;
			const attempt = async (): Promise<Attempt<string>> => {
				const at = index++;
				if (at >= steps.length) return { kind: 'done', value: 'done' };
				const error = errors[at];
				const failed = { error, sentAt: 0, waitMs: 1, last: false };
				if (steps[at] === 'retry') return { kind: 'retry', ...failed };
				if (steps[at] === 'ambiguous') return { kind: 'ambiguous', ...failed };
				if (steps[at] === 'notYet') return { kind: 'notYet', ...failed };
				return { kind: 'scheduled', ...failed, countsAsFailure: false };
			};
			const outcome = await runAttempts(partsCutAfter(cutAfterWaits), attempt, {
				deadline: Infinity,
			}).catch((error: unknown) => error);
			if (cutAfterWaits >= steps.length) {
				expect(outcome).toBe('done');
				return;
			}
			expect(outcome).toBeInstanceOf(DeadlineReached);
			// The wait after attempt k (0-based) was cut: attempt k's error is what was last met.
			expect((outcome as DeadlineReached).lastFailure).toBe(errors[cutAfterWaits]);
		},
	);
});
