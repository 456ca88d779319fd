/**
 * Everything the operations need to talk to the service. client.ts is the facade (request,
 * attempts, list, walk, download); the parts behind it each own one rule: pipeline.ts (every
 * request: turns, pacing, the exchange classified into an outcome), attempts.ts (the one retry
 * loop), exchange.ts (one request and its redirect
 * hops, with the key only on the Base URL's origin), urlPolicy.ts (where requests may go),
 * envelope.ts (what counts as an answer), pageWalker.ts (pagination that always ends), retry.ts
 * (when to resend), rateLimiter.ts (pacing and 429 scheduling), boundedReader.ts (every answer
 * body, within its byte limit, total deadline and the cancel signal), cancellableWait.ts (waits
 * that stop on cancel), serviceClock.ts (service durations in real time).
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
