// The example workflows are what their sources make (examples/src, written in by
// scripts/examples/build.mjs), and every node that sends something reads only what a Code node
// composed: no value from outside reaches an e-mail, a Slack message or a file name unescaped
// through an expression of its own.
import fs from 'node:fs';
import path from 'node:path';

const EXAMPLES = path.join(__dirname, '../../examples');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const build = require('../../scripts/examples/build.cjs') as {
	examplesDiffering: () => string[];
	CODE_NODES: Array<{ examples: string[]; node: string }>;
};

interface ExampleNode {
	name: string;
	type: string;
	parameters: Record<string, unknown>;
}
const examples = fs
	.readdirSync(EXAMPLES)
	.filter((f) => f.endsWith('.json'))
	.map((file) => ({
		file,
		nodes: (
			JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8')) as { nodes: ExampleNode[] }
		).nodes,
	}));

test('every example is what examples/src makes (npm run examples)', () => {
	expect(build.examplesDiffering()).toEqual([]);
});

test('every Code node of every example is written from examples/src', () => {
	const { CODE_NODES } = build;
	const written = new Set(
		CODE_NODES.flatMap((n) => n.examples.map((file) => `${file} › ${n.node}`)),
	);
	const codeNodes = examples.flatMap(({ file, nodes }) =>
		nodes.filter((n) => n.type === 'n8n-nodes-base.code').map((n) => `${file} › ${n.name}`),
	);
	expect(codeNodes.filter((n) => !written.has(n))).toEqual([]);
});

/** The fields of a sending node that carry what someone reads, and where a value may come from. */
const MESSAGE_FIELDS: Record<string, string[]> = {
	'n8n-nodes-base.emailSend': ['toEmail', 'subject', 'text', 'html', 'message', 'options.ccEmail'],
	'n8n-nodes-base.slack': ['text', 'message'],
	'n8n-nodes-base.googleDrive': ['name'],
};
/** A field either fixed text or one composed field: `={{ $json.a.b }}` or `={{ $binary.data.fileName }}`. */
const COMPOSED = /^=\{\{ \$(json|binary)(\.[A-Za-z_]+)+ \}\}$/;
const field = (parameters: Record<string, unknown>, dotted: string) =>
	dotted
		.split('.')
		.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], parameters);

test.each(examples.map((e) => [e.file, e] as const))(
	'%s: its e-mail, Slack and Drive nodes write only composed or fixed text',
	(_file, { nodes }) => {
		const loose = nodes.flatMap((node) =>
			(MESSAGE_FIELDS[node.type] ?? []).flatMap((name) => {
				const value = field(node.parameters, name);
				if (typeof value !== 'string' || !value.startsWith('=')) return [];
				return COMPOSED.test(value) ? [] : [`${node.name} › ${name}: ${value.slice(0, 80)}`];
			}),
		);
		expect(loose).toEqual([]);
	},
);
