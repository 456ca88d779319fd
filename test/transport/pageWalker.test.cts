import type { IDataObject } from 'n8n-workflow';

import { fc, test as fcTest } from '@fast-check/jest';

import {
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
});

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
