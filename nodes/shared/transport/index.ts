/**
 * What the operations need to talk to the service. client.ts is the facade; each part behind it
 * owns one rule: pipeline.ts (every request: turn, pacing, outcome), attempts.ts (the one retry
 * loop), exchange.ts (redirect hops; the key only on the Base URL's origin), urlPolicy.ts (where
 * requests may go), envelope.ts (what counts as an answer), pageWalker.ts (pagination that always
 * ends), retry.ts (when to resend), rateLimiter.ts (pacing and 429s), boundedReader.ts (every
 * body within its byte limit, deadline and the cancel signal), cancellableWait.ts (waits that
 * stop on cancel), serviceClock.ts (the service's time); ../errors.ts scrubs every error.
 */
export {
	AdPerformanceClient,
	executionCredential,
	pathId,
	releaseExecutionCredential,
	type ClientOptions,
} from './client';
export { DeadlineReached } from '../errors';
export { LISTING_READS, MAX_PAGE_SIZE, onePage, type OnePage, type WalkResult } from './pageWalker';
export { type RequestSpec } from './pipeline';
export { failedAttempt, type Attempt, type Round } from './attempts';
export { decide } from './retry';
export { CREDENTIAL_TYPE, type RawResponse, type RequestContext } from './exchange';
export { isAnswerTimedOut, isAnswerTooLarge } from './boundedReader';
export { CLOCK_SKEW_MARGIN_MS } from './serviceClock';
