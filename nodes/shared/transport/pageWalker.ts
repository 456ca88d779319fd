import type { IDataObject } from 'n8n-workflow';

import type { ListEnvelope } from '../types';
import { DeadlineReached } from '../errors';
import { pageContradiction, pagingOf } from './envelope';

/** The most records one page may ask for (the service's cap). */
export const MAX_PAGE_SIZE = 100;
/** A walk that needs more pages than this is not a list any workflow wants (1,000,000 records). */
const MAX_PAGES = 10_000;

/**
 * What a walk came to: `stopped` (its visitor had what it wanted), `complete` (last page reached,
 * one total on every page, that many distinct records), or `incomplete`. A list paged while it
 * changes skips or repeats records: only a complete listing tells what is not there.
 */
export type WalkResult =
	| { kind: 'stopped' }
	| { kind: 'complete' }
	| { kind: 'incomplete'; reason: string };

interface WalkOptions {
	pageSize?: number;
	/** n8n time (ms) after which the walk stops with DeadlineReached. */
	deadline?: number;
	/**
	 * The error for a page that contradicts itself (envelope.ts), thrown before it is visited.
	 * Without it, such a page is visited and ends the walk as incomplete.
	 */
	contradiction?: (problem: string) => Error;
}

/**
 * The one pagination loop: hands each page, each record once, to `visit` (false stops). It never
 * goes on forever: a page with no unseen record that announces more, or more pages than the
 * `total` allows (plus one, as records shift) or MAX_PAGES, is `noProgress`'s error.
 */
export async function walkPages<T extends IDataObject>(
	readPage: (page: number, pageSize: number) => Promise<ListEnvelope<T>>,
	visit: (records: T[]) => boolean | void,
	noProgress: (problem: string) => Error,
	options: WalkOptions = {},
): Promise<WalkResult> {
	const pageSize = options.pageSize ?? MAX_PAGE_SIZE;
	const seen = new SeenRecords();
	let pageLimit = MAX_PAGES;
	/** The total every page gave so far; null once one gave none or another one. */
	let agreedTotal: number | null | undefined;
	for (let page = 1; ; page++) {
		if (page > pageLimit) {
			throw noProgress(`it announced more records after page ${page - 1}, past the total it gave`);
		}
		if (Date.now() >= (options.deadline ?? Infinity)) throw new DeadlineReached();
		const envelope = await readPage(page, pageSize);
		const records = envelope.data;
		const problem = pageContradiction(records.length, envelope.pagination, { page, pageSize });
		if (problem !== undefined && options.contradiction) throw options.contradiction(problem);
		// Each record once: one the list repeats (it shifted under its page numbers) is not visited again.
		const fresh = records.filter((record) => seen.add(record));
		if (visit(fresh) === false) return { kind: 'stopped' };
		if (problem !== undefined) return { kind: 'incomplete', reason: problem };
		const { hasMore, total } = pagingOf(envelope.pagination);
		agreedTotal = agreedTotal === undefined || agreedTotal === total ? (total ?? null) : null;
		if (!(hasMore ?? records.length === pageSize) || records.length === 0) {
			if (agreedTotal === null)
				return { kind: 'incomplete', reason: 'its pages gave no total, or different totals' };
			if (seen.size !== agreedTotal)
				return {
					kind: 'incomplete',
					reason: `its pages held ${seen.size} distinct records for a total of ${agreedTotal}`,
				};
			return { kind: 'complete' };
		}
		if (fresh.length === 0) {
			throw noProgress(`page ${page} held only records of earlier pages, yet it announced more`);
		}
		if (total !== undefined) pageLimit = Math.min(MAX_PAGES, Math.ceil(total / pageSize) + 1);
	}
}

/**
 * One page read on its own (a tool's page, list search): `contradictory` is never "these are
 * all". Either way each record is in it once, and no more than were asked.
 */
type OnePage<T> =
	| { kind: 'consistent'; records: T[]; hasMore: boolean }
	| { kind: 'contradictory'; records: T[]; reason: string };

export function onePage<T extends IDataObject>(
	envelope: ListEnvelope<T>,
	asked: { page: number; pageSize: number },
): OnePage<T> {
	const { data } = envelope;
	const reason = pageContradiction(data.length, envelope.pagination, asked);
	const seen = new SeenRecords();
	const records = data.filter((record) => seen.add(record)).slice(0, asked.pageSize);
	if (reason !== undefined) return { kind: 'contradictory', records, reason };
	const { hasMore, total } = pagingOf(envelope.pagination);
	return {
		kind: 'consistent',
		records,
		hasMore:
			hasMore ??
			(total !== undefined ? asked.page * asked.pageSize < total : data.length >= asked.pageSize),
	};
}

/** How often a listing that did not agree with itself is read in all, per operation. */
export const LISTING_READS = 3;

/**
 * The re-reads of listings that did not agree with themselves one operation may spend, however
 * many listings it reads: a service whose lists never agree costs it two more, not two each.
 */
export class RereadBudget {
	private left = LISTING_READS - 1;

	/** Takes one re-read; false when none is left. */
	take(): boolean {
		return this.left-- > 0;
	}
}

/** A listing read afresh until it agrees with itself, while `budget` allows: the last result. */
export async function readAgreeing(
	read: () => Promise<WalkResult>,
	budget: RereadBudget = new RereadBudget(),
): Promise<WalkResult> {
	let walked = await read();
	while (walked.kind === 'incomplete' && budget.take()) walked = await read();
	return walked;
}

/** Records seen, by id (kept as is: no key building per record), else by content. */
class SeenRecords {
	private readonly ids = new Set<string | number>();
	private readonly contents = new Set<string>();

	get size(): number {
		return this.ids.size + this.contents.size;
	}

	/** Adds the record; false when it was seen before. */
	add(record: IDataObject): boolean {
		const { id } = record;
		if (typeof id === 'string' || typeof id === 'number') return addNew(this.ids, id);
		// A record checked by envelope.ts, parsed from JSON: it stringifies.
		return addNew(this.contents, JSON.stringify(record));
	}
}

/** Adds `key`; false when it was there (one hash lookup, not two: it runs for every record). */
function addNew<T>(set: Set<T>, key: T): boolean {
	const size = set.size;
	return set.add(key).size !== size;
}
