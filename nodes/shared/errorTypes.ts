/**
 * The one table of error types (the service's and ours): the message and fix a person reads when
 * the situation has no better one, and the retry advice a model reads.
 */

/** Where an error records its type: a field of its `context`, saved with the error by n8n. */
export const ERROR_TYPE_KEY = 'errorType';

interface ErrorTypeEntry {
	/** The message and fix when the situation has no better ones (the service's types only). */
	message?: string;
	fix?: string;
	/** Whether calling again helps, for a model: "yes, …" or "no, …". */
	retry: string;
}

/**
 * The service's types (docs/service-notes.md; its own message "must not be parsed" and is kept
 * only as a detail), then ours. A Map: a service's type is its text, and `constructor` or
 * `__proto__` must find nothing.
 */
export const ERROR_TYPES = new Map<string, ErrorTypeEntry>(
	Object.entries({
		invalid_request: {
			message: 'The service rejected the request as invalid',
			fix: 'Check the fields named in the service message below and correct them.',
			retry: 'yes, but only with corrected arguments',
		},
		invalid_date_range: {
			message: 'The date range is not valid',
			fix: 'The start date must be before the end date and the range at most 90 days.',
			retry: 'yes, but only with corrected dates',
		},
		too_many_campaigns: {
			message: 'Too many campaigns for one report',
			fix: 'A report covers at most 20 campaign IDs. Split them over several reports.',
			retry: 'yes, but only with at most 20 campaign IDs',
		},
		authentication_error: {
			message: 'The API key was not accepted',
			fix: 'Check the API key in the Ad Performance credential, or create a new key in the dashboard (Settings → API Keys) and paste it into the credential.',
			retry: 'no, the API key in the n8n credential must be fixed first',
		},
		key_revoked: {
			message: 'The API key has been revoked',
			fix: 'Create a new key in the dashboard (Settings → API Keys → Create API Key) and update the Ad Performance credential.',
			retry:
				'no, the key must be replaced in the dashboard (Settings → API Keys) and in the n8n credential',
		},
		permission_error: {
			message: 'This resource belongs to another workspace',
			fix: 'The API key reaches only the data of its own workspace. Use an ID from this workspace, or a credential with a key of the workspace that owns it.',
			retry: 'no, not with this ID; use an ID of this workspace',
		},
		plan_insufficient: {
			message: 'The workspace plan does not include API access',
			fix: 'API access needs the Agency plan. Upgrade the workspace in the dashboard, then retry.',
			retry: 'no, the workspace needs the Agency plan',
		},
		white_label_not_available: {
			message: 'White-label reports are not available on this plan',
			fix: 'White-label options need the Agency plan. Remove the White Label fields or upgrade the workspace.',
			retry: 'no, not with white-label options',
		},
		not_found: {
			message: 'The resource was not found',
			fix: 'Check the ID: it does not exist in this workspace (or a download link has expired; generate the report again).',
			retry: 'no, not with this ID; list the records to find a valid one',
		},
		diagnostic_in_progress: {
			message: 'A diagnostic is already running for this campaign',
			fix: 'Only one diagnostic can run per campaign at a time. Wait for it to finish (5–10 seconds) and get its result with Diagnostic → Get, or run again later.',
			retry: 'yes, in 10 seconds; or get the running diagnostic instead',
		},
		campaign_not_synced: {
			message: "The campaign's data has not been synced yet",
			fix: 'A newly connected account syncs its campaigns in 30–60 seconds. Wait a minute and run again; if it persists, reconnect the account in the dashboard.',
			retry: 'yes, in a minute',
		},
		rate_limit_error: {
			message: 'The service rate limit was exceeded and retries ran out',
			fix: 'The key allows 120 reads, 10 writes, 10 diagnostic runs and 5 report generations a minute. Spread the work out, raise Max Attempts under Request Options, or ask the operator for higher limits.',
			retry: 'yes, in a minute',
		},
		api_error: {
			message: 'The service had an internal error and retries ran out',
			fix: 'The error is on the service side. Run the workflow again later.',
			retry: 'yes, later',
		},
		report_not_ready: {
			message: 'The report is not ready to download yet',
			fix: 'Reports take 10–20 seconds to generate. Use the Wait for Ad Report node before downloading.',
			retry: 'yes, after waiting for the report',
		},
		generation_failed: {
			message: 'The report generation failed',
			fix: 'The service could not generate this report. Generate it again; if it keeps failing, check the account connection in the dashboard.',
			retry: 'yes, generating the report again may work',
		},
		// Ours: what was observed when there was no error answer of the service to go by.
		invalid_argument: { retry: 'yes, but only with a corrected argument' },
		invalid_input: {
			retry: 'no, a setting of the node must be corrected in the workflow first',
		},
		invalid_credential: { retry: 'no, the n8n credential must be fixed first' },
		service_unreachable: { retry: 'yes, later' },
		timeout: { retry: 'yes, calling again later may help' },
		protocol_error: { retry: 'yes, later' },
		request_refused: {
			retry: 'no, the address the service pointed to is not followed',
		},
		ambiguous_outcome: {
			retry: 'no, not before checking whether the earlier attempt created it',
		},
		file_too_large: { retry: 'no, not before Max File Size is raised' },
		deleted: { retry: 'no, it no longer exists; create it again (generate the report again)' },
		cancelled: { retry: 'no, the execution was cancelled' },
		error: { retry: 'only once the cause above has changed' },
	}),
);

/** Whether calling again helps, for a model (tool/presenter.ts). */
export function retryAdviceOf(type: string): string {
	return (ERROR_TYPES.get(type) ?? ERROR_TYPES.get('error'))!.retry;
}

/** The type an error recorded when it was built; 'error' for one we did not build. */
export function errorTypeOf(error: unknown): string {
	const type = (error as { context?: Record<string, unknown> } | null)?.context?.[ERROR_TYPE_KEY];
	return typeof type === 'string' && type !== '' ? type : 'error';
}
