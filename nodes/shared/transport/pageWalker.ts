import type { IDataObject } from 'n8n-workflow';

import type { ListEnvelope } from '../types';
import { DeadlineReached } from '../errors';
import { pagingOf } from './envelope';

/** The most records one page may ask for (the service's cap). */
export const MAX_PAGE_SIZE = 100;
/** A walk that needs more pages than this is not a list any workflow wants (1,000,000 records). */
const MAX_PAGES = 10_000;

export interface WalkOptions {
	pageSize?: number;
	/** n8n time (ms) after which the walk stops with DeadlineReached. */
	deadline?: number;
}

/**
 * The one pagination loop: walks the pages of a list in the service's order (newest first for
 * reports), handing each page to `visit`, which returns false to stop. It ends when the service
 * says there is no more, and never goes on forever, whatever the service sends:
 *   - a page that brings no record it has not seen (a service repeating itself) ends the walk
 *     with an error. Records are told apart by their id, or, for records without a usable id,
 *     by their content, so progress never depends on ids being present;
 *   - more pages than the announced `total` allows (plus one, as records shift while we read),
 *     or more than MAX_PAGES, end it with an error too.
 * Pages are visited as they are, never spread into argument lists (a page of 200,000 records
 * would overflow the call stack).
 */
export async function walkPages<T extends IDataObject>(
	readPage: (page: number, pageSize: number) => Promise<ListEnvelope<T>>,
	visit: (records: T[]) => boolean | void,
	noProgress: (problem: string) => Error,
	options: WalkOptions = {},
): Promise<void> {
	const pageSize = options.pageSize ?? MAX_PAGE_SIZE;
	const seen = new Set<string>();
	let pageLimit = MAX_PAGES;
	for (let page = 1; ; page++) {
		if (page > pageLimit) {
			throw noProgress(`it announced more records after page ${page - 1}, past the total it gave`);
		}
		if (options.deadline !== undefined && Date.now() >= options.deadline) {
			throw new DeadlineReached();
		}
		const envelope = await readPage(page, pageSize);
		const records = envelope.data;
		let fresh = 0;
		for (const record of records) {
			const key = recordKey(record);
			if (!seen.has(key)) {
				fresh++;
				seen.add(key);
			}
		}
		if (visit(records) === false) return;
		const { hasMore, total } = pagingOf(envelope.pagination);
		if (!(hasMore ?? records.length === pageSize) || records.length === 0) return;
		if (fresh === 0) {
			throw noProgress(`page ${page} held only records of earlier pages, yet it announced more`);
		}
		if (total !== undefined) pageLimit = Math.min(MAX_PAGES, Math.ceil(total / pageSize) + 1);
	}
}

/** Up to `wanted` records of a list, read with pages no larger than needed. */
export async function collectPages<T extends IDataObject>(
	readPage: (page: number, pageSize: number) => Promise<ListEnvelope<T>>,
	wanted: number,
	noProgress: (problem: string) => Error,
): Promise<T[]> {
	const records: T[] = [];
	await walkPages<T>(
		readPage,
		(page) => {
			for (const record of page) {
				if (records.length >= wanted) break;
				records.push(record);
			}
			return records.length < wanted;
		},
		noProgress,
		{ pageSize: Math.min(MAX_PAGE_SIZE, wanted) },
	);
	return records;
}

/**
 * What tells a record apart from the others: its id when it has a usable one, else its content
 * (a service that repeats id-less records is repeating itself all the same).
 */
function recordKey(record: unknown): string {
	const id = (record as { id?: unknown } | null)?.id;
	if (typeof id === 'string' || typeof id === 'number') return `id\u0000${id}`;
	let content: string;
	try {
		content = JSON.stringify(record) ?? String(record);
	} catch {
		content = String(record);
	}
	return `content\u0000${content}`;
}
