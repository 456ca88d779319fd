import * as n8nWorkflow from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	INode,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { apiKeyProblem, normaliseBaseUrl } from '../../../credentials/AdPerformanceApi.credentials';
import { serviceError, type ServiceErrorDetails } from '../errors';
import { Redactor } from '../redaction';
import type { HttpMethod, ListEnvelope, ServiceErrorBody } from '../types';
import { pagingOf, parseJsonBody, readEnvelope, remainingOf, type Expectation } from './envelope';
import { pacerFor, type Bucket, type KeyPacer } from './rateLimiter';
import {
	backoffMs,
	classifyStatus,
	NETWORK_ERROR_PROSE,
	networkErrorCode,
	RETRY_DEFAULTS,
	retryHintSeconds,
} from './retry';
import {
	CREDENTIAL_TYPE,
	discardBody,
	headerOf,
	sendFollowingRedirects,
	type RawResponse,
	type RequestContext,
} from './exchange';
import { ServiceClock } from './serviceClock';
import { baseUrlProblem, hopProblem, isServiceOrigin } from './urlPolicy';

export const MAX_PAGE_SIZE = 100;

/** The service's rate-limit window (one minute), in service time. */
const WINDOW_MS = 60_000;
/** Longest one HTTP exchange may stay silent before it counts as a timeout. */
const REQUEST_TIMEOUT_MS = 120_000;
/** A walk that needs more pages than this is not a list any workflow wants (1,000,000 records). */
const MAX_PAGES = 10_000;

export interface ClientOptions {
	/** Attempts per request, the first included (Request Options → Max Attempts). */
	maxAttempts?: number;
	/** Service minutes a request may wait while the service answers 429 with a retry time. */
	rateLimitWaitMinutes?: number;
}

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

/** Thrown when a request or a walk reaches the deadline its caller set. */
export class DeadlineReached extends Error {
	constructor() {
		super('The deadline was reached');
	}
}

interface Transfer {
	/** Parse and check the JSON envelope (false: hand back the raw body, e.g. a file stream). */
	json: boolean;
	/** A full address instead of a path below the Base URL (download links). */
	absoluteUrl?: string;
	stream?: boolean;
}

/** Encodes one id for use as a path segment, so `/`, `?` or `..` can never change the path. */
export function pathId(id: string): string {
	return encodeURIComponent(id);
}

function bucketsOf(method: HttpMethod, path: string): Bucket[] {
	if (method === 'GET') return ['read'];
	if (path === '/reports') return ['write', 'generation'];
	if (path === '/diagnostics') return ['write', 'diagnostic'];
	return ['write'];
}

/**
 * The one facade the operations use: "list the campaigns", "walk the reports", "send this",
 * "download that". One instance lives for one node execution (n8n queue mode runs many
 * workers, so nothing is kept between executions). The rules it enforces, each in one place:
 *   - where the key goes: only to the Base URL's origin, decided per redirect hop
 *     (exchange.ts, urlPolicy.ts); redirects are followed there, never by the HTTP library;
 *   - what counts as an answer: the documented envelope, or a protocol error (envelope.ts);
 *   - when to resend: retry.ts (5xx, dropped connections, protocol errors of reads) and
 *     rateLimiter.ts (429 and pacing), bounded by Max Attempts and the rate-limit wait;
 *   - what the user reads: every error is built here and redacted of the key (redaction.ts);
 *   - how long: every wait and request stops when the execution is cancelled.
 */
export class AdPerformanceClient {
	readonly redactor: Redactor;

	/** Errors this client built, told apart from the HTTP library's while a request runs. */
	private readonly ownErrors = new WeakSet<Error>();

	/** Reports this execution created or recovered, so two items never claim the same one. */
	readonly claimedReportIds = new Set<string>();

	/** The pacing shared with every execution of this process that uses the same key. */
	private readonly pacer: KeyPacer;

	private constructor(
		private readonly ctx: RequestContext,
		/** Read once per execution; handed to n8n with each request instead of decrypting it again. */
		private readonly credentials: ICredentialDataDecryptedObject,
		readonly baseUrl: string,
		/** Service durations in real time (sped up only for a local sandbox). */
		readonly clock: ServiceClock,
		readonly maxAttempts: number,
		/** How long, in real ms, one request may keep waiting while the service answers 429. */
		private readonly rateLimitWaitMs: number,
	) {
		this.redactor = new Redactor([String(credentials.apiKey ?? '').trim()]);
		this.pacer = pacerFor(
			baseUrl,
			String(credentials.apiKey ?? '').trim(),
			clock.realMs(WINDOW_MS),
			{
				now: () => Date.now(),
				random: () => Math.random(),
			},
		);
	}

	/**
	 * Checks the credential and the request options before anything is sent. The numbers are
	 * expected to be validated by the caller (InputValidator); they are clamped here again so
	 * that no value can ever mean "retry forever".
	 */
	static async create(
		ctx: RequestContext,
		options: ClientOptions = {},
	): Promise<AdPerformanceClient> {
		const node = ctx.getNode();
		const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
		const baseUrl = normaliseBaseUrl(credentials.baseUrl);
		const problem = baseUrlProblem(baseUrl);
		if (problem) {
			const redactor = new Redactor([String(credentials.apiKey ?? '')]);
			throw new NodeOperationError(
				node,
				`The Base URL in the Ad Performance credential ${problem}`,
				{
					description: redactor.text(
						'Open the credential and enter only the service address, for example https://api.example.com (without /v1, a user name, a password or a query).',
					),
				},
			);
		}
		const keyProblem = apiKeyProblem(String(credentials.apiKey ?? '').trim());
		if (keyProblem) {
			throw new NodeOperationError(node, keyProblem.message, {
				description: keyProblem.description,
			});
		}
		const clock = new ServiceClock(baseUrl, credentials.timeScale);
		const clamp = (value: number | undefined, fallback: number, min: number, max: number) =>
			Number.isFinite(value) ? Math.max(min, Math.min(max, value as number)) : fallback;
		const maxAttempts = Math.floor(clamp(options.maxAttempts, RETRY_DEFAULTS.maxAttempts, 1, 10));
		const rateLimitWaitMinutes = clamp(
			options.rateLimitWaitMinutes,
			RETRY_DEFAULTS.rateLimitWaitMinutes,
			0,
			24 * 60,
		);
		return new AdPerformanceClient(
			ctx,
			credentials,
			baseUrl,
			clock,
			maxAttempts,
			clock.realMs(rateLimitWaitMinutes * 60_000),
		);
	}

	get node(): INode {
		return this.ctx.getNode();
	}

	/** The execution's cancel signal where the context has one (executions; not list search). */
	get cancelSignal(): AbortSignal | undefined {
		const ctx = this.ctx as Partial<IExecuteFunctions>;
		return typeof ctx.getExecutionCancelSignal === 'function'
			? ctx.getExecutionCancelSignal()
			: undefined;
	}

	/** A random full-jitter backoff for the given attempt, in real milliseconds. */
	backoffMs(attempt: number): number {
		return this.clock.realMs(backoffMs(attempt, Math.random()));
	}

	/** The earliest the service's clock can have shown at the n8n moment `hostMs` (serviceClock.ts). */
	serviceTimeLowerBound(hostMs: number): number {
		return this.clock.lowerBound(hostMs);
	}

	/**
	 * Waits with n8n's sleep and stops at once when the execution is cancelled. Older n8n
	 * versions have only `sleep(ms)`; there the wait is cut into short slices that check the
	 * signal, so cancelling still takes effect within a quarter of a second.
	 */
	async wait(ms: number): Promise<void> {
		const signal = this.cancelSignal;
		this.throwIfCancelled();
		if (!(ms > 0)) return;
		const sleepWithAbort = (
			n8nWorkflow as { sleepWithAbort?: (ms: number, signal?: AbortSignal) => Promise<void> }
		).sleepWithAbort;
		if (typeof sleepWithAbort === 'function') {
			try {
				await sleepWithAbort(ms, signal);
			} catch (error) {
				this.throwIfCancelled();
				throw new NodeOperationError(this.node, error as Error);
			}
			return;
		}
		const until = Date.now() + ms;
		for (let left = ms; left > 0; left = until - Date.now()) {
			await n8nWorkflow.sleep(Math.min(left, 250));
			this.throwIfCancelled();
		}
	}

	throwIfCancelled() {
		if (this.cancelSignal?.aborted) {
			throw new NodeOperationError(this.node, 'The execution was cancelled');
		}
	}

	/** Waits, but never past the deadline: reaching it throws DeadlineReached. */
	private async waitWithin(ms: number, deadline: number | undefined) {
		if (deadline !== undefined && Date.now() + ms >= deadline) {
			await this.wait(deadline - Date.now());
			throw new DeadlineReached();
		}
		await this.wait(ms);
	}

	/** Sends one request with pacing and retries; resolves with the checked JSON envelope. */
	async request<T>(spec: RequestSpec): Promise<T> {
		const outcome = await this.send(spec, { json: true });
		if (outcome.ambiguous) throw outcome.ambiguous;
		return outcome.response.body as T;
	}

	/**
	 * Sends a request that must not be resent blindly (creating a report or a diagnostic):
	 * when its outcome is unknown (5xx, lost connection, a garbled 2xx) the caller gets
	 * `ambiguous` and settles it, e.g. by looking for what the lost request created.
	 */
	async write(spec: Omit<RequestSpec, 'method' | 'resendable'>): Promise<SendOutcome> {
		return await this.send({ ...spec, method: 'POST', resendable: false }, { json: true });
	}

	/** GET of one page of a list endpoint. */
	async listPage<T>(
		path: string,
		qs: IDataObject,
		page: number,
		pageSize: number,
		options: { itemIndex?: number; deadline?: number } = {},
	): Promise<ListEnvelope<T>> {
		return await this.request<ListEnvelope<T>>({
			method: 'GET',
			path,
			qs: { ...qs, page, page_size: pageSize },
			expect: 'list',
			...options,
		});
	}

	/**
	 * Reads a list. With `returnAll` it walks every page of 100; otherwise it asks only for
	 * what it needs (page size = min(limit, 100)) and stops early.
	 */
	async list<T extends IDataObject>(
		path: string,
		qs: IDataObject,
		options: { returnAll: boolean; limit?: number; itemIndex?: number },
	): Promise<T[]> {
		const wanted = options.returnAll ? Infinity : Math.max(1, Math.floor(options.limit ?? 50));
		const records: T[] = [];
		await this.walk<T>(
			path,
			qs,
			(page) => {
				records.push(...page.slice(0, wanted - records.length));
				return records.length < wanted;
			},
			{ itemIndex: options.itemIndex, pageSize: Math.min(MAX_PAGE_SIZE, wanted) },
		);
		return records;
	}

	/**
	 * The one pagination loop: walks the pages of a list in the service's order (newest first
	 * for reports), handing each page to `visit`, which returns false to stop. It ends when the
	 * service says there is no more, and refuses to go on forever: a page that brings no record
	 * it has not seen (a service repeating itself) or more pages than the announced `total`
	 * allows ends the walk with an error instead of looping.
	 */
	async walk<T extends IDataObject>(
		path: string,
		qs: IDataObject,
		visit: (records: T[]) => boolean | void,
		options: { itemIndex?: number; deadline?: number; pageSize?: number } = {},
	): Promise<void> {
		const pageSize = options.pageSize ?? MAX_PAGE_SIZE;
		const seen = new Set<unknown>();
		let pageLimit = MAX_PAGES;
		for (let page = 1; ; page++) {
			if (page > pageLimit) {
				throw this.paginationError(
					path,
					`it announced more records after page ${page - 1}, past the total it gave`,
					options.itemIndex,
				);
			}
			if (options.deadline !== undefined && Date.now() >= options.deadline) {
				throw new DeadlineReached();
			}
			const envelope = await this.listPage<T>(path, qs, page, pageSize, options);
			const records = envelope.data;
			let fresh = 0;
			for (const record of records) {
				const id = record.id ?? record;
				if (!seen.has(id)) fresh++;
				seen.add(id);
			}
			if (visit(records) === false) return;
			const { hasMore, total } = pagingOf(envelope.pagination);
			if (!(hasMore ?? records.length === pageSize) || records.length === 0) return;
			if (fresh === 0) {
				throw this.paginationError(
					path,
					`page ${page} held only records of earlier pages, yet it announced more`,
					options.itemIndex,
				);
			}
			// One page more than the total needs: records may shift while we read.
			if (total !== undefined) pageLimit = Math.min(MAX_PAGES, Math.ceil(total / pageSize) + 1);
		}
	}

	/**
	 * Downloads a file as a stream. The link is checked first (no internal addresses unless
	 * the Base URL is one, no credentials in it), and the key goes only to the service's origin.
	 */
	async download(
		url: string,
		options: Pick<RequestSpec, 'itemIndex' | 'subject' | 'explain' | 'deadline'>,
	): Promise<RawResponse> {
		const target = new URL(url, this.baseUrl).toString();
		const problem = hopProblem(this.baseUrl, undefined, target);
		if (problem) {
			throw this.apiError(
				`The download link of ${options.subject ?? 'the file'} ${problem}`,
				'The link was not opened, and the API key was not sent. If the service really serves files from such an address, contact its support.',
				options.itemIndex,
			);
		}
		const outcome = await this.send(
			{ method: 'GET', path: '', ...options },
			{ json: false, absoluteUrl: target, stream: true },
		);
		if (outcome.ambiguous) throw outcome.ambiguous;
		return outcome.response;
	}

	/**
	 * Sends with pacing and retries. A request that must not be resent blindly comes back as
	 * `ambiguous` when its outcome is unknown; everything else succeeds or throws the mapped
	 * error.
	 */
	private async send(spec: RequestSpec, transfer: Transfer): Promise<SendOutcome> {
		const buckets = bucketsOf(spec.method, spec.path);
		const rateLimitDeadline = Date.now() + this.rateLimitWaitMs;
		if (!buckets.includes('write'))
			return await this.sendPaced(spec, transfer, buckets, rateLimitDeadline);
		// Writes of one key take turns (see rateLimiter.ts): waiting in line for a spent window
		// is waiting for the rate limit, bounded by the same Max Wait When Rate Limited.
		const { turn, release } = this.pacer.writes.join();
		try {
			const until = Math.min(rateLimitDeadline, spec.deadline ?? Infinity);
			if (!(await this.awaitTurn(turn, until))) {
				if (spec.deadline !== undefined && Date.now() >= spec.deadline) throw new DeadlineReached();
				throw this.rateLimitWaitExceeded(spec);
			}
			return await this.sendPaced(spec, transfer, buckets, rateLimitDeadline);
		} finally {
			release();
		}
	}

	/** Waits for a turn until `until`; false when the time ran out first. */
	private async awaitTurn(turn: Promise<void>, until: number): Promise<boolean> {
		let arrived = false;
		void turn.then(() => (arrived = true));
		await Promise.resolve();
		while (!arrived) {
			const left = until - Date.now();
			if (left <= 0) return false;
			// Short slices: the turn usually comes first, and a pending slice is harmless.
			await Promise.race([turn, this.wait(Math.min(left, 1000))]);
		}
		return true;
	}

	private rateLimitWaitExceeded(
		spec: RequestSpec,
		answer?: { type?: string; serviceMessage?: string },
	): NodeApiError {
		return this.serviceError({
			status: 429,
			type: answer?.type ?? 'rate_limit_error',
			serviceMessage: answer?.serviceMessage,
			itemIndex: spec.itemIndex,
			subject: spec.subject,
			message: 'The service rate limit was exceeded for longer than this request may wait',
			description: `The service was still asking to wait after ${Math.round(this.clock.serviceMs(this.rateLimitWaitMs) / 60_000)} minute(s). Many workflows share the key's limits (120 reads, 10 writes, 10 diagnostic runs and 5 report generations a minute): spread them out, raise Request Options → Max Wait When Rate Limited, or ask the operator for higher limits.`,
		});
	}

	private async sendPaced(
		spec: RequestSpec,
		transfer: Transfer,
		buckets: Bucket[],
		rateLimitDeadline: number,
	): Promise<SendOutcome> {
		const url = transfer.absoluteUrl ?? `${this.baseUrl}/v1${spec.path}`;
		let failures = 0;
		let rejections = 0;
		const retryOrThrow = async (error: NodeApiError) => {
			if (++failures >= this.maxAttempts) throw error;
			await this.waitWithin(this.backoffMs(failures), spec.deadline);
		};
		for (;;) {
			this.throwIfCancelled();
			await this.waitWithin(this.pacer.limiter.delayBeforeSend(buckets), spec.deadline);
			const sentAt = Date.now();
			let response: RawResponse | undefined;
			let failure: unknown;
			try {
				response = await sendFollowingRedirects(
					{
						ctx: this.ctx,
						credentials: this.credentials,
						baseUrl: this.baseUrl,
						cancelSignal: this.cancelSignal,
						refuse: (message, description) => this.apiError(message, description, spec.itemIndex),
					},
					{
						method: spec.method,
						url,
						qs: spec.qs,
						body: spec.body,
						json: transfer.json,
						stream: transfer.stream,
						timeoutMs: this.timeoutFor(spec.deadline),
						what: spec.subject
							? `the request for ${spec.subject}`
							: `${spec.method} ${this.describePath(spec, transfer)}`,
					},
				);
			} catch (error) {
				failure = error;
			}
			if (response === undefined) {
				this.throwIfCancelled();
				// Our own refusals (a redirect we would not follow) are final as they are.
				if (this.ownErrors.has(failure as Error)) throw failure;
				if (spec.deadline !== undefined && Date.now() >= spec.deadline) throw new DeadlineReached();
				const error = this.networkError(failure, spec);
				if (!networkErrorCode(failure)) throw error;
				if (spec.resendable === false) return { ambiguous: error };
				await retryOrThrow(error);
				continue;
			}
			this.observeServiceClock(response.headers, sentAt);

			const outcome = classifyStatus(response.statusCode);
			if (outcome === 'success' || spec.passThroughStatuses?.includes(response.statusCode)) {
				if (!transfer.json || outcome !== 'success') {
					this.pacer.limiter.onAccepted(buckets, undefined);
					return { response };
				}
				const envelope = readEnvelope(
					response.body,
					headerOf(response.headers, 'content-type'),
					spec.expect ?? 'any',
				);
				if (envelope.problem !== undefined) {
					this.pacer.limiter.onAccepted(buckets, undefined);
					const error = this.protocolError(envelope.problem, spec);
					// The service did the work and garbled the answer: a write is not resent.
					if (spec.resendable === false) return { ambiguous: error };
					await retryOrThrow(error);
					continue;
				}
				this.pacer.limiter.onAccepted(buckets, remainingOf(envelope.value));
				// Records become output items and run data: a key echoed in one (a failed report's
				// error message) or a password in a link is scrubbed like any error text.
				return { response: { ...response, body: this.redactor.value(envelope.value) } };
			}

			const errorBody = (await this.readErrorBody(response)) as ServiceErrorBody | undefined;
			const type = typeof errorBody?.error?.type === 'string' ? errorBody.error.type : undefined;
			const serviceMessage =
				typeof errorBody?.error?.message === 'string' ? errorBody.error.message : undefined;
			const error = this.serviceError({
				status: response.statusCode,
				type,
				serviceMessage,
				itemIndex: spec.itemIndex,
				subject: spec.subject,
				...spec.explain?.(response.statusCode, type),
			});

			if (outcome === 'rateLimited') {
				// A 429 that names a retry time is the service scheduling us, not a failure: wait
				// as told (with jitter, see rateLimiter.ts) for as long as Request Options allow.
				const hintSeconds = retryHintSeconds(serviceMessage);
				const hintMs =
					hintSeconds === undefined ? undefined : this.clock.realMs(hintSeconds * 1000);
				if (hintMs === undefined && ++failures >= this.maxAttempts) throw error;
				if (hintMs !== undefined) rejections++;
				const delay = this.pacer.limiter.onRejected(
					buckets,
					hintMs,
					hintMs === undefined ? failures : rejections,
				);
				if (hintMs !== undefined && Date.now() + delay > rateLimitDeadline) {
					throw this.rateLimitWaitExceeded(spec, { type, serviceMessage });
				}
				await this.waitWithin(delay, spec.deadline);
				continue;
			}
			this.pacer.limiter.onAccepted(buckets, undefined);
			if (outcome === 'final') throw error;
			// A 5xx on a write: the work may have been done before the answer failed.
			if (spec.resendable === false) return { ambiguous: error };
			await retryOrThrow(error);
		}
	}

	private timeoutFor(deadline: number | undefined): number {
		if (deadline === undefined) return REQUEST_TIMEOUT_MS;
		return Math.max(1, Math.min(REQUEST_TIMEOUT_MS, deadline - Date.now()));
	}

	private observeServiceClock(headers: RawResponse['headers'], sentAt: number) {
		this.clock.observeExchange(headerOf(headers, 'date'), sentAt, Math.max(Date.now(), sentAt));
	}

	private async readErrorBody(response: RawResponse): Promise<unknown> {
		let body = response.body as { [Symbol.asyncIterator]?: unknown } | undefined;
		if (body && typeof body === 'object' && typeof body[Symbol.asyncIterator] === 'function') {
			const chunks: Uint8Array[] = [];
			let size = 0;
			try {
				for await (const chunk of body as AsyncIterable<Uint8Array>) {
					chunks.push(chunk);
					size += chunk.length;
					if (size > 64 * 1024) break;
				}
			} catch {
				// A broken error body still leaves the status to go by.
			}
			discardBody(body);
			body = Buffer.concat(chunks) as unknown as typeof body;
		}
		try {
			return parseJsonBody(body, headerOf(response.headers, 'content-type'));
		} catch {
			return undefined;
		}
	}

	private describePath(spec: Pick<RequestSpec, 'path'>, transfer?: Transfer): string {
		if (transfer?.absoluteUrl) {
			const target = new URL(transfer.absoluteUrl);
			return isServiceOrigin(this.baseUrl, transfer.absoluteUrl)
				? target.pathname
				: `${target.origin}${target.pathname}`;
		}
		return `/v1${spec.path}`;
	}

	/** Builds the error of an error answer, with the key scrubbed from every text. */
	serviceError(details: ServiceErrorDetails): NodeApiError {
		return serviceError(this.node, this.redactor.value(details));
	}

	/** An error about the service's behaviour that is not one of its error answers. */
	apiError(message: string, description: string, itemIndex?: number): NodeApiError {
		const redact = (text: string) => this.redactor.text(text);
		const error = new NodeApiError(this.node, { message: redact(message) } as JsonObject, {
			message: redact(message),
			description: redact(description),
			itemIndex,
		});
		this.ownErrors.add(error);
		return error;
	}

	private protocolError(problem: string, spec: RequestSpec): NodeApiError {
		return this.apiError(
			`The service sent an answer that is not in its documented format (${spec.method} /v1${spec.path}): ${problem}`,
			`Nothing was read from it${spec.resendable === false ? '' : ` (tried ${this.maxAttempts} time(s))`}. Check that the Base URL in the credential (${this.baseUrl}) is the service's API address and not a web page or proxy; if it is, the service is having trouble: run the workflow again later.`,
			spec.itemIndex,
		);
	}

	private paginationError(path: string, problem: string, itemIndex?: number): NodeApiError {
		return this.apiError(
			`The service's pagination of GET /v1${path} made no progress: ${problem}`,
			'Reading was stopped instead of looping forever. Run the workflow again later; if it persists, narrow the list with filters and contact the service.',
			itemIndex,
		);
	}

	private networkError(
		error: unknown,
		spec: Pick<RequestSpec, 'itemIndex' | 'subject'>,
	): NodeApiError {
		const code = networkErrorCode(error) ?? 'request_failed';
		const reason = this.redactor.text(error instanceof Error ? error.message : String(error));
		return new NodeApiError(
			this.node,
			// Not under `code`: NodeApiError would replace our message with its generic text for it.
			{ networkError: code, detail: reason },
			{
				// In prose: NodeApiError swaps a message that contains an error code for its own text.
				message: `The service could not be reached${spec.subject ? ` (${spec.subject})` : ''}: ${NETWORK_ERROR_PROSE[code] ?? 'the request failed'}`,
				description: `Check the Base URL in the credential (${this.baseUrl}) and that the service is up. The connection failed ${this.maxAttempts} time(s).`,
				itemIndex: spec.itemIndex,
			},
		);
	}
}
