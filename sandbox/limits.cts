/** Fixed-window rate limits per API key and bucket (docs/service-notes.md, Rate limits). */

export type Bucket = 'read' | 'write' | 'generation' | 'diagnostic';

export interface LimitConfig {
	read: number;
	write: number;
	diagnosticRuns: number;
	generations: number;
	windowSeconds: number;
}

interface Window {
	start: number;
	count: number;
}

export type TakeResult = { ok: true; remaining: number } | { ok: false; retryAfterSeconds: number };

export class Limiter {
	private windows = new Map<string, Window>();

	constructor(
		private readonly config: LimitConfig,
		private readonly timeScale: number,
	) {}

	private limitOf(bucket: Bucket): number {
		switch (bucket) {
			case 'read':
				return this.config.read;
			case 'write':
				return this.config.write;
			case 'generation':
				return this.config.generations;
			case 'diagnostic':
				return this.config.diagnosticRuns;
		}
	}

	private get windowMs(): number {
		return this.config.windowSeconds * 1000 * this.timeScale;
	}

	/** The live window of a bucket, or null when none runs (the next charged request starts one). */
	private current(key: string, bucket: Bucket, now: number): Window | null {
		const id = `${key}\u0000${bucket}`;
		const w = this.windows.get(id);
		if (!w) return null;
		if (now >= w.start + this.windowMs) {
			this.windows.delete(id);
			return null;
		}
		return w;
	}

	/**
	 * Charge one request against every bucket, or none of them when any is spent.
	 * remaining = the smallest amount left among the buckets after charging.
	 */
	take(key: string, buckets: Bucket[], now = Date.now()): TakeResult {
		let wait = 0;
		for (const b of buckets) {
			const w = this.current(key, b, now);
			if (w && w.count >= this.limitOf(b)) wait = Math.max(wait, w.start + this.windowMs - now);
			else if (!w && this.limitOf(b) <= 0) wait = Math.max(wait, this.windowMs, 1);
		}
		if (wait > 0) {
			return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(wait / this.timeScale / 1000)) };
		}
		let remaining = Infinity;
		for (const b of buckets) {
			let w = this.current(key, b, now);
			if (!w) {
				w = { start: now, count: 0 };
				this.windows.set(`${key}\u0000${b}`, w);
			}
			w.count++;
			remaining = Math.min(remaining, this.limitOf(b) - w.count);
		}
		return { ok: true, remaining: Math.max(0, remaining) };
	}

	reset(): void {
		this.windows.clear();
	}
}
