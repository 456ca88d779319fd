import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { ERROR_TYPE_KEY, ERROR_TYPES } from './errorTypes';
import type { Redactor } from './redaction';

/**
 * Every error the nodes raise is built here, with its type as data in `context.errorType`, which
 * n8n keeps with the error (run data, Continue On Fail items, the log). Nothing reads a type back
 * from a message; texts come from the type's entry in errorTypes.ts.
 */

/** Records the type on an error (every builder ends here). */
function typed<E extends NodeApiError | NodeOperationError>(error: E, type: string): E {
	error.context[ERROR_TYPE_KEY] = type;
	return error;
}

interface ServiceErrorDetails {
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
	/** Another origin's answer (a download's file host): its body's type is not the service's. */
	origin?: string;
}

/** A tool argument, named "argument reportId": the model's to correct, not a node setting. */
export class ArgumentName {
	constructor(readonly key: string) {}

	toString(): string {
		return `argument ${this.key}`;
	}
}

/** How an error names a field: a setting by its label, or a tool argument. */
export type FieldName = string | ArgumentName;

/**
 * A field that holds a value we already know the service would refuse (InputValidator): a tool
 * argument the model may correct and call again with (`byModel`), or a setting of the node.
 */
export function fieldError(
	node: INode,
	field: FieldName,
	problem: string,
	fix: string,
	itemIndex: number,
	byModel: boolean,
): NodeOperationError {
	const error = new NodeOperationError(node, `${field}: ${problem}`, {
		description: fix,
		itemIndex,
	});
	return typed(error, byModel ? 'invalid_argument' : 'invalid_input');
}

/** A node setting that names no operation of this node (an old or hand-edited workflow). */
export function unsupportedOperationError(
	node: INode,
	resource: string,
	operation: string,
): NodeOperationError {
	return typed(
		new NodeOperationError(node, `The operation "${operation}" of "${resource}" is not supported`),
		'invalid_input',
	);
}

/** A credential the nodes cannot use, found before any request was sent. */
export function credentialError(
	node: INode,
	message: string,
	description: string,
): NodeOperationError {
	return typed(new NodeOperationError(node, message, { description }), 'invalid_credential');
}

/** The execution was cancelled while it waited or sent. */
export function cancelledError(node: INode): NodeOperationError {
	return typed(new NodeOperationError(node, 'The execution was cancelled'), 'cancelled');
}

/** Something thrown that we did not build (n8n's sleep failed, a value that is no error). */
export function unexpectedError(node: INode, error: Error | string): NodeOperationError {
	return typed(new NodeOperationError(node, error), 'error');
}

/** A downloaded file that passed the Max File Size: nothing of it is output. */
export function fileTooLargeError(
	node: INode,
	details: { reportId: string; maxFileSizeMb: number; itemIndex: number },
): NodeOperationError {
	const error = new NodeOperationError(
		node,
		`The file of report ${details.reportId} is larger than the Max File Size of ${details.maxFileSizeMb} MB`,
		{
			description: `The download was stopped at ${details.maxFileSizeMb} MB and no file was output for this item. If the report really is that large, raise Options → Max File Size.`,
			itemIndex: details.itemIndex,
		},
	);
	return typed(error, 'file_too_large');
}

/** A request or a walk reached the deadline its caller set. */
export class DeadlineReached extends Error {
	/** What the run of attempts the deadline cut last met (attempts.ts): it travels with the item. */
	lastFailure?: Error;

	constructor() {
		super('The deadline was reached');
	}
}

/** A rate-limit wait that ran out: how long, and for what, so the message can say which. */
interface RateLimitWait {
	/**
	 * turn: other executions' writes on the key went first (no 429 seen); service: the service
	 * kept answering 429; held: the key is held (its window spent, or a Retry-After it was given).
	 */
	cause: 'turn' | 'service' | 'held';
	/** How long the key is held, in service minutes (cause `held`). */
	heldMinutes?: number;
	/** The wait allowed, in service minutes (Request Options → Max Wait When Rate Limited). */
	maxWaitMinutes: number;
	type?: string;
	serviceMessage?: string;
}

/** What a failed exchange showed: no answer (a network error's code) or an error answer. */
interface Seen {
	kind: 'unanswered' | 'answered';
	/** The network error's code (ECONNREFUSED…) or the answer's error type. */
	code: string;
	/** In prose, e.g. "the connection was refused". */
	prose: string;
}

/** Network error codes that mean the request was sent and its answer did not come in time. */
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ERR_SOCKET_CONNECTION_TIMEOUT']);

/**
 * The builders of the errors raised about the service, scrubbed with the execution's Redactor
 * (the editor's list search shows them without passing the boundary). One per client; it keeps
 * no failure of its own: what an item's requests met travels with that item's errors.
 */
export class TransportErrors {
	private readonly own = new WeakSet<Error>();

	/** What each error built here says was seen (read back from the error itself, by `unanswered`). */
	private readonly seenBy = new WeakMap<Error, Seen>();

	constructor(
		private readonly node: () => INode,
		private readonly redact: Redactor,
		private readonly baseUrl: string,
		private readonly maxAttempts: number,
	) {}

	/** Whether this builder made the error (a refusal of ours, final as it is). */
	isOwn(error: unknown): boolean {
		return error instanceof Error && this.own.has(error);
	}

	/**
	 * The error of an error answer of the service, without request headers. The service's texts
	 * are scrubbed, then clipped, before anything else is done with them.
	 */
	service({ type: answerType, serviceMessage, ...rest }: ServiceErrorDetails): NodeApiError {
		const clip = (text?: string) => (text === undefined ? undefined : this.redact.clip(text));
		const details: ServiceErrorDetails = {
			...this.redact.value(rest),
			type: clip(answerType),
			serviceMessage: clip(serviceMessage),
		};
		const guide = details.origin ? undefined : ERROR_TYPES.get(details.type ?? '');
		// Another origin's words are its own: its status says what happened, its text is quoted below.
		const base =
			details.message ??
			(details.origin
				? `The file host ${details.origin} answered with status ${details.status}`
				: (guide?.message ??
					details.serviceMessage ??
					`The service answered with status ${details.status}`));
		// A message written for the situation may already name what it is about.
		const message =
			details.subject && !base.includes(details.subject) ? `${base} (${details.subject})` : base;
		const descriptionParts = [details.description ?? guide?.fix];
		if (details.serviceMessage && details.serviceMessage !== base) {
			descriptionParts.push(`Service message: ${details.serviceMessage}`);
		}
		const body: JsonObject = {
			status: details.status,
			type: details.type ?? null,
			message: details.serviceMessage ?? null,
		};
		const error = new NodeApiError(this.node(), body, {
			message,
			description: descriptionParts.filter(Boolean).join(' '),
			httpCode: String(details.status),
			itemIndex: details.itemIndex,
		});
		// The status decides before the type (the API spec's rule): every 429 of the service is its
		// rate limit, whatever its body says, so code that yields to a 429 goes by this type alone.
		const type = details.origin
			? 'error'
			: details.status === 429
				? 'rate_limit_error'
				: details.type || 'error';
		this.seenBy.set(error, {
			kind: 'answered',
			code: type,
			prose: `it answered with status ${details.status}`,
		});
		return typed(error, type);
	}

	/** An error about the service's behaviour that is not one of its error answers. */
	api(
		message: string,
		description: string,
		itemIndex?: number,
		type = 'protocol_error',
	): NodeApiError {
		const text = (value: string) => this.redact.text(value);
		const error = new NodeApiError(this.node(), { message: text(message) } as JsonObject, {
			message: text(message),
			description: text(description),
			itemIndex,
		});
		this.own.add(error);
		return typed(error, type);
	}

	/** A redirect or link we will not follow (where it leads, or how often): final. */
	refused(message: string, description: string, itemIndex?: number): NodeApiError {
		return this.api(message, description, itemIndex, 'request_refused');
	}

	/** An answer that is not the documented envelope. */
	protocol(
		problem: string,
		request: { method: string; path: string; resendable?: boolean; itemIndex?: number },
	): NodeApiError {
		const error = this.api(
			`The service sent an answer that is not in its documented format (${request.method} /v1${request.path}): ${problem}`,
			`Nothing was read from it${request.resendable === false ? '' : ` (tried ${this.maxAttempts} time(s))`}. Check that the Base URL in the credential (${this.baseUrl}) is the service's API address and not a web page or proxy; if it is, the service is having trouble: run the workflow again later.`,
			request.itemIndex,
		);
		this.seenBy.set(error, {
			kind: 'answered',
			code: 'protocol_error',
			prose: 'its answers were not in the documented format',
		});
		return error;
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
		const error = new NodeApiError(
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
		this.seenBy.set(error, { kind: 'unanswered', code, prose });
		return typed(error, 'service_unreachable');
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
				: wait.cause === 'held'
					? {
							message: 'The API key is rate limited for longer than this request may wait',
							description: `It was not sent: the key's requests are held for ${Math.round((wait.heldMinutes ?? 0) * 10) / 10} more minute(s) (the service asked this n8n to wait, or the key's requests this minute are spent), longer than Max Wait When Rate Limited (${minutes}). ${limits}: ${fix}`,
						}
					: {
							message: 'The service rate limit was exceeded for longer than this request may wait',
							description: `The service was still answering 429 (asking to wait) after ${minutes}. ${limits}: ${fix}`,
						}),
		});
	}

	/** One timeout error for every wait of an operation (a report, a diagnostic) that ran out. */
	timedOut(message: string, description: string, itemIndex: number): NodeOperationError {
		return this.operation(message, description, itemIndex, 'timeout');
	}

	/** A NodeOperationError of `type`, its texts scrubbed. */
	private operation(message: string, description: string, itemIndex: number, type: string) {
		const error = new NodeOperationError(this.node(), this.redact.text(message), {
			description: this.redact.text(description),
			itemIndex,
		});
		return typed(error, type);
	}

	/**
	 * A wait whose last look got no whole answer, named for what that look met (`failure`, the
	 * deadline's lastFailure). `lastSeen` is told, never taken for how things stand now.
	 */
	unanswered(
		what: { subject: string; timeoutSeconds: number; failure?: Error; lastSeen?: string },
		itemIndex: number,
	): NodeOperationError {
		const last = what.failure && this.seenBy.get(what.failure);
		const within = `within the timeout (${what.timeoutSeconds} seconds)`;
		const recheck = `Check that the service is up and that the Base URL in the credential (${this.baseUrl}) is right, then run again (or raise the timeout).`;
		const check =
			what.lastSeen === undefined
				? `Nothing was listed because nothing usable was answered, so ${what.subject} may well exist. ${recheck}`
				: `The service last showed ${what.subject} ${what.lastSeen}; nothing it answered after that says how it stands now. ${recheck}`;
		if (last?.kind === 'answered') {
			const message = `The service did not ${what.lastSeen === undefined ? 'list' : 'show'} ${what.subject} ${within}: ${last.prose} (${last.code})`;
			return this.operation(message, check, itemIndex, last.code);
		}
		if (last && !TIMEOUT_CODES.has(last.code)) {
			const message = `The service could not be reached ${within} to look for ${what.subject}: ${last.prose}`;
			return this.operation(message, check, itemIndex, 'service_unreachable');
		}
		const message = `The service did not answer ${within}, so ${what.subject} could not be looked for`;
		return this.operation(message, check, itemIndex, 'timeout');
	}

	/** A report or diagnostic the service accepted and could not finish, with its reason. */
	workFailed(details: {
		/** What failed, e.g. "Report rpt_123". */
		what: string;
		error?: { type?: unknown; message?: unknown };
		itemIndex: number;
		description: string;
	}): NodeOperationError {
		const clipped = (text: unknown) => (typeof text === 'string' ? this.redact.clip(text) : '');
		const reason = clipped(details.error?.message);
		const type = clipped(details.error?.type);
		return this.operation(
			`${details.what} failed${reason ? `: ${reason}` : ''}`,
			type ? `${details.description} (The service's error type: ${type}.)` : details.description,
			details.itemIndex,
			'generation_failed',
		);
	}
}
