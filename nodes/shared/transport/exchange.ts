import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';

import { hopProblem, isRedirect, isServiceOrigin, MAX_REDIRECTS } from './urlPolicy';

/**
 * One request and its redirect hops: the one place that decides, per hop, whether the API key
 * goes along. n8n's helpers would follow redirects themselves and keep `x-api-key` on every
 * hop (they strip only Authorization and Cookie), so redirects are never left to them.
 */

/** Every context our nodes run requests from: node execution, polling trigger, list search. */
export type RequestContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

export const CREDENTIAL_TYPE = 'adPerformanceApi';

export interface RawResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

export interface HopContext {
	ctx: RequestContext;
	/** Read once per execution; handed to n8n with each request instead of decrypting it again. */
	credentials: ICredentialDataDecryptedObject;
	baseUrl: string;
	/** Passed to every hop, also those n8n would not give the execution's signal. */
	cancelSignal?: AbortSignal;
	/** Builds the error for a hop we refuse to follow. */
	refuse(message: string, description: string): Error;
}

export interface OutgoingRequest {
	method: string;
	url: string;
	qs?: IDataObject;
	body?: IDataObject;
	/** Send and parse JSON; otherwise the body comes back raw (a stream or a buffer). */
	json: boolean;
	stream?: boolean;
	timeoutMs: number;
	/** Names the request in errors, e.g. "the request for report rpt_1". */
	what: string;
}

export function headerOf(
	headers: RawResponse['headers'] | undefined,
	name: string,
): string | undefined {
	const value = headers?.[name] ?? headers?.[name.toLowerCase()];
	const first = Array.isArray(value) ? value[0] : value;
	return typeof first === 'string' ? first : undefined;
}

/** Lets go of a body we will not read, so its connection is freed at once. */
export function discardBody(body: unknown) {
	const stream = body as { destroy?: () => void } | undefined;
	if (stream && typeof stream.destroy === 'function') stream.destroy();
}

/**
 * Sends a request and follows its redirects. Each hop is authenticated only when it goes to
 * the Base URL's origin; a hop that would downgrade to http, leave for an internal address,
 * carry a password or go round in circles is refused before it is sent.
 */
export async function sendFollowingRedirects(
	hop: HopContext,
	request: OutgoingRequest,
): Promise<RawResponse> {
	let { url, method, body, qs } = request;
	for (let hops = 0; ; hops++) {
		const options: IHttpRequestOptions = {
			method: method as IHttpRequestOptions['method'],
			url,
			qs,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			timeout: request.timeoutMs,
			abortSignal: hop.cancelSignal,
		};
		if (request.json) {
			options.json = true;
			if (body !== undefined) options.body = body;
		} else {
			options.encoding = request.stream ? 'stream' : 'arraybuffer';
			options.json = false;
		}
		const response = isServiceOrigin(hop.baseUrl, url)
			? await sendWithKey(hop, options)
			: // Another origin gets no credential at all.
				((await hop.ctx.helpers.httpRequest(options)) as RawResponse);
		const location = headerOf(response.headers, 'location');
		if (!isRedirect(response.statusCode) || !location) return response;
		discardBody(response.body);
		const next = new URL(location, url).toString();
		if (hops >= MAX_REDIRECTS) {
			throw hop.refuse(
				`The service redirected ${request.what} more than ${MAX_REDIRECTS} times`,
				'The redirects were not followed further. Check the Base URL in the credential; if it is right, the service is misconfigured.',
			);
		}
		const problem = hopProblem(hop.baseUrl, url, next);
		if (problem) {
			throw hop.refuse(
				`The service redirected ${request.what} to an address that ${problem}`,
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
