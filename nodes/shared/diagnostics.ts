import type { AdPerformanceClient } from './transport';
import type { ServiceDiagnostic, SingleEnvelope } from './types';

/** How long a run started by a lost request may block ours (runs take 5–10 s), from its loss. */
const LOST_DIAGNOSTIC_WAIT_MS = 60_000;
/** How often to try again while that run goes on (the service suggests polling every 2–3 s). */
const LOST_DIAGNOSTIC_POLL_MS = 2_500;

/**
 * POST /v1/diagnostics without resending blindly. Diagnostics cannot be listed, so a run
 * whose answer was lost (5xx, dropped connection, garbled answer) cannot be found again.
 * Resending then meets 409 diagnostic_in_progress while that run goes on (5–10 s): the request
 * says so (`notYet`), the transport's table waits for that run to end, and ours starts, so the
 * item still gets a diagnostic it can poll. Past LOST_DIAGNOSTIC_WAIT_MS from the latest lost
 * answer (each may have started a run of its own), a 409 is the service's answer.
 */
export async function createDiagnostic(
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
