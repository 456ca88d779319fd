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
		'no, the key must be replaced in the dashboard (Settings → API Keys) and in the n8n credential',
	authentication_error: 'no, the API key in the n8n credential must be fixed first',
	plan_insufficient: 'no, the workspace needs the Agency plan',
	permission_error: 'no, not with this ID; use an ID of this workspace',
	not_found: 'no, not with this ID; list the records to find a valid one',
	invalid_request: 'yes, but only with corrected arguments',
	invalid_argument: 'yes, but only with a corrected argument',
	invalid_date_range: 'yes, but only with corrected dates',
	too_many_campaigns: 'yes, but only with at most 20 campaign IDs',
	white_label_not_available: 'no, not with white-label options',
	rate_limit_error: 'yes, in a minute',
	api_error: 'yes, later',
	service_unreachable: 'yes, later',
	diagnostic_in_progress: 'yes, in 10 seconds; or get the running diagnostic instead',
	campaign_not_synced: 'yes, in a minute',
	report_not_ready: 'yes, after waiting for the report',
	generation_failed: 'yes, generating the report again may work',
	timeout: 'yes, calling again later may help',
	protocol_error: 'yes, later',
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
	const retry = `Retry: ${RETRY_ADVICE[type] ?? 'only once the cause above has changed'}.`;
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
