/** Requests of one run are paced at the key's limits, so the service never has to refuse them. */
import { adNode, apiRequests, rl, run, useFakeService } from '../nodes/helpers.cjs';

const service = useFakeService({ timeScale: 0.01 });

describe('report generation is paced at the generation limit (5 a minute)', () => {
	test('7 generations in one run: none refused with 429, the 6th waits for the window', async () => {
		const acme = service.fake.accounts().find((a) => a.name === 'Acme Outdoor')!;
		const result = await run(
			service,
			[
				adNode({
					resource: 'report',
					operation: 'generate',
					accountId: rl(acme.platformAccountId),
					title: '={{ $json.title }}',
					dateStart: '2026-10-01',
					dateEnd: '2026-10-07',
				}),
			],
			{ items: Array.from({ length: 7 }, (_, i) => ({ title: `Paced ${i}` })) },
		);
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(7);
		const posts = apiRequests(service, { method: 'POST' });
		expect(posts).toHaveLength(7);
		// The fake answers 429 to a 6th generation in one window: none means the 6th waited.
		expect(posts.filter((r) => r.status === 429)).toHaveLength(0);
	});
});
