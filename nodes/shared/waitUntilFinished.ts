import { DeadlineReached, type AdPerformanceClient } from './transport';

/**
 * A look cut by the deadline that began less than this before it had no time to be answered:
 * it says nothing about the service (a sleep may end a hair before the deadline it aimed at).
 */
const LOOK_GRACE_MS = 100;

/**
 * How many complete looks in a row, the last at the Timeout, must miss a job an earlier look
 * showed for it to be taken for deleted (docs/waiting.md): one may be a replica behind the others.
 */
const GONE_AFTER_LOOKS = 2;

interface WaitUntilFinishedOptions<V> {
	/** The ids of everything still awaited. */
	ids: string[];
	intervalMs: number;
	timeoutMs: number;
	/** One look at the service for the pending ids; its requests stop at `deadline`. */
	sweep: (pending: string[], deadline: number) => Promise<Map<string, V>>;
	/** Whether the last sweep's listing was whole (always, when not given: a read by id). */
	listedCompletely?: () => boolean;
	/** Whether a state is final (completed or failed); anything else means "keep waiting". */
	isFinal: (state: V) => boolean;
	/**
	 * When the service expects a job finished (host ms, from its own estimate): a look then,
	 * if it comes before the next beat (one look for each such time at most).
	 */
	expectedAt?: ReadonlyMap<string, number>;
}

export interface WaitUntilFinishedResult<V> {
	/** The last known state of every id (undefined if never seen). */
	states: Map<string, V | undefined>;
	/** Ids that were not final when the wait ended (at the deadline, or taken for deleted). */
	timedOut: string[];
	/**
	 * Whether no look was ever answered, or the last one had time to be and got none: what was
	 * seen before is stale.
	 */
	silent: boolean;
	/** What that last look met before the deadline cut it (DeadlineReached.lastFailure). */
	silentFailure?: Error;
	/** When the wait began (n8n time). */
	startedAt: number;
	/** Whether the last answered look's listing was whole (see listedCompletely). */
	listedCompletely: boolean;
	/** Ids an earlier look showed and the last two complete looks, at the end, no longer held (deleted). */
	gone: Set<string>;
}

/**
 * What a wait saw of one id, the one rule every waiter names its outcome by. `unanswered`: the
 * last look got no answer, whatever an earlier one showed; `deleted`: never "still running".
 */
type WaitOutcome<V> =
	| { kind: 'finished'; state: V }
	| { kind: 'unanswered'; lastSeen?: V; failure?: Error }
	| { kind: 'deleted'; lastSeen: V }
	| { kind: 'running'; state: V }
	| { kind: 'unlisted'; listedCompletely: boolean };

/** The outcomes of a job the last look did not show as it stands. */
export type Unseen<V> = Extract<WaitOutcome<V>, { kind: 'unlisted' | 'unanswered' | 'deleted' }>;

export function outcomeOf<V>(result: WaitUntilFinishedResult<V>, id: string): WaitOutcome<V> {
	const state = result.states.get(id);
	if (state !== undefined && !result.timedOut.includes(id)) return { kind: 'finished', state };
	if (result.silent) return { kind: 'unanswered', lastSeen: state, failure: result.silentFailure };
	if (state !== undefined && result.gone.has(id)) return { kind: 'deleted', lastSeen: state };
	return state === undefined
		? { kind: 'unlisted', listedCompletely: result.listedCompletely }
		: { kind: 'running', state };
}

/** A wait's verdict on one job as its node or tool presents it: done, or pending at the Timeout. */
export type Verdict<V> = { kind: 'done'; state: V } | { kind: 'pending'; state: V };

/**
 * The verdict of every wait: done, pending, or the error named for what was seen. `unseen` may
 * instead give what to present as pending (a diagnostic its read still lags behind).
 */
export function verdictOf<V extends { status?: unknown }>(
	result: WaitUntilFinishedResult<V>,
	id: string,
	on: {
		unseen: (outcome: Unseen<V>) => Error | V;
		failed: (state: V) => Error;
	},
): Verdict<V> {
	const outcome = outcomeOf(result, id);
	if (outcome.kind !== 'running' && outcome.kind !== 'finished') {
		const unseen = on.unseen(outcome);
		if (unseen instanceof Error) throw unseen;
		return { kind: 'pending', state: unseen };
	}
	if (outcome.kind === 'running') return { kind: 'pending', state: outcome.state };
	if (outcome.state.status === 'failed') throw on.failed(outcome.state);
	return { kind: 'done', state: outcome.state };
}

/**
 * Waits for many jobs with one sweep per interval for all: the first at once, the next on a
 * fixed beat from the start (a slow sweep does not stretch it), the last at the deadline, where a
 * sweep still running is cut (the timeout holds even when the service is slow).
 */
export async function waitUntilFinished<V>(
	client: AdPerformanceClient,
	options: WaitUntilFinishedOptions<V>,
): Promise<WaitUntilFinishedResult<V>> {
	const started = Date.now();
	const deadline = started + options.timeoutMs;
	const states = new Map<string, V | undefined>(options.ids.map((id) => [id, undefined]));
	let pending = [...options.ids];
	let answered = false;
	let listedCompletely = true;
	let silent = false;
	let silentFailure: Error | undefined;
	/** Complete looks in a row that no longer held an id an earlier look showed. */
	const missing = new Map<string, number>();
	const expected = new Map(options.expectedAt);
	for (let beat = 1; pending.length > 0; ) {
		let seen: Map<string, V> | undefined;
		let failure: unknown;
		const lookedAt = Date.now();
		try {
			seen = await options.sweep(pending, deadline);
		} catch (error) {
			failure = error;
		}
		// Cut at the deadline: what is pending timed out, and if the look had time, it went unanswered.
		if (failure instanceof DeadlineReached) {
			silent = lookedAt < deadline - LOOK_GRACE_MS;
			silentFailure = failure.lastFailure;
			break;
		}
		if (seen === undefined) throw failure;
		answered = true;
		listedCompletely = options.listedCompletely?.() ?? true;
		for (const [id, state] of seen) states.set(id, state);
		for (const id of pending) {
			if (seen.has(id) || states.get(id) === undefined) missing.delete(id);
			// Only a whole listing's silence says it is gone; a partial one says nothing.
			else if (listedCompletely) missing.set(id, (missing.get(id) ?? 0) + 1);
		}
		pending = pending.filter((id) => {
			const state = states.get(id);
			return state === undefined || !options.isFinal(state);
		});
		if (pending.length === 0) break;
		const now = Date.now();
		if (now >= deadline) break;
		// An estimate this look came after is spent; the next comes before the beat, or is not used.
		for (const [id, at] of expected)
			if (at <= lookedAt || !pending.includes(id)) expected.delete(id);
		const nextBeat = started + beat * options.intervalMs;
		const soonest = Math.min(nextBeat, deadline, ...expected.values());
		if (soonest === nextBeat) beat++;
		await client.waiting.wait(Math.max(0, soonest - now));
	}
	return {
		states,
		// A job taken for deleted is not finished: it is among those not final at the end.
		timedOut: pending,
		silent: silent || !answered,
		silentFailure,
		startedAt: started,
		listedCompletely,
		// Judged only at the end: before the Timeout a missing job is waited for (reads lag).
		gone: new Set(pending.filter((id) => (missing.get(id) ?? 0) >= GONE_AFTER_LOOKS)),
	};
}
