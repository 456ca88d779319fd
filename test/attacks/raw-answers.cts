/**
 * Answers that a JavaScript object cannot describe (a record nested 10,000 levels, which the
 * fake could not even stringify; an own `__proto__` key, which assignment would turn into a
 * prototype): the fake's real list answer with raw JSON text spliced into its first record.
 * And what n8n's binary store keeps of a file: its metadata, read back from disk.
 */
import type { IBinaryData } from 'n8n-workflow';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { harnessUserFolder } from '../harness/env.cjs';
import type { TestService } from '../nodes/helpers.cjs';

/** `{"x":{"x":…"leaf"…}}`: `depth` objects nested in one another around a JSON value. */
export function nestedJson(depth: number, leaf: unknown): string {
	return `${'{"x":'.repeat(depth)}${JSON.stringify(leaf)}${'}'.repeat(depth)}`;
}

/** Follows `x` down a value from nestedJson; returns the leaf and how many levels it took. */
export function unnest(value: unknown): { leaf: unknown; depth: number } {
	let current = value;
	let depth = 0;
	while (current && typeof current === 'object' && 'x' in current) {
		current = (current as { x: unknown }).x;
		depth++;
	}
	return { leaf: current, depth };
}

/**
 * The fake answers the list at exactly `listPath` with `fields` (raw JSON members, e.g.
 * `"deep":{…}`) added at the start of its first record; other paths are answered as usual.
 */
export function spliceIntoFirstRecord(service: TestService, listPath: string, fields: string) {
	service.fake.intercept({
		method: 'GET',
		pathPrefix: listPath,
		respond: (request, real) => {
			if (request.path !== listPath) return undefined;
			const reply = real();
			const text = JSON.stringify(reply.json);
			if (!text.includes('"data":[{')) throw new Error(`${listPath} listed no record to change`);
			return {
				status: reply.status,
				headers: { 'Content-Type': 'application/json; charset=utf-8' },
				body: text.replace('"data":[{', `"data":[{${fields},`),
			};
		},
	});
}

/** The fake serves its real file of every download, with these headers instead of its own. */
export function downloadHeaders(service: TestService, headers: Record<string, string>) {
	service.fake.intercept({
		method: 'GET',
		pathPrefix: '/v1/reports/',
		respond: (request, real) =>
			request.path.endsWith('/download') ? { reply: real(), headers } : undefined,
	});
}

/** What n8n's filesystem binary store saved next to the file (its `.metadata` file). */
export function storedMetadata(binary: IBinaryData): Record<string, unknown> {
	const fileName = `${path.basename(String(binary.id))}.metadata`;
	const pending = [harnessUserFolder];
	for (let folder = pending.pop(); folder !== undefined; folder = pending.pop()) {
		for (const entry of readdirSync(folder, { withFileTypes: true })) {
			const full = path.join(folder, entry.name);
			if (entry.isDirectory()) pending.push(full);
			else if (entry.name === fileName)
				return JSON.parse(readFileSync(full, 'utf8')) as Record<string, unknown>;
		}
	}
	throw new Error(`n8n stored no metadata for ${String(binary.id)}`);
}
