import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import type { AdPerformanceClient } from '../../shared/transport';

export const TRIGGER_EVENTS = [
	'reportCompleted',
	'reportFailed',
	'accountConnectionChanged',
] as const;
export type TriggerEvent = (typeof TRIGGER_EVENTS)[number];

/** The node's parameters, read and validated once per poll. */
export interface TriggerSettings {
	event: TriggerEvent;
	/** filters.accountId, validated; undefined when not set. */
	accountId?: string;
}

interface PollInput<State> {
	client: AdPerformanceClient;
	settings: TriggerSettings;
	/** What the last successful poll stored (`readState`); undefined: the poll is a baseline. */
	previous: State | undefined;
	/** n8n's clock when the poll started, in ms. */
	startedAt: number;
	/** n8n time by which every request stops: the client throws DeadlineReached there. */
	deadline: number;
}

interface PollOutcome<State> {
	/** The events of this poll, oldest first. */
	events: IDataObject[];
	/** The state for the next poll: it replaces the old one. */
	state: State;
	/** Why `previous` was ruled out once the service answered: then the poll emits nothing. */
	baseline?: string;
}

/**
 * What an event kind defines: what its state means and how a poll turns the service's answer
 * into events. The poll routine (pollRound.ts) owns what the kinds share: the lease against
 * overlapping polls, the time budget, committing the state with the events.
 */
export interface EventKind<State> {
	/** The stored state as this kind wrote it; anything else throws StateRejected (a baseline). */
	readState(stored: object): State;
	/** One regular poll: what is new since `previous`, and the next state. */
	poll(this: IPollFunctions, input: PollInput<State>): Promise<PollOutcome<State>>;
	/** "Fetch Test Event": one recent event, within the poll's budget, stored state untouched. */
	sample(
		this: IPollFunctions,
		input: Pick<PollInput<State>, 'client' | 'settings' | 'deadline'>,
	): Promise<IDataObject | undefined>;
}
