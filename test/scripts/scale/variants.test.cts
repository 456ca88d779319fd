// The workflows the queue-mode suite imports (scripts/scale/queue-mode.mjs) are built from the
// examples by removing and adding nodes, so an example that gains a node can leave a variant with
// a connection to a node it no longer has: n8n refuses the import, and the scale stage fails
// after the whole pipeline before it (CI, stop 52: "Open findings of the watch" → "Compose the
// team digest"). This checks each variant, and each example as shipped, the way n8n's import
// does: every connection's source and target is a node of the workflow, and names are unique.
//
// The script is an ES module, which jest (CommonJS here) cannot import: the workflows are built in
// a child Node.js process, which prints them as JSON.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const SCRIPT = path.join(ROOT, 'scripts/scale/queue-mode.mjs');

interface Workflow {
	name: string;
	nodes: Array<{ name: string }>;
	connections: Record<string, Record<string, Array<Array<{ node: string }> | null>>>;
}

/** Each broken reference of a workflow, as a sentence (none when n8n would import it). */
function brokenReferences(wf: Workflow): string[] {
	const names = wf.nodes.map((n) => n.name);
	const known = new Set(names);
	const problems = names
		.filter((name, i) => names.indexOf(name) !== i)
		.map((name) => `two nodes are named "${name}"`);
	for (const [from, outputs] of Object.entries(wf.connections)) {
		if (!known.has(from)) problems.push(`a connection leaves "${from}", which is not a node`);
		for (const branches of Object.values(outputs))
			for (const branch of branches ?? [])
				for (const { node } of branch ?? [])
					if (!known.has(node)) problems.push(`"${from}" leads to "${node}", which is not a node`);
	}
	return problems;
}

function scaleVariants(): Workflow[] {
	const program = `
		import * as q from ${JSON.stringify(SCRIPT)};
		process.stdout.write(JSON.stringify([
			q.weeklyEmailWebhookVariant(),
			q.exactlyOnceWebhookVariant(),
			q.exactlyOnceWebhookVariant({ errorWorkflow: 'wf-1' }),
			q.recoveryWorkflow(),
			q.archiveTriggerVariant('/tmp/archive'),
		]));`;
	const out = execFileSync(process.execPath, ['--input-type=module', '-e', program], {
		cwd: ROOT,
		encoding: 'utf8',
		maxBuffer: 64 * 1024 * 1024,
	});
	return JSON.parse(out) as Workflow[];
}

describe('workflows as n8n imports them', () => {
	it('each variant the queue-mode suite imports connects only nodes it has', () => {
		const variants = scaleVariants();
		expect(variants).toHaveLength(5);
		for (const wf of variants)
			expect({ [wf.name]: brokenReferences(wf) }).toEqual({ [wf.name]: [] });
	});

	it('each example connects only nodes it has', () => {
		const dir = path.join(ROOT, 'examples');
		const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
		expect(files.length).toBeGreaterThan(5);
		for (const file of files) {
			const wf = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Workflow;
			expect({ [file]: brokenReferences(wf) }).toEqual({ [file]: [] });
		}
	});

	it('finds a connection to a node the workflow no longer has', () => {
		const wf: Workflow = {
			name: 'x',
			nodes: [{ name: 'A' }, { name: 'A' }],
			connections: { A: { main: [[{ node: 'B' }]] }, C: { main: [] } },
		};
		expect(brokenReferences(wf)).toEqual([
			'two nodes are named "A"',
			'"A" leads to "B", which is not a node',
			'a connection leaves "C", which is not a node',
		]);
	});
});
