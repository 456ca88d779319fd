// The pacing of the former transport, moved here unchanged behind the RateLimiter interface.
export type Bucket = 'read' | 'write' | 'generation' | 'diagnostic';
export const BUCKET_LIMITS: Record<Bucket, number> = {
	read: 120,
	write: 10,
	diagnostic: 10,
	generation: 5,
};
export interface Clock {
	now(): number;
	random(): number;
}
interface BucketState {
	remaining?: number;
	sent?: number;
	resetAt?: number;
}
export class RateLimiter {
	private readonly buckets: Record<Bucket, BucketState> = {
		read: {},
		write: {},
		diagnostic: {},
		generation: {},
	};
	constructor(private readonly options: { windowMs: number; clock: Clock }) {}
	delayBeforeSend(buckets: Bucket[]): number {
		const now = this.options.clock.now();
		let until = now;
		for (const bucket of buckets) {
			const state = this.buckets[bucket];
			if (state.resetAt !== undefined && state.resetAt <= now) this.buckets[bucket] = {};
			const { remaining, sent = 0, resetAt } = this.buckets[bucket];
			const spent = remaining !== undefined ? remaining <= 0 : sent >= BUCKET_LIMITS[bucket];
			if (spent && resetAt !== undefined) until = Math.max(until, resetAt);
		}
		return until - now;
	}
	onAccepted(buckets: Bucket[], remaining: number | undefined): void {
		const windowEnd = this.options.clock.now() + this.options.windowMs * 1.01 + 5;
		for (const bucket of buckets) {
			const state = this.buckets[bucket];
			if (state.resetAt === undefined) {
				state.resetAt = windowEnd;
				state.sent = 0;
			}
			state.sent = (state.sent ?? 0) + 1;
		}
		if (remaining === undefined) return;
		const state = this.buckets[buckets[buckets.length - 1]];
		if (state.remaining !== undefined && remaining > state.remaining) {
			state.resetAt = windowEnd;
			state.sent = 1;
		}
		state.remaining = remaining;
	}
	onRejected(buckets: Bucket[], hintMs: number | undefined, attempt: number): number {
		for (const bucket of buckets) this.buckets[bucket] = {};
		const scale = this.options.windowMs / 60_000;
		if (hintMs === undefined)
			return this.options.clock.random() * Math.min(30_000, 1000 * 2 ** (attempt - 1)) * scale;
		return (
			hintMs + this.options.clock.random() * Math.min(1000 * scale, hintMs * 0.1 + 100 * scale)
		);
	}
}
