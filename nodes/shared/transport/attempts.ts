import { DeadlineReached } from '../errors';
import type { CancellableWait } from './cancellableWait';
import type { Decision, Round } from './retry';

/** What the loop needs of the client (pipeline.ts's parts have them: no import back). */
export interface RetryParts {
	maxAttempts: number;
	/** How long, in real ms, one request may wait for the rate limit (its turn or 429s). */
	rateLimitWaitMs: number;
	clock: Pick<Round, 'realMs'>;
	waiting: Pick<CancellableWait, 'throwIfCancelled' | 'waitWithin'>;
}

/** What one attempt came to: done, or `decide`'s judgement of its failure, with its error. */
export type Attempt<T> =
	| { kind: 'done'; value: T; sentAt?: number }
	| (Exclude<Decision, { kind: 'done' }> & { error: Error; sentAt: number });

/** The attempt `decide`'s decision makes of a failure (never judged done: if so, it is final). */
export function failedAttempt<T>(decision: Decision, error: Error, sentAt: number): Attempt<T> {
	return decision.kind === 'done'
		? { kind: 'final', error, sentAt }
		: { ...decision, error, sentAt };
}

export interface AttemptRules<T> {
	/** n8n time at which waiting stops with DeadlineReached (every run of attempts has one). */
	deadline: number;
	/**
	 * Called after a failed attempt, once its backoff is over and before anything is sent again
	 * (and once more when no attempt is left), once an ambiguous attempt was made, with when the
	 * first was sent: what it finds ends the run, undefined sends again.
	 */
	onAmbiguous?: (firstSentAt: number) => Promise<T | undefined>;
}

/**
 * The loop of every run of attempts: it carries out what `decide` judged of each attempt, counts
 * the round and cuts every wait at the deadline and on cancel. It judges nothing itself.
 */
export async function runAttempts<T>(
	parts: RetryParts,
	attempt: (round: Round) => Promise<Attempt<T>>,
	rules: AttemptRules<T>,
): Promise<T> {
	const { waiting, clock } = parts;
	const round: Round = {
		failures: 0,
		maxAttempts: parts.maxAttempts,
		scheduled: 0,
		notYet: 0,
		rateLimitDeadline: Date.now() + parts.rateLimitWaitMs,
		realMs: (ms) => clock.realMs(ms),
	};
	let firstSentAt: number | undefined;
	/** What the last failed attempt met: the deadline's error carries it to the item's message. */
	let lastFailure: Error | undefined;
	return await attemptUntilDone().catch((failure: unknown) => {
		if (failure instanceof DeadlineReached) failure.lastFailure ??= lastFailure;
		throw failure;
	});

	async function attemptUntilDone(): Promise<T> {
		for (;;) {
			waiting.throwIfCancelled();
			const outcome = await attempt(round);
			if (outcome.kind === 'done') return outcome.value;
			lastFailure = outcome.error;
			if (outcome.kind === 'final') throw outcome.error;
			// A not-yet wait is bounded by its request, not by Max Attempts or 429s.
			if (outcome.kind === 'notYet' || outcome.kind === 'scheduled') {
				if (outcome.kind === 'notYet') round.notYet++;
				if (outcome.kind === 'scheduled') {
					round.scheduled++;
					if (outcome.countsAsFailure) round.failures++;
				}
				await waiting.waitWithin(outcome.waitMs, rules.deadline);
				continue;
			}
			round.failures++;
			if (outcome.kind === 'ambiguous') firstSentAt ??= outcome.sentAt;
			if (!outcome.last) await waiting.waitWithin(outcome.waitMs, rules.deadline);
			if (firstSentAt !== undefined && rules.onAmbiguous) {
				const found = await rules.onAmbiguous(firstSentAt);
				if (found !== undefined) return found;
			}
			if (outcome.last) throw outcome.error;
		}
	}
}
