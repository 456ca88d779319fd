import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { ANSWER_LIMITS } from './limits';

/**
 * A text the service wrote (an error message, a failed report's reason), cut to a length a
 * person reads: a hostile service can send megabytes, and every error is saved with the run.
 */
export function clipServiceText(text: string): string {
	const max = ANSWER_LIMITS.serviceTextChars;
	if (text.length <= max) return text;
	// Never half of a character that takes two UTF-16 units.
	return `${text.slice(0, max - 1).replace(/[\uD800-\uDBFF]$/, '')}…`;
}

/**
 * What each error type of the service (docs/service-notes.md, Errors) means for the person building the workflow, and how to fix
 * it. The service's own message "may change between API versions and must not be parsed", so
 * it is kept only as a detail; the type is the contract.
 */
const ERROR_GUIDE: Record<string, { message: string; description: string }> = {
	invalid_request: {
		message: 'The service rejected the request as invalid',
		description: 'Check the fields named in the service message below and correct them.',
	},
	invalid_date_range: {
		message: 'The date range is not valid',
		description: 'The start date must be before the end date and the range at most 90 days.',
	},
	too_many_campaigns: {
		message: 'Too many campaigns for one report',
		description: 'A report covers at most 20 campaign IDs. Split them over several reports.',
	},
	authentication_error: {
		message: 'The API key was not accepted',
		description:
			'Check the API key in the Ad Performance credential, or create a new key in the dashboard (Settings → API Keys) and paste it into the credential.',
	},
	key_revoked: {
		message: 'The API key has been revoked',
		description:
			'Create a new key in the dashboard (Settings → API Keys → Create API Key) and update the Ad Performance credential.',
	},
	permission_error: {
		message: 'This resource belongs to another workspace',
		description:
			'The API key reaches only the data of its own workspace. Use an ID from this workspace, or a credential with a key of the workspace that owns it.',
	},
	plan_insufficient: {
		message: 'The workspace plan does not include API access',
		description:
			'API access needs the Agency plan. Upgrade the workspace in the dashboard, then retry.',
	},
	white_label_not_available: {
		message: 'White-label reports are not available on this plan',
		description:
			'White-label options need the Agency plan. Remove the White Label fields or upgrade the workspace.',
	},
	not_found: {
		message: 'The resource was not found',
		description:
			'Check the ID: it does not exist in this workspace (or a download link has expired; generate the report again).',
	},
	diagnostic_in_progress: {
		message: 'A diagnostic is already running for this campaign',
		description:
			'Only one diagnostic can run per campaign at a time. Wait for it to finish (5–10 seconds) and get its result with Diagnostic → Get, or run again later.',
	},
	campaign_not_synced: {
		message: "The campaign's data has not been synced yet",
		description:
			'A newly connected account syncs its campaigns in 30–60 seconds. Wait a minute and run again; if it persists, reconnect the account in the dashboard.',
	},
	rate_limit_error: {
		message: 'The service rate limit was exceeded and retries ran out',
		description:
			'The key allows 120 reads, 10 writes, 10 diagnostic runs and 5 report generations a minute. Spread the work out, raise Max Attempts under Request Options, or ask the operator for higher limits.',
	},
	api_error: {
		message: 'The service had an internal error and retries ran out',
		description: 'The error is on the service side. Run the workflow again later.',
	},
	report_not_ready: {
		message: 'The report is not ready to download yet',
		description:
			'Reports take 10–20 seconds to generate. Use the Wait for Ad Report node before downloading.',
	},
	generation_failed: {
		message: 'The report generation failed',
		description:
			'The service could not generate the report. Generate it again; if it keeps failing, check the account connection in the dashboard.',
	},
};

export interface ServiceErrorDetails {
	status: number;
	type?: string;
	serviceMessage?: string;
	itemIndex?: number;
	/** What the request was about, e.g. "report rpt_123", to make the message specific. */
	subject?: string;
	/** A better description than the generic one for this situation. */
	description?: string;
	/** A better message than the generic one for this situation. */
	message?: string;
}

function describeServiceError(type: string | undefined) {
	// The type is the service's text: only the guide's own entries count, never `constructor`.
	return type !== undefined && Object.prototype.hasOwnProperty.call(ERROR_GUIDE, type)
		? ERROR_GUIDE[type]
		: undefined;
}

/** Builds the NodeApiError for an error answer of the service. Never includes request headers. */
export function serviceError(node: INode, fullDetails: ServiceErrorDetails): NodeApiError {
	// The service's own texts; everything else here is ours.
	const details: ServiceErrorDetails = {
		...fullDetails,
		type: fullDetails.type === undefined ? undefined : clipServiceText(fullDetails.type),
		serviceMessage:
			fullDetails.serviceMessage === undefined
				? undefined
				: clipServiceText(fullDetails.serviceMessage),
	};
	const guide = describeServiceError(details.type);
	const base =
		details.message ??
		guide?.message ??
		details.serviceMessage ??
		`The service answered with status ${details.status}`;
	// A message written for the situation may already name what it is about.
	const message =
		details.subject && !base.includes(details.subject) ? `${base} (${details.subject})` : base;
	const descriptionParts = [details.description ?? guide?.description];
	if (details.serviceMessage && details.serviceMessage !== base) {
		descriptionParts.push(`Service message: ${details.serviceMessage}`);
	}
	const body: JsonObject = {
		status: details.status,
		type: details.type ?? null,
		message: details.serviceMessage ?? null,
	};
	return new NodeApiError(node, body, {
		message,
		description: descriptionParts.filter(Boolean).join(' '),
		httpCode: String(details.status),
		itemIndex: details.itemIndex,
	});
}

/**
 * A report or diagnostic that the service accepted but could not finish. Every request
 * succeeded, so this is no HTTP error: it is the outcome of the work, with the service's reason.
 */
export function workFailedError(
	node: INode,
	details: {
		/** What failed, e.g. "Report rpt_123". */
		what: string;
		error?: { type?: string; message?: string };
		itemIndex: number;
		description: string;
	},
): NodeOperationError {
	const reason =
		typeof details.error?.message === 'string' ? clipServiceText(details.error.message) : undefined;
	const type =
		typeof details.error?.type === 'string' ? clipServiceText(details.error.type) : undefined;
	return new NodeOperationError(node, `${details.what} failed${reason ? `: ${reason}` : ''}`, {
		description: type
			? `${details.description} (The service's error type: ${type}.)`
			: details.description,
		itemIndex: details.itemIndex,
	});
}

/** A report the service accepted and could not generate (Wait for Ad Report and its tool). */
export function reportFailedError(
	node: INode,
	report: { id: string; error?: { type?: string; message?: string } },
	itemIndex: number,
): NodeOperationError {
	return workFailedError(node, {
		what: `Report ${report.id}`,
		error: report.error,
		itemIndex,
		description:
			'The service could not generate this report. Generate it again; if it keeps failing, check the account connection in the dashboard.',
	});
}

/** A downloaded file that passed the Max File Size: nothing of it is output. */
export function fileTooLargeError(
	node: INode,
	details: { reportId: string; maxFileSizeMb: number; itemIndex: number },
): NodeOperationError {
	return new NodeOperationError(
		node,
		`The file of report ${details.reportId} is larger than the Max File Size of ${details.maxFileSizeMb} MB`,
		{
			description: `The download was stopped at ${details.maxFileSizeMb} MB and no file was output for this item. If the report really is that large, raise Options → Max File Size.`,
			itemIndex: details.itemIndex,
		},
	);
}

/** Thrown when a request or a walk reaches the deadline its caller set. */
export class DeadlineReached extends Error {
	constructor() {
		super('The deadline was reached');
	}
}

/**
 * A wait that ran out: how long it lasted and what was waited for, so the message can say
 * which it was. `turn`: other executions' writes on the same key held this one back (no 429
 * was seen); `service`: the service kept answering 429.
 */
export interface RateLimitWait {
	cause: 'turn' | 'service';
	/** The wait allowed, in service minutes (Request Options → Max Wait When Rate Limited). */
	maxWaitMinutes: number;
	type?: string;
	serviceMessage?: string;
}

/**
 * The builders of every error the transport raises, each with the key scrubbed from every
 * text. One instance per client: it knows the node, the Base URL and the attempts allowed,
 * and remembers which errors are its own (our refusals are final; the HTTP library's are not).
 */
export class TransportErrors {
	private readonly own = new WeakSet<Error>();

	constructor(
		private readonly node: () => INode,
		private readonly redact: { text(value: string): string; value<T>(value: T): T },
		private readonly baseUrl: string,
		private readonly maxAttempts: number,
	) {}

	/** Whether this builder made the error (a refusal of ours, final as it is). */
	isOwn(error: unknown): boolean {
		return error instanceof Error && this.own.has(error);
	}

	/** The error of an error answer of the service. */
	service(details: ServiceErrorDetails): NodeApiError {
		return serviceError(this.node(), this.redact.value(details));
	}

	/** An error about the service's behaviour that is not one of its error answers. */
	api(message: string, description: string, itemIndex?: number): NodeApiError {
		const text = (value: string) => this.redact.text(value);
		const error = new NodeApiError(this.node(), { message: text(message) } as JsonObject, {
			message: text(message),
			description: text(description),
			itemIndex,
		});
		this.own.add(error);
		return error;
	}

	/** An answer that is not the documented envelope. */
	protocol(
		problem: string,
		request: { method: string; path: string; resendable?: boolean; itemIndex?: number },
	): NodeApiError {
		return this.api(
			`The service sent an answer that is not in its documented format (${request.method} /v1${request.path}): ${problem}`,
			`Nothing was read from it${request.resendable === false ? '' : ` (tried ${this.maxAttempts} time(s))`}. Check that the Base URL in the credential (${this.baseUrl}) is the service's API address and not a web page or proxy; if it is, the service is having trouble: run the workflow again later.`,
			request.itemIndex,
		);
	}

	/** A list whose pages do not lead to its end. */
	pagination(path: string, problem: string, itemIndex?: number): NodeApiError {
		return this.api(
			`The service's pagination of GET /v1${path} made no progress: ${problem}`,
			'Reading was stopped instead of looping forever. Run the workflow again later; if it persists, narrow the list with filters and contact the service.',
			itemIndex,
		);
	}

	/** A request that got no answer (the connection failed, was dropped or timed out). */
	network(
		failure: unknown,
		code: string,
		prose: string,
		request: { itemIndex?: number; subject?: string },
	): NodeApiError {
		const reason = this.redact.text(failure instanceof Error ? failure.message : String(failure));
		return new NodeApiError(
			this.node(),
			// Not under `code`: NodeApiError would replace our message with its generic text for it.
			{ networkError: code, detail: reason },
			{
				// In prose: NodeApiError swaps a message that contains an error code for its own text.
				message: `The service could not be reached${request.subject ? ` (${request.subject})` : ''}: ${prose}`,
				description: `Check the Base URL in the credential (${this.baseUrl}) and that the service is up. The connection failed ${this.maxAttempts} time(s).`,
				itemIndex: request.itemIndex,
			},
		);
	}

	/** A request that waited as long as Request Options allow, for its turn or for the service. */
	rateLimitWaitExceeded(
		wait: RateLimitWait,
		request: { itemIndex?: number; subject?: string },
	): NodeApiError {
		const minutes = `${Math.round(wait.maxWaitMinutes * 10) / 10} minute(s)`;
		const limits =
			"The key's limits (120 reads, 10 writes, 10 diagnostic runs and 5 report generations a minute) are shared by every workflow that uses it";
		const fix =
			'spread the workflows out, raise Request Options → Max Wait When Rate Limited, or ask the operator for higher limits.';
		return this.service({
			status: 429,
			type: wait.type ?? 'rate_limit_error',
			serviceMessage: wait.serviceMessage,
			itemIndex: request.itemIndex,
			subject: request.subject,
			...(wait.cause === 'turn'
				? {
						message:
							'The request waited for its turn behind other executions using the same API key for longer than it may wait',
						description: `It was not sent: for ${minutes} other executions of this n8n using the same key were sending their writes (the service did not refuse this request). ${limits}: ${fix}`,
					}
				: {
						message: 'The service rate limit was exceeded for longer than this request may wait',
						description: `The service was still answering 429 (asking to wait) after ${minutes}. ${limits}: ${fix}`,
					}),
		});
	}

	/** One timeout error for every wait of an operation (a report, a diagnostic) that ran out. */
	timedOut(message: string, description: string, itemIndex: number): NodeOperationError {
		return new NodeOperationError(this.node(), this.redact.text(message), {
			description: this.redact.text(description),
			itemIndex,
		});
	}
}
