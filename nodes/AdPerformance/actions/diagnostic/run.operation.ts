import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { collection, FROM_VERSION_1_1, VERSION_1 } from '../../../shared/descriptions';
import type { FieldName } from '../../../shared/errors';
import { errorTypeOf } from '../../../shared/errorTypes';
import { verdictOf, waitUntilFinished } from '../../../shared/waitUntilFinished';
import { DeadlineReached, type AdPerformanceClient } from '../../../shared/transport';
import { isFinished, type ServiceDiagnostic, type SingleEnvelope } from '../../../shared/types';
import { getRecord } from '../listRecords';
import { read, readOr, inputField, type InputSource } from '../../../shared/inputSource';
import { CAMPAIGN_FIELD, campaignLocator } from '../common.descriptions';
import { simplifyDiagnostic } from '../../../shared/tool/toolResults';
import {
	CAMPAIGN_ID_ARGUMENT,
	singleRecordTool,
	type OperationTool,
} from '../../../shared/tool/operationTool';

// `satisfies`: each default keeps its type, and readInput's fallback is that one default.
const waitForCompletion = {
	displayName: 'Wait for Completion',
	name: 'waitForCompletion',
	type: 'boolean',
	default: true,
	description:
		'Whether to wait until the diagnostic is finished (usually 5–10 seconds) and output its result, instead of its ID only',
} satisfies INodeProperties;
const pollInterval = {
	displayName: 'Poll Interval (Seconds)',
	name: 'pollIntervalSeconds',
	type: 'number',
	typeOptions: { minValue: 0.1, numberPrecision: 1 },
	default: 2.5,
	description: 'How often to check while waiting',
} satisfies INodeProperties;
const timeout = {
	displayName: 'Timeout (Seconds)',
	name: 'timeoutSeconds',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: 120,
	description: 'How long to wait at most, from when the diagnostic was started',
} satisfies INodeProperties;

export const properties: INodeProperties[] = [
	campaignLocator,
	{ ...waitForCompletion, displayOptions: { show: FROM_VERSION_1_1 } },
	...[pollInterval, timeout].map((property) => ({
		...property,
		displayOptions: { show: { ...FROM_VERSION_1_1, waitForCompletion: [true] } },
	})),
	collection(
		'options',
		'Options',
		'Add option',
		[
			waitForCompletion,
			pollInterval,
			{ ...timeout, description: 'How long to wait at most, starting the diagnostic included' },
		],
		{ displayOptions: { show: VERSION_1 } },
	),
];

export const tool: OperationTool<DiagnosticRun> = {
	description:
		'Runs an AI diagnostic of one campaign and waits for it (about 5 to 10 seconds). Pass campaignId (camp_..., from the campaigns tool). Returns id (diag_...), campaignId, status and, when completed, summary, riskScore, up to 5 issues (title, severity) and up to 3 recommendations (issuesOmitted and recommendationsOmitted count the rest). Write limits: 10 diagnostic runs a minute per key, one at a time per campaign; if one is already running, get it with the get-diagnostic tool instead of running again.',
	args: [CAMPAIGN_ID_ARGUMENT],
	execute: singleRecordTool(execute, simplifyDiagnostic),
};

type DiagnosticRun = ReturnType<typeof readInput>;

export const sends = 'diagnostic';

export function readInput(source: InputSource) {
	const { check } = source;
	const seconds = (min: number, max: number) => (name: FieldName, value: unknown) =>
		check.number(name, value, min, max, 'seconds');
	const version1 = source.nodeVersion < 1.1;
	// Version 1 keeps them in Options.
	const field = ({ name, displayName }: INodeProperties) =>
		version1
			? inputField(`options.${name}`, `Options → ${displayName}`)
			: inputField(name, displayName);
	return {
		campaignId: read(source, CAMPAIGN_FIELD, (name, value) => check.id(name, value, 'campaign')),
		waitForCompletion: readOr(
			source,
			field(waitForCompletion),
			check.boolean,
			waitForCompletion.default,
		),
		intervalSeconds: readOr(source, field(pollInterval), seconds(0.1, 3600), pollInterval.default),
		timeoutSeconds: readOr(source, field(timeout), seconds(1, 86_400), timeout.default),
		// Version 1: the Timeout is the whole run's budget, starting the diagnostic included.
		timeoutCountsStart: version1,
	};
}

/** How long a run started by a lost request may block ours (runs take 5–10 s), from its loss. */
const LOST_DIAGNOSTIC_WAIT_MS = 60_000;
/** How often to try again while that run goes on (the service suggests polling every 2–3 s). */
const LOST_DIAGNOSTIC_POLL_MS = 2_500;

/**
 * POST /v1/diagnostics without resending blindly. Diagnostics cannot be listed, so a run whose
 * answer was lost cannot be found again; a resend meets 409 diagnostic_in_progress while it goes
 * on, which is waited out (`notYet`) so that ours starts. Past LOST_DIAGNOSTIC_WAIT_MS from the
 * latest lost answer, a 409 is the service's answer.
 */
async function createDiagnostic(
	client: AdPerformanceClient,
	campaignId: string,
	itemIndex: number,
	deadline: number,
): Promise<ServiceDiagnostic> {
	let waitForLostRunUntil = -Infinity;
	return await client.attempts<ServiceDiagnostic>(
		async (round) => {
			const outcome = await client.writeOnce(
				{
					path: '/diagnostics',
					writeLimit: 'diagnostic',
					body: { campaign_id: campaignId },
					itemIndex,
					subject: `campaign ${campaignId}`,
					expect: 'record',
					notYet:
						Date.now() < waitForLostRunUntil
							? { statuses: [409], pollMs: LOST_DIAGNOSTIC_POLL_MS }
							: undefined,
					explain: (status, type) =>
						status === 409 && type === 'diagnostic_in_progress' && waitForLostRunUntil > -Infinity
							? {
									description:
										'A run started by an earlier attempt whose answer was lost is still going. Run the diagnostic again in a minute.',
								}
							: undefined,
					deadline,
				},
				round,
			);
			// Not findable: the retry loop resends it after a backoff.
			if (outcome.kind === 'ambiguous')
				waitForLostRunUntil = Date.now() + client.clock.realMs(LOST_DIAGNOSTIC_WAIT_MS);
			if (outcome.kind !== 'done') return outcome;
			const diagnostic = (outcome.value.body as SingleEnvelope<ServiceDiagnostic>).data;
			return { kind: 'done', value: diagnostic };
		},
		{ deadline },
	);
}

export async function execute(
	this: IExecuteFunctions,
	client: AdPerformanceClient,
	itemIndex: number,
	run: DiagnosticRun,
): Promise<INodeExecutionData[]> {
	const { campaignId, waitForCompletion, intervalSeconds, timeoutSeconds } = run;
	// From version 1.1 the Timeout counts the wait, as Report → Generate's, and the start is a
	// request like any other (Request Options bound it); version 1's counts the start too.
	const timeoutBoundsStart = waitForCompletion && run.timeoutCountsStart;
	const deadline = timeoutBoundsStart ? Date.now() + timeoutSeconds * 1000 : client.deadline();
	const diagnostic = await createDiagnostic(client, campaignId, itemIndex, deadline).catch(
		(error: unknown) => {
			if (!(error instanceof DeadlineReached) || !timeoutBoundsStart) throw error;
			throw client.errors.timedOut(
				`The diagnostic of campaign ${campaignId} could not be started within ${timeoutSeconds} seconds`,
				'The service did not answer the request that starts it in time; it may have started it. Run it again in a minute (a run still going is waited for), or raise Options → Timeout.',
				itemIndex,
			);
		},
	);
	if (!waitForCompletion || !diagnostic.id || isFinished(diagnostic)) return [{ json: diagnostic }];

	// A read right after the diagnostic was created may not find it yet (reads lag, as the report
	// list does): a 404 is "not seen yet" until the Timeout, and only the last look's 404 fails.
	let notFound: unknown;
	const result = await waitUntilFinished<ServiceDiagnostic>(client, {
		ids: [diagnostic.id],
		intervalMs: intervalSeconds * 1000,
		timeoutMs: timeoutBoundsStart ? Math.max(0, deadline - Date.now()) : timeoutSeconds * 1000,
		isFinal: isFinished,
		sweep: async ([id], deadline) => {
			const record = await getRecord<ServiceDiagnostic>(
				client,
				'diagnostic',
				id,
				itemIndex,
				deadline,
			).catch((error: unknown) => {
				if (errorTypeOf(error) !== 'not_found') throw error;
				notFound = error;
			});
			if (record === undefined) return new Map();
			notFound = undefined;
			return new Map([[id, record]]);
		},
	});
	const verdict = verdictOf(result, diagnostic.id, {
		unseen: (outcome) => {
			// Not "still running": no answer after the last one says so.
			if (outcome.kind === 'unanswered') {
				const lastSeen = outcome.lastSeen ?? diagnostic;
				return client.errors.unanswered(
					{
						subject: `diagnostic ${diagnostic.id}`,
						timeoutSeconds,
						failure: outcome.failure,
						lastSeen: `${lastSeen.status ?? 'running'}${outcome.lastSeen ? '' : ' when it was started'}`,
					},
					itemIndex,
				);
			}
			if (outcome.kind === 'deleted') {
				return client.errors.api(
					`Diagnostic ${diagnostic.id} was deleted while it was waited for: the service showed it ${outcome.lastSeen.status ?? 'running'}, then answered 404`,
					'It no longer exists at the service, so it has no result to show. Run the diagnostic again.',
					itemIndex,
					'deleted',
				);
			}
			// Still not found at the last look: the service's own 404; never read: as started.
			return (notFound as Error | undefined) ?? diagnostic;
		},
		failed: (final) =>
			client.errors.workFailed({
				what: `Diagnostic ${diagnostic.id} of campaign ${campaignId}`,
				error: final.error,
				itemIndex,
				description:
					'Run the diagnostic again. If it keeps failing, check the account connection in the dashboard.',
			}),
	});
	const final = verdict.state;
	if (verdict.kind === 'pending') {
		throw client.errors.timedOut(
			`Diagnostic ${diagnostic.id} was still ${final.status ?? 'running'} after ${timeoutSeconds} seconds`,
			`Raise ${run.timeoutCountsStart ? 'Options → ' : ''}Timeout, or switch off Wait for Completion and fetch the result later with Diagnostic → Get (ID ${diagnostic.id}).`,
			itemIndex,
		);
	}
	return [{ json: final }];
}
