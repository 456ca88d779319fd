/**
 * Attack (#26, byte limits that count only what unpacks): an answer is held to its byte limit
 * on the wire as well as unpacked, in every coding axios unpacks (gzip, deflate, brotli). A
 * stream that unpacks to nothing (endless empty gzip members, empty deflate blocks, brotli
 * metadata blocks) gives the reader nothing to count after unpacking: it is stopped by the
 * packed bytes, at about the 16 MiB limit, long before the exchange's deadline.
 */
import { ANSWER_LIMITS } from '../../nodes/shared/limits';
import { endlessEmptyCoding } from '../../sandbox/index.cjs';
import { allAccountsOnce, runAttack, streamedAnswers, useHostileService } from './helpers.cjs';

const service = useHostileService();

const MIB = 1024 * 1024;
/**
 * What socket and stream buffers may hold beyond what the reader took when it hung up (on a
 * loaded machine the fake writes on for a while before it sees the close). Far below what the
 * 120 s deadline would let through: gigabytes.
 */
const IN_FLIGHT = 16 * MIB;

describe('packed bytes count against the limit as they arrive', () => {
	test.each(['gzip', 'deflate', 'br'] as const)(
		'an endless %s answer that unpacks to nothing is refused at 16 MiB on the wire',
		async (coding) => {
			service.fake.intercept({
				method: 'GET',
				pathPrefix: '/v1/accounts',
				respond: () => endlessEmptyCoding(coding),
			});
			const result = await runAttack(service, [allAccountsOnce()]);
			expect(result.error?.message).toBe(
				'The service sent an answer that is not in its documented format (GET /v1/accounts): the answer was larger than 16 MiB, the limit for it; reading stopped there',
			);
			// Stopped by its size, not by the 120 s deadline.
			expect(result.durationMs).toBeLessThan(15_000);
			const [answer] = await streamedAnswers(service, '/v1/accounts');
			expect(answer.closedByClient).toBe(true);
			expect(answer.sentBytes).toBeGreaterThan(ANSWER_LIMITS.jsonBytes);
			expect(answer.sentBytes).toBeLessThan(ANSWER_LIMITS.jsonBytes + IN_FLIGHT);
		},
		30_000,
	);
});
