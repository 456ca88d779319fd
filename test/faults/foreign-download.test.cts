/**
 * A downloadUrl on another origin (a CDN with signed links) never receives the API key, also
 * when the downloads meet 429s, 500s, dropped connections and slow answers and are retried.
 */
import { FAULT_COLUMNS, OPERATIONS, expectNoKey, freshService, runCase } from './matrix.cjs';

jest.setTimeout(60_000);

const waitRow = OPERATIONS.find((o) => o.name === 'Wait for Ad Report with download')!;

describe('foreign download origin under faults', () => {
	test.each(FAULT_COLUMNS.map((column, col) => [column.name, column, col] as const))(
		'Wait for Ad Report with download from a foreign origin × %s: the key never goes there',
		async (_name, column, col) => {
			const service = await freshService(2000 + col, { downloadOrigin: 'foreign' });
			try {
				const prepared = await waitRow.prepare(service, column.maxAttempts);
				// Faults on the file downloads only, so the retries happen against the foreign origin.
				const { result, logs } = await runCase(
					service,
					{
						...column,
						faults: { ...column.faults, match: { method: 'GET', pathPrefix: '/v1/reports/' } },
					},
					{ ...prepared, injectAt: { method: 'GET', pathPrefix: '/v1/reports/' } },
				);
				const key = service.fake.keys.live;
				expectNoKey(key, result, logs);
				const foreign = service.fake.log.filter((entry) => entry.origin === 'foreign');
				expect(foreign.length).toBeGreaterThanOrEqual(prepared.items!.length);
				for (const entry of foreign) {
					expect(entry.headers['x-api-key']).toBeUndefined();
					expect(JSON.stringify(entry.headers)).not.toContain(key);
					expect(JSON.stringify(entry.query)).not.toContain(key);
				}
				const faulted = new Set(foreign.map((entry) => entry.fault).filter(Boolean));
				for (const kind of column.expectFaults) expect(faulted).toContain(kind);
				expect(result.error).toBeUndefined();
				await prepared.verify(result, service.fake);
			} finally {
				await service.fake.stop();
			}
		},
	);
});
