/** When to try a request again and how long to wait first: pure functions, tested without HTTP. */

export const RETRY_DEFAULTS = {
	maxAttempts: 5,
	baseDelayMs: 1_000,
	maxDelayMs: 30_000,
	rateLimitWaitMinutes: 15,
};

/** Statuses that mean "try again later"; every other 4xx is an answer and never retried. */
const SERVER_ERROR_STATUSES = new Set([500, 502, 503, 504]);

/**
 * What one attempt saw, whatever the request: every attempt ends in exactly one of these.
 *   - answer: an answer with `status`, readable (a 2xx's envelope checked), `from` the service's
 *     own origin or `elsewhere` (a download's file host, a proxy a link led to);
 *   - garbled: an answer came and could not be read: undecodable packing, not JSON, a broken
 *     envelope, a web page where a file belongs, cut off before its end or longer than announced;
 *   - unsent: no answer, and the request never reached the service (connection refused);
 *   - lost: no answer after the request may have reached it (reset, timed out);
 *   - refused: we refused to go on (a redirect elsewhere, an answer over its size limit);
 *   - unexplained: a failure that is none of these (it is not guessed at).
 * `notYet`: the answer is one of the request's own not-yet statuses (RequestSpec.notYet: work
 * still under way); `retryAfter`: it named when to come back (a valid Retry-After).
 */
export type Seen =
	| {
			kind: 'answer';
			status: number;
			from: 'service' | 'elsewhere';
			notYet?: boolean;
			retryAfter?: boolean;
	  }
	| { kind: 'garbled' }
	| { kind: 'unsent' }
	| { kind: 'lost' }
	| { kind: 'refused' }
	| { kind: 'unexplained' };

/**
 * What follows an attempt: each becomes the Attempt of that meaning (attempts.ts). `schedule`:
 * the key's rate limit said when (the key's pacing learns it); `wait`: not yet, come back later
 * (within the request's not-yet bound, no failure, and nothing learnt about the key).
 */
export type Decision = 'done' | 'retry' | 'search' | 'schedule' | 'wait' | 'final';

/** What a request declares to the table about itself. */
export interface Declared {
	/** False for a request whose work must not be done twice (a write): looked for, not resent. */
	resendable?: boolean;
	/** A file: only a whole `200` is the file; another 2xx (206 Partial Content, 204) is garbled. */
	file?: boolean;
}

/**
 * The one table that decides what follows an attempt, for every request, POST included: no
 * other code decides to retry. Only the service's own origin speaks for the key: a 429 from a
 * file host is that host's, waited out as it asks (or backed off from), never the key's pacing.
 */
export function decide(seen: Seen, request: Declared): Decision {
	const unknownWhetherDone = request.resendable === false ? 'search' : 'retry';
	switch (seen.kind) {
		case 'answer': {
			const { status } = seen;
			if (status >= 200 && status < 300)
				return request.file && status !== 200 ? unknownWhetherDone : 'done';
			if (seen.notYet) return 'wait';
			const service = seen.from === 'service';
			if (status === 429) return service ? 'schedule' : seen.retryAfter ? 'wait' : 'retry';
			if (!service && status === 503 && seen.retryAfter) return 'wait';
			return SERVER_ERROR_STATUSES.has(status) ? unknownWhetherDone : 'final';
		}
		case 'garbled':
		case 'lost':
			return unknownWhetherDone;
		case 'unsent':
			return 'retry';
		case 'refused':
		case 'unexplained':
			return 'final';
	}
}

/** Where the run of attempts stands when an attempt has failed (attempts.ts, Round). */
export interface RoundState {
	/** Counted as failed, this attempt leaves none of Max Attempts. */
	lastAttempt: boolean;
	/**
	 * The wait the answer asks for ends past what the round may wait for it: Max Wait When Rate
	 * Limited for a 429 or a Retry-After, the request's not-yet bound for "not yet".
	 */
	waitTooLong: boolean;
	/** The answer named its wait (a Retry-After, or a 429's message): a 429 without is a failure. */
	named?: boolean;
}

/**
 * What a decision of the table comes to in its round, the one rule of when a run of attempts
 * ends: a retry with no attempt left, or asked to wait past its bound, is final; a search is
 * still made then (what a lost write did is looked for once more) and ends the run after it
 * (`lastSearch`); a 429 or a "not yet" whose wait does not fit is final, and so is a 429 that
 * named no wait on the last attempt.
 */
export function inRound(decision: Decision, round: RoundState): Decision | 'lastSearch' {
	const spent = round.lastAttempt || round.waitTooLong;
	switch (decision) {
		case 'retry':
			return spent ? 'final' : 'retry';
		case 'search':
			return spent ? 'lastSearch' : 'search';
		case 'schedule':
			return round.waitTooLong || (round.lastAttempt && !round.named) ? 'final' : 'schedule';
		case 'wait':
			return round.waitTooLong ? 'final' : 'wait';
		default:
			return decision;
	}
}

/** Full-jitter exponential backoff: a random wait up to min(cap, base × 2^(attempt−1)). */
export function backoffMs(attempt: number, random: number): number {
	const { baseDelayMs, maxDelayMs } = RETRY_DEFAULTS;
	return random * Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, attempt - 1));
}

/**
 * The backoff after the `count`th "not yet" answer (service ms): from 2 s, doubling with a jitter
 * of ×1 to ×1.5 (so no wait is shorter than the one before) up to `capMs` (at least 2 s).
 */
export function notYetWaitMs(count: number, random: number, capMs: number): number {
	return Math.min(Math.max(capMs, 2_000), 2_000 * 2 ** Math.max(0, count - 1) * (1 + random / 2));
}

/**
 * Seconds named by a 429 message like "Rate limit exceeded. Retry after 12 seconds.": only a
 * hint, the client works without it (the message is not a contract).
 */
export function retryHintSeconds(message: unknown): number | undefined {
	if (typeof message !== 'string') return undefined;
	const match = /(\d+(?:\.\d+)?)\s*(?:s\b|sec|second)/i.exec(message);
	if (!match) return undefined;
	const seconds = Number(match[1]);
	return Number.isFinite(seconds) && seconds >= 0 && seconds <= 3600 ? seconds : undefined;
}

/** The longest Retry-After taken at its word (a day); anything longer is absurd, like a negative one. */
const MAX_RETRY_AFTER_MS = 24 * 60 * 60_000;

/**
 * The wait a `Retry-After` header asks for (RFC 9110 §10.2.3), in service ms: seconds, or an
 * HTTP date read against the answer's own `Date` (both the service's clock; else n8n's `now`).
 * Undefined when absent, garbage, negative or over a day: then the backoff floor applies.
 */
export function retryAfterMs(
	header: string | undefined,
	dateHeader: string | undefined,
	now: number,
): number | undefined {
	if (typeof header !== 'string' || header.length > 64) return undefined;
	const text = header.trim();
	let ms: number;
	if (/^\d+$/.test(text)) {
		ms = Number(text) * 1000;
	} else {
		// An HTTP date names a weekday or month; a bare number with a sign or a dot is no date.
		const at = /[a-z]{3}/i.test(text) ? Date.parse(text) : NaN;
		const base = Date.parse(dateHeader ?? '');
		ms = at - (Number.isFinite(base) ? base : now);
	}
	return Number.isFinite(ms) && ms >= 0 && ms <= MAX_RETRY_AFTER_MS ? ms : undefined;
}

/**
 * Failures to unpack an answer that arrived: zlib's and brotli's codes and texts (a damaged gzip
 * trailer, a gzip header over plain JSON, a brotli stream cut short). The service answered, and
 * garbled the answer: that is a garbled answer, not an unreachable service.
 */
const DECODING_ERROR_CODES =
	/^(Z_[A-Z_]+|ERR_ZLIB_[A-Z_]+|ERR__ERROR_FORMAT_[A-Z_]+|ERR_BROTLI_[A-Z_]+|ERR_[A-Z_]*DECOMPRESS[A-Z_]*)$/;
const DECODING_ERROR_TEXTS =
	/incorrect header check|unexpected end of file|invalid (stored block lengths|distance|code lengths|block type|literal\/lengths? set|literal\/length code|bit length repeat)|incorrect (data|length) check|unknown compression method|header crc mismatch|too many length or distance symbols|invalid window size|Decompression failed|brotli/i;

/** Why an answer could not be unpacked; undefined when the failure is something else. */
export function decodingFailureOf(error: unknown): string | undefined {
	return firstInChain(error, (current) => {
		const message = typeof current.message === 'string' ? current.message : '';
		if (typeof current.code === 'string' && DECODING_ERROR_CODES.test(current.code)) {
			return message || current.code;
		}
		return DECODING_ERROR_TEXTS.test(message) && !networkErrorCode({ message })
			? message
			: undefined;
	});
}

/**
 * The first thing `find` finds in an error or the errors it wraps, whichever way the n8n
 * version at hand wrapped it (the raw axios error, or a NodeApiError holding it as cause,
 * errorResponse, reason or error); at most 20 of them are looked at.
 */
function firstInChain<T>(
	error: unknown,
	find: (current: Record<string, unknown>) => T | undefined,
): T | undefined {
	const queue: unknown[] = [error];
	const seen = new Set<unknown>();
	while (queue.length > 0 && seen.size < 20) {
		const current = queue.shift() as Record<string, unknown> | undefined;
		if (!current || typeof current !== 'object' || seen.has(current)) continue;
		seen.add(current);
		const found = find(current);
		if (found !== undefined) return found;
		queue.push(current.cause, current.errorResponse, current.reason, current.error);
	}
	return undefined;
}

/** Network failures worth another attempt, in words; `unsent`: it never reached the service. */
export const NETWORK_ERRORS = new Map<string, { prose: string; unsent?: boolean }>([
	['ECONNRESET', { prose: 'the connection was dropped' }],
	['ECONNABORTED', { prose: 'the connection was aborted' }],
	['EPIPE', { prose: 'the connection was dropped' }],
	['ETIMEDOUT', { prose: 'the request timed out' }],
	['ECONNREFUSED', { prose: 'the connection was refused', unsent: true }],
	['EAI_AGAIN', { prose: 'the host name could not be resolved', unsent: true }],
	['ERR_SOCKET_CONNECTION_TIMEOUT', { prose: 'the request timed out', unsent: true }],
]);

/** n8n rewrites a network error's message into prose; these are its texts for the codes we retry. */
const NETWORK_ERROR_TEXTS: Array<[RegExp, string]> = [
	[/socket hang up|ECONNRESET|closed unexpectedly|\baborted\b/i, 'ECONNRESET'],
	[/ECONNABORTED|connection was aborted/i, 'ECONNABORTED'],
	[/ETIMEDOUT|timed out|timeout of \d+ms exceeded/i, 'ETIMEDOUT'],
	[/ECONNREFUSED|refused the connection/i, 'ECONNREFUSED'],
	[/EPIPE/, 'EPIPE'],
];

/** The network error code behind an error (one of NETWORK_ERRORS), or undefined. */
export function networkErrorCode(error: unknown): string | undefined {
	return firstInChain(error, (current) => {
		for (const key of ['code', 'httpCode']) {
			const code = current[key];
			if (typeof code === 'string' && NETWORK_ERRORS.has(code)) return code;
		}
		const texts = [current.message, ...(Array.isArray(current.messages) ? current.messages : [])];
		for (const text of texts) {
			if (typeof text !== 'string') continue;
			const match = NETWORK_ERROR_TEXTS.find(([pattern]) => pattern.test(text));
			if (match) return match[1];
		}
		return undefined;
	});
}
