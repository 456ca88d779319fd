/**
 * Fault matrix: every operation × every fault kind, against a fresh seeded fake each time.
 * In every case: each record exactly once, no duplicate report, no item lost (count and
 * pairedItem order), and the API key in no output, error or log line.
 */
import { FAULT_COLUMNS, OPERATIONS, expectNoKey, freshService, runCase } from './matrix.cjs';

jest.setTimeout(60_000);

const cases = OPERATIONS.flatMap((operation, row) =>
	FAULT_COLUMNS.map((column, col) => ({
		title: `${operation.name} × ${column.name}`,
		operation,
		column,
		seed: 1000 + row * 10 + col,
	})),
);

async function runMatrixCase(c: (typeof cases)[number]) {
	const service = await freshService(c.seed, { timeScale: c.operation.timeScale });
	try {
		const prepared = await c.operation.prepare(service, c.column.maxAttempts);
		const { result, logs } = await runCase(service, c.column, prepared);

		// The key leaks nowhere, whatever the outcome.
		expectNoKey(service.fake.keys.live, result, logs);
		// The faults really happened…
		const faults = new Set(service.fake.log.map((entry) => entry.fault).filter(Boolean));
		for (const kind of c.column.expectFaults) expect(faults).toContain(kind);
		// …and the workflow still succeeded (Max Attempts raised only for "all at once").
		expect(result.error).toBeUndefined();
		await prepared.verify(result, service.fake);
	} finally {
		await service.fake.stop();
	}
}

describe('fault matrix (operation × fault)', () => {
	test.each(cases.map((c) => [c.title, c] as const))('%s', async (_title, c) => {
		await runMatrixCase(c);
	});
});

describe('the leak check itself', () => {
	test('finds the key in an output item, an error description and a log line', async () => {
		const key = 'service_live_' + 'k'.repeat(30);
		const clean = { items: [], nodes: {}, run: undefined, durationMs: 0 } as never;
		expect(() => expectNoKey(key, clean, [])).not.toThrow();
		expect(() =>
			expectNoKey(key, { ...(clean as object), items: [{ json: { note: key } }] } as never, []),
		).toThrow();
		const error = Object.assign(new Error('x'), { description: `sent ${key}` });
		expect(() => expectNoKey(key, { ...(clean as object), error } as never, [])).toThrow();
		const { captureLogs } = await import('./matrix.cjs');
		const { logs } = await captureLogs(async () => {
			process.stderr.write(`debug ${key.slice(0, 5)}\n`);
			console.warn('header', { 'x-api-key': key });
		});
		expect(() => expectNoKey(key, clean, logs)).toThrow();
	});
});
