import { DeadlineReached, type AdPerformanceClient } from './transport';

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
	 * for either: not "not found", but what the failed requests showed (see waitForReports.ts).
	 */
	answered: boolean;
	/** When the wait began (n8n time). */
	startedAt: number;
}

/**
 * Waits for many asynchronous jobs with one sweep per interval for all of them: the first
 * look happens at once, the next ones on a fixed beat measured from the start (so a slow
 * sweep does not stretch the beat), and the last at the deadline. A sweep still running at
 * the deadline is cut there: the timeout holds even when the service is slow. Waiting goes
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
	for (let beat = 1; pending.length > 0; beat++) {
		let seen: Map<string, V> | undefined;
		let failure: unknown;
		try {
			seen = await options.sweep(pending, deadline);
		} catch (error) {
			failure = error;
		}
		// A sweep cut at the deadline leaves what is still pending timed out.
		if (failure instanceof DeadlineReached) break;
		if (seen === undefined) throw failure;
		answered = true;
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
	return { states, timedOut: pending, answered, startedAt: started };
}
