/**
 * Wait for Ad Report as a tool (docs/agent-tools.md): no binary output, the report as text, a
 * short Markdown or JSON report inline, and on the tool's timeout a "call again" answer rather
 * than an error.
 */
import type { IDataObject } from 'n8n-workflow';

import { MAX_TOOL_RESULT_CHARS } from '../../../nodes/shared/tool/presenter';
import { apiRequests, run, useFakeService, WAIT_TOOL_NODE } from '../helpers.cjs';

const service = useFakeService({ timeScale: 0.01 });

async function waitTool(reportId: string, parameters: IDataObject = {}) {
	return await run(
		service,
		[{ name: 'Wait for Ad Report Tool', type: WAIT_TOOL_NODE, parameters }],
		{ items: [{ reportId }] },
	);
}

describe('Wait for Ad Report tool', () => {
	test('a finished PDF report comes back as text, with no binary data', async () => {
		const [report] = service.fake.addReports(1, { status: 'completed', format: 'pdf' });
		const result = await waitTool(report.id);
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		expect(result.items[0].binary).toBeUndefined();
		const answer = result.items[0].json;
		expect(answer).toMatchObject({ id: report.id, status: 'completed', format: 'pdf' });
		expect(String(answer.downloadUrl)).toMatch(/download/);
		expect(answer).toHaveProperty('riskLevel');
		expect(answer).toHaveProperty('expiresAt');
		expect(answer.content).toBeUndefined();
		// A PDF is never fetched for a model.
		expect(apiRequests(service).some((r) => r.path.includes('/download'))).toBe(false);
	});

	test('a short Markdown report includes its content, within the result cap', async () => {
		const [report] = service.fake.addReports(1, { status: 'completed', format: 'markdown' });
		const result = await waitTool(report.id);
		const answer = result.items[0].json;
		expect(typeof answer.content).toBe('string');
		expect(String(answer.content).length).toBeGreaterThan(20);
		expect(JSON.stringify(answer).length).toBeLessThanOrEqual(MAX_TOOL_RESULT_CHARS);
	});

	test('a Markdown report too long for the cap is left out, and the result says so', async () => {
		const [report] = service.fake.addReports(1, { status: 'completed', format: 'markdown' });
		service.fake.setReportFileSize(report.id, 200_000);
		const answer = (await waitTool(report.id)).items[0].json;
		expect(answer.content).toBeUndefined();
		expect(String(answer.contentOmitted)).toMatch(/downloadUrl/);
		expect(JSON.stringify(answer).length).toBeLessThanOrEqual(MAX_TOOL_RESULT_CHARS);
	});

	test('a report still generating at the tool timeout: "call again", not an error', async () => {
		const [report] = service.fake.addReports(1, { status: 'completed', format: 'pdf' });
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/reports',
			respond: (_request, real) => {
				const reply = real();
				const page = reply.json as { data?: IDataObject[] };
				for (const record of page.data ?? []) {
					if (record.id === report.id) {
						record.status = 'generating';
						delete record.downloadUrl;
					}
				}
				return { reply };
			},
		});
		const started = Date.now();
		const result = await waitTool(report.id, { toolTimeoutSeconds: 1, pollIntervalSeconds: 0.2 });
		service.fake.clearIntercepts();
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({
			id: report.id,
			status: 'generating',
			retryAfterSeconds: expect.any(Number),
		});
		expect(String(result.items[0].json.hint)).toMatch(/call this tool again/i);
		expect(Date.now() - started).toBeLessThan(5_000);
	});

	test('an unknown report: the message says not_found and that retrying with it will not help', async () => {
		const result = await waitTool('rpt_doesnotexist1', { toolTimeoutSeconds: 1 });
		expect(String(result.error?.message)).toMatch(/not found \(not_found\)/);
		expect(String(result.error?.message)).toMatch(/Retry: no, not with this ID/);
	});

	test('a bad reportId is refused before any request, naming the argument', async () => {
		const result = await waitTool('not-a-report');
		expect(String(result.error?.message)).toMatch(/^argument reportId: .*invalid_argument/);
		expect(apiRequests(service)).toHaveLength(0);
	});
});
