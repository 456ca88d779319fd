/**
 * When to try a request again and how long to wait first: every failed attempt is judged by
 * `decide` alone (the waits for the key's pacing before a request is sent are rateLimiter.ts's).
 */

export const RETRY_DEFAULTS = {
	maxAttempts: 5,
	baseDelayMs: 1_000,
	maxDelayMs: 30_000,
	rateLimitWaitMinutes: 15,
};

/** Statuses that mean "try again later"; every other 4xx is an answer and never retried. */
const SERVER_ERROR_STATUSES = new Set([500, 502, 503, 504]);

/**
 * What one attempt saw: an `answer` (from the service's own origin or `elsewhere`, such as a
 * file host); a `garbled` one that could not be read (undecodable, not JSON, a broken envelope,
 * a web page for a file, shorter or longer than announced); none, the request `unsent` (refused
 * connection) or `lost` after it may have arrived; `refused` by us (a redirect elsewhere, an
 * answer over its limit); or `unexplained` (not guessed at). `notYet`: one of the request's
 * not-yet statuses; `retryAfterMs`: a valid Retry-After, in real ms; `rateLimitMs`: for the
 * service's 429, the wait the key's pacing set; `hinted`: whether the answer named one.
 */
export type Seen =
	| {
			kind: 'answer';
			status: number;
			from: 'service' | 'elsewhere';
			notYet?: boolean;
			retryAfterMs?: number;
			rateLimitMs?: number;
			hinted?: boolean;
	  }
	| { kind: 'garbled' | 'unsent' | 'lost' | 'refused' | 'unexplained' };

/** What a request declares to the table about itself. */
export interface Declared {
	/** False for a request whose work must not be done twice (a write): looked for, not resent. */
	resendable?: boolean;
	/** A file: only a whole `200` is the file; another 2xx (206 Partial Content, 204) is garbled. */
	file?: boolean;
	/**
	 * Its "not yet" waits: backed off up to `pollMs` (service ms), until `until` (n8n time). A
	 * file host's Retry-After is waited within it too.
	 */
	notYet?: { pollMs: number; until: number };
}

/** Where the run of attempts stands (attempts.ts): what `decide` judges an attempt in. */
export interface Round {
	/** Attempts that failed so far: this attempt is number `failures + 1` of Max Attempts. */
	failures: number;
	maxAttempts: number;
	/** Times the service scheduled us (429) so far: the floor of the next wait grows with it. */
	scheduled: number;
	/** "Not yet" answers so far: the next not-yet wait backs off with it. */
	notYet: number;
	/** n8n time after which a rate-limit wait no longer fits Max Wait When Rate Limited. */
	rateLimitDeadline: number;
	/** A duration of service time in real ms (ServiceClock.realMs). */
	realMs(serviceMs: number): number;
}

/**
 * What follows an attempt, with its wait in real ms: `ambiguous` is a retry of what may be done
 * (looked for before anything is sent again); `last`, no attempt or wait is left (a lost write is
 * still looked for once more); `tooLong`, the wait asked for ends past its bound (`rateLimit`:
 * the key's, Max Wait When Rate Limited).
 */
export type Decision =
	| { kind: 'done' }
	| { kind: 'retry' | 'ambiguous'; waitMs: number; last: boolean }
	| { kind: 'scheduled'; waitMs: number; countsAsFailure: boolean }
	| { kind: 'notYet'; waitMs: number }
	| { kind: 'final'; tooLong?: { askedMs: number; leftMs: number; rateLimit?: boolean } };

/** Whether an answer's status is the whole success the request asked for. */
export function isSuccess(status: number, request: Declared): boolean {
	return request.file ? status === 200 : status >= 200 && status < 300;
}

/**
 * The one table that decides what follows an attempt, for every request: no other code decides
 * to retry or to wait, or how long. A 429 from a file host is that host's, never the key's.
 */
export function decide(seen: Seen, request: Declared, round: Round): Decision {
	const unknownWhetherDone = request.resendable === false ? 'ambiguous' : 'retry';
	switch (seen.kind) {
		case 'answer': {
			const { status } = seen;
			const askedMs = seen.retryAfterMs ?? 0;
			if (isSuccess(status, request)) return { kind: 'done' };
			if (status >= 200 && status < 300) return again(unknownWhetherDone, 0, round);
			if (
				seen.notYet ||
				(seen.from === 'elsewhere' && askedMs > 0 && (status === 429 || status === 503))
			)
				return notYet(askedMs, request, round);
			if (status === 429 && seen.from === 'service') return scheduled(seen, round);
			if (status === 429) return again('retry', 0, round);
			if (!SERVER_ERROR_STATUSES.has(status)) return { kind: 'final' };
			// A 503 may say when the service is back (a proxy's maintenance page).
			return again(unknownWhetherDone, status === 503 ? askedMs : 0, round);
		}
		case 'garbled':
		case 'lost':
			return again(unknownWhetherDone, 0, round);
		case 'unsent':
			return again('retry', 0, round);
		case 'refused':
		case 'unexplained':
			return { kind: 'final' };
	}
}

/**
 * Again after a backoff, or the Retry-After when longer. Its last try: no attempt left, or a
 * Retry-After past Max Wait When Rate Limited (without one, time spent so far takes no retry
 * away: Max Wait 0 means "never wait for the rate limit", not "never retry").
 */
function again(kind: 'retry' | 'ambiguous', askedMs: number, round: Round): Decision {
	const last = isLastAttempt(round) || (askedMs > 0 && pastMaxWait(askedMs, round));
	const backoff = round.realMs(backoffMs(round.failures + 1, Math.random()));
	return { kind, waitMs: Math.max(backoff, askedMs), last };
}

/**
 * A 429 schedules us, not a failure: wait as the key's pacing says (rateLimiter.ts) within Max
 * Wait When Rate Limited. One that named no wait is a failed attempt: on the last one, final.
 */
function scheduled(seen: Seen & { kind: 'answer' }, round: Round): Decision {
	const waitMs = seen.rateLimitMs ?? 0;
	if (!seen.hinted && isLastAttempt(round)) return { kind: 'final' };
	if (pastMaxWait(waitMs, round))
		return {
			kind: 'final',
			tooLong: { askedMs: waitMs, leftMs: round.rateLimitDeadline - Date.now(), rateLimit: true },
		};
	return { kind: 'scheduled', waitMs, countsAsFailure: !seen.hinted };
}

function isLastAttempt(round: Round): boolean {
	return round.failures + 1 >= round.maxAttempts;
}

/** A wait of `ms` from now ends past Max Wait When Rate Limited (the key's pacing asks too). */
export function pastMaxWait(ms: number, round: Round): boolean {
	return Date.now() + ms > round.rateLimitDeadline;
}

/**
 * Not yet: asked again after a backoff up to the request's pollMs, or as told, within its bound;
 * the last wait is cut to the bound, but a Retry-After that no wait within it can honour ends it.
 */
function notYet(askedMs: number, request: Declared, round: Round): Decision {
	const leftMs = (request.notYet?.until ?? Infinity) - Date.now();
	if (leftMs <= 0 || askedMs > leftMs)
		return { kind: 'final', tooLong: askedMs > 0 ? { askedMs, leftMs } : undefined };
	const capMs = request.notYet?.pollMs ?? 0;
	const backoff = round.realMs(notYetWaitMs(round.notYet + 1, Math.random(), capMs));
	return { kind: 'notYet', waitMs: Math.max(askedMs, Math.min(backoff, leftMs)) };
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
function notYetWaitMs(count: number, random: number, capMs: number): number {
	return Math.min(Math.max(capMs, 2_000), 2_000 * 2 ** Math.max(0, count - 1) * (1 + random / 2));
}

/** Seconds named by a 429 message ("Retry after 12 seconds."): a hint, not a contract. */
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
 * HTTP date read against the answer's own `Date` (else n8n's `now`); undefined if unusable.
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

/** zlib's and brotli's failures to unpack an answer: garbled, not an unreachable service. */
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
 * The first thing `find` finds in an error or the (at most 20) errors it wraps, however the n8n
 * version at hand wrapped it (cause, errorResponse, reason or error).
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
