/**
 * Everything the operations need to talk to the service. The parts, each owning one rule:
 * client.ts (the facade: request, write, list, walk, download), urlPolicy.ts (where the key
 * and requests may go), envelope.ts (what counts as an answer), retry.ts (when to resend),
 * rateLimiter.ts (pacing and 429 scheduling).
 */
export {
	AdPerformanceClient,
	CREDENTIAL_TYPE,
	DeadlineReached,
	MAX_PAGE_SIZE,
	pathId,
	type ClientOptions,
	type RawResponse,
	type RequestContext,
	type RequestSpec,
	type SendOutcome,
} from './client';
