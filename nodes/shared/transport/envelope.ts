import type { IDataObject } from 'n8n-workflow';

import type { Redactor } from '../redaction';
import type { ListEnvelope, Pagination, SingleEnvelope } from '../types';
import { headerOf, type RawResponse } from './exchange';

/**
 * The service answers every success in an envelope: `{data: [...], pagination, meta}` for a
 * list, `{data: {...}, meta}` for one record. An answer that is not that shape (broken JSON, an
 * HTML page from a proxy, an empty body, `data` of the wrong kind, a null record) is a protocol
 * error, never read as "no records"; these checks are the one place that decides it.
 */
export type Expectation = 'list' | 'record' | 'any';

export class ProtocolError extends Error {}

/**
 * How deeply an answer may nest, its envelope included (a record in a list sits at level 3).
 * n8n saves run data with recursive code that fails a few thousand levels down: a deeper answer
 * would make a run that succeeds but cannot be saved.
 */
export const MAX_ANSWER_DEPTH = 64;

/** Recursive, never past MAX_ANSWER_DEPTH, and without allocating: it runs over every record. */
function nestsTooDeep(value: object, depth = 1): boolean {
	if (depth > MAX_ANSWER_DEPTH) return true;
	if (Array.isArray(value)) {
		for (const child of value as unknown[]) if (deeper(child, depth)) return true;
	} else {
		const record = value as Record<string, unknown>;
		for (const key in record) if (deeper(record[key], depth)) return true;
	}
	return false;
}

function deeper(child: unknown, depth: number): boolean {
	return child !== null && typeof child === 'object' && nestsTooDeep(child, depth + 1);
}

/**
 * The JSON value of a body (exchange.ts hands over an API answer as text), or a ProtocolError
 * naming what came instead; `redactor` may vouch for it (Redactor.vouch).
 */
export function parseJsonBody(
	body: unknown,
	contentType?: string,
	redactor?: Pick<Redactor, 'vouch'>,
): unknown {
	const text = typeof body === 'string' ? body : '';
	if (text.trim() === '') throw new ProtocolError('the answer was empty');
	let value: unknown;
	try {
		value = JSON.parse(text) as unknown;
	} catch {
		// Not JSON (JSON.parse never gives undefined): named below, as the lint allows only
		// n8n's errors to be thrown in a catch.
	}
	if (value === undefined) {
		const html = /html/i.test(contentType ?? '') || /^\s*</.test(text);
		throw new ProtocolError(`the answer was ${html ? 'an HTML page' : 'text that is not JSON'}`);
	}
	if (value !== null && typeof value === 'object' && nestsTooDeep(value)) {
		throw new ProtocolError(`the answer was nested deeper than ${MAX_ANSWER_DEPTH} levels`);
	}
	redactor?.vouch(text, value);
	return value;
}

/** The answer's JSON as `expect`ed, else the problem with it (one too large was never read). */
export function readEnvelope(
	response: RawResponse,
	expect: Expectation,
	redactor?: Pick<Redactor, 'vouch'>,
): { value?: unknown; problem?: string } {
	if (response.tooLarge) return { problem: response.tooLarge.message };
	try {
		const contentType = headerOf(response.headers, 'content-type');
		const value = parseJsonBody(response.body, contentType, redactor);
		if (expect === 'list') return { value: checkList(value) };
		return { value: expect === 'record' ? checkRecord(value) : value };
	} catch (error) {
		return { problem: error instanceof ProtocolError ? error.message : String(error) };
	}
}

function isRecord(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function checkList<T>(value: unknown): ListEnvelope<T> {
	if (!isRecord(value)) throw new ProtocolError('the answer was not a JSON object');
	if (!Array.isArray(value.data)) {
		throw new ProtocolError(
			value.data === undefined ? 'the answer had no data list' : "the answer's data was not a list",
		);
	}
	const index = value.data.findIndex((record) => !isRecord(record));
	if (index >= 0) throw new ProtocolError(`record ${index + 1} of the list was not an object`);
	if (value.pagination !== undefined && !isRecord(value.pagination)) {
		throw new ProtocolError("the answer's pagination was not an object");
	}
	return value as unknown as ListEnvelope<T>;
}

function positiveInteger(value: unknown): number | undefined {
	return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * What a page of a list says against itself (its count, `total`, `hasMore`, `page`, `page_size`)
 * or against what was `asked`; undefined when they agree. A last page must end the list at its
 * total (`total: 250, hasMore: false` with 100 records on page 1 would lose 150), or hold nothing
 * past it (the list shrank); a page that leaves out its number or size is read as the one asked.
 */
export function pageContradiction(
	count: number,
	pagination: Pagination | undefined,
	asked?: { page: number; pageSize: number },
): string | undefined {
	if (asked && count > asked.pageSize) {
		return `its page held ${count} records, more than the ${asked.pageSize} asked for`;
	}
	if (!pagination) return undefined;
	const { total, hasMore } = pagingOf(pagination);
	if (total !== undefined && count > total) {
		return `its page held ${count} records, more than the total of ${total} it gave`;
	}
	const answeredPage = positiveInteger(pagination.page);
	if (asked && answeredPage !== undefined && answeredPage !== asked.page) {
		return `it answered page ${answeredPage} when page ${asked.page} was asked for`;
	}
	const page = answeredPage ?? asked?.page;
	if (hasMore !== false || total === undefined || page === undefined) return undefined;
	const pageSize = positiveInteger(pagination.page_size) ?? asked?.pageSize;
	const before = page === 1 ? 0 : pageSize === undefined ? undefined : (page - 1) * pageSize;
	if (before === undefined || count === Math.max(0, total - before)) return undefined;
	return `page ${page} said it was the last (hasMore: false) with ${before + count} records in all, yet gave a total of ${total}`;
}

export function checkRecord<T>(value: unknown): SingleEnvelope<T> {
	if (!isRecord(value)) throw new ProtocolError('the answer was not a JSON object');
	if (!isRecord(value.data)) {
		throw new ProtocolError(
			value.data === undefined || value.data === null
				? 'the answer had no record'
				: "the answer's data was not a record",
		);
	}
	return value as unknown as SingleEnvelope<T>;
}

export function pagingOf(pagination: Pagination | undefined): {
	hasMore?: boolean;
	total?: number;
} {
	const total = pagination?.total;
	const hasMore = pagination?.hasMore;
	return {
		hasMore: typeof hasMore === 'boolean' ? hasMore : undefined,
		total: typeof total === 'number' && Number.isFinite(total) && total >= 0 ? total : undefined,
	};
}

export function remainingOf(value: unknown): number | undefined {
	const remaining =
		isRecord(value) && isRecord(value.meta) ? value.meta.remaining_requests : undefined;
	return typeof remaining === 'number' && Number.isFinite(remaining) ? remaining : undefined;
}
