import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { createClient } from '../../shared/createClient';
import { errorTypeOf } from '../../shared/errorTypes';
import { DeadlineReached } from '../../shared/transport';
import { inputField, NodeParameters, read, readOptional } from '../../shared/inputSource';
import { accountConnections } from './accountConnections';
import type { EventKind, TriggerEvent, TriggerSettings } from './eventKind';
import { TRIGGER_EVENTS } from './eventKind';
import { reportCompletions } from './reportCompletions';
import { TriggerStore } from './storedState';

const EVENT_KINDS: Record<TriggerEvent, EventKind<unknown>> = {
	reportCompleted: reportCompletions,
	reportFailed: reportCompletions,
	accountConnectionChanged: accountConnections,
};

/**
 * How long one poll may take: n8n 2.41's durable scheduler abandons a poll after 45 s and keeps
 * nothing of it. A sped-up sandbox shortens it, never below MIN_POLL_BUDGET_MS (real time).
 */
const POLL_BUDGET_MS = 30_000;
const MIN_POLL_BUDGET_MS = 3_000;

const EVENT = inputField('event', 'Event');
const ACCOUNT = inputField('filters.accountId', 'Account ID');

/** The parameters, checked before any request by the readers every node uses (inputSource.ts). */
function readSettings(ctx: IPollFunctions): TriggerSettings {
	const source = NodeParameters.ofPoll(ctx);
	const { check } = source;
	const event = read(source, EVENT, (name, value) => check.oneOf(name, value, TRIGGER_EVENTS));
	const accountId = readOptional(source, ACCOUNT, (name, value) =>
		event === 'accountConnectionChanged'
			? // The account list knows both ids: the service's (act_…) and the ad platform's (act_digits).
				check.id(name, value, 'account')
			: // Reports carry the ad platform account id.
				check.platformAccountId(name, value),
	);
	return accountId === undefined ? { event } : { event, accountId };
}

/** A state as plain JSON for the static data: Maps as lists of entries, never objects keyed by id. */
function asStored(state: unknown): IDataObject {
	const entries = Object.entries(state as object);
	return Object.fromEntries(
		entries.map(([key, value]) => [key, value instanceof Map ? [...value] : value]),
	);
}

/**
 * One poll of the trigger, the same for every event kind: one poll at a time (the lease), the
 * state committed with the events or not at all, bounded in time, and only its own state read
 * (docs/security.md, the trigger's three guarantees).
 */
export async function pollEvents(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const settings = readSettings(this);
	const kind = EVENT_KINDS[settings.event];
	const client = await createClient(this, this.getNodeParameter('requestOptions', {}));
	const budgetMs = Math.max(MIN_POLL_BUDGET_MS, client.clock.realMs(POLL_BUDGET_MS));
	if (this.getMode() === 'manual') {
		// "Fetch Test Event": a real recent record to map fields from. The static data is not
		// even read, so the cursor and snapshot stay exactly as they were.
		const sample = await kind.sample
			.call(this, { client, settings, deadline: Date.now() + budgetMs })
			.catch((error: unknown) => {
				if (!(error instanceof DeadlineReached)) throw error;
				throw client.errors.timedOut(
					`The service did not answer within ${Math.round(budgetMs / 1000)} seconds`,
					'No test event was fetched. Check that the service is up (the credential’s Test button), then fetch again.',
					0,
				);
			});
		return sample ? [this.helpers.returnJsonArray(sample)] : null;
	}

	const store = new TriggerStore(
		this.getWorkflowStaticData('node'),
		`${settings.event}:${settings.accountId ?? ''}`,
	);
	const startedAt = Date.now();
	// The lease outlasts the budget, so a poll still finishing its last request keeps it.
	const lease = store.takeLease(startedAt, 2 * budgetMs);
	if (!lease) return null;

	const reading = store.read((stored) => kind.readState(stored));
	const announce = (note: NonNullable<typeof reading.note>) =>
		this.logger[note.level](
			`Ad Performance Trigger "${this.getNode().name}": ${note.reason}, so this poll records a new baseline and emits nothing`,
			{ workflowId: this.getWorkflow().id, node: this.getNode().name },
		);
	if (reading.note) announce(reading.note);
	const previous = reading.state;

	const outcome = await kind.poll
		.call(this, { client, settings, previous, startedAt, deadline: startedAt + budgetMs })
		.catch((error: unknown) => {
			lease.release();
			// Cut at the budget, or the service asks to wait longer than a poll may: the stored state
			// is kept, and the next poll continues from it.
			if (error instanceof DeadlineReached || errorTypeOf(error) === 'rate_limit_error')
				return null;
			throw error;
		});
	if (outcome === null || !lease.commit(asStored(outcome.state))) return null;
	// State the service's clock ruled out once it answered is a baseline like any other.
	if (outcome.baseline !== undefined) announce({ level: 'warn', reason: outcome.baseline });
	const events = previous === undefined || outcome.baseline !== undefined ? [] : outcome.events;
	return events.length > 0 ? [this.helpers.returnJsonArray(events)] : null;
}
