import { DeadlineReached, type AdPerformanceClient } from './transport';

/**
 * A look cut by the deadline that began less than this before it had no time to be answered:
 * it says nothing about the service (a sleep may end a hair before the deadline it aimed at).
 */
const LOOK_GRACE_MS = 100;

export interface WaitUntilFinishedOptions<V> {
	/** The ids of everything still awaited. */
	ids: string[];
	intervalMs: number;
	timeoutMs: number;
	/**
	 * One look at the service for the given pending ids; returns what it learnt. Its requests
	 * must stop at `deadline` (the client throws DeadlineReached there).
	 */
	sweep: (pending: string[], deadline: number) => Promise<Map<string, V>>;
	/**
	 * Whether the last sweep's listing was whole (a list read while it changed, or that
	 * contradicted itself, is not): an id it did not hold is then not "not found". Always, when
	 * not given (a read by id).
	 */
	listedCompletely?: () => boolean;
	/** Whether a state is final (completed or failed); anything else means "keep waiting". */
	isFinal: (state: V) => boolean;
}

export interface WaitUntilFinishedResult<V> {
	/** The last known state of every id (undefined if never seen). */
	states: Map<string, V | undefined>;
	/** Ids that were not final when the deadline passed. */
	timedOut: string[];
	/**
	 * Whether some sweep got a whole answer. Without one, an id never seen was never looked
	 * for either: not "not found", but what the failed requests showed (see outcomeOf).
	 */
	answered: boolean;
	/**
	 * When the wait's last look began, if that look got no answer (cut at the deadline after
	 * its requests failed or hung): whatever was seen before it is not how things stand now.
	 * Undefined when the last look with time to be answered was answered.
	 */
	silentSince?: number;
	/** When the wait began (n8n time). */
	startedAt: number;
	/** Whether the last answered look's listing was whole (see listedCompletely). */
	listedCompletely: boolean;
}

/**
 * What a wait saw of one id, named for what was observed (issue #26, item 3). The one rule
 * every waiter (Wait for Ad Report and its tool, Diagnostic → Run and its tool) names its
 * outcome by:
 *   - `finished`: an answer showed it final (completed or failed);
 *   - `unanswered`: the last look got no answer: the service could not be reached or did not
 *     answer in time (TransportErrors.unanswered says which), whatever an earlier look showed;
 *   - `running`: the last look was answered, and the answer showed it not finished;
 *   - `unlisted`: the last look was answered, and the answer did not hold it (not found).
 */
export type WaitOutcome<V> =
	| { kind: 'finished'; state: V }
	| { kind: 'unanswered'; since: number; lastSeen?: V }
	| { kind: 'running'; state: V }
	| { kind: 'unlisted'; listedCompletely: boolean };

export function outcomeOf<V>(result: WaitUntilFinishedResult<V>, id: string): WaitOutcome<V> {
	const state = result.states.get(id);
	if (state !== undefined && !result.timedOut.includes(id)) return { kind: 'finished', state };
	if (!result.answered || result.silentSince !== undefined)
		return { kind: 'unanswered', since: result.silentSince ?? result.startedAt, lastSeen: state };
	return state === undefined
		? { kind: 'unlisted', listedCompletely: result.listedCompletely }
		: { kind: 'running', state };
}

/** A wait's result as its node or tool presents it: done, or still pending at the Timeout. */
export type Settled<V> = { kind: 'done'; state: V } | { kind: 'pending'; state: V };

/**
 * The one settle step of every wait (Wait for Ad Report, its tool, Diagnostic → Run): what the
 * last look saw becomes done, pending, or the error named for it. A job that finished failed
 * is `failed`'s error; one that was never seen (not listed, or no answer) is `unseen`'s, which
 * may instead say what to present as pending (a diagnostic that its read still lags behind).
 */
export function settle<V extends { status?: unknown }>(
	result: WaitUntilFinishedResult<V>,
	id: string,
	on: {
		unseen: (outcome: Extract<WaitOutcome<V>, { kind: 'unlisted' | 'unanswered' }>) => Error | V;
		failed: (state: V) => Error;
	},
): Settled<V> {
	const outcome = outcomeOf(result, id);
	if (outcome.kind === 'unlisted' || outcome.kind === 'unanswered') {
		const unseen = on.unseen(outcome);
		if (unseen instanceof Error) throw unseen;
		return { kind: 'pending', state: unseen };
	}
	if (outcome.kind === 'running') return { kind: 'pending', state: outcome.state };
	if (outcome.state.status === 'failed') throw on.failed(outcome.state);
	return { kind: 'done', state: outcome.state };
}

/**
 * The error of a wait whose last look got no answer: unreachable, timed out, or the service's
 * own error type, from the client's failures since that look began (TransportErrors.unanswered).
 */
export function unansweredError(
	client: AdPerformanceClient,
	outcome: { since: number },
	what: { subject: string; timeoutSeconds: number; lastSeen?: string; itemIndex: number },
) {
	const { itemIndex, ...rest } = what;
	return client.errors.unanswered({ ...rest, since: outcome.since }, itemIndex);
}

/**
 * Waits for many asynchronous jobs with one sweep per interval for all of them: the first
 * look happens at once, the next ones on a fixed beat measured from the start (so a slow
 * sweep does not stretch the beat), and the last at the deadline. A sweep still running at
 * the deadline is cut there: the timeout holds even when the service is slow, and the result
 * says that the last look got no answer (silentSince), for outcomeOf to name. Waiting goes
 * through the client, i.e. n8n's sleep with the execution's cancel signal.
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
	let silentSince: number | undefined;
	for (let beat = 1; pending.length > 0; beat++) {
		let seen: Map<string, V> | undefined;
		let failure: unknown;
		const lookedAt = Date.now();
		try {
			seen = await options.sweep(pending, deadline);
		} catch (error) {
			failure = error;
		}
		// A sweep cut at the deadline leaves what is still pending timed out; if it had time to
		// be answered, the wait ends without an answer to its last look.
		if (failure instanceof DeadlineReached) {
			if (lookedAt < deadline - LOOK_GRACE_MS) silentSince = lookedAt;
			break;
		}
		if (seen === undefined) throw failure;
		answered = true;
		listedCompletely = options.listedCompletely?.() ?? true;
		for (const [id, state] of seen) states.set(id, state);
		pending = pending.filter((id) => {
			const state = states.get(id);
			return state === undefined || !options.isFinal(state);
		});
		if (pending.length === 0) break;
		const now = Date.now();
		if (now >= deadline) break;
		const nextBeat = started + beat * options.intervalMs;
		await client.wait(Math.max(0, Math.min(nextBeat, deadline) - now));
	}
	return { states, timedOut: pending, answered, silentSince, startedAt: started, listedCompletely };
}
