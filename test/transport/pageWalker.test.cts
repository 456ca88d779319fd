import type { IDataObject } from 'n8n-workflow';

import { collectPages, walkPages } from '../../nodes/shared/transport/pageWalker';
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

	test('a page of 200,000 records is collected without spreading it into arguments', async () => {
		const huge = Array.from({ length: 200_000 }, (_, i) => ({ id: `r${i}` }));
		const { readPage } = pagesOf([huge]);
		const records = await collectPages(readPage, Infinity, stuck);
		expect(records).toHaveLength(200_000);
		expect(records[199_999]).toEqual({ id: 'r199999' });
	});

	test('a limit takes only what it needs, from a page larger than asked', async () => {
		const { readPage, asked } = pagesOf([Array.from({ length: 500 }, (_, i) => ({ id: i }))]);
		expect(await collectPages(readPage, 7, stuck)).toHaveLength(7);
		expect(asked).toEqual([1]);
	});
});
