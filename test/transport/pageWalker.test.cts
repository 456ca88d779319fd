import type { IDataObject } from 'n8n-workflow';

import { fc, test as fcTest } from '@fast-check/jest';

import {
	collectPages,
	LISTING_READS,
	readAgreeing,
	RereadBudget,
	walkPages,
} from '../../nodes/shared/transport/pageWalker';
import type { ListEnvelope } from '../../nodes/shared/types';

/** A list service over `pages`, answering page N with pages[N-1] and hasMore as given. */
function pagesOf(pages: IDataObject[][], hasMore = (page: number) => page < pages.length) {
	const asked: number[] = [];
	const readPage = async (page: number, pageSize: number): Promise<ListEnvelope<IDataObject>> => {
		asked.push(page);
		const data = pages[Math.min(page, pages.length) - 1] ?? [];
		return {
			data,
			pagination: { page, page_size: pageSize, hasMore: hasMore(page) },
		} as ListEnvelope<IDataObject>;
	};
	return { readPage, asked };
}

const stuck = (problem: string) => new Error(`no progress: ${problem}`);

describe('page walker: pagination that always ends', () => {
	test('repeated pages of records WITHOUT ids end the walk with an error, not a loop', async () => {
		const page = [{ name: 'a' }, { name: 'b' }];
		const { readPage, asked } = pagesOf([page], () => true);
		await expect(walkPages(readPage, () => true, stuck, { pageSize: 2 })).rejects.toThrow(
			/page 2 held only records of earlier pages/,
		);
		expect(asked).toEqual([1, 2]);
	});

	test('id-less records that differ are progress', async () => {
		const { readPage } = pagesOf([[{ n: 1 }, { n: 2 }], [{ n: 3 }, { n: 4 }], [{ n: 5 }]]);
		const seen: IDataObject[] = [];
		await walkPages(readPage, (records) => void seen.push(...records), stuck, { pageSize: 2 });
		expect(seen.map((record) => record.n)).toEqual([1, 2, 3, 4, 5]);
	});

	const contradiction = (problem: string) => new Error(`contradiction: ${problem}`);

	test('a page of 200,000 records, more than asked, is read without spreading it into arguments, and refused', async () => {
		const huge = Array.from({ length: 200_000 }, (_, i) => ({ id: `r${i}` }));
		const { readPage, asked } = pagesOf([huge]);
		await expect(collectPages(readPage, Infinity, stuck, contradiction)).rejects.toThrow(
			'contradiction: its page held 200000 records, more than the 100 asked for',
		);
		// Read again (a list may shift while it is paged), then refused.
		expect(asked).toEqual([1, 1, 1]);
	});

	test('a limit takes only what it needs, from a page larger than asked', async () => {
		const { readPage, asked } = pagesOf([Array.from({ length: 500 }, (_, i) => ({ id: i }))]);
		expect(await collectPages(readPage, 7, stuck, contradiction)).toHaveLength(7);
		expect(asked).toEqual([1]);
	});

	test('a record the list repeats on the next page is collected once, and a shifted listing is read again', async () => {
		let reads = 0;
		const readPage = async (page: number) => {
			if (page === 1) reads++;
			const shifted = reads === 1;
			// The first read: an insert between pages repeats record 99 on page 2, and the totals differ.
			const ids = page === 1 ? range(0, 100) : shifted ? range(99, 150) : range(100, 150);
			return {
				data: ids.map((id) => ({ id })),
				pagination: {
					page,
					page_size: 100,
					total: shifted && page === 2 ? 151 : 150,
					hasMore: page === 1,
				},
			};
		};
		const records = await collectPages(readPage, Infinity, stuck, contradiction);
		expect(records.map((record) => record.id)).toEqual(range(0, 150));
		expect(reads).toBe(2);
	});
});

function range(from: number, to: number): number[] {
	return Array.from({ length: to - from }, (_, i) => from + i);
}

describe('one re-read budget per operation (#39)', () => {
	fcTest.prop([fc.array(fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }), { maxLength: 6 })])(
		'however many listings an operation reads, its re-reads of listings that did not agree with themselves are LISTING_READS − 1 in all',
		async (listings) => {
			const budget = new RereadBudget();
			let reads = 0;
			for (const agrees of listings) {
				let read = 0;
				const walked = await readAgreeing(async () => {
					reads++;
					const agreed = agrees[Math.min(read++, agrees.length - 1)];
					return agreed ? { kind: 'complete' } : { kind: 'incomplete', reason: 'drawn' };
				}, budget);
				// A listing that still disagrees was read again only while the budget lasted.
				if (walked.kind === 'incomplete') expect(budget.take()).toBe(false);
			}
			expect(reads).toBeLessThanOrEqual(listings.length + LISTING_READS - 1);
		},
	);
});
