/**
 * Everything the operations need to talk to the service. The parts, each owning one rule:
 * client.ts (the facade: request, write, list, walk, download), exchange.ts (one request
 * and its redirect hops, with the key only on the Base URL's origin), urlPolicy.ts (where the key
 * and requests may go), envelope.ts (what counts as an answer), retry.ts (when to resend),
 * rateLimiter.ts (pacing and 429 scheduling), boundedReader.ts (every answer body, within its
 * byte limit, total deadline and the cancel signal).
 */
export {
	AdPerformanceClient,
	DeadlineReached,
	MAX_PAGE_SIZE,
	pathId,
	type ClientOptions,
	type RequestSpec,
	type SendOutcome,
} from './client';
export { CREDENTIAL_TYPE, type RawResponse, type RequestContext } from './exchange';
export { isAnswerTimedOut, isAnswerTooLarge } from './boundedReader';
export { CLOCK_SKEW_MARGIN_MS } from './serviceClock';
