/**
 * On Error → "Continue (using error output)": a failed item goes to the node's error output
 * (n8n routes by the item's error), the others to the success output, each paired with its input.
 */
import { adNode, rl, run, useFakeService } from '../helpers.cjs';

const service = useFakeService({ timeScale: 0.01 });

test('a failed item goes to the error output, the others stay on the success output', async () => {
	const [first, second] = service.fake.campaigns();
	const result = await run(
		service,
		[
			{
				...adNode({ resource: 'campaign', operation: 'get', campaignId: rl('={{ $json.id }}') }),
				onError: 'continueErrorOutput',
			},
		],
		{ items: [{ id: first.id }, { id: 'cmp_does_not_exist' }, { id: second.id }] },
	);
	expect(result.error).toBeUndefined();
	const outputs = result.run.data.resultData.runData['Ad Performance'][0].data!.main;
	const [success, failed] = outputs;
	expect(success?.map((item) => item.json.id)).toEqual([first.id, second.id]);
	expect(success?.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 2 }]);
	expect(failed).toHaveLength(1);
	expect(String(failed![0].json.error)).toMatch(/cmp_does_not_exist/);
	expect(failed![0].pairedItem).toEqual({ item: 1 });
});

test('under plain Continue On Fail the failed item stays in place, with its error text', async () => {
	const [first] = service.fake.campaigns();
	const result = await run(
		service,
		[
			{
				...adNode({ resource: 'campaign', operation: 'get', campaignId: rl('={{ $json.id }}') }),
				continueOnFail: true,
			},
		],
		{ items: [{ id: 'cmp_does_not_exist' }, { id: first.id }] },
	);
	expect(result.items.map((item) => item.json.id ?? 'failed')).toEqual(['failed', first.id]);
	expect(String(result.items[0].json.error)).toMatch(/cmp_does_not_exist/);
	expect(result.items[0].json.errorDescription).toEqual(expect.any(String));
});
