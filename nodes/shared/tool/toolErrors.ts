/**
 * Errors a model can act on. Agent 3.x passes a tool's error to the model as its message only
 * (the description, where the fix lives, is dropped), so in the tool variants the message
 * itself says what went wrong, the error type, the fix, and whether retrying helps, in at most
 * MAX_TOOL_ERROR_CHARS. The error's other fields are kept for the execution log.
 */
export const MAX_TOOL_ERROR_CHARS = 400;

/** Whether a retry helps, per error type of the service (docs/service-notes.md, Errors). */
const RETRY_ADVICE: Record<string, string> = {
	key_revoked:
		'do not retry, the key must be replaced in the dashboard (Settings → API Keys) and in the n8n credential',
	authentication_error: 'do not retry, the API key in the n8n credential must be fixed',
	plan_insufficient: 'do not retry, the workspace needs the Agency plan',
	permission_error: 'do not retry with this ID, use an ID of this workspace',
	not_found: 'do not retry with this ID, list the records to find a valid one',
	invalid_request: 'retry only with corrected arguments',
	invalid_argument: 'retry only with a corrected argument',
	invalid_date_range: 'retry only with corrected dates',
	too_many_campaigns: 'retry only with at most 20 campaign IDs',
	white_label_not_available: 'do not retry with white-label options',
	rate_limit_error: 'retry in a minute',
	api_error: 'retrying later may help',
	service_unreachable: 'retrying later may help',
	diagnostic_in_progress: 'retry in 10 seconds, or get the running diagnostic',
	campaign_not_synced: 'retry in a minute',
	report_not_ready: 'wait for the report, then retry',
	generation_failed: 'generating the report again may help',
	timeout: 'calling again later may help',
	protocol_error: 'retrying later may help',
};

interface ErrorLike {
	message?: unknown;
	description?: unknown;
	errorResponse?: { type?: unknown; networkError?: unknown };
	httpCode?: unknown;
}

/** The error type a model is told: the service's type, or what kind of failure it was. */
export function toolErrorType(error: ErrorLike): string {
	const response = error.errorResponse;
	if (typeof response?.type === 'string' && response.type) return response.type;
	if (response && typeof response.networkError === 'string') return 'service_unreachable';
	const message = typeof error.message === 'string' ? error.message : '';
	if (/^argument \w+:/.test(message)) return 'invalid_argument';
	if (/not in its documented format|pagination/.test(message)) return 'protocol_error';
	if (/ after \d+(\.\d+)? seconds$/.test(message)) return 'timeout';
	if (/ failed(: |$)/.test(message)) return 'generation_failed';
	return 'error';
}

function sentence(text: string): string {
	const trimmed = text.trim().replace(/\s+/g, ' ');
	return trimmed === '' || /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** The message a model reads, at most MAX_TOOL_ERROR_CHARS: what, type, fix, retry. */
export function toolErrorMessage(error: ErrorLike): string {
	const type = toolErrorType(error);
	const what = sentence(String(error.message ?? 'The tool failed')).replace(/\.$/, '');
	const fix = typeof error.description === 'string' ? sentence(error.description) : '';
	const retry = `Retry: ${RETRY_ADVICE[type] ?? 'only if the cause above has changed'}.`;
	const head = `${what} (${type}).`;
	let fixPart = fix ? ` Fix: ${fix}` : '';
	const room = MAX_TOOL_ERROR_CHARS - head.length - retry.length - 1;
	if (fixPart.length > room) fixPart = room > 10 ? `${fixPart.slice(0, room - 1)}…` : '';
	const message = `${head}${fixPart} ${retry}`;
	return message.length > MAX_TOOL_ERROR_CHARS
		? `${message.slice(0, MAX_TOOL_ERROR_CHARS - 1)}…`
		: message;
}

/** Rewrites an error's message for a model, in place; keeps everything else. */
export function asToolError<E>(error: E): E {
	if (error && typeof error === 'object') {
		const target = error as unknown as ErrorLike & { message: string };
		target.message = toolErrorMessage(target);
	}
	return error;
}
