import type { ICredentialDataDecryptedObject, IDataObject, NodeApiError } from 'n8n-workflow';

import type { ServiceErrorDetails, TransportErrors } from '../errors';
import { ANSWER_LIMITS } from '../limits';
import { DeadlineReached } from '../errors';
import type { HttpMethod, ServiceErrorBody } from '../types';
import type { CancellableWait } from './cancellableWait';
import { parseJsonBody, readEnvelope, remainingOf, type Expectation } from './envelope';
import {
	headerOf,
	sendFollowingRedirects,
	type RawResponse,
	type RequestContext,
} from './exchange';
import type { Bucket, KeyPacer } from './rateLimiter';
import {
	backoffMs,
	classifyStatus,
	NETWORK_ERROR_PROSE,
	networkErrorCode,
	retryHintSeconds,
} from './retry';
import type { ServiceClock } from './serviceClock';
import { isServiceOrigin } from './urlPolicy';

export interface RequestSpec {
	method: HttpMethod;
	/** Path below /v1, starting with '/'. Ids must already be encoded (use `pathId`). */
	path: string;
	qs?: IDataObject;
	body?: IDataObject;
	itemIndex?: number;
	/** Names what the request is about in error messages, e.g. "campaign camp_1". */
	subject?: string;
	/** The envelope a success must have; anything else is a protocol error. */
	expect?: Expectation;
	/** Whether a failure with unknown outcome may be resent (false for creating things). */
	resendable?: boolean;
	/** Error statuses the caller settles itself: answered as a response instead of thrown. */
	passThroughStatuses?: number[];
	/** A message and fix better suited to this request than the generic ones of its error type. */
	explain?: (
		status: number,
		type: string | undefined,
	) => { message?: string; description?: string } | undefined;
	/** n8n time (ms) after which the request is cut and `DeadlineReached` thrown. */
	deadline?: number;
}

/** A response, or for a request that must not be resent an error whose outcome is unknown. */
export type SendOutcome =
	| { response: RawResponse; ambiguous?: undefined }
	| { ambiguous: NodeApiError; response?: undefined };

export interface Transfer {
	/** Parse and check the JSON envelope (false: hand back the raw body, e.g. a file stream). */
	json: boolean;
	/** A full address instead of a path below the Base URL (download links). */
	absoluteUrl?: string;
	stream?: boolean;
	/** Largest successful answer (boundedReader.ts); JSON answers: ANSWER_LIMITS.jsonBytes. */
	maxBytes?: number;
	/** Total time of one exchange; API requests: ANSWER_LIMITS.requestMs. */
	totalMs?: number;
}

/** What the pipeline works with; one set per client, so per execution. */
export interface PipelineParts {
	ctx: RequestContext;
	credentials: ICredentialDataDecryptedObject;
	baseUrl: string;
	clock: ServiceClock;
	maxAttempts: number;
	/** How long, in real ms, one request may wait for the rate limit (its turn or 429s). */
	rateLimitWaitMs: number;
	pacer: KeyPacer;
	errors: TransportErrors;
	waiting: CancellableWait;
	/** Told the `Date` of every answer and when its request was sent (the service clock). */
	observeAnswer(headers: RawResponse['headers'], sentAt: number): void;
}

function bucketsOf(method: HttpMethod, path: string): Bucket[] {
	if (method === 'GET') return ['read'];
	if (path === '/reports') return ['write', 'generation'];
	if (path === '/diagnostics') return ['write', 'diagnostic'];
	return ['write'];
}

/**
 * The request pipeline: every request of the nodes goes through `send`, which owns, in order,
 * the turn of writes on a key, pacing, the exchange (exchange.ts: redirects and where the key
 * goes), reading the answer (envelope.ts), and what happens after a failure (retry.ts,
 * rateLimiter.ts): resend, wait as the service schedules, or give up with the mapped error.
 * Every wait is bounded: by Max Attempts, by Max Wait When Rate Limited, by the request's
 * deadline, and by the execution's cancel signal.
 */
export class RequestPipeline {
	constructor(private readonly parts: PipelineParts) {}

	/**
	 * Sends with pacing and retries. A request that must not be resent blindly comes back as
	 * `ambiguous` when its outcome is unknown; everything else succeeds or throws the mapped
	 * error.
	 */
	async send(spec: RequestSpec, transfer: Transfer): Promise<SendOutcome> {
		const { pacer, waiting, errors } = this.parts;
		const buckets = bucketsOf(spec.method, spec.path);
		const rateLimitDeadline = Date.now() + this.parts.rateLimitWaitMs;
		if (!buckets.includes('write'))
			return await this.sendPaced(spec, transfer, buckets, rateLimitDeadline);
		// Writes of one key take turns (see rateLimiter.ts). Waiting in line is waiting for the
		// rate limit, bounded by the same Max Wait When Rate Limited and by the request's own
		// deadline; the turn holder's exchange is itself bounded (REQUEST_TIMEOUT_MS), so one slow
		// write cannot hold the others for longer than that.
		const { turn, release } = pacer.writes.join();
		try {
			const until = Math.min(rateLimitDeadline, spec.deadline ?? Infinity);
			if (!(await waiting.waitFor(turn, until))) {
				if (spec.deadline !== undefined && Date.now() >= spec.deadline) throw new DeadlineReached();
				throw errors.rateLimitWaitExceeded(
					{ cause: 'turn', maxWaitMinutes: this.maxWaitMinutes() },
					spec,
				);
			}
			return await this.sendPaced(spec, transfer, buckets, rateLimitDeadline);
		} finally {
			release();
		}
	}

	private maxWaitMinutes(): number {
		return this.parts.clock.serviceMs(this.parts.rateLimitWaitMs) / 60_000;
	}

	private backoffMs(attempt: number): number {
		return this.parts.clock.realMs(backoffMs(attempt, Math.random()));
	}

	private async sendPaced(
		spec: RequestSpec,
		transfer: Transfer,
		buckets: Bucket[],
		rateLimitDeadline: number,
	): Promise<SendOutcome> {
		const { pacer, waiting, errors } = this.parts;
		const limiter = pacer.limiter;
		const url = transfer.absoluteUrl ?? `${this.parts.baseUrl}/v1${spec.path}`;
		let failures = 0;
		let rejections = 0;
		const retryOrThrow = async (error: NodeApiError) => {
			if (++failures >= this.parts.maxAttempts) throw error;
			await waiting.waitWithin(this.backoffMs(failures), spec.deadline);
		};
		for (;;) {
			waiting.throwIfCancelled();
			await waiting.waitWithin(limiter.delayBeforeSend(buckets), spec.deadline);
			const sentAt = Date.now();
			let response: RawResponse | undefined;
			let failure: unknown;
			try {
				response = await sendFollowingRedirects(
					{
						ctx: this.parts.ctx,
						credentials: this.parts.credentials,
						baseUrl: this.parts.baseUrl,
						cancelSignal: waiting.signal,
						refuse: (message, description) => errors.refused(message, description, spec.itemIndex),
					},
					{
						method: spec.method,
						url,
						qs: spec.qs,
						body: spec.body,
						json: transfer.json,
						stream: transfer.stream,
						maxBytes: transfer.maxBytes,
						timeoutMs: this.timeoutFor(spec.deadline, transfer.totalMs),
						what: spec.subject
							? `the request for ${spec.subject}`
							: `${spec.method} ${this.describePath(spec, transfer)}`,
					},
				);
			} catch (error) {
				failure = error;
			}
			if (response === undefined) {
				waiting.throwIfCancelled();
				// Our own refusals (a redirect we would not follow) are final as they are.
				if (errors.isOwn(failure)) throw failure;
				if (spec.deadline !== undefined && Date.now() >= spec.deadline) throw new DeadlineReached();
				const code = networkErrorCode(failure);
				const error = errors.network(
					failure,
					code ?? 'request_failed',
					NETWORK_ERROR_PROSE[code ?? ''] ?? 'the request failed',
					spec,
				);
				if (!code) throw error;
				if (spec.resendable === false) return { ambiguous: error };
				await retryOrThrow(error);
				continue;
			}
			this.parts.observeAnswer(response.headers, sentAt);

			const outcome = classifyStatus(response.statusCode);
			if (outcome === 'success' || spec.passThroughStatuses?.includes(response.statusCode)) {
				if (!transfer.json || outcome !== 'success') {
					limiter.onAccepted(buckets, undefined);
					return { response };
				}
				const envelope = response.tooLarge
					? { problem: response.tooLarge.message }
					: readEnvelope(
							response.body,
							headerOf(response.headers, 'content-type'),
							spec.expect ?? 'any',
						);
				if (envelope.problem !== undefined) {
					limiter.onAccepted(buckets, undefined);
					const error = errors.protocol(envelope.problem, spec);
					// The service did the work and garbled the answer: a write is not resent.
					if (spec.resendable === false) return { ambiguous: error };
					await retryOrThrow(error);
					continue;
				}
				limiter.onAccepted(buckets, remainingOf(envelope.value));
				// Records are not scrubbed here: whatever leaves a node (items, errors) is scrubbed
				// once at the boundary (boundary.ts), and list search scrubs what it shows.
				return { response: { ...response, body: envelope.value } };
			}

			const errorBody = this.readErrorBody(response) as ServiceErrorBody | undefined;
			const type = typeof errorBody?.error?.type === 'string' ? errorBody.error.type : undefined;
			const serviceMessage =
				typeof errorBody?.error?.message === 'string' ? errorBody.error.message : undefined;
			const details: ServiceErrorDetails = {
				status: response.statusCode,
				type,
				serviceMessage,
				itemIndex: spec.itemIndex,
				subject: spec.subject,
				...spec.explain?.(response.statusCode, type),
			};
			const error = errors.service(details);

			if (outcome === 'rateLimited') {
				// A 429 is the service scheduling us, not a failure: wait as told, never less than
				// a backoff floor (a hint of "0 seconds" must not turn into hammering), with jitter,
				// for as long as Request Options allow (see rateLimiter.ts). Without a hint it also
				// counts against Max Attempts.
				const hintSeconds = retryHintSeconds(serviceMessage);
				const hintMs =
					hintSeconds === undefined ? undefined : this.parts.clock.realMs(hintSeconds * 1000);
				if (hintMs === undefined && ++failures >= this.parts.maxAttempts) throw error;
				rejections++;
				const delay = limiter.onRejected(buckets, hintMs, rejections);
				if (Date.now() + delay > rateLimitDeadline) {
					throw errors.rateLimitWaitExceeded(
						{ cause: 'service', maxWaitMinutes: this.maxWaitMinutes(), type, serviceMessage },
						spec,
					);
				}
				await waiting.waitWithin(delay, spec.deadline);
				continue;
			}
			limiter.onAccepted(buckets, undefined);
			if (outcome === 'final') throw error;
			// A 5xx on a write: the work may have been done before the answer failed.
			if (spec.resendable === false) return { ambiguous: error };
			await retryOrThrow(error);
		}
	}

	/** The total time of one exchange: its own limit, cut shorter by the caller's deadline. */
	private timeoutFor(
		deadline: number | undefined,
		totalMs: number = ANSWER_LIMITS.requestMs,
	): number {
		if (deadline === undefined) return totalMs;
		return Math.max(1, Math.min(totalMs, deadline - Date.now()));
	}

	/** The error answer's JSON, or undefined; the exchange read its bytes within their limit. */
	private readErrorBody(response: RawResponse): unknown {
		if (response.tooLarge) return undefined;
		try {
			return parseJsonBody(response.body, headerOf(response.headers, 'content-type'));
		} catch {
			return undefined;
		}
	}

	private describePath(spec: Pick<RequestSpec, 'path'>, transfer?: Transfer): string {
		if (transfer?.absoluteUrl) {
			const target = new URL(transfer.absoluteUrl);
			return isServiceOrigin(this.parts.baseUrl, transfer.absoluteUrl)
				? target.pathname
				: `${target.origin}${target.pathname}`;
		}
		return `/v1${spec.path}`;
	}
}
