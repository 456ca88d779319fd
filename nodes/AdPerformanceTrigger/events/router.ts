import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { createClient } from '../../shared/createClient';
import { InputValidator } from '../../shared/validation';
import { accountEvents } from './accounts';
import type { EventHandler, PollOutcome, TriggerEvent, TriggerSettings } from './common';
import { TRIGGER_EVENTS } from './common';
import { reportEvents } from './reports';

const handlers: Record<TriggerEvent, EventHandler> = {
	reportCompleted: reportEvents,
	reportFailed: reportEvents,
	accountConnectionChanged: accountEvents,
};

/** Reads and checks the parameters before any request is sent. */
function readSettings(ctx: IPollFunctions): TriggerSettings {
	const check = new InputValidator(ctx.getNode(), 0);
	const event = check.oneOf('Event', ctx.getNodeParameter('event'), TRIGGER_EVENTS);
	const filters = (ctx.getNodeParameter('filters', {}) ?? {}) as IDataObject;
	const raw = filters.accountId;
	if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === ''))
		return { event };
	const accountId =
		event === 'accountConnectionChanged'
			? // The account list knows both ids: the service's (act_…) and the ad platform's (act_digits).
				check.accountId('Account ID', raw)
			: // Reports carry the ad platform account id.
				check.platformAccountId('Account ID', raw);
	return { event, accountId };
}

/**
 * One poll of the trigger. The node's static data holds `scope` (event and account filter the
 * state belongs to) and `state` (the event handler's cursor or snapshot). A poll without state
 * for its scope records a baseline and emits nothing; the state is written only after a
 * successful poll, so a failed request leaves it as it was and the next poll retries.
 */
export async function pollEvents(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const settings = readSettings(this);
	const handler = handlers[settings.event];
	const client = await createClient(this, this.getNodeParameter('requestOptions', {}));
	if (this.getMode() === 'manual') {
		// "Fetch Test Event": a real recent record to map fields from. The static data is not
		// even read, so the cursor and snapshot stay exactly as they were.
		const sample = await handler.sample.call(this, { client, settings });
		return sample.length > 0
			? [this.helpers.returnJsonArray(sample.map((item) => item.json))]
			: null;
	}

	const staticData = this.getWorkflowStaticData('node');
	const scope = `${settings.event}:${settings.accountId ?? ''}`;
	const previous =
		staticData.scope === scope && staticData.state && typeof staticData.state === 'object'
			? (staticData.state as IDataObject)
			: undefined;

	let outcome: PollOutcome;
	try {
		outcome = await handler.poll.call(this, { client, settings, previous, now: Date.now() });
	} catch (error) {
		// The stored state is untouched: the next poll starts from the same cursor or snapshot.
		throw client.redactor.error(error);
	}
	// Written only when it changed: n8n saves the static data to its database when it is touched.
	if (!previous || JSON.stringify(previous) !== JSON.stringify(outcome.state)) {
		for (const key of Object.keys(staticData)) delete staticData[key];
		staticData.scope = scope;
		staticData.state = outcome.state;
	}
	if (!previous || outcome.items.length === 0) return null;
	return [this.helpers.returnJsonArray(outcome.items.map((item) => item.json))];
}
