import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { throughTheBoundary } from '../shared/boundary';
import { accountIdOption, collection, requestOptionsProperty } from '../shared/descriptions';
import { pollEvents } from './events/pollRound';

// A polling trigger: the service has no webhooks or events (docs/service-notes.md, Events), so
// n8n calls poll() on the schedule under "Poll Times" (events/pollRound.ts); how each event is
// detected exactly once: events/reportCompletions.ts and events/accountConnections.ts.
export class AdPerformanceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Ad Performance Trigger',
		name: 'adPerformanceTrigger',
		icon: {
			light: 'file:../../icons/adPerformance.svg',
			dark: 'file:../../icons/adPerformance.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{ {"reportCompleted": "Report Completed", "reportFailed": "Report Failed", "accountConnectionChanged": "Account Connection Changed"}[$parameter["event"]] }}',
		// n8n's node creator lists this trigger and the Ad Performance node as one entry and shows
		// this text for both, among triggers and among actions: so it names both.
		description:
			'Generate AI ad performance reports, get accounts, campaigns and diagnostics, or start the workflow when a report finishes or an ad account’s connection changes',
		defaults: { name: 'Ad Performance Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'adPerformanceApi', required: true }],
		properties: [
			{
				displayName: 'Event',
				name: 'event',
				type: 'options',
				noDataExpression: true,
				required: true,
				default: 'reportCompleted',
				description: 'Which change in the service starts the workflow',
				options: [
					{
						name: 'Account Connection Changed',
						value: 'accountConnectionChanged',
						description:
							"An ad account's connection changed, e.g. its token expired, it was disconnected or reconnected, or a new account was connected. Outputs the account with its previous and current status.",
					},
					{
						name: 'Report Completed',
						value: 'reportCompleted',
						description:
							'A performance report finished generating and can be downloaded. Outputs the report with its summary and download link.',
					},
					{
						name: 'Report Failed',
						value: 'reportFailed',
						description: 'A report could not be generated. Outputs the report with its error.',
					},
				],
			},
			{
				displayName:
					'Only events that happen after the workflow is activated are output; the first check just notes the current state. Use "Fetch Test Event" to get a recent example to map fields from.',
				name: 'notice',
				type: 'notice',
				default: '',
			},
			collection('filters', 'Filters', 'Add Filter', [
				accountIdOption(
					'Only events of this ad account. For report events use the ad platform account ID (act_ followed by digits); for account events the ad platform or the service account ID.',
				),
			]),
			requestOptionsProperty,
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await throughTheBoundary(this, pollEvents);
	}
}
