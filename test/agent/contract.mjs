// The contract of docs/agent-tools.md as the agent tests check it: the argument keys each tool
// offers, the result shapes and limits, the error format. Keep in step with that document.
import { TOOL_OPERATIONS, toolName } from '../../scripts/agent/workflows.mjs';

const LIST = ['limit', 'page'];

/** Tool name → the `$fromAI` keys of its zero-setup schema (docs/agent-tools.md, Arguments). */
export const SCHEMA_KEYS = {
	Get_many_accounts: ['status', ...LIST],
	Get_many_campaigns: ['account', 'status', ...LIST],
	Get_a_campaign: ['campaignId'],
	Get_many_reports: ['account', 'campaignId', 'status', 'format', 'from', 'to', ...LIST],
	Generate_a_report: ['account', 'title', 'dateStart', 'dateEnd', 'campaignIds', 'format'],
	Get_a_report: ['reportId'],
	Download_a_report: ['reportId'],
	Run_a_diagnostic: ['campaignId'],
	Get_a_diagnostic: ['diagnosticId'],
	Wait_for_Ad_Report: ['reportId'],
};

export const TOOL_NAMES = TOOL_OPERATIONS.map((op) => toolName(op.name));
export const LIST_TOOLS = ['Get_many_accounts', 'Get_many_campaigns', 'Get_many_reports'];

export const DESCRIPTION_CHARS = { min: 150, max: 700 };
/** The JSON a list call sends the model is at most this long. */
export const MAX_RESULT_CHARS = 12_000;
export const DEFAULT_LIMIT = 10;
export const MAX_ERROR_CHARS = 400;

export const LIST_RESULT_KEYS = ['results', 'returned', 'hasMore', 'page', 'hint'];
export const GENERATE_RESULT_KEYS = [
	'id',
	'status',
	'estimatedCompletionSeconds',
	'reused',
	'next',
];
/** Wait for Ad Report / Download: every one of these (content is optional). */
export const REPORT_RESULT_KEYS = [
	'id',
	'status',
	'format',
	'title',
	'riskLevel',
	'totalSpend',
	'avgRoas',
	'downloadUrl',
	'expiresAt',
];

/** `<what went wrong> (<type>). Fix: <fix>. Retry: <yes|no, why>.` */
export const ERROR_FORMAT = /^.+ \([\w .-]+\)\. Fix: .+\. Retry: (yes|no)\b.*$/is;
