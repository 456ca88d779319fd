import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { createDiagnostic } from '../../../shared/diagnostics';
import { waitUntilFinished } from '../../../shared/waitUntilFinished';
import { pathId, type AdPerformanceClient } from '../../../shared/transport';
import { isFinished, type ServiceDiagnostic, type SingleEnvelope } from '../../../shared/types';
import { InputValidator } from '../../../shared/validation';
import { campaignLocator } from '../common.descriptions';
import { simplifyDiagnostic } from '../../../shared/tool/toolResults';
import { CAMPAIGN_ID_ARGUMENT, singleRecordTool, withTool, type OperationTool } from '../../../shared/tool/operationTool';

const properties: INodeProperties[] = [
	campaignLocator,
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			{
				displayName: 'Wait for Completion',
				name: 'waitForCompletion',
				type: 'boolean',
				default: true,
				description:
					'Whether to wait until the diagnostic is finished (usually 5–10 seconds) and output its result, instead of its ID only',
			},
			{
				displayName: 'Poll Interval (Seconds)',
				name: 'pollIntervalSeconds',
				type: 'number',
				typeOptions: { minValue: 0.1, numberPrecision: 1 },
				default: 2.5,
				description: 'How often to check while waiting',
			},
			{
				displayName: 'Timeout (Seconds)',
				name: 'timeoutSeconds',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 120,
				description: 'How long to wait at most',
			},
		],
	},
];

export const tool: OperationTool = {
	description:
		'Runs an AI diagnostic of one campaign and waits for it (about 5 to 10 seconds). Pass campaignId (camp_..., from the campaigns tool). Returns id (diag_...), campaignId, status and, when completed, summary, riskScore, up to 5 issues (title, severity) and up to 3 recommendations. Write limits: 10 diagnostic runs a minute per key, one at a time per campaign; if one is already running, get it with the get-diagnostic tool instead of running again.',
	args: [CAMPAIGN_ID_ARGUMENT],
	execute: singleRecordTool('campaignId', execute, simplifyDiagnostic),
};

export const description = withTool('diagnostic', 'run', properties, tool);

interface DiagnosticRun {
	campaignId: string;
	waitForCompletion: boolean;
	intervalSeconds: number;
	timeoutSeconds: number;
}

/** Run for every item before the first diagnostic is started, so bad input starts nothing. */
export function prepare(ctx: IExecuteFunctions, itemIndex: number): DiagnosticRun {
	const check = new InputValidator(ctx.getNode(), itemIndex);
	const campaignId = check.campaignId(
		'Campaign',
		ctx.getNodeParameter('campaignId', itemIndex, '', { extractValue: true }),
	);
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const waitForCompletion = options.waitForCompletion !== false;
	const intervalSeconds = check.seconds(
		'Options → Poll Interval (Seconds)',
		options.pollIntervalSeconds ?? 2.5,
		0.1,
		3600,
	);
	const timeoutSeconds = check.seconds(
		'Options → Timeout (Seconds)',
		options.timeoutSeconds ?? 120,
		1,
		86_400,
	);
	return { campaignId, waitForCompletion, intervalSeconds, timeoutSeconds };
}

export async function execute(
	this: IExecuteFunctions,
	client: AdPerformanceClient,
	itemIndex: number,
	run: DiagnosticRun = prepare(this, itemIndex),
): Promise<INodeExecutionData[]> {
	const { campaignId, waitForCompletion, intervalSeconds, timeoutSeconds } = run;
	const diagnostic = await createDiagnostic(client, campaignId, itemIndex);
	if (!waitForCompletion || !diagnostic?.id || isFinished(diagnostic)) {
		return [{ json: diagnostic }];
	}

	const result = await waitUntilFinished<ServiceDiagnostic>(client, {
		ids: [diagnostic.id],
		intervalMs: intervalSeconds * 1000,
		timeoutMs: timeoutSeconds * 1000,
		isFinal: isFinished,
		sweep: async ([id], deadline) => {
			const envelope = await client.request<SingleEnvelope<ServiceDiagnostic>>({
				method: 'GET',
				path: `/diagnostics/${pathId(id)}`,
				itemIndex,
				subject: `diagnostic ${id}`,
				expect: 'record',
				deadline,
			});
			return new Map([[id, envelope.data]]);
		},
	});
	const final = result.states.get(diagnostic.id) ?? diagnostic;
	if (result.timedOut.length > 0) {
		throw client.errors.timedOut(
			`Diagnostic ${diagnostic.id} was still ${final.status ?? 'running'} after ${timeoutSeconds} seconds`,
			`Raise Options → Timeout, or switch off Wait for Completion and fetch the result later with Diagnostic → Get (ID ${diagnostic.id}).`,
			itemIndex,
		);
	}
	if (final.status === 'failed') {
		throw client.errors.workFailed({
			what: `Diagnostic ${diagnostic.id} of campaign ${campaignId}`,
			error: final.error,
			itemIndex,
			description:
				'Run the diagnostic again. If it keeps failing, check the account connection in the dashboard.',
		});
	}
	return [{ json: final }];
}
