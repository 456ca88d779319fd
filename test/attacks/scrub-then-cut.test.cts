/**
 * Attack: the key placed in a service text exactly where the text is cut (#26, "secrets cut
 * before they are scrubbed"). A failed report's reason is clipped for Wait for Ad Report's
 * error (500 characters) and for a tool result's `error.message` (300). Cut first, the text
 * would end in `service_live_` and most of the key, which no scrubber recognises as the key.
 * Every service text is scrubbed before it is cut (Redactor.clip), and a start of the key
 * counts as the key: no start of it longer than its public head and 7 characters is anywhere.
 */
import type { IDataObject } from 'n8n-workflow';

import type { RunWorkflowResult } from '../harness/run-workflow.cjs';
import { AD_TOOL_NODE, WAIT_NODE, WAIT_TOOL_NODE } from '../nodes/helpers.cjs';
import { runAttack, useHostileService } from './helpers.cjs';

const service = useHostileService();

const HEAD = 'service_live_'.length;

/** A failed report whose reason holds the key starting `at` characters in. */
function failedReportWithKeyAt(at: number) {
	const message = `${'a'.repeat(at)}${service.fake.keys.live} and more text after it`;
	return service.fake.addReports(1, {
		status: 'failed',
		error: { type: 'generation_failed', message },
	})[0];
}

/** Everything of a run a person or a model can see, as one text. */
function visible(result: RunWorkflowResult): string {
	const { error } = result;
	return JSON.stringify({
		items: result.items.map((item) => item.json),
		error: error && {
			message: error.message,
			description: error.description,
			context: error.context,
			stack: error.stack,
		},
	});
}

/** No start of the key that reaches 8 characters past its public head. */
function expectNoStartOfKey(text: string) {
	const key = service.fake.keys.live;
	expect(text).not.toContain(key.slice(0, HEAD + 8));
}

describe('a key straddling the cut of a service text', () => {
	test('Wait for Ad Report: the failed report’s reason is scrubbed before it is clipped', async () => {
		// The reason is cut at 500 characters: 499 kept, the key starting 35 before the cut.
		const report = failedReportWithKeyAt(499 - HEAD - 22);
		const result = await runAttack(
			service,
			[
				{
					name: 'Wait for Ad Report',
					type: WAIT_NODE,
					parameters: { pollIntervalSeconds: 0.1, timeoutSeconds: 10, download: false },
				},
			],
			{ items: [{ id: report.id }] },
		);
		expectNoStartOfKey(visible(result));
		expect(result.error?.message).toMatch(
			new RegExp(`^Report ${report.id} failed: a+\\[redacted\\]`),
		);
	});

	test('Wait for Ad Report tool: the model’s error message holds no start of the key', async () => {
		const report = failedReportWithKeyAt(499 - HEAD - 22);
		const result = await runAttack(
			service,
			[{ name: 'Wait for Ad Report Tool', type: WAIT_TOOL_NODE, parameters: {} }],
			{ items: [{ reportId: report.id }] },
		);
		expectNoStartOfKey(visible(result));
		expect(result.error?.message).toMatch(/\(generation_failed\)/);
	});

	test('Report → Get tool: the result’s error.message is scrubbed before it is clipped', async () => {
		// A tool result clips the reason to 300 characters.
		const report = failedReportWithKeyAt(299 - HEAD - 22);
		const result = await runAttack(
			service,
			[
				{
					name: 'Ad Performance Tool',
					type: AD_TOOL_NODE,
					parameters: { resource: 'report', operation: 'get' },
				},
			],
			{ items: [{ reportId: report.id }] },
		);
		expect(result.error).toBeUndefined();
		const answer = result.items[0].json as IDataObject & { error: { message: string } };
		expect(answer).toMatchObject({ id: report.id, status: 'failed' });
		expectNoStartOfKey(visible(result));
		expect(answer.error.message).toMatch(/^a+\[redacted\]/);
	});
});
