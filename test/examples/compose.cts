// Runs the examples' composing Code nodes as imported (their code from examples/*.json) through
// n8n's engine, with the nodes that read the service or a data table stood in by fixed items, and
// reads what they compose; and what a composed message may hold in each medium. Used by the
// example tests (test/examples/*.test.cts).
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import type { IDataObject } from 'n8n-workflow';

import { runWorkflow } from '../harness/run-workflow.cjs';

const EXAMPLES = path.join(__dirname, '../../examples');

interface ExampleNode {
	name: string;
	type: string;
	parameters: IDataObject;
}
export function exampleNode(file: string, name: string): ExampleNode {
	const workflow = JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8')) as {
		nodes: ExampleNode[];
	};
	const node = workflow.nodes.find((n) => n.name === name);
	if (!node) throw new Error(`${file}: no node "${name}"`);
	return node;
}

/**
 * One step of a chain: fixed items standing in for a node, an example's Code node, field
 * expressions of an example's node (`assign`), or a node of the example that this run does not
 * reach (`idle`: in the workflow, never executed).
 */
export type Step = (
	| { name: string; items: IDataObject[] }
	| { name: string; code: string }
	| { name: string; idle: true }
	| { name: string; assign: Record<string, string> }
) & {
	/**
	 * The step whose output this one takes (a second branch of that node), instead of the step
	 * before; branches run in the order of their steps, as n8n runs the upper branch first.
	 */
	after?: string;
};

/** Runs the steps in order (each item paired with the first of the step before) and returns every step's output. */
export async function runSteps(
	file: string,
	steps: Step[],
): Promise<Record<string, IDataObject[]>> {
	const chain = steps.filter((step) => !('idle' in step));
	const connections: Record<string, { main: { node: string; type: 'main'; index: 0 }[][] }> = {};
	chain.slice(1).forEach((step, i) => {
		const from = step.after ?? chain[i].name;
		connections[from] ??= { main: [[]] };
		connections[from].main[0].push({ node: step.name, type: 'main', index: 0 });
	});
	const result = await runWorkflow({
		nodes: steps.map((step) =>
			'items' in step
				? {
						name: step.name,
						type: 'test.setItems',
						// as JSON text: a value starting with "=" inside a parameter object would be read as an expression
						parameters: { items: JSON.stringify(step.items.length ? step.items : [{}]) },
					}
				: 'code' in step
					? {
							name: step.name,
							type: 'test.code',
							parameters: exampleNode(file, step.code).parameters,
						}
					: 'assign' in step
						? {
								// a node's field expressions, evaluated by n8n's expression engine as a Set node does
								name: step.name,
								type: 'test.assignments',
								parameters: {
									assignments: {
										assignments: Object.entries(step.assign).map(([name, value]) => ({
											name,
											value,
											type: 'string',
										})),
									},
									includeOtherFields: false,
								},
							}
						: { name: step.name, type: 'test.setItems', parameters: { items: [] } },
		),
		connections,
	});
	if (result.error)
		throw new Error(
			`${result.error.node?.name ?? 'a node'} failed: ${result.error.message}${result.error.description ? ` (${result.error.description})` : ''}`,
			{ cause: result.error },
		);
	return Object.fromEntries(
		Object.entries(result.nodes).map(([name, r]) => [name, r.items.map((item) => item.json)]),
	);
}

/** The libraries of examples/src as a Code node has them (plain declarations, read in a fresh context). */
export function examplesLib(): Record<string, (...args: never[]) => unknown> {
	const names = ['text', 'money', 'digest', 'email', 'watch'];
	const code = names
		.map((n) => fs.readFileSync(path.join(EXAMPLES, 'src', 'lib', `${n}.js`), 'utf8'))
		.join('\n');
	const declared = [...code.matchAll(/^(?:function|const) (\w+)/gm)].map((m) => m[1]);
	return vm.runInNewContext(`${code}\n({ ${declared.join(', ')} })`) as never;
}

// --- what a message may hold ---

/** The elements and attributes the examples' HTML templates write; nothing from data adds any. */
const TAGS = new Set(['div', 'h2', 'h3', 'p', 'table', 'tr', 'td', 'th', 'span', 'br', 'ul', 'li']);
const ATTRIBUTES = new Set([
	'style',
	'role',
	'width',
	'height',
	'cellpadding',
	'cellspacing',
	'border',
	'class',
	'bgcolor',
	'colspan',
	'valign',
]);

/** Every problem of a composed HTML body: a tag or attribute no template writes (so no script, SVG, image or link), a URL in a style, a raw `&`, over 100 KB. */
export function htmlProblems(html: string): string[] {
	const problems: string[] = [];
	for (const tag of html.match(/<[^>]*>?/g) ?? []) {
		const m = /^<\/?([a-z0-9]+)((?:\s+[a-z-]+="[^"<>]*")*)\s*\/?>$/.exec(tag);
		if (!m || !TAGS.has(m[1])) {
			problems.push(`tag ${tag.slice(0, 60)}`);
			continue;
		}
		if (/url\(|expression\(|data:/i.test(m[2])) problems.push(`a URL in ${tag.slice(0, 60)}`);
		for (const [, attr] of m[2].matchAll(/([a-z-]+)="/g))
			if (!ATTRIBUTES.has(attr)) problems.push(`attribute ${attr} in ${tag.slice(0, 60)}`);
	}
	if (/&(?!(amp|lt|gt|quot|#39|#92|nbsp);)/.test(html))
		problems.push('a raw & (not an entity the templates write)');
	if (Buffer.byteLength(html) > 100 * 1024)
		problems.push(`${Buffer.byteLength(html)} bytes, over 100 KB`);
	if (!isWellFormed(html)) problems.push('a lone surrogate');
	return problems;
}

/** The text a reader sees in composed HTML: tags dropped, the templates' entities read back. */
export function htmlText(html: string): string {
	return html
		.replace(/<[^>]*>/g, ' ')
		.replace(
			/&(amp|lt|gt|quot|#39|#92|nbsp);/g,
			(_m, e: string) =>
				({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#92': '\\', nbsp: ' ' })[e] ?? '',
		);
}

/** Every problem of a Slack mrkdwn text: a control sequence (`<…>`) or a raw `&` from anywhere. */
export function slackProblems(text: string): string[] {
	const problems: string[] = [];
	if (/[<>]/.test(text))
		problems.push(`a control character: ${text.match(/.{0,20}[<>].{0,20}/s)?.[0]}`);
	if (/&(?!(amp|lt|gt);)/.test(text)) problems.push('a raw &');
	if (!isWellFormed(text)) problems.push('a lone surrogate');
	return problems;
}

/** Slack's mrkdwn read back as text (a word joiner, which shows as nothing, dropped). */
export const slackText = (text: string) =>
	text
		.replace(/\u2060/g, '')
		.replace(/&(amp|lt|gt);/g, (_m, e: string) => ({ amp: '&', lt: '<', gt: '>' })[e] ?? '');

/** A header's problems: a line break of any kind, a lone surrogate, over 998 characters. */
export function headerProblems(value: string): string[] {
	const problems: string[] = [];
	if (/[\r\n\u0085\u2028\u2029]/.test(value)) problems.push('a line break');
	if (!isWellFormed(value)) problems.push('a lone surrogate');
	if (value.length > 998) problems.push('over 998 characters');
	return problems;
}

export const isWellFormed = (s: string) =>
	!/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

/**
 * What n8n's Send and Wait does to its message and subject before writing them out (n8n-nodes-base
 * utils/sendAndWait getSendAndWaitConfig with its `escapeHtml`, the same in 1.85.3, 1.123.81 and
 * 2.41.1): five entities decoded once, `<br>` read as a line break. Its e-mail then puts the message
 * into `<p style="white-space: pre-line;">…</p>` as it is; Slack 2.3 sends it as mrkdwn.
 */
export function sendAndWaitDecode(text: string, part: 'message' | 'subject' = 'message'): string {
	const decoded = text.replace(
		/&amp;|&lt;|&gt;|&#39;|&quot;/g,
		(m) => ({ '&amp;': '&', '&lt;': '<', '&gt;': '>', '&#39;': "'", '&quot;': '"' })[m] ?? m,
	);
	// only the message: trimmed, and `\n` and `<br>` read as line breaks
	return part === 'subject' ? decoded : decoded.trim().replace(/\\n/g, '\n').replace(/<br>/g, '\n');
}
