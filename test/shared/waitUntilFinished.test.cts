/**
 * The one rule that names a wait's outcome (waitUntilFinished.ts, outcomeOf): the last look
 * with time to be answered decides, whatever an earlier look showed.
 */
import { outcomeOf, type WaitUntilFinishedResult } from '../../nodes/shared/waitUntilFinished';

type State = { status: string };

function result(
	states: Array<[string, State | undefined]>,
	timedOut: string[],
	look: { silent?: boolean; listedCompletely?: boolean; gone?: Set<string> },
): WaitUntilFinishedResult<State> {
	return {
		states: new Map(states),
		timedOut,
		startedAt: 1_000,
		silent: false,
		listedCompletely: true,
		gone: new Set(),
		...look,
	};
}

describe('outcomeOf', () => {
	const running = { status: 'running' };

	test('seen final: finished, even if the service fell silent afterwards', () => {
		const done = { status: 'completed' };
		const found = result([['a', done]], [], { silent: true });
		expect(outcomeOf(found, 'a')).toEqual({ kind: 'finished', state: done });
	});

	test('the last look answered it unfinished: running', () => {
		const found = result([['a', running]], ['a'], {});
		expect(outcomeOf(found, 'a')).toEqual({ kind: 'running', state: running });
	});

	test('the last look answered without it: unlisted (not found)', () => {
		const found = result([['a', undefined]], ['a'], {});
		expect(outcomeOf(found, 'a')).toEqual({ kind: 'unlisted', listedCompletely: true });
	});

	test('the last look answered without it from a listing that was not whole: unlisted, and says so', () => {
		const found = result([['a', undefined]], ['a'], { listedCompletely: false });
		expect(outcomeOf(found, 'a')).toEqual({ kind: 'unlisted', listedCompletely: false });
	});

	test('the last look got no answer: unanswered, telling what was last seen', () => {
		const seen = result([['a', running]], ['a'], { silent: true });
		expect(outcomeOf(seen, 'a')).toEqual({ kind: 'unanswered', lastSeen: running });
		const unseen = result([['a', undefined]], ['a'], { silent: true });
		expect(outcomeOf(unseen, 'a')).toEqual({ kind: 'unanswered' });
	});

	test('no look answered at all: unanswered, never unlisted', () => {
		const found = result([['a', undefined]], ['a'], { silent: true });
		expect(outcomeOf(found, 'a')).toEqual({ kind: 'unanswered' });
	});

	test('seen, then no longer held by the last complete look: deleted, never running', () => {
		const found = result([['a', running]], ['a'], { gone: new Set(['a']) });
		expect(outcomeOf(found, 'a')).toEqual({ kind: 'deleted', lastSeen: running });
		// The last look got no answer: what it would have shown is unknown.
		const silent = result([['a', running]], ['a'], { gone: new Set(['a']), silent: true });
		expect(outcomeOf(silent, 'a').kind).toBe('unanswered');
	});
});
