import type { NodeApiError } from 'n8n-workflow';

import { apiKeyOf, isServiceOrigin } from '../credentialRules';
import { DeadlineReached, type TransportErrors } from '../errors';
import type { Redactor } from '../redaction';
import type { ServiceErrorBody } from '../types';
import type { CancellableWait } from './cancellableWait';
import { readEnvelope, remainingOf, type Expectation } from './envelope';
import {
	headerOf,
	sendFollowingRedirects,
	type Download,
	type HopContext,
	type RawResponse,
	type SentRequest,
} from './exchange';
import { failedAttempt, type Attempt, type RetryParts } from './attempts';
import { AnswerCut, discardBody } from './boundedReader';
import type { Bucket, KeyPacer } from './rateLimiter';
import {
	decide,
	decodingFailureOf,
	isSuccess,
	NETWORK_ERRORS,
	networkErrorCode,
	pastMaxWait,
	retryAfterMs,
	retryHintSeconds,
	type Round,
	type Seen,
} from './retry';
import type { ServiceClock } from './serviceClock';

export interface RequestSpec extends SentRequest {
	/** The envelope a success must have; anything else is a protocol error. */
	expect?: Expectation;
	/** The write's own limit, named by the caller (the transport knows no paths). */
	writeLimit?: 'generation' | 'diagnostic';
	/** Whether a failure with unknown outcome may be resent (false for creating things). */
	resendable?: boolean;
	/**
	 * Error statuses meaning work is still under way (a diagnostic's 409 while a lost attempt's
	 * run goes on), asked again after a backoff up to `pollMs` (service ms) until `until` (n8n
	 * time, else the deadline). Set only while such work may be going on.
	 */
	notYet?: { statuses: number[]; pollMs: number; until?: number };
	/** A message and fix better suited to this request than the generic ones of its error type. */
	explain?: (
		status: number,
		type: string | undefined,
	) => { message?: string; description?: string } | undefined;
	/**
	 * Identical requests (same key, same body) of other executions of this process, while this
	 * one is in flight, share its answer instead of sending their own (Generate: one report).
	 */
	singleFlight?: boolean;
}

type WaitExceeded = Parameters<TransportErrors['rateLimitWaitExceeded']>[0];

interface PipelineParts extends RetryParts, HopContext {
	clock: ServiceClock;
	pacer: KeyPacer;
	errors: TransportErrors;
	/** The execution's scrubber: it vouches for answers with nothing to scrub (readEnvelope). */
	redactor: Redactor;
	waiting: CancellableWait;
}

/** The key's buckets a request spends; a link to another origin spends none (it is not the key's). */
function bucketsOf(spec: RequestSpec, baseUrl: string, download?: Download): Bucket[] {
	if (download && !isServiceOrigin(baseUrl, download.url)) return [];
	if (spec.method === 'GET') return ['read'];
	return spec.writeLimit ? ['write', spec.writeLimit] : ['write'];
}

interface Exchanged {
	response?: RawResponse;
	failure?: unknown;
	sentAt: number;
	/** Its number among the key's sends (RateLimiter.onSent). */
	sendNumber?: number;
	/** The answer of another execution's identical request (single-flight): its pacing is done. */
	shared?: boolean;
	/** The execution that sent it was stopped before the answer came (so the answer is lost). */
	senderStopped?: boolean;
}

/** Every request of the nodes, one pass per attempt: turn and pacing, exchange, outcome. */
export class RequestPipeline {
	constructor(readonly parts: PipelineParts) {}

	async exchangeOnce(
		spec: RequestSpec,
		round: Round,
		download?: Download,
	): Promise<Attempt<RawResponse>> {
		const buckets = bucketsOf(spec, this.parts.baseUrl, download);
		const exchanged = await this.exchangeShared(spec, buckets, round, download);
		return this.classify(spec, buckets, exchanged, round, download);
	}

	private async exchangeShared(
		spec: RequestSpec,
		buckets: Bucket[],
		round: Round,
		download?: Download,
	): Promise<Exchanged> {
		if (!spec.singleFlight) return await this.sendWhenDue(spec, buckets, round, download);
		const { shared } = this.parts.pacer;
		const apiKey = apiKeyOf(this.parts.credentials);
		const key = JSON.stringify([spec.method, spec.path, spec.body ?? null]);
		const inFlight = shared.get(key);
		if (inFlight && inFlight.apiKey === apiKey) {
			let answer: Exchanged | undefined;
			const arrived = (inFlight.exchange as Promise<Exchanged | undefined>).then((value) => {
				answer = value;
			});
			if (!(await this.parts.waiting.waitFor(arrived, spec.deadline))) throw new DeadlineReached();
			// Undefined: it was never sent (its execution gave up first); then send this one.
			if (answer) return { ...answer, shared: true };
		}
		const own = this.sendWhenDue(spec, buckets, round, download);
		const entry = { apiKey, exchange: own.catch(() => undefined) };
		shared.set(key, entry);
		try {
			return await own;
		} finally {
			if (shared.get(key) === entry) shared.delete(key);
		}
	}

	/** Waits for the key's turn (writes) and pacing, and sends; the turn ends once it has left. */
	private async sendWhenDue(
		spec: RequestSpec,
		buckets: Bucket[],
		round: Round,
		download?: Download,
	): Promise<Exchanged> {
		const { pacer, waiting } = this.parts;
		const turn = buckets.includes('write') ? pacer.writes.join() : undefined;
		try {
			if (turn) {
				// Waiting in line is waiting for the rate limit: Max Wait When Rate Limited bounds it too.
				const until = Math.min(round.rateLimitDeadline, spec.deadline);
				if (!(await waiting.waitFor(turn.turn, until))) {
					if (Date.now() >= spec.deadline) throw new DeadlineReached();
					throw this.waitExceeded({ cause: 'turn' }, spec);
				}
			}
			// So is the key's pacing: past Max Wait it is not waited out, it fails now, unsent.
			// Checked after every wait: other executions' reads may have spent the new window.
			for (
				let pacingMs = pacer.limiter.delayBeforeSend(buckets);
				pacingMs > 0;
				pacingMs = pacer.limiter.delayBeforeSend(buckets)
			) {
				if (pastMaxWait(pacingMs, round)) {
					const heldMinutes = this.parts.clock.serviceMs(pacingMs) / 60_000;
					throw this.waitExceeded({ cause: 'held', heldMinutes }, spec);
				}
				await waiting.waitWithin(pacingMs, spec.deadline);
			}
			waiting.throwIfCancelled();
			const sendNumber = pacer.limiter.onSent(buckets);
			const sentAt = Date.now();
			const answer = sendFollowingRedirects(this.parts, spec, download);
			turn?.release();
			try {
				return { response: await answer, sentAt, sendNumber };
			} catch (failure) {
				return { failure, sentAt, sendNumber, senderStopped: waiting.signal?.aborted === true };
			}
		} finally {
			turn?.release();
		}
	}

	/**
	 * What an exchange came to (retry.ts, Seen; decide says what follows), told to the key's
	 * pacing only by its sender, and only from the service's own origin.
	 */
	private classify(
		spec: RequestSpec,
		buckets: Bucket[],
		exchanged: Exchanged,
		round: Round,
		download?: Download,
	): Attempt<RawResponse> {
		const { waiting, errors, pacer, clock, redactor } = this.parts;
		const { response, sentAt } = exchanged;
		const declared = {
			resendable: spec.resendable,
			file: download !== undefined,
			notYet: {
				pollMs: spec.notYet?.pollMs ?? 0,
				until: Math.min(spec.notYet?.until ?? spec.deadline, spec.deadline),
			},
		};
		const after = (kind: Exclude<Seen['kind'], 'answer'>, error: NodeApiError) =>
			failedAttempt<RawResponse>(decide({ kind }, declared, round), error, sentAt);
		if (response === undefined) {
			if (!exchanged.shared) pacer.limiter.onUnanswered(buckets);
			waiting.throwIfCancelled();
			// The sender of a shared request was stopped after sending: for this execution, a lost answer.
			if (exchanged.shared && exchanged.senderStopped) {
				const lost = 'the answer was lost: the execution that sent this request was stopped';
				const error = errors.network(exchanged.failure, 'ECONNABORTED', lost, spec);
				return after('lost', error);
			}
			// Our own refusals (a redirect we would not follow) are final as they are.
			if (errors.isOwn(exchanged.failure))
				return after('refused', exchanged.failure as NodeApiError);
			if (Date.now() >= spec.deadline) throw new DeadlineReached();
			// An answer came and could not be unpacked, or was not the length it announced: garbled.
			const garbled =
				exchanged.failure instanceof AnswerCut
					? exchanged.failure.message
					: decodingFailureOf(exchanged.failure);
			if (garbled !== undefined) {
				const problem = `the answer could not be read whole (${garbled.slice(0, 200)})`;
				return after('garbled', errors.protocol(problem, spec));
			}
			const code = networkErrorCode(exchanged.failure);
			const known = NETWORK_ERRORS.get(code ?? '');
			const prose = known?.prose ?? 'the request failed';
			const error = errors.network(exchanged.failure, code ?? 'request_failed', prose, spec);
			return after(!known ? 'unexplained' : known.unsent ? 'unsent' : 'lost', error);
		}
		const { fromService, statusCode: status } = response;
		// Another origin's answer teaches nothing about the key or the service's clock: it lands.
		const limiter = exchanged.shared ? undefined : pacer.limiter;
		if (!fromService) limiter?.onUnanswered(buckets);
		const teach = fromService ? limiter : undefined;
		const date = headerOf(response.headers, 'date');
		if (fromService) clock.observeExchange(date, sentAt, Math.max(Date.now(), sentAt));
		if (isSuccess(status, declared)) {
			const envelope = download
				? undefined
				: readEnvelope(response, spec.expect ?? 'any', redactor);
			teach?.onAccepted(buckets, remainingOf(envelope?.value), exchanged.sendNumber);
			// The service did the work and garbled the answer: a write is not resent blindly.
			if (envelope?.problem !== undefined)
				return after('garbled', errors.protocol(envelope.problem, spec));
			// Records are not scrubbed here: whatever leaves a node (items, errors) is scrubbed
			// once at the boundary (boundary.ts), and list search scrubs what it shows.
			const value = envelope ? { ...response, body: envelope.value } : response;
			return { kind: 'done', value, sentAt };
		}

		// A file's body that is not the file (206, 204) is let go of unread.
		if (download && status >= 200 && status < 300) discardBody(response.body);
		// An error answer's JSON, if it has any: its status alone is enough to go by.
		const said = (readEnvelope(response, 'any').value as ServiceErrorBody | undefined)?.error;
		const type = typeof said?.type === 'string' ? said.type : undefined;
		const serviceMessage = typeof said?.message === 'string' ? said.message : undefined;
		// A Retry-After is read against the Date of the answer that carries it, whoever sent it.
		const retryAfter = retryAfterMs(headerOf(response.headers, 'retry-after'), date, Date.now());
		const seen: Seen = {
			kind: 'answer',
			status,
			from: fromService ? 'service' : 'elsewhere',
			notYet: spec.notYet?.statuses.includes(status) === true,
			retryAfterMs: retryAfter === undefined ? undefined : clock.realMs(retryAfter),
		};
		if (fromService && status === 429) {
			// The key's pacing learns of the 429 and says how long to wait: as told (Retry-After,
			// or the seconds its message names), never under its floor (rateLimiter.ts).
			const hintSeconds = retryHintSeconds(serviceMessage);
			const hintMs =
				seen.retryAfterMs ??
				(hintSeconds === undefined ? undefined : clock.realMs(hintSeconds * 1000));
			seen.hinted = hintMs !== undefined;
			seen.rateLimitMs = pacer.limiter.onRejected(buckets, hintMs, round.scheduled + 1);
		} else {
			teach?.onAccepted(buckets, undefined);
		}
		const decision = decide(seen, declared, round);
		const origin = fromService ? undefined : new URL(download?.url ?? this.parts.baseUrl).origin;
		const { itemIndex, subject } = spec;
		const details = { status, type, serviceMessage, origin, itemIndex, subject };
		const error =
			status >= 200 && status < 300
				? errors.protocol(`the answer was ${status}, not the whole file (200)`, spec)
				: errors.service({ ...details, ...spec.explain?.(status, type) });
		if (decision.kind !== 'final' || !decision.tooLong)
			return failedAttempt(decision, error, sentAt);
		if (decision.tooLong.rateLimit) {
			const exceeded = this.waitExceeded({ cause: 'service', type, serviceMessage }, spec);
			return { kind: 'final', error: exceeded, sentAt };
		}
		// A Retry-After that no wait within the bound can honour ends it now, saying so.
		const { askedMs, leftMs } = decision.tooLong;
		const minutes = (ms: number) =>
			`${Math.round(clock.serviceMs(Math.max(0, ms)) / 6_000) / 10} minute(s)`;
		const who = origin ? `The file host ${origin}` : 'The service';
		const message = `${who} answered with status ${status} and asked to come back in ${minutes(askedMs)}, later than the wait for it allows (${minutes(leftMs)} left)`;
		const description =
			'It was not asked again, since no wait within the bound could honour it. Run the workflow again once that time has passed.';
		const refused = errors.service({ ...details, message, description });
		return { kind: 'final', error: refused, sentAt };
	}

	/** Max Wait When Rate Limited was not enough; the error quotes it in service minutes. */
	private waitExceeded(wait: Omit<WaitExceeded, 'maxWaitMinutes'>, spec: RequestSpec) {
		const maxWaitMinutes = this.parts.clock.serviceMs(this.parts.rateLimitWaitMs) / 60_000;
		return this.parts.errors.rateLimitWaitExceeded({ ...wait, maxWaitMinutes }, spec);
	}
}
