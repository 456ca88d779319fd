/** Shared helpers for the fake service's own tests (real HTTP with fetch). */
import type { FakeService } from '../../sandbox/index.cjs';

export const VERSION = '2026-03-01';

export interface CallOptions {
	key?: string | null; // null: no x-api-key header; default keys.live
	version?: string | null; // null: no service-version header; default 2026-03-01
	body?: unknown;
	rawBody?: string;
	headers?: Record<string, string>;
	base?: string;
}

export interface CallResult {
	status: number;
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	body: any;
	headers: Headers;
}

export async function call(
	svc: FakeService,
	method: string,
	path: string,
	opts: CallOptions = {},
): Promise<CallResult> {
	const headers: Record<string, string> = { ...opts.headers };
	const key = opts.key === undefined ? svc.keys.live : opts.key;
	if (key !== null) headers['x-api-key'] = key;
	const version = opts.version === undefined ? VERSION : opts.version;
	if (version !== null) headers['service-version'] = version;
	let body: string | undefined;
	if (opts.rawBody !== undefined) body = opts.rawBody;
	else if (opts.body !== undefined) {
		body = JSON.stringify(opts.body);
		headers['content-type'] ??= 'application/json';
	}
	const res = await fetch((opts.base ?? svc.url) + path, { method, headers, body });
	const text = await res.text();
	let parsed: unknown = text;
	try {
		parsed = JSON.parse(text);
	} catch {
		/* not JSON */
	}
	return { status: res.status, body: parsed, headers: res.headers };
}

export const get = (svc: FakeService, path: string, opts?: CallOptions): Promise<CallResult> =>
	call(svc, 'GET', path, opts);
export const post = (
	svc: FakeService,
	path: string,
	body: unknown,
	opts?: CallOptions,
): Promise<CallResult> => call(svc, 'POST', path, { ...opts, body });

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Poll fn until it returns a truthy value or the deadline passes. */
export async function waitFor<T>(
	fn: () => Promise<T | undefined | null | false> | T | undefined | null | false,
	timeoutMs = 5000,
	everyMs = 10,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const v = await fn();
		if (v) return v;
		if (Date.now() > deadline) throw new Error('waitFor timed out');
		await sleep(everyMs);
	}
}

export function expectError(res: CallResult, status: number, type: string): void {
	expect({ status: res.status, type: res.body?.error?.type }).toEqual({ status, type });
	expect(Object.keys(res.body)).toEqual(['error']);
	expect(typeof res.body.error.message).toBe('string');
	expect(Object.keys(res.body.error).sort()).toEqual(['message', 'type']);
}

export function ymd(offsetDays: number, from = Date.now()): string {
	return new Date(from + offsetDays * 86400000).toISOString().slice(0, 10);
}

/** A valid report body for the first account of workspace A (Acme Outdoor). */
export function reportBody(
	svc: FakeService,
	extra: Record<string, unknown> = {},
): Record<string, unknown> {
	return {
		account_id: svc.accounts()[0].platformAccountId,
		title: 'Weekly performance',
		date_start: '2026-01-01',
		date_end: '2026-01-31',
		...extra,
	};
}
