import { DeadlineReached } from '../errors';
import type { CancellableWait } from './cancellableWait';
import { backoffMs, inRound, type Decision } from './retry';
import type { ServiceClock } from './serviceClock';

/** What the retry loop needs of the client (pipeline.ts's parts have them: no import back). */
export interface RetryParts {
	maxAttempts: number;
	/** How long, in real ms, one request may wait for the rate limit (its turn or 429s). */
	rateLimitWaitMs: number;
	clock: Pick<ServiceClock, 'realMs'>;
	waiting: Pick<CancellableWait, 'throwIfCancelled' | 'waitWithin'>;
}

/** What one attempt came to (pipeline.ts classifies an exchange into one of these). */
export type Attempt<T> =
	| { kind: 'done'; value: T; sentAt?: number }
	/** Not done (a read's 5xx, a dropped connection): again after a backoff, or the service's Retry-After when longer. */
	| { kind: 'retry'; error: Error; retryAfterMs?: number }
	/** Perhaps done (a write's 5xx, lost or garbled answer): look for it (`onAmbiguous`) before sending again. */
	| { kind: 'ambiguous'; error: Error; sentAt: number; retryAfterMs?: number }
	/** Not done, and the service's rate limit said when to come back (429). */
	| { kind: 'scheduled'; error: Error; waitMs: number; countsAsFailure: boolean }
	/** Not done yet (a file on its way, a lost attempt's diagnostic): no failure and no 429. */
	| { kind: 'notYet'; error: Error; waitMs: number }
	/** The answer: thrown as it is. */
	| { kind: 'final'; error: Error };

/**
 * The attempt a decision of the table (retry.ts, decide) makes of a failure (`sentAt`: when the
 * request that may have done the work was sent). Schedules are built where their wait is known.
 */
export function failedAttempt<T>(
	decision: Decision,
	error: Error,
	sentAt: number,
	retryAfterMs?: number,
): Attempt<T> {
	if (decision === 'retry') return { kind: 'retry', error, retryAfterMs };
	if (decision === 'search') return { kind: 'ambiguous', error, sentAt, retryAfterMs };
	return { kind: 'final', error };
}

/** Where a run of attempts stands, for the attempt that comes next. */
export interface Round {
	/** Attempts that failed so far: this attempt is number `failures + 1` of Max Attempts. */
	failures: number;
	/** Times the service scheduled us (429) so far: the floor of the next wait grows with it. */
	scheduled: number;
	/** "Not yet" answers so far: the next not-yet wait backs off with it (retry.ts). */
	notYet: number;
	/** n8n time after which a rate-limit wait no longer fits Max Wait When Rate Limited. */
	rateLimitDeadline: number;
}

export interface AttemptRules<T> {
	/** n8n time at which waiting stops with DeadlineReached (every run of attempts has one). */
	deadline: number;
	/**
	 * Called after an ambiguous attempt, once its backoff is over and before anything is sent
	 * again (and once more when no attempt is left), with when the first ambiguous attempt was
	 * sent: what it finds ends the run, undefined sends again.
	 */
	onAmbiguous?: (firstSentAt: number) => Promise<T | undefined>;
}

/**
 * The one retry loop, of every request and every operation of several requests per attempt
 * (Generate, a diagnostic, a download): at most Max Attempts failed attempts, rate-limit waits
 * within Max Wait When Rate Limited, every wait cut at the deadline and on cancel.
 */
export async function runAttempts<T>(
	parts: RetryParts,
	attempt: (round: Round) => Promise<Attempt<T>>,
	rules: AttemptRules<T>,
): Promise<T> {
	const { maxAttempts, waiting, clock, rateLimitWaitMs } = parts;
	const round: Round = {
		failures: 0,
		scheduled: 0,
		notYet: 0,
		rateLimitDeadline: Date.now() + rateLimitWaitMs,
	};
	let firstSentAt: number | undefined;
	/** What the last failed attempt met: the deadline's error carries it to the item's message. */
	let lastFailure: Error | undefined;
	let failure: unknown;
	try {
		return await attemptUntilDone();
	} catch (error) {
		failure = error;
	}
	if (failure instanceof DeadlineReached) failure.lastFailure ??= lastFailure;
	throw failure as Error;

	async function attemptUntilDone(): Promise<T> {
		for (;;) {
			waiting.throwIfCancelled();
			const outcome = await attempt(round);
			if (outcome.kind === 'done') return outcome.value;
			lastFailure = outcome.error;
			if (outcome.kind === 'final') throw outcome.error;
			// A not-yet wait is bounded by its request (pipeline.ts), not by Max Attempts or 429s.
			if (outcome.kind === 'notYet') round.notYet++;
			if (outcome.kind === 'scheduled') {
				round.scheduled++;
				if (outcome.countsAsFailure && ++round.failures >= maxAttempts) throw outcome.error;
			}
			if (outcome.kind === 'notYet' || outcome.kind === 'scheduled') {
				await waiting.waitWithin(outcome.waitMs, rules.deadline);
				continue;
			}
			if (outcome.kind === 'ambiguous') firstSentAt ??= outcome.sentAt;
			const retryAfterMs = outcome.retryAfterMs ?? 0;
			const backoff = clock.realMs(backoffMs(round.failures + 1, Math.random()));
			// A Retry-After past Max Wait When Rate Limited cannot be honoured: this was the last try.
			// Without one, time spent so far takes no retry away (Max Wait 0 means "never wait for
			// the rate limit", not "never retry"). The table's round rule says which (retry.ts).
			const next = inRound(outcome.kind === 'ambiguous' ? 'search' : 'retry', {
				lastAttempt: ++round.failures >= maxAttempts,
				waitTooLong: retryAfterMs > 0 && Date.now() + retryAfterMs > round.rateLimitDeadline,
			});
			const lastTry = next === 'final' || next === 'lastSearch';
			if (!lastTry) await waiting.waitWithin(Math.max(backoff, retryAfterMs), rules.deadline);
			if (firstSentAt !== undefined && rules.onAmbiguous) {
				const found = await rules.onAmbiguous(firstSentAt);
				if (found !== undefined) return found;
			}
			if (lastTry) throw outcome.error;
		}
	}
}
