import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	NodeApiError,
} from 'n8n-workflow';

import {
	apiKeyOf,
	apiKeyProblem,
	baseUrlProblem,
	normaliseBaseUrl,
	secretsOf,
} from '../credentialRules';
import { credentialError, TransportErrors } from '../errors';
import { ANSWER_LIMITS } from '../limits';
import { Redactor } from '../redaction';
import type { ListEnvelope } from '../types';
import { CancellableWait } from './cancellableWait';
import { CREDENTIAL_TYPE, type RawResponse, type RequestContext } from './exchange';
import { MAX_PAGE_SIZE, readAgreeing, walkPages, type WalkResult } from './pageWalker';
import { runAttempts, type Attempt, type AttemptRules } from './attempts';
import { RequestPipeline, type RequestSpec } from './pipeline';
import { pacerFor, type Bucket } from './rateLimiter';
import { RETRY_DEFAULTS, type Round } from './retry';
import { ServiceClock } from './serviceClock';
import { hopProblem } from './urlPolicy';

/**
 * How a walk is called: its deadline, and what an incomplete listing is to the caller: `fails`,
 * its error; `returned`, an incomplete result; `returnedIfShifted`, a page that contradicts
 * itself fails and pages that shifted while they were read come back incomplete.
 */
export interface WalkCall {
	itemIndex?: number;
	deadline: number;
	pageSize?: number;
	incomplete: 'fails' | 'returned' | 'returnedIfShifted';
}

/** The service's rate-limit window (one minute), in service time. */
const WINDOW_MS = 60_000;

export interface ClientOptions {
	/** Attempts per request, the first included (Request Options → Max Attempts). */
	maxAttempts?: number;
	/** Service minutes a request may wait while the service answers 429 with a retry time. */
	rateLimitWaitMinutes?: number;
}

interface ExecutionCredential {
	credentials: ICredentialDataDecryptedObject;
	redactor: Redactor;
}

const credentialOfContext = new WeakMap<object, Promise<ExecutionCredential>>();

/**
 * The credential of the execution `ctx` runs, decrypted once for the client and the boundary,
 * with its one Redactor. Released when the execution ends: n8n keeps one context for every poll
 * of a trigger, and a key replaced in the credential must be used from the next poll on.
 */
export async function executionCredential(ctx: RequestContext): Promise<ExecutionCredential> {
	let pending = credentialOfContext.get(ctx);
	if (!pending) {
		pending = ctx.getCredentials(CREDENTIAL_TYPE).then((credentials) => ({
			credentials,
			redactor: new Redactor(secretsOf(credentials)),
		}));
		credentialOfContext.set(ctx, pending);
	}
	return await pending;
}

/** Forgets the credential of `ctx`: the next execution on the same context fetches it again. */
export function releaseExecutionCredential(ctx: RequestContext): void {
	credentialOfContext.delete(ctx);
}

/**
 * The one facade the operations use; it only wires the parts together. One instance per node
 * execution: n8n queue mode runs many workers, so only the key's pacing is kept.
 */
export class AdPerformanceClient {
	readonly errors: TransportErrors;

	/** Reports this execution created or recovered (reportLedger.ts): no two items claim one. */
	readonly claimedReports = new Set<string>();

	/** The parts every request of the execution is sent with (pipeline.ts). */
	private readonly pipeline: RequestPipeline;

	/** The execution's waits (polling here, retries and pacing in the pipeline), ended by cancel. */
	readonly waiting: CancellableWait;

	private constructor(
		private readonly ctx: RequestContext,
		credentials: ICredentialDataDecryptedObject,
		readonly redactor: Redactor,
		readonly baseUrl: string,
		readonly clock: ServiceClock,
		maxAttempts: number,
		rateLimitWaitMs: number,
	) {
		this.errors = new TransportErrors(() => ctx.getNode(), this.redactor, baseUrl, maxAttempts);
		this.waiting = new CancellableWait(ctx);
		this.pipeline = new RequestPipeline({
			ctx,
			credentials,
			baseUrl,
			clock,
			maxAttempts,
			rateLimitWaitMs,
			pacer: pacerFor(baseUrl, apiKeyOf(credentials), clock.realMs(WINDOW_MS), {
				now: () => Date.now(),
				random: () => Math.random(),
			}),
			errors: this.errors,
			redactor,
			waiting: this.waiting,
		});
	}

	/** Checks the credential before anything is sent (createClient.ts validated the options). */
	static async create(
		ctx: RequestContext,
		options: ClientOptions = {},
	): Promise<AdPerformanceClient> {
		const node = ctx.getNode();
		const { credentials, redactor } = await executionCredential(ctx);
		const baseUrl = normaliseBaseUrl(credentials.baseUrl);
		const problem = baseUrlProblem(baseUrl);
		if (problem) {
			throw credentialError(
				node,
				`The Base URL in the Ad Performance credential ${problem}`,
				'Open the credential and enter only the service address, for example https://api.example.com (without /v1, a user name, a password or a query).',
			);
		}
		const keyProblem = apiKeyProblem(apiKeyOf(credentials));
		if (keyProblem) throw credentialError(node, keyProblem.message, keyProblem.description);
		const clock = new ServiceClock(baseUrl, credentials.timeScale);
		return new AdPerformanceClient(
			ctx,
			credentials,
			redactor,
			baseUrl,
			clock,
			options.maxAttempts ?? RETRY_DEFAULTS.maxAttempts,
			clock.realMs((options.rateLimitWaitMinutes ?? RETRY_DEFAULTS.rateLimitWaitMinutes) * 60_000),
		);
	}

	/**
	 * Tells the key's pacer that this execution has `count` items still to run that each send one
	 * request of `bucket` (RateLimiter.expect). `settled` takes one away; `release`, what is left.
	 */
	expectRequests(bucket: Bucket, count: number): { settled(): void; release(): void } {
		const { limiter } = this.pipeline.parts.pacer;
		let left = count;
		limiter.expect(bucket, left);
		return {
			settled: () => {
				if (left === 0) return;
				left--;
				limiter.expect(bucket, -1);
			},
			release: () => {
				limiter.expect(bucket, -left);
				left = 0;
			},
		};
	}

	get node(): INode {
		return this.ctx.getNode();
	}

	/**
	 * The deadline every request of an operation is sent with: now plus its own budget (a Timeout,
	 * a poll budget, the Tool Timeout), else past what Request Options allow, so they end it first.
	 */
	deadline(budgetMs?: number): number {
		const { maxAttempts, rateLimitWaitMs } = this.pipeline.parts;
		const attemptsMs = maxAttempts * Math.max(ANSWER_LIMITS.requestMs, ANSWER_LIMITS.downloadMs);
		return Date.now() + (budgetMs ?? rateLimitWaitMs + attemptsMs);
	}

	/** Sends one request with pacing and retries; resolves with the checked JSON envelope. */
	async request<T>(spec: RequestSpec): Promise<T> {
		const exchange = (round: Round) => this.pipeline.exchangeOnce(spec, round);
		return (await this.attempts(exchange, { deadline: spec.deadline })).body as T;
	}

	/** Runs an operation of more than one request per attempt as one run of attempts (attempts.ts). */
	async attempts<T>(
		attempt: (round: Round) => Promise<Attempt<T>>,
		rules: AttemptRules<T>,
	): Promise<T> {
		return await runAttempts(this.pipeline.parts, attempt, rules);
	}

	/**
	 * One exchange of a write that must not be resent blindly, for `attempts`: an unknown outcome
	 * (5xx, lost connection, a garbled 2xx) is `ambiguous`; `onAmbiguous` looks for what it made.
	 */
	async writeOnce(
		spec: Omit<RequestSpec, 'method' | 'resendable'>,
		round: Round,
	): Promise<Attempt<RawResponse>> {
		return await this.pipeline.exchangeOnce({ ...spec, method: 'POST', resendable: false }, round);
	}

	async listPage<T>(
		path: string,
		qs: IDataObject,
		page: number,
		pageSize: number,
		options: { itemIndex?: number; deadline: number },
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
	 * Reads a list: every record with `returnAll`, else the first `limit`, each once, from a
	 * listing that agrees with itself (pageWalker.ts). Records are pushed one by one: 200,000
	 * spread into arguments would overflow the call stack.
	 */
	async list<T extends IDataObject>(
		path: string,
		qs: IDataObject,
		options: { returnAll: boolean; limit?: number; itemIndex?: number; deadline: number },
	): Promise<T[]> {
		const { returnAll, limit = Infinity, itemIndex, deadline } = options;
		const wanted = returnAll ? Infinity : limit;
		let records: T[] = [];
		const collect = (page: T[]) => {
			for (const record of page) {
				if (records.length >= wanted) break;
				records.push(record);
			}
			return records.length < wanted;
		};
		const pageSize = Math.min(MAX_PAGE_SIZE, wanted);
		const walked = await readAgreeing(async () => {
			records = [];
			return await this.walk<T>(path, qs, collect, {
				itemIndex,
				deadline,
				pageSize,
				incomplete: 'returned',
			});
		});
		if (walked.kind === 'incomplete') throw this.listContradiction(path, walked.reason, itemIndex);
		return records;
	}

	/**
	 * Walks the pages of a list (pageWalker.ts); `visit` returns false to stop. Every caller says
	 * what an incomplete listing is to it (WalkCall), so none reads one as whole without deciding.
	 */
	async walk<T extends IDataObject>(
		path: string,
		qs: IDataObject,
		visit: (records: T[]) => boolean | void,
		options: WalkCall,
	): Promise<WalkResult> {
		const { itemIndex, deadline } = options;
		const fails = options.incomplete === 'fails';
		const pagesFail = options.incomplete !== 'returned';
		const walked = await walkPages<T>(
			async (page, pageSize) =>
				await this.listPage<T>(path, qs, page, pageSize, { itemIndex, deadline }),
			visit,
			(problem) => this.errors.pagination(path, problem, itemIndex),
			{
				pageSize: options.pageSize,
				deadline,
				contradiction: pagesFail
					? (problem) => this.listContradiction(path, problem, itemIndex)
					: undefined,
			},
		);
		if (fails && walked.kind === 'incomplete')
			throw this.listContradiction(path, walked.reason, itemIndex);
		return walked;
	}

	private listContradiction(path: string, problem: string, itemIndex?: number): NodeApiError {
		const request = { method: 'GET', path, itemIndex, resendable: false };
		return this.errors.protocol(problem, request);
	}

	/**
	 * One exchange of a download, as a stream, for `attempts` (reading it may fail the attempt
	 * too); a link urlPolicy.ts forbids is refused before it is opened.
	 */
	async downloadOnce(
		url: string,
		options: Pick<RequestSpec, 'itemIndex' | 'subject' | 'explain' | 'deadline' | 'notYet'> & {
			/** The Max File Size: the body is a stream that fails past it (boundedReader.ts). */
			maxBytes: number;
		},
		round: Round,
	): Promise<Attempt<RawResponse>> {
		const target = new URL(url, this.baseUrl).toString();
		const problem = hopProblem(this.baseUrl, undefined, target);
		if (problem) {
			throw this.errors.refused(
				`The download link of ${options.subject ?? 'the file'} ${problem}`,
				'The link was not opened, and the API key was not sent. If the service really serves files from such an address, contact its support.',
				options.itemIndex,
			);
		}
		const { maxBytes, ...spec } = options;
		const download = { url: target, maxBytes };
		return await this.pipeline.exchangeOnce({ method: 'GET', path: '', ...spec }, round, download);
	}
}
