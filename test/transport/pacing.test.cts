/** Requests of one run are paced at the key's limits, so the service never has to refuse them. */
import { fc, test as fcTest } from '@fast-check/jest';

import { pacerFor, type Bucket } from '../../nodes/shared/transport/rateLimiter';
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

describe('every request the key’s pacing counted is landed when its run of attempts ends', () => {
	type Answer = '429 naming no wait' | '429 with Retry-After' | '500' | 'the list';
	const answers = fc.array(
		fc.constantFrom<Answer>('429 naming no wait', '429 with Retry-After', '500', 'the list'),
		{ minLength: 1, maxLength: 4 },
	);
	/** Requests the key's pacing holds as sent and not answered (RateLimiter's own count). */
	const readsInFlight = () => {
		const clock = { now: () => Date.now(), random: () => Math.random() };
		const { limiter } = pacerFor(service.fake.url, service.fake.keys.live, 600, clock);
		const state = limiter as unknown as { buckets: Record<Bucket, { inFlight?: number }> };
		return state.buckets.read.inFlight ?? 0;
	};

	fcTest.prop([fc.integer({ min: 1, max: 3 }), answers], {
		numRuns: Number(process.env.FC_PACING_RUNS ?? 12),
	})(
		'429s naming a wait or not, 5xx and the list, on any attempt (the last too): none is left in flight',
		async (maxAttempts, drawn) => {
			service.fake.resetLimits();
			let index = 0;
			const release = service.fake.intercept({
				method: 'GET',
				pathPrefix: '/v1/accounts',
				times: drawn.length,
				respond: () => {
					const answer = drawn[index++];
					if (answer === 'the list') return undefined;
					if (answer === '500')
						return { status: 500, json: { error: { type: 'internal_error', message: 'x' } } };
					return {
						status: 429,
						headers: answer === '429 with Retry-After' ? { 'Retry-After': '1' } : undefined,
						json: { error: { type: 'rate_limit_error', message: 'Rate limit exceeded' } },
					};
				},
			});
			try {
				await run(service, [
					adNode({
						resource: 'account',
						operation: 'getAll',
						returnAll: true,
						requestOptions: { maxAttempts },
					}),
				]);
			} finally {
				release();
			}
			expect(readsInFlight()).toBe(0);
		},
	);
});
