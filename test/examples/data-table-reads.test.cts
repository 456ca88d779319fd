// n8n's Data Table node reads a table a page at a time and compares the row count between its
// queries; another execution writing the table in between fails the read with "synchronization
// error: result count changed during pagination" (n8n-nodes-base DataTable/common/selectMany).
// The weekly examples read tables their own concurrent runs write (figures, digests, reviews):
// the 300-client bench round lost an execution to it on 2026-11-28. The error is over once the
// writes are, so every such read retries (n8n's Retry On Fail); a lookup by key (rowExists,
// rowNotExists: one page, one row) cannot meet it.
import fs from 'node:fs';
import path from 'node:path';

interface ExampleNode {
	name: string;
	type: string;
	parameters: { operation?: string; returnAll?: boolean };
	retryOnFail?: boolean;
	maxTries?: number;
	waitBetweenTries?: number;
}

const dir = path.join(__dirname, '../../examples');
const examples = fs
	.readdirSync(dir)
	.filter((file) => file.endsWith('.json'))
	.map((file) => ({
		file,
		nodes: (JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { nodes: ExampleNode[] })
			.nodes,
	}));

describe('examples: Data Table reads survive concurrent writers', () => {
	const reads = examples.flatMap(({ file, nodes }) =>
		nodes
			.filter((n) => n.type === 'n8n-nodes-base.dataTable' && n.parameters.operation === 'get')
			.map((n) => ({ file, node: n })),
	);

	test('the examples have paged reads to check', () => {
		expect(reads.length).toBeGreaterThan(0);
	});

	test.each(reads.map((r) => [r.file, r.node.name, r.node] as const))(
		'%s › %s retries a failed read',
		(_file, _name, node) => {
			expect(node.retryOnFail).toBe(true);
			// n8n's limits: 2–5 tries, up to 5 s apart.
			expect(node.maxTries).toBeGreaterThanOrEqual(2);
			expect(node.maxTries).toBeLessThanOrEqual(5);
			expect(node.waitBetweenTries).toBeGreaterThan(0);
			expect(node.waitBetweenTries).toBeLessThanOrEqual(5000);
		},
	);
});
