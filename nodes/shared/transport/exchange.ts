import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';

import { isServiceOrigin } from '../credentialRules';
import type { TransportErrors } from '../errors';
import { ANSWER_LIMITS } from '../limits';
import type { HttpMethod } from '../types';
import {
	AnswerTooLarge,
	boundedStream,
	discardBody,
	ExchangeDeadline,
	readBounded,
} from './boundedReader';
import { hopProblem, MAX_REDIRECTS, REDIRECT_STATUSES } from './urlPolicy';

/**
 * One request and its redirect hops: the one place that sends a hop, with the API key only where
 * isServiceOrigin (credentialRules.ts, which the credential's `authenticate` applies too) allows.
 * n8n's helpers would follow redirects and keep `x-api-key` on every hop (they strip only
 * Authorization and Cookie), so redirects are never left to them.
 */

export type RequestContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

export const CREDENTIAL_TYPE = 'adPerformanceApi';

export interface RawResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	/** Text for a JSON request or an error answer, else a Buffer or a bounded Readable. */
	body: unknown;
	/** Set instead of `body` when the answer was larger than its limit: nothing of it was kept. */
	tooLarge?: AnswerTooLarge;
	/** A streamed body n8n's helper is unpacking (dropping its Content-Encoding header). */
	packed?: boolean;
	/** The service's own origin gave it: only its answers speak for the key and the clock. */
	fromService: boolean;
}

/**
 * A file to download from a full address (a link, perhaps to a file host), of at most `maxBytes`:
 * its successful body is handed back as a bounded stream, not read here. Any other request asks
 * for JSON (ANSWER_LIMITS.jsonBytes), for envelope.ts.
 */
export interface Download {
	url: string;
	maxBytes: number;
}

/** What every hop is sent with (of pipeline.ts's parts). */
export interface HopContext {
	ctx: RequestContext;
	/** Read once per execution; handed to n8n with each request instead of decrypting it again. */
	credentials: ICredentialDataDecryptedObject;
	baseUrl: string;
	errors: Pick<TransportErrors, 'refused'>;
	waiting: { readonly signal: AbortSignal | undefined };
}

/** A request as it is sent; pipeline.ts's RequestSpec adds how it is paced and judged. */
export interface SentRequest {
	method: HttpMethod;
	/** Path below /v1, starting with '/'. Ids must already be encoded (encodeURIComponent). */
	path: string;
	qs?: IDataObject;
	body?: IDataObject;
	itemIndex?: number;
	/** Names what the request is about in error messages, e.g. "campaign camp_1". */
	subject?: string;
	/** n8n time (ms) ending it, its retries and its waits (DeadlineReached); see client.deadline(). */
	deadline: number;
}

/** A header's first value; `name` in lowercase, as Node.js gives header names. */
export function headerOf(
	headers: RawResponse['headers'] | undefined,
	name: string,
): string | undefined {
	const value = headers?.[name];
	const first = Array.isArray(value) ? value[0] : value;
	return typeof first === 'string' ? first : undefined;
}

/** Sends a request and follows its redirects; a hop urlPolicy.ts forbids is refused unsent. */
export async function sendFollowingRedirects(
	hop: HopContext,
	spec: SentRequest,
	download?: Download,
): Promise<RawResponse> {
	// The total time bounds every hop and the whole answer; the execution's cancel signal reaches
	// every hop, also those n8n would not give it.
	const totalMs = download ? ANSWER_LIMITS.downloadMs : ANSWER_LIMITS.requestMs;
	const timeoutMs = Math.max(1, Math.min(totalMs, spec.deadline - Date.now()));
	const deadline = new ExchangeDeadline(timeoutMs, hop.waiting.signal);
	const what = describe(spec, hop.baseUrl, download);
	const refuse = (message: string, description: string) =>
		hop.errors.refused(message, description, spec.itemIndex);
	let handedOver = false;
	try {
		let { method, body, qs } = spec;
		let url = download?.url ?? `${hop.baseUrl}/v1${spec.path}`;
		for (let hops = 0; ; hops++) {
			const options: IHttpRequestOptions = {
				method: method as IHttpRequestOptions['method'],
				url,
				qs,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				disableFollowRedirect: true,
				// Silence before the answer's head; the total deadline bounds everything.
				timeout: Math.min(ANSWER_LIMITS.requestMs, deadline.remainingMs()),
				// n8n's helper would buffer (and unpack) any amount: the answer is read by us.
				encoding: 'stream',
				json: false,
				// A file is asked for unpacked: n8n's helper unpacks leniently, so a packed file cut
				// short inside its coding would be stored as if whole (reportFiles.ts refuses one).
				headers: download ? { 'accept-encoding': 'identity' } : { accept: 'application/json' },
			};
			if (body !== undefined) {
				options.body = JSON.stringify(body);
				options.headers = { ...options.headers, 'content-type': 'application/json' };
			}
			keepDeadlineSignal(options, deadline);
			let response: RawResponse;
			const fromService = isServiceOrigin(hop.baseUrl, url);
			try {
				response = fromService
					? await sendWithKey(hop, options)
					: // Another origin gets no credential at all.
						((await hop.ctx.helpers.httpRequest(options)) as RawResponse);
				response = { ...response, fromService };
			} catch (error) {
				// The library's "canceled" says less than why we stopped it.
				throw deadline.reason ?? error;
			}
			const location = headerOf(response.headers, 'location');
			if (!REDIRECT_STATUSES.has(response.statusCode) || !location) {
				const streamed = streamAnswer(response, deadline, download);
				if (streamed === undefined) return await readAnswer(response, deadline, download);
				handedOver = true;
				return streamed;
			}
			discardBody(response.body);
			const next = new URL(location, url).toString();
			if (hops >= MAX_REDIRECTS) {
				throw refuse(
					`The service redirected ${what} more than ${MAX_REDIRECTS} times`,
					'The redirects were not followed further. Check the Base URL in the credential; if it is right, the service is misconfigured.',
				);
			}
			// An API answer is the service's records only from its own origin; a file may come from a CDN.
			const problem = hopProblem(hop.baseUrl, url, next, !download);
			if (problem) {
				throw refuse(
					`The service redirected ${what} to an address that ${problem}`,
					'The redirect was not followed and the API key was not sent there. Check that the Base URL in the credential is the service address (https).',
				);
			}
			// As browsers do: 303, and 301/302 after anything but GET, continue as a GET without body.
			if (
				response.statusCode === 303 ||
				((response.statusCode === 301 || response.statusCode === 302) && method !== 'GET')
			) {
				method = 'GET';
				body = undefined;
			}
			// The Location carries its own query.
			qs = undefined;
			url = next;
		}
	} finally {
		// A streamed body keeps the deadline until it is read (boundedReader.ts lets it go).
		if (!handedOver) deadline.dispose();
	}
}

/**
 * Makes the deadline's signal the request's `abortSignal` for good, so it cuts the connect and
 * the answer's head (which a trickle keeps from the idle timeout) too: n8n's
 * httpRequestWithAuthentication overwrites that option with the execution's cancel signal
 * (n8n-core 1.84 to 2.8 at least), which is followed instead.
 */
function keepDeadlineSignal(options: IHttpRequestOptions, deadline: ExchangeDeadline): void {
	Object.defineProperty(options, 'abortSignal', {
		enumerable: true,
		configurable: true,
		get: () => deadline.signal,
		set: (assigned: unknown) => deadline.follow(assigned as AbortSignal | undefined),
	});
}

function boundsOf(response: RawResponse, maxBytes: number, deadline: ExchangeDeadline) {
	const announced = Number(headerOf(response.headers, 'content-length'));
	return {
		maxBytes,
		deadline,
		announcedBytes: Number.isFinite(announced) ? announced : undefined,
	};
}

/** The final answer, read whole within its limit (error bodies: ANSWER_LIMITS.errorBytes). */
async function readAnswer(
	response: RawResponse,
	deadline: ExchangeDeadline,
	download?: Download,
): Promise<RawResponse> {
	const success = response.statusCode >= 200 && response.statusCode < 300;
	const maxBytes = success
		? (download?.maxBytes ?? ANSWER_LIMITS.jsonBytes)
		: ANSWER_LIMITS.errorBytes;
	const reading = readBounded(response.body, boundsOf(response, maxBytes, deadline));
	const read = success
		? await reading
		: await reading.catch(() => {
				// A broken error body still leaves the status to go by; time and cancel still stop.
				if (deadline.reason) throw deadline.reason;
				return undefined;
			});
	if (read instanceof AnswerTooLarge) return { ...response, body: undefined, tooLarge: read };
	// Decoded once here: envelope.ts would copy the bytes before decoding them.
	const asText = !download || !success;
	return { ...response, body: asText ? read?.toString('utf8') : read };
}

/** A successful download as a bounded stream, which keeps the deadline while it is read. */
function streamAnswer(
	response: RawResponse,
	deadline: ExchangeDeadline,
	download?: Download,
): RawResponse | undefined {
	if (!download || response.statusCode < 200 || response.statusCode >= 300) return undefined;
	const stream = boundedStream(response.body, {
		...boundsOf(response, download.maxBytes, deadline),
		onSettled: () => deadline.dispose(),
	});
	if (stream === undefined) return undefined;
	// A body nobody reads is still let go of at the deadline or on cancel.
	deadline.signal.addEventListener('abort', () => discardBody(response.body), { once: true });
	// A zlib stream counts the packed bytes it takes in: the body is being unpacked.
	const packed = typeof (response.body as { bytesWritten?: unknown })?.bytesWritten === 'number';
	return { ...response, body: stream, packed };
}

/** Names the request in errors, e.g. "the request for report rpt_1". */
function describe(spec: SentRequest, baseUrl: string, download?: Download): string {
	if (spec.subject) return `the request for ${spec.subject}`;
	if (!download) return `${spec.method} /v1${spec.path}`;
	const target = new URL(download.url);
	const origin = isServiceOrigin(baseUrl, download.url) ? '' : target.origin;
	return `${spec.method} ${origin}${target.pathname}`;
}

async function sendWithKey(hop: HopContext, options: IHttpRequestOptions): Promise<RawResponse> {
	return (await hop.ctx.helpers.httpRequestWithAuthentication.call(
		hop.ctx,
		CREDENTIAL_TYPE,
		options,
		{
			credentialsDecrypted: {
				id: hop.ctx.getNode().credentials?.[CREDENTIAL_TYPE]?.id ?? '',
				name: CREDENTIAL_TYPE,
				type: CREDENTIAL_TYPE,
				data: hop.credentials,
			},
		},
	)) as RawResponse;
}
