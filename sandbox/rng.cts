/** Small deterministic PRNG (mulberry32) and helpers. */

const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const MIXED_ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export class Rng {
	private state: number;

	constructor(seed: number) {
		this.state = seed >>> 0;
	}

	/** Uniform in [0, 1). */
	float(): number {
		this.state = (this.state + 0x6d2b79f5) >>> 0;
		let t = this.state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}

	/** Uniform float in [min, max). */
	range(min: number, max: number): number {
		return min + (max - min) * this.float();
	}

	/** Uniform integer in [min, max] (inclusive). */
	int(min: number, max: number): number {
		return min + Math.floor(this.float() * (max - min + 1));
	}

	pick<T>(items: readonly T[]): T {
		return items[Math.floor(this.float() * items.length)];
	}

	shuffle<T>(items: readonly T[]): T[] {
		const out = [...items];
		for (let i = out.length - 1; i > 0; i--) {
			const j = Math.floor(this.float() * (i + 1));
			[out[i], out[j]] = [out[j], out[i]];
		}
		return out;
	}

	/** Lower-case letters and digits. */
	alnum(length: number): string {
		let s = '';
		for (let i = 0; i < length; i++)
			s += LOWER_ALNUM[Math.floor(this.float() * LOWER_ALNUM.length)];
		return s;
	}

	/** Mixed-case letters and digits (API keys). */
	mixedAlnum(length: number): string {
		let s = '';
		for (let i = 0; i < length; i++)
			s += MIXED_ALNUM[Math.floor(this.float() * MIXED_ALNUM.length)];
		return s;
	}

	/** Digits, the first one non-zero. */
	digits(length: number): string {
		let s = String(this.int(1, 9));
		for (let i = 1; i < length; i++) s += String(this.int(0, 9));
		return s;
	}

	/** A 32-bit seed for a derived generator. */
	seed(): number {
		return Math.floor(this.float() * 4294967296) >>> 0;
	}
}

export function round2(n: number): number {
	return Math.round(n * 100) / 100;
}
