import * as n8nWorkflow from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	INode,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { normaliseBaseUrl } from '../../credentials/AdPerformanceApi.credentials';
import { serviceError } from './errors';
import type {
	Bucket,
	HttpMethod,
	ListEnvelope,
	ServiceErrorBody,
	ServiceDiagnostic,
	ServiceReport,
	SingleEnvelope,
} from './types';

/** Every context our nodes run requests from: node execution, polling trigger, list search. */
export type RequestContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

export const CREDENTIAL_TYPE = 'adPerformanceApi';
export const MAX_PAGE_SIZE = 100;

/** Spec §8: requests per window of one minute, per key. */
export const BUCKET_LIMITS: Record<Bucket, number> = {
	read: 120,
	write: 10,
	diagnostic: 10,
	generation: 5,
};
const WINDOW_MS = 60_000;

const RETRY_DEFAULTS = { maxAttempts: 5, baseDelayMs: 1_000, maxDelayMs: 30_000 };
/** Statuses that mean "try again later"; every other 4xx is an answer, never retried. */
const TRANSIENT_STATUSES = new Set([429, 500, 502, 503, 504]);
const NETWORK_ERROR_CODES = new Set([
	'ECONNRESET',
	'ECONNABORTED',
	'EPIPE',
	'ETIMEDOUT',
	'ECONNREFUSED',
	'EAI_AGAIN',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
]);
/** The service's and the n8n host's clocks may differ; look this far back for our own report. */
const CLOCK_SKEW_MS = 120_000;
/** How long a diagnostic started by a lost request may block ours (runs take 5–10 s). */
const LOST_DIAGNOSTIC_WAIT_MS = 60_000;
const API_KEY_PATTERN = /^service_(live|test)_[A-Za-z0-9]{24,}$/;

export interface ClientOptions {
	/** Attempts per request, first one included (Request Options → Max Attempts). */
	maxAttempts?: number;
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
	/** Whether a transient failure may be retried by resending (false for report creation). */
	resendable?: boolean;
	/** Error statuses the caller settles itself: answered as a response instead of thrown. */
	passThroughStatuses?: number[];
	/** A message and fix better suited to this request than the generic ones of its error type. */
	explain?: (
		status: number,
		type: string | undefined,
	) => { message?: string; description?: string } | undefined;
}

/** A response, or for a non-resendable write an error whose outcome is unknown. */
type SendOutcome =
	| { response: RawResponse; ambiguous?: undefined }
	| { ambiguous: NodeApiError; response?: undefined };

interface RawResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

interface BucketState {
	/** What the service last said is left, or undefined when unknown. */
	remaining?: number;
	/** Requests this execution sent in the current window. */
	sent?: number;
	/** A moment by which the current window has certainly reset. */
	resetAt?: number;
}

function remainingOf(body: unknown): number | undefined {
	const remaining = (parseBody(body) as { meta?: { remaining_requests?: unknown } } | undefined)
		?.meta?.remaining_requests;
	return typeof remaining === 'number' && Number.isFinite(remaining) ? remaining : undefined;
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

const NETWORK_ERROR_PROSE: Record<string, string> = {
	ECONNRESET: 'the connection was dropped',
	ECONNABORTED: 'the connection was aborted',
	EPIPE: 'the connection was dropped',
	ETIMEDOUT: 'the request timed out',
	ECONNREFUSED: 'the connection was refused',
	EAI_AGAIN: 'the host name could not be resolved',
	ERR_SOCKET_CONNECTION_TIMEOUT: 'the request timed out',
};

/** n8n rewrites a network error's message into prose; these are its texts for the codes we retry. */
const NETWORK_ERROR_TEXTS: Array<[RegExp, string]> = [
	[/socket hang up|ECONNRESET|closed unexpectedly/i, 'ECONNRESET'],
	[/ECONNABORTED|connection was aborted/i, 'ECONNABORTED'],
	[/ETIMEDOUT|timed out/i, 'ETIMEDOUT'],
	[/ECONNREFUSED|refused the connection/i, 'ECONNREFUSED'],
	[/EPIPE/, 'EPIPE'],
];

/**
 * The network error code behind an error, whichever way the n8n version at hand wrapped it
 * (the raw axios error, or a NodeApiError holding it as cause / errorResponse / reason).
 */
function errorCodeOf(error: unknown): string | undefined {
	const queue: unknown[] = [error];
	const seen = new Set<unknown>();
	while (queue.length > 0 && seen.size < 20) {
		const current = queue.shift() as Record<string, unknown> | undefined;
		if (!current || typeof current !== 'object' || seen.has(current)) continue;
		seen.add(current);
		for (const key of ['code', 'httpCode']) {
			const code = current[key];
			if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) return code;
		}
		const texts = [current.message, ...(Array.isArray(current.messages) ? current.messages : [])];
		for (const text of texts) {
			if (typeof text !== 'string') continue;
			const match = NETWORK_ERROR_TEXTS.find(([pattern]) => pattern.test(text));
			if (match) return match[1];
		}
		queue.push(current.cause, current.errorResponse, current.reason, current.error);
	}
	return undefined;
}

function parseBody(body: unknown): unknown {
	if (body === undefined || body === null) return body;
	if (typeof body === 'object' && !(body instanceof Uint8Array) && !(body instanceof ArrayBuffer))
		return body;
	const text = typeof body === 'string' ? body : Buffer.from(body as ArrayBuffer).toString('utf8');
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}

/** Number of seconds in a 429 message like "Retry after 12 seconds." — a hint only (A13). */
export function retryHintSeconds(message: unknown): number | undefined {
	if (typeof message !== 'string') return undefined;
	const match = /(\d+(?:\.\d+)?)\s*(?:s\b|sec|second)/i.exec(message);
	if (!match) return undefined;
	const seconds = Number(match[1]);
	return Number.isFinite(seconds) && seconds >= 0 && seconds <= 3600 ? seconds : undefined;
}

/**
 * The one place that talks to the service. One instance lives for one node execution (n8n
 * queue mode runs many workers, so nothing is kept between executions): it owns the base URL
 * and API version from the credential, retries with exponential backoff and full jitter,
 * paces requests by `meta.remaining_requests` so buckets are not overrun, maps error answers
 * to NodeApiError, and never resends a report creation blindly.
 */
export class AdPerformanceClient {
	readonly stats = { requests: 0, retries: 0, waitedMs: 0, rateLimited: 0 };

	private readonly buckets: Record<Bucket, BucketState> = {
		read: {},
		write: {},
		diagnostic: {},
		generation: {},
	};

	/** Reports this execution created, so two items never claim the same one. */
	private readonly claimedReportIds = new Set<string>();

	private constructor(
		private readonly ctx: RequestContext,
		/** Read once per execution; handed to n8n with each request instead of decrypting it again. */
		private readonly credentials: ICredentialDataDecryptedObject,
		readonly baseUrl: string,
		/** Service seconds per real second of the offline sandbox; 1 for the real service. */
		private readonly timeScale: number,
		private readonly maxAttempts: number,
	) {}

	static async create(
		ctx: RequestContext,
		options: ClientOptions = {},
	): Promise<AdPerformanceClient> {
		const node = ctx.getNode();
		const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
		const baseUrl = normaliseBaseUrl(credentials.baseUrl);
		if (!/^https?:\/\/[^/\s]+/i.test(baseUrl)) {
			throw new NodeOperationError(
				node,
				'The Base URL in the Ad Performance credential is not a web address',
				{
					description:
						'Open the credential and enter the service address, for example https://api.example.com (without /v1).',
				},
			);
		}
		const apiKey = String(credentials.apiKey ?? '').trim();
		if (!API_KEY_PATTERN.test(apiKey)) {
			throw new NodeOperationError(
				node,
				'The API Key in the Ad Performance credential does not look like a service key',
				{
					description:
						'A key starts with service_live_ or service_test_ followed by at least 24 letters and digits. Copy it again from the dashboard (Settings → API Keys) into the credential.',
				},
			);
		}
		const timeScale = Number(credentials.timeScale ?? 1);
		const maxAttempts = Math.max(
			1,
			Math.min(10, Math.floor(options.maxAttempts ?? RETRY_DEFAULTS.maxAttempts)),
		);
		return new AdPerformanceClient(
			ctx,
			credentials,
			baseUrl,
			timeScale > 0 && timeScale <= 1 ? timeScale : 1,
			maxAttempts,
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

	/** Converts a duration of service time (spec figures) into real milliseconds. */
	serviceMs(ms: number): number {
		return ms * this.timeScale;
	}

	/**
	 * Waits with n8n's sleep and stops at once when the execution is cancelled. Older n8n
	 * versions have only `sleep(ms)`; there the wait is cut into short slices that check the
	 * signal, so cancelling still takes effect within a quarter of a second.
	 */
	async wait(ms: number): Promise<void> {
		const signal = this.cancelSignal;
		this.throwIfCancelled(signal);
		if (ms <= 0) return;
		this.stats.waitedMs += ms;
		const sleepWithAbort = (
			n8nWorkflow as { sleepWithAbort?: (ms: number, signal?: AbortSignal) => Promise<void> }
		).sleepWithAbort;
		if (typeof sleepWithAbort === 'function') {
			try {
				await sleepWithAbort(ms, signal);
			} catch (error) {
				this.throwIfCancelled(signal);
				throw new NodeOperationError(this.node, error as Error);
			}
			return;
		}
		const until = Date.now() + ms;
		for (let left = ms; left > 0; left = until - Date.now()) {
			await n8nWorkflow.sleep(Math.min(left, 250));
			this.throwIfCancelled(signal);
		}
	}

	private throwIfCancelled(signal: AbortSignal | undefined) {
		if (signal?.aborted) {
			throw new NodeOperationError(this.node, 'The execution was cancelled');
		}
	}

	/** Sends one request with pacing and retries; resolves with the parsed body of a 2xx. */
	async request<T>(spec: RequestSpec): Promise<T> {
		const outcome = await this.send(spec, { json: true });
		if (outcome.ambiguous) throw outcome.ambiguous;
		return parseBody(outcome.response.body) as T;
	}

	/** GET of one page of a list endpoint. */
	async listPage<T>(
		path: string,
		qs: IDataObject,
		page: number,
		pageSize: number,
		itemIndex?: number,
	) {
		return await this.request<ListEnvelope<T>>({
			method: 'GET',
			path,
			qs: { ...qs, page, page_size: pageSize },
			itemIndex,
		});
	}

	/**
	 * Reads a list. With `returnAll` it walks pages of 100 until `hasMore` is false; otherwise
	 * it asks only for what it needs (page size = min(limit, 100)) and stops early.
	 */
	async list<T>(
		path: string,
		qs: IDataObject,
		options: { returnAll: boolean; limit?: number; itemIndex?: number },
	): Promise<T[]> {
		const wanted = options.returnAll ? Infinity : Math.max(1, options.limit ?? 50);
		const pageSize = Math.min(MAX_PAGE_SIZE, wanted);
		const records: T[] = [];
		for (let page = 1; records.length < wanted; page++) {
			const envelope = await this.listPage<T>(path, qs, page, pageSize, options.itemIndex);
			const data = Array.isArray(envelope?.data) ? envelope.data : [];
			records.push(...data.slice(0, wanted - records.length));
			const hasMore = envelope?.pagination?.hasMore ?? data.length === pageSize;
			if (!hasMore || data.length === 0) break;
		}
		return records;
	}

	/** Walks every page of a list, newest first for reports, handing each page to `visit`; `visit` returns false to stop. */
	async walk<T>(
		path: string,
		qs: IDataObject,
		visit: (records: T[]) => boolean | void,
		itemIndex?: number,
	): Promise<void> {
		for (let page = 1; ; page++) {
			const envelope = await this.listPage<T>(path, qs, page, MAX_PAGE_SIZE, itemIndex);
			const data = Array.isArray(envelope?.data) ? envelope.data : [];
			if (visit(data) === false) return;
			const hasMore = envelope?.pagination?.hasMore ?? data.length === MAX_PAGE_SIZE;
			if (!hasMore || data.length === 0) return;
		}
	}

	/**
	 * POST /v1/reports without ever creating a duplicate. A 429 means "not created" and is
	 * resent after the wait. After a 500 or a lost connection the report may exist, so before
	 * resending we look for it (same account, title and dates, created since just before our
	 * first attempt) and reuse it.
	 */
	async createReport(body: IDataObject, itemIndex: number): Promise<ServiceReport> {
		const firstAttemptAt = Date.now();
		let lastError: NodeApiError | undefined;
		for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
			if (attempt > 1) {
				const existing = await this.findCreatedReport(body, firstAttemptAt, itemIndex);
				if (existing) return existing;
			}
			const outcome = await this.send(
				{ method: 'POST', path: '/reports', body, itemIndex, resendable: false },
				{ json: true },
			);
			if (!outcome.ambiguous) {
				const report = (parseBody(outcome.response.body) as SingleEnvelope<ServiceReport>).data;
				if (report?.id) this.claimedReportIds.add(report.id);
				return report;
			}
			lastError = outcome.ambiguous;
			if (attempt < this.maxAttempts) {
				this.stats.retries++;
				await this.wait(this.backoffMs(attempt));
			}
		}
		const existing = await this.findCreatedReport(body, firstAttemptAt, itemIndex);
		if (existing) return existing;
		throw lastError ?? this.networkError(undefined, itemIndex);
	}

	/**
	 * POST /v1/diagnostics without resending blindly. Diagnostics cannot be listed, so a run
	 * whose answer was lost (5xx or dropped connection) cannot be found again. Resending then
	 * meets 409 diagnostic_in_progress while that run goes on (5–10 s): we wait for it to end
	 * and start ours, so the item still gets a diagnostic it can poll, instead of failing.
	 */
	async createDiagnostic(campaignId: string, itemIndex: number): Promise<ServiceDiagnostic> {
		const subject = `campaign ${campaignId}`;
		const giveUpAt = Date.now() + this.serviceMs(LOST_DIAGNOSTIC_WAIT_MS);
		let lostAnswer: NodeApiError | undefined;
		for (let attempt = 1; ; attempt++) {
			const outcome = await this.send(
				{
					method: 'POST',
					path: '/diagnostics',
					body: { campaign_id: campaignId },
					itemIndex,
					subject,
					resendable: false,
					passThroughStatuses: lostAnswer ? [409] : undefined,
				},
				{ json: true },
			);
			if (outcome.ambiguous) {
				lostAnswer = outcome.ambiguous;
				if (attempt >= this.maxAttempts) throw lostAnswer;
				this.stats.retries++;
				await this.wait(this.backoffMs(attempt));
				continue;
			}
			if (outcome.response.statusCode === 409) {
				if (Date.now() >= giveUpAt) {
					throw serviceError(this.node, {
						status: 409,
						type: 'diagnostic_in_progress',
						itemIndex,
						subject,
						description:
							'A run started by an earlier attempt whose answer was lost is still going. Run the diagnostic again in a minute.',
					});
				}
				this.stats.retries++;
				await this.wait(this.serviceMs(2_500));
				continue;
			}
			return (parseBody(outcome.response.body) as SingleEnvelope<ServiceDiagnostic>).data;
		}
	}

	private async findCreatedReport(
		body: IDataObject,
		since: number,
		itemIndex: number,
	): Promise<ServiceReport | undefined> {
		const from = new Date(since - CLOCK_SKEW_MS).toISOString();
		const matches: ServiceReport[] = [];
		await this.walk<ServiceReport>(
			'/reports',
			{ accountId: body.account_id as string, from },
			(records) => {
				for (const report of records) {
					if (this.claimedReportIds.has(report.id)) continue;
					if (report.title !== body.title) continue;
					if (report.dateRange?.from !== body.date_start || report.dateRange?.to !== body.date_end)
						continue;
					if (body.format && report.format && report.format !== body.format) continue;
					matches.push(report);
				}
			},
			itemIndex,
		);
		// Newest first: the one our lost request made is the latest.
		matches.sort((a, b) => String(b.createdAt ?? '').localeCompare(String(a.createdAt ?? '')));
		const found = matches[0];
		if (found) this.claimedReportIds.add(found.id);
		return found;
	}

	/**
	 * Downloads a file. The key goes only to the configured service: a link on another origin
	 * is fetched without authentication (the credential also refuses to add it there).
	 */
	async download(
		url: string,
		itemIndex: number,
		subject: string,
		explain?: RequestSpec['explain'],
	): Promise<RawResponse> {
		const target = new URL(url, this.baseUrl);
		const sameOrigin = target.origin === new URL(this.baseUrl).origin;
		const outcome = await this.send(
			{ method: 'GET', path: '', itemIndex, subject, explain },
			{ json: false, absoluteUrl: target.toString(), authenticate: sameOrigin, stream: true },
		);
		if (outcome.ambiguous) throw outcome.ambiguous;
		return outcome.response;
	}

	/**
	 * Sends with pacing and retries. A write that must not be resent blindly comes back as
	 * `ambiguous` when its outcome is unknown (5xx or lost connection), for the caller to
	 * settle; everything else either succeeds or throws the mapped error.
	 */
	private async send(
		spec: RequestSpec,
		transfer: { json: boolean; absoluteUrl?: string; authenticate?: boolean; stream?: boolean },
	): Promise<SendOutcome> {
		const buckets = bucketsOf(spec.method, spec.path);
		const url = transfer.absoluteUrl ?? `${this.baseUrl}/v1${spec.path}`;
		for (let attempt = 1; ; attempt++) {
			await this.pace(buckets);
			const options: IHttpRequestOptions = {
				method: spec.method,
				url,
				qs: spec.qs,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				timeout: 120_000,
			};
			if (transfer.json) {
				options.json = true;
				if (spec.body !== undefined) options.body = spec.body;
			} else {
				options.encoding = transfer.stream ? 'stream' : 'arraybuffer';
				options.json = false;
			}
			let response: RawResponse;
			this.stats.requests++;
			try {
				response =
					transfer.authenticate === false
						? ((await this.ctx.helpers.httpRequest(options)) as RawResponse)
						: ((await this.ctx.helpers.httpRequestWithAuthentication.call(
								this.ctx,
								CREDENTIAL_TYPE,
								options,
								{
									credentialsDecrypted: {
										id: this.ctx.getNode().credentials?.[CREDENTIAL_TYPE]?.id ?? '',
										name: CREDENTIAL_TYPE,
										type: CREDENTIAL_TYPE,
										data: this.credentials,
									},
								},
							)) as RawResponse);
			} catch (error) {
				this.throwIfCancelled(this.cancelSignal);
				const code = errorCodeOf(error);
				if (!code) throw this.networkError(error, spec.itemIndex, spec.subject);
				if (spec.resendable === false)
					return { ambiguous: this.networkError(error, spec.itemIndex, spec.subject) };
				if (attempt >= this.maxAttempts)
					throw this.networkError(error, spec.itemIndex, spec.subject);
				this.stats.retries++;
				await this.wait(this.backoffMs(attempt));
				continue;
			}

			if (response.statusCode >= 200 && response.statusCode < 300) {
				this.book(buckets, transfer.json ? remainingOf(response.body) : undefined);
				return { response };
			}

			if (spec.passThroughStatuses?.includes(response.statusCode)) {
				this.book(buckets, undefined);
				return { response };
			}
			const errorBody = (await this.readErrorBody(response)) as ServiceErrorBody;
			const type = errorBody?.error?.type;
			const serviceMessage = errorBody?.error?.message;
			const error = serviceError(this.node, {
				status: response.statusCode,
				type,
				serviceMessage,
				itemIndex: spec.itemIndex,
				subject: spec.subject,
				...spec.explain?.(response.statusCode, type),
			});
			if (response.statusCode === 429) {
				this.stats.rateLimited++;
				// Someone else (another workflow on the same key) used the window: trust the hint.
				for (const bucket of buckets) this.buckets[bucket] = {};
			} else {
				this.book(buckets, undefined);
			}
			if (!TRANSIENT_STATUSES.has(response.statusCode)) throw error;
			if (response.statusCode !== 429 && spec.resendable === false) {
				// A 5xx on a write: the work may have been done before the answer failed.
				return { ambiguous: error };
			}
			if (attempt >= this.maxAttempts) throw error;
			this.stats.retries++;
			const hint = response.statusCode === 429 ? retryHintSeconds(serviceMessage) : undefined;
			await this.wait(this.retryDelayMs(attempt, hint));
		}
	}

	private async readErrorBody(response: RawResponse): Promise<unknown> {
		const body = response.body as { on?: unknown; [Symbol.asyncIterator]?: unknown } | undefined;
		if (body && typeof body === 'object' && typeof body[Symbol.asyncIterator] === 'function') {
			const chunks: Buffer[] = [];
			let size = 0;
			for await (const chunk of body as AsyncIterable<Buffer>) {
				chunks.push(Buffer.from(chunk));
				size += chunk.length;
				if (size > 64 * 1024) break;
			}
			return parseBody(Buffer.concat(chunks));
		}
		return parseBody(response.body);
	}

	/** Full-jitter exponential backoff: a random wait up to min(cap, base × 2^(attempt−1)). */
	backoffMs(attempt: number): number {
		const ceiling = Math.min(
			RETRY_DEFAULTS.maxDelayMs,
			RETRY_DEFAULTS.baseDelayMs * 2 ** (attempt - 1),
		);
		return this.serviceMs(Math.random() * ceiling);
	}

	private retryDelayMs(attempt: number, hintSeconds: number | undefined): number {
		if (hintSeconds === undefined) return this.backoffMs(attempt);
		// The hint says when the window reopens; a little jitter keeps parallel workers apart.
		const hinted = Math.min(hintSeconds * 1000, RETRY_DEFAULTS.maxDelayMs * 2);
		return this.serviceMs(hinted + Math.random() * Math.min(1000, hinted * 0.1 + 100));
	}

	/**
	 * Waits before a request whose bucket is spent, until its window has certainly reset,
	 * instead of provoking a 429. "Spent" is what the service said (`meta.remaining_requests`)
	 * or, when it said nothing, our own count against the spec's limits.
	 */
	private async pace(buckets: Bucket[]): Promise<void> {
		let until = Date.now();
		for (const bucket of buckets) {
			const state = this.buckets[bucket];
			if (state.resetAt !== undefined && state.resetAt <= Date.now()) this.buckets[bucket] = {};
			const { remaining, sent = 0, resetAt } = this.buckets[bucket];
			const spent = remaining !== undefined ? remaining <= 0 : sent >= BUCKET_LIMITS[bucket];
			if (spent && resetAt !== undefined) until = Math.max(until, resetAt);
		}
		const now = Date.now();
		if (until > now) {
			await this.wait(until - now);
			for (const bucket of buckets) {
				if ((this.buckets[bucket].resetAt ?? 0) <= Date.now()) this.buckets[bucket] = {};
			}
		}
	}

	/**
	 * Books an answered request on its buckets. The window it counted in opened no later
	 * than now, so it has certainly reset one window from now. `remaining` (A14) speaks of the
	 * bucket the request counted against; for report generation and diagnostic runs, which
	 * also count as writes, it is the stricter of the two (A15), so it goes on the specific
	 * bucket. A count that went up means a new window opened since the last answer.
	 */
	private book(buckets: Bucket[], remaining: number | undefined) {
		const windowEnd = Date.now() + this.serviceMs(WINDOW_MS) * 1.01 + 5;
		for (const bucket of buckets) {
			const state = this.buckets[bucket];
			if (state.resetAt === undefined) {
				state.resetAt = windowEnd;
				state.sent = 0;
			}
			state.sent = (state.sent ?? 0) + 1;
		}
		if (remaining === undefined) return;
		const state = this.buckets[buckets[buckets.length - 1]];
		if (state.remaining !== undefined && remaining > state.remaining) {
			state.resetAt = windowEnd;
			state.sent = 1;
		}
		state.remaining = remaining;
	}

	private networkError(error: unknown, itemIndex?: number, subject?: string): NodeApiError {
		const code = errorCodeOf(error) ?? 'request_failed';
		const reason = error instanceof Error ? error.message : String(error);
		return new NodeApiError(
			this.node,
			// Not under `code`: NodeApiError would replace our message with its generic text for it.
			{
				networkError: code,
				detail: reason.replace(/service_(live|test)_[A-Za-z0-9]+/g, '[redacted]'),
			},
			{
				// In prose: NodeApiError swaps a message that contains an error code for its own text.
				message: `The service could not be reached${subject ? ` (${subject})` : ''}: ${NETWORK_ERROR_PROSE[code] ?? 'the request failed'}`,
				description: `Check the Base URL in the credential (${this.baseUrl}) and that the service is up. The connection failed ${this.maxAttempts} time(s).`,
				itemIndex,
			},
		);
	}
}
