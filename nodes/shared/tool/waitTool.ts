import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { reportTextContent } from '../reportFiles';
import { MAX_TOOL_RESULT_CHARS } from './presenter';
import { hiddenInTool, toolProperties, type ToolArgument } from './toolArguments';
import { simplifyReport } from './toolResults';
import { REPORT_ID_ARGUMENT, type OperationTool } from './operationTool';
import type { AdPerformanceClient } from '../transport';
import { reportVerdict, waitForReports, type ReportToWaitFor } from '../waitForReports';

/**
 * Wait for Ad Report as a tool (docs/agent-tools.md). A model receives no binary data, so it
 * returns the finished report as text, and on its short timeout `{ status: "generating",
 * retryAfterSeconds, hint }` instead of an error, so the model calls again rather than giving up.
 */
const REPORT_ID: ToolArgument = {
	...REPORT_ID_ARGUMENT,
	description:
		'The report id, rpt_ followed by letters and digits, as the generate tool returned it',
};

/** The tool's own Timeout (a setting of the tool node, not an argument), read by waitForReports.ts. */
const TOOL_TIMEOUT_SETTING: INodeProperties = {
	displayName: 'Tool Timeout (Seconds)',
	name: 'toolTimeoutSeconds',
	type: 'number',
	typeOptions: { minValue: 1 },
	// Short enough for a conversation, long enough for most reports.
	default: 45,
	description:
		'How long one tool call waits before it returns status generating, so the agent can call again',
};

const WAIT_TOOL_DESCRIPTION =
	'Waits until a report is finished and returns it as text: pass reportId (rpt_..., from the generate tool). Returns id, title, status, format, riskLevel, totalSpend, avgRoas, totalConversions, avgCpa, downloadUrl (a signed link valid 7 days, to share with people) and expiresAt; a Markdown or JSON report also includes its content when short. Reports take 10 to 20 seconds; if it is still generating after about 45 seconds, this returns status generating with retryAfterSeconds: call again then.';

/** The node's properties with its tool variant's added and the file options hidden there. */
export function withWaitTool(regular: INodeProperties[]): INodeProperties[] {
	return [
		...hiddenInTool(regular, [
			'reportId',
			'timeoutSeconds',
			'onTimeout',
			'download',
			'binaryPropertyName',
			'options',
		]),
		...toolProperties({}, waitTool.description, waitTool.args, waitTool.settings),
	];
}

/** One tool call: wait for its report, answer with text. */
async function waitForOneReport(
	client: AdPerformanceClient,
	itemIndex: number,
	wait: ReportToWaitFor,
): Promise<IDataObject> {
	const { reportId, settings } = wait;
	const { timeoutSeconds } = settings;
	const verdict = reportVerdict(
		client,
		await waitForReports(client, settings, [reportId]),
		{ ...wait, itemIndex },
		'Pass the id exactly as the generate tool returned it.',
	);
	const report = verdict.state;
	if (verdict.kind === 'pending') {
		const retryAfterSeconds = 15;
		return {
			id: reportId,
			status: report.status === 'pending' ? 'pending' : 'generating',
			retryAfterSeconds,
			hint: `Report ${reportId} is not finished after ${timeoutSeconds} seconds. Call this tool again with the same reportId in about ${retryAfterSeconds} seconds; do not generate it again.`,
		};
	}
	const result = simplifyReport(report, client.redactor);
	if (report.format === 'markdown' || report.format === 'json') {
		const content = await reportTextContent(client, report, itemIndex);
		const withContent = { ...result, content };
		if (content !== undefined && JSON.stringify(withContent).length <= MAX_TOOL_RESULT_CHARS) {
			return withContent;
		}
		result.contentOmitted =
			'The report is too long to include here: share downloadUrl, or read its figures above.';
	}
	return result;
}

export const waitTool: OperationTool<ReportToWaitFor> = {
	description: WAIT_TOOL_DESCRIPTION,
	args: [REPORT_ID],
	settings: [TOOL_TIMEOUT_SETTING],
	execute: waitForOneReport,
};
