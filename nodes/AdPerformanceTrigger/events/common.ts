import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

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

export interface PollInput {
	client: AdPerformanceClient;
	settings: TriggerSettings;
	/**
	 * What this node stored after its last successful poll for the same event and filter,
	 * or undefined on the first poll (then the handler records a baseline and emits nothing).
	 */
	previous: IDataObject | undefined;
	/** n8n's clock at the start of the poll, in ms. */
	now: number;
}

export interface PollOutcome {
	items: INodeExecutionData[];
	/** The state to store for the next poll (replaces the old one completely). */
	state: IDataObject;
}

export interface EventHandler {
	/** One regular poll: returns what is new since the stored state, and the next state. */
	poll(this: IPollFunctions, input: PollInput): Promise<PollOutcome>;
	/** "Fetch Test Event" in the editor: one recent record, the stored state left untouched. */
	sample(
		this: IPollFunctions,
		input: Pick<PollInput, 'client' | 'settings'>,
	): Promise<INodeExecutionData[]>;
}
