/**
 * What the operations need to talk to the service. client.ts is the facade; each file behind it
 * owns one rule, which its comments state (../errors.ts builds every error, scrubbed of secrets).
 */
export {
	AdPerformanceClient,
	executionCredential,
	releaseExecutionCredential,
	type ClientOptions,
	type WalkCall,
} from './client';
export { DeadlineReached } from '../errors';
export {
	LISTING_READS,
	MAX_PAGE_SIZE,
	onePage,
	readAgreeing,
	RereadBudget,
	type WalkResult,
} from './pageWalker';
export { failedAttempt, type Attempt } from './attempts';
export { decide, type Round } from './retry';
export { headerOf, type RequestContext } from './exchange';
export { discardBody, isAnswerTimedOut, isAnswerTooLarge, peekBody } from './boundedReader';
export { CLOCK_SKEW_MARGIN_MS, serviceTime } from './serviceClock';
export type { Bucket } from './rateLimiter';
