/**
 * Attack (#30, listings outside Return All's walker): a tool's page is checked against itself
 * and against what was asked (page, limit), as the walker's pages are. A page whose count
 * contradicts its total, that holds more records than asked, that is another page than the one
 * asked, or a last page without page/page_size whose count leaves records out, is never told to
 * the model as "these are all"; a record the page repeats is shown once.
 */
import type { IDataObject } from 'n8n-workflow';

import { AD_TOOL_NODE, run } from '../nodes/helpers.cjs';
import { useHostileService } from './helpers.cjs';

const service = useHostileService();

interface AccountList {
	data: IDataObject[];
	pagination: IDataObject;
}

/** The accounts page the tool asks for, changed by `edit`. */
function editedPage(edit: (body: AccountList) => AccountList) {
	service.fake.intercept({
		method: 'GET',
		pathPrefix: '/v1/accounts',
		respond: (_request, real) => {
			const reply = real();
			return { status: 200, json: edit(reply.json as AccountList) };
		},
	});
}

const accountsTool = (limit: number) =>
	run(
		service,
		[
			{
				name: 'Accounts',
				type: AD_TOOL_NODE,
				parameters: { resource: 'account', operation: 'getAll' },
			},
		],
		{ items: [{ limit, page: 1 }] },
	);

const CASES: Array<[string, number, (body: AccountList) => AccountList]> = [
	[
		'a last page whose total says more records exist',
		10,
		(body) => ({ ...body, pagination: { ...body.pagination, hasMore: false, total: 250 } }),
	],
	[
		'more records than the limit asked for',
		2,
		(body) => ({
			...body,
			data: [...body.data, ...body.data.map((r) => ({ ...r, id: `${r.id}x` }))],
		}),
	],
	[
		'another page than the one asked for',
		10,
		(body) => ({ ...body, pagination: { ...body.pagination, page: 2 } }),
	],
	[
		'a last page without page and page_size whose count leaves records out',
		2,
		(body) => ({ data: body.data, pagination: { total: 4, hasMore: false } }),
	],
];

describe.each(CASES)('%s', (_name, limit, edit) => {
	test('the model is not told these are all', async () => {
		editedPage(edit);
		const result = await accountsTool(limit);
		expect(result.error?.message).toBeUndefined();
		const answer = result.items[0].json;
		expect(answer.hasMore).toBe(true);
		expect(String(answer.hint)).not.toMatch(/These are all/);
		expect(String(answer.hint)).toMatch(/did not agree with itself/);
	});
});

test('a record repeated on the page is shown once', async () => {
	editedPage((body) => ({ ...body, data: [body.data[0], body.data[0], ...body.data.slice(1)] }));
	const result = await accountsTool(10);
	const ids = (result.items[0].json.results as IDataObject[]).map((record) => record.id);
	expect(new Set(ids).size).toBe(ids.length);
});
