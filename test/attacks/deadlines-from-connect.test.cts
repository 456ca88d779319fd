/**
 * Attack (#26, deadlines that start too late): the exchange's deadline covers the whole answer
 * from the moment of connecting: the status line and the headers as much as the body. A status
 * line that comes a few bytes at a time, interim (1xx) answers without end, or header lines
 * without end are cut when the item's time is up, and the connection is let go.
 */
import {
	endlessHeaderLines,
	endlessInterimAnswers,
	slowHeadAnswer,
	type ScriptedAnswer,
} from '../../sandbox/index.cjs';
import { WAIT_NODE } from '../nodes/helpers.cjs';
import {
	ANSWER_CUT_BY_2_S_TIMEOUT_MS,
	errorText,
	runAttack,
	streamedAnswers,
	useHostileService,
} from './helpers.cjs';

const service = useHostileService();

/** Wait for Ad Report (Timeout 2 s) on a completed report while the list is answered by `answer`. */
async function waitWhileListIs(
	answer: (real: () => { status: number; json?: unknown }) => ScriptedAnswer,
) {
	const [report] = service.fake.addReports(1, { status: 'completed' });
	service.fake.intercept({
		method: 'GET',
		pathPrefix: '/v1/reports',
		respond: (_request, real) => answer(real),
	});
	return await runAttack(
		service,
		[
			{
				name: 'Wait for Ad Report',
				type: WAIT_NODE,
				parameters: { pollIntervalSeconds: 0.2, timeoutSeconds: 2 },
			},
		],
		{ items: [{ id: report.id }] },
	);
}

/** The item's error names the Timeout; the run ends near it and every connection was let go. */
async function expectCutAtTimeout(result: Awaited<ReturnType<typeof waitWhileListIs>>) {
	expect(errorText(result)).toMatch(/within the timeout \(2 seconds\)/);
	expect(result.durationMs).toBeGreaterThanOrEqual(2_000);
	expect(result.durationMs).toBeLessThan(3_500);
	const answers = await streamedAnswers(service, '/v1/reports');
	expect(answers.length).toBeGreaterThanOrEqual(1);
	for (const answer of answers) {
		expect(answer.closedByClient).toBe(true);
		expect(answer.durationMs).toBeLessThan(ANSWER_CUT_BY_2_S_TIMEOUT_MS);
	}
}

describe('the deadline covers the head of the answer, not only its body', () => {
	test('a status line sent 2 bytes every 100 ms: Wait for Ad Report ends at its 2 s Timeout', async () => {
		// The whole answer would take about a minute to arrive, its head alone several seconds.
		const result = await waitWhileListIs((real) => slowHeadAnswer(real(), 2, 100));
		await expectCutAtTimeout(result);
	}, 20_000);

	test('interim answers (102 Processing) every 100 ms, never a final one: cut at the 2 s Timeout', async () => {
		const result = await waitWhileListIs(() => endlessInterimAnswers(100));
		await expectCutAtTimeout(result);
	}, 20_000);

	test('header lines that never end (one every 100 ms): cut at the 2 s Timeout', async () => {
		const result = await waitWhileListIs(() => endlessHeaderLines(100));
		await expectCutAtTimeout(result);
	}, 20_000);
});
