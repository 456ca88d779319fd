/**
 * What n8n 3.0 removes or renames, as data: one row per change, each saying where it can show up
 * in this repository (an example's node or its settings, the package's manifest, a node
 * description, the package's source, a page users follow) and how to see it there. `check` runs
 * every row over what it is given; `readRepository` gives it the package and the examples as they
 * ship. n8n 3.0 is in early access and installs only from Docker images (no runnable `n8n` on npm),
 * so this is the static half of being ready for it: nothing here runs n8n 3.0.
 *
 * Sources: n8n's "v3.0 breaking changes" page (docs.n8n.io/changelog/v30-breaking-changes) and the
 * rules of n8n's own migration report (packages/cli/src/modules/breaking-changes/rules/v3/ in
 * n8n-io/n8n), whose detection these rows follow where one exists.
 */
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');

export interface WorkflowNode {
	name: string;
	type: string;
	typeVersion: number;
	parameters: Record<string, unknown>;
	alwaysOutputData?: boolean;
	onError?: string;
}
export interface Workflow {
	name: string;
	nodes: WorkflowNode[];
	settings?: Record<string, unknown>;
}
export interface Manifest {
	name: string;
	n8n?: { n8nNodesApiVersion?: unknown; nodes?: string[]; credentials?: string[] };
}
export interface NodeDescription {
	name: string;
	icon?: unknown;
	iconColor?: string;
	defaults: Record<string, unknown>;
	outputs: unknown;
}

/** What each kind of row looks at; `file` (and a node's name) is how a finding names the place. */
export interface Subjects {
	exampleNode: { file: string; node: WorkflowNode };
	exampleWorkflow: { file: string; workflow: Workflow };
	manifest: { file: string; manifest: Manifest };
	nodeDescription: { file: string; description: NodeDescription };
	packageSource: { file: string; text: string };
	userDoc: { file: string; text: string };
}
export type Where = keyof Subjects;
export type SubjectLists = { [W in Where]: Array<Subjects[W]> };

export interface Rule<W extends Where = Where> {
	id: string;
	/** What n8n 3.0 changes, as its breaking-changes page says it. */
	change: string;
	where: W;
	/** How the problem shows in one subject: what is wrong there, or undefined. */
	detect: (subject: Subjects[W]) => string | undefined;
	/** Subjects that use the removed thing: the row must flag each (the proof that it can fail). */
	planted: Array<Subjects[W]>;
	/** Subjects next to the line that must pass (a kept version, the mode that stays, the new name). */
	passes: Array<Subjects[W]>;
}
const rule = <W extends Where>(r: Rule<W>): Rule => r as unknown as Rule;

export interface Finding {
	rule: string;
	/** `file` or `file › node`. */
	at: string;
	detail: string;
	change: string;
}

const OUR_PACKAGE = 'n8n-nodes-ad-performance';

/** Every string in a node's parameters with its path (expressions, Code nodes' code, plain values). */
export function stringsOf(value: unknown, at = 'parameters'): Array<{ at: string; value: string }> {
	if (typeof value === 'string') return [{ at, value }];
	if (Array.isArray(value)) return value.flatMap((v, i) => stringsOf(v, `${at}[${i}]`));
	if (value && typeof value === 'object')
		return Object.entries(value).flatMap(([k, v]) => stringsOf(v, `${at}.${k}`));
	return [];
}
const firstString = (node: WorkflowNode, test: (s: string) => boolean) =>
	stringsOf(node.parameters).find(({ value }) => test(value))?.at;

// Node types n8n 3.0 no longer has: its removed-nodes rules (removed-nodes, removed-nodes-with-
// replacements, ai-transform-deprecated) and the page's list (Function, Function Item, Item Lists,
// LangChain Code).
const REMOVED_NODE_TYPES = new Set(
	[
		...['function', 'functionItem', 'itemLists', 'aiTransform', 'moveBinaryData', 'cron'],
		...['htmlExtract', 'iCal', 'interval', 'readBinaryFile', 'readBinaryFiles', 'readPDF'],
		...['writeBinaryFile', 'workflowTrigger', 'orbit'],
	].map((name) => `n8n-nodes-base.${name}`),
);
for (const name of [
	'code',
	'documentGithubLoader',
	'memoryMotorhead',
	'memoryZep',
	'vectorStoreZep',
	'vectorStoreZepInsert',
	'vectorStoreZepLoad',
	'documentBinaryInputLoader',
	'memoryChatRetriever',
	'toolHttpRequest',
	'vectorStoreInMemoryInsert',
	'vectorStoreInMemoryLoad',
	'documentJsonInputLoader',
	'manualChatTrigger',
	'openAiAssistant',
	'lmOpenAi',
	'vectorStorePineconeInsert',
	'vectorStorePineconeLoad',
	'toolSerpApi',
	'vectorStoreSupabaseInsert',
	'vectorStoreSupabaseLoad',
])
	REMOVED_NODE_TYPES.add(`@n8n/n8n-nodes-langchain.${name}`);

// Nodes of n8n whose description has more than one main output, or outputs set by an expression
// (n8n's own rule counts those as several): every such type in n8n 2.41.1's
// n8n-nodes-base and @n8n/n8n-nodes-langchain `dist/types/nodes.json`, read 2026-11. The If node's
// two outputs are the common case; our own nodes are read from their descriptions instead.
const MULTI_OUTPUT_TYPES = new Set(
	[
		...['compareDatasets', 'dynamicCredentialCheck', 'evaluation', 'if', 'respondToWebhook'],
		...['switch', 'webhook'],
	].map((name) => `n8n-nodes-base.${name}`),
);
for (const name of [
	'sentimentAnalysis',
	'textClassifier',
	'code',
	'guardrails',
	...['AzureAISearch', 'InMemory', 'Milvus', 'MongoDBAtlas', 'OracleDBVector', 'PGVector'].map(
		(store) => `vectorStore${store}`,
	),
	...['Pinecone', 'Redis', 'Qdrant', 'Supabase', 'Weaviate', 'Zep', 'ChromaDB'].map(
		(store) => `vectorStore${store}`,
	),
	...['PGVector', 'Qdrant', 'Pinecone'].map((store) => `chatHubVectorStore${store}`),
])
	MULTI_OUTPUT_TYPES.add(`@n8n/n8n-nodes-langchain.${name}`);

export function mainOutputCount(outputs: unknown): number | 'expression' {
	if (!Array.isArray(outputs)) return 'expression';
	return outputs.filter(
		(o) => (typeof o === 'string' ? o : (o as { type?: string }).type) === 'main',
	).length;
}

/** Our own node types' main outputs, from the descriptions the package ships (set by readRepository). */
const ourOutputs = new Map<string, number | 'expression'>();
export function setOwnNodeOutputs(descriptions: NodeDescription[]): void {
	ourOutputs.clear();
	for (const d of descriptions)
		ourOutputs.set(`${OUR_PACKAGE}.${d.name}`, mainOutputCount(d.outputs));
}

function hasSeveralOutputs(node: WorkflowNode): boolean {
	// an error output is one more main output at run time (n8n's rule counts it too)
	if (node.onError === 'continueErrorOutput') return true;
	// Loop Over Items has "done" and "loop" from version 2 on
	if (node.type === 'n8n-nodes-base.splitInBatches') return node.typeVersion >= 2;
	const own = ourOutputs.get(node.type);
	if (own !== undefined) return own === 'expression' || own > 1;
	return MULTI_OUTPUT_TYPES.has(node.type);
}

const node = (type: string, typeVersion: number, extra: Partial<WorkflowNode> = {}) => ({
	file: 'planted.json',
	node: { name: 'Planted', type, typeVersion, parameters: {}, ...extra },
});
const doc = (text: string) => ({ file: 'docs/planted.md', text });
const manifest = (n8n: Manifest['n8n']) => ({
	file: 'package.json',
	manifest: { name: OUR_PACKAGE, n8n },
});
const description = (defaults: Record<string, unknown>, extra: Partial<NodeDescription> = {}) => ({
	file: 'nodes/Planted/Planted.node.ts',
	description: { name: 'planted', defaults, outputs: ['main'], ...extra },
});

const CODE = 'n8n-nodes-base.code';

export const RULES: Rule[] = [
	rule({
		id: 'removed-node-type',
		change:
			'node types removed (Function, Function Item, Item Lists, AI Transform, LangChain Code, Cron, …)',
		where: 'exampleNode',
		detect: ({ node: n }) => (REMOVED_NODE_TYPES.has(n.type) ? `${n.type} is gone` : undefined),
		planted: [node('n8n-nodes-base.function', 1), node('n8n-nodes-base.itemLists', 3)],
		passes: [node(CODE, 2)],
	}),
	rule({
		id: 'get-paired-item',
		change: '$getPairedItem removed (set pairedItem, or use $("Node").item)',
		where: 'exampleNode',
		detect: ({ node: n }) => firstString(n, (s) => s.includes('$getPairedItem')),
		planted: [
			node('n8n-nodes-base.set', 3.4, {
				parameters: {
					assignments: { assignments: [{ value: '={{ $getPairedItem("A", null, 0) }}' }] },
				},
			}),
			node(CODE, 2, { parameters: { jsCode: 'return [$getPairedItem("A", null, 0)];' } }),
		],
		passes: [
			node('n8n-nodes-base.set', 3.4, { parameters: { value: '={{ $("A").item.json.id }}' } }),
		],
	}),
	rule({
		id: 'evaluate-expression-in-code',
		change: '$evaluateExpression() removed from the Code node (it stays in {{ }} fields)',
		where: 'exampleNode',
		detect: ({ node: n }) =>
			n.type === CODE ? firstString(n, (s) => s.includes('$evaluateExpression')) : undefined,
		planted: [
			node(CODE, 2, {
				parameters: { jsCode: "return [{ json: { a: $evaluateExpression('{{ 1 }}') } }];" },
			}),
		],
		passes: [
			node('n8n-nodes-base.set', 3.4, { parameters: { value: "={{ $evaluateExpression('1') }}" } }),
		],
	}),
	rule({
		id: 'code-node-waits',
		// 3.0's task runner stops a Code node after 60 s (was 300 s). Time cannot be read from the
		// JSON; what can is whether a Code node waits or calls out at all, which the docs say the
		// examples' Code nodes never do.
		change: 'task runner timeout 60 s (was 300 s): a Code node must finish within a minute',
		where: 'exampleNode',
		detect: ({ node: n }) =>
			n.type === CODE
				? firstString(n, (s) =>
						/\b(setTimeout|setInterval|fetch|httpRequest|require|await)\b/.test(s),
					)
				: undefined,
		planted: [
			node(CODE, 2, { parameters: { jsCode: 'await new Promise((r) => setTimeout(r, 90000));' } }),
		],
		passes: [
			node(CODE, 2, {
				parameters: { jsCode: 'return $input.all().filter((i) => i.json.required);' },
			}),
		],
	}),
	rule({
		id: 'ai-agent-v1',
		change: 'AI Agent version 1 (1 to 1.9) removed with its agent modes',
		where: 'exampleNode',
		detect: ({ node: n }) =>
			n.type === '@n8n/n8n-nodes-langchain.agent' && n.typeVersion < 2
				? `AI Agent ${n.typeVersion}`
				: undefined,
		planted: [node('@n8n/n8n-nodes-langchain.agent', 1.9)],
		passes: [
			node('@n8n/n8n-nodes-langchain.agent', 2),
			node('@n8n/n8n-nodes-langchain.agent', 3.1),
		],
	}),
	rule({
		id: 'gmail-trigger-below-1.4',
		change: 'Gmail Trigger versions below 1.4 removed (run as 1.4)',
		where: 'exampleNode',
		detect: ({ node: n }) =>
			n.type === 'n8n-nodes-base.gmailTrigger' && n.typeVersion < 1.4
				? `Gmail Trigger ${n.typeVersion}`
				: undefined,
		planted: [node('n8n-nodes-base.gmailTrigger', 1.2)],
		passes: [node('n8n-nodes-base.gmailTrigger', 1.4)],
	}),
	rule({
		id: 'execute-workflow-each',
		change:
			'Execute Workflow\'s "Run once for each item" mode removed (Loop Over Items before it instead)',
		where: 'exampleNode',
		detect: ({ node: n }) =>
			n.type === 'n8n-nodes-base.executeWorkflow' && n.parameters.mode === 'each'
				? 'mode "each"'
				: undefined,
		planted: [node('n8n-nodes-base.executeWorkflow', 1.2, { parameters: { mode: 'each' } })],
		passes: [node('n8n-nodes-base.executeWorkflow', 1.2, { parameters: { mode: 'once' } })],
	}),
	rule({
		id: 'execute-workflow-file-or-url',
		change: 'Execute Workflow\'s "Local File" and "URL" sources removed',
		where: 'exampleNode',
		detect: ({ node: n }) =>
			n.type === 'n8n-nodes-base.executeWorkflow' &&
			['localFile', 'url'].includes(n.parameters.source as string)
				? `source "${n.parameters.source as string}"`
				: undefined,
		planted: [node('n8n-nodes-base.executeWorkflow', 1.2, { parameters: { source: 'url' } })],
		passes: [node('n8n-nodes-base.executeWorkflow', 1.2, { parameters: { source: 'database' } })],
	}),
	rule({
		id: 'always-output-data-several-outputs',
		change:
			'"Always Output Data" on a node with several outputs adds an empty item only when every output is empty',
		where: 'exampleNode',
		detect: ({ node: n }) =>
			n.alwaysOutputData === true && hasSeveralOutputs(n)
				? `alwaysOutputData on ${n.type} ${n.typeVersion}${n.onError === 'continueErrorOutput' ? ' with an error output' : ''}`
				: undefined,
		planted: [
			node('n8n-nodes-base.if', 2.2, { alwaysOutputData: true }),
			node('n8n-nodes-base.splitInBatches', 3, { alwaysOutputData: true }),
			node('n8n-nodes-base.dataTable', 1.1, {
				alwaysOutputData: true,
				onError: 'continueErrorOutput',
			}),
		],
		passes: [
			node('n8n-nodes-base.dataTable', 1.1, { alwaysOutputData: true }),
			node('n8n-nodes-base.if', 2.2),
		],
	}),
	rule({
		id: 'caller-policy-any',
		change: 'the "Any workflow" caller policy removed',
		where: 'exampleWorkflow',
		detect: ({ workflow }) =>
			workflow.settings?.callerPolicy === 'any' ? 'settings.callerPolicy "any"' : undefined,
		planted: [
			{
				file: 'planted.json',
				workflow: { name: 'Planted', nodes: [], settings: { callerPolicy: 'any' } },
			},
		],
		passes: [
			{
				file: 'planted.json',
				workflow: {
					name: 'Planted',
					nodes: [],
					settings: { callerPolicy: 'workflowsFromSameOwner' },
				},
			},
		],
	}),
	rule({
		id: 'nodes-api-version',
		// n8n 2.x accepts packages up to level 1 and refuses a higher one; 3.x accepts up to 3 and
		// loads a package that declares none at level 1 (n8n PR 38567). The package supports 1.85 to
		// 3.x, so it declares 1.
		change:
			'community packages are read by n8n.n8nNodesApiVersion (3.x accepts 1 to 3; 2.x only 1)',
		where: 'manifest',
		detect: ({ manifest: m }) => {
			const level = m.n8n?.n8nNodesApiVersion;
			if (level === undefined) return 'n8n.n8nNodesApiVersion missing';
			return level === 1 ? undefined : `n8n.n8nNodesApiVersion ${JSON.stringify(level)}, not 1`;
		},
		planted: [manifest({ nodes: [] }), manifest({ n8nNodesApiVersion: 3, nodes: [] })],
		passes: [manifest({ n8nNodesApiVersion: 1, nodes: [] })],
	}),
	rule({
		id: 'defaults-color',
		// n8n PR 34180 removes the field and its read path; iconColor colours Font Awesome icons only
		// (file icons such as ours are never tinted).
		change: 'defaults.color removed: iconColor (a named colour, Font Awesome icons only)',
		where: 'nodeDescription',
		detect: ({ description: d }) =>
			d.defaults.color === undefined
				? undefined
				: `defaults.color ${JSON.stringify(d.defaults.color)}${d.iconColor ? '' : ' without iconColor'}`,
		planted: [description({ name: 'Planted', color: '#ff6d5a' }, { icon: 'fa:chart-bar' })],
		passes: [description({ name: 'Planted' }, { icon: 'fa:chart-bar', iconColor: 'orange' })],
	}),
	rule({
		id: 'get-paired-item-in-package',
		change: '$getPairedItem removed (set pairedItem, or use $("Node").item)',
		where: 'packageSource',
		detect: ({ text }) => (text.includes('$getPairedItem') ? 'uses $getPairedItem' : undefined),
		planted: [
			{ file: 'nodes/Planted/Planted.node.ts', text: 'default: \'={{ $getPairedItem("A") }}\',' },
		],
		passes: [{ file: 'nodes/Planted/Planted.node.ts', text: "default: '={{ $json.id }}'," }],
	}),
	rule({
		id: 'in-memory-binary-data',
		change:
			'N8N_DEFAULT_BINARY_DATA_MODE=default (binary data in memory) removed: filesystem, s3, azure or database',
		where: 'userDoc',
		detect: ({ text }) => /N8N_DEFAULT_BINARY_DATA_MODE\s*[=:]\s*['"`]?default\b/.exec(text)?.[0],
		planted: [doc('Start n8n with `N8N_DEFAULT_BINARY_DATA_MODE=default`.')],
		passes: [doc('`N8N_DEFAULT_BINARY_DATA_MODE=database` in queue mode.')],
	}),
	rule({
		id: 'binary-data-folder',
		change: 'the binary data folder is renamed to ~/.n8n/storage (N8N_STORAGE_PATH)',
		where: 'userDoc',
		detect: ({ text }) => /\.n8n\/binaryData\b/.exec(text)?.[0],
		planted: [doc('Mount a volume at `/home/node/.n8n/binaryData`.')],
		passes: [doc('Mount a volume at `/home/node/.n8n/storage`.')],
	}),
	rule({
		id: 'removed-setting',
		change:
			'settings removed: OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS, N8N_MIGRATE_FS_STORAGE_PATH, N8N_DB_PING_TIMEOUT, N8N_PRE_EXECUTE_ERROR_CREATES_EXECUTION',
		where: 'userDoc',
		detect: ({ text }) =>
			/\b(OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS|N8N_MIGRATE_FS_STORAGE_PATH|N8N_DB_PING_TIMEOUT|N8N_PRE_EXECUTE_ERROR_CREATES_EXECUTION)\b/.exec(
				text,
			)?.[0],
		planted: [
			doc('Set `OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS=true` to run manual executions on workers.'),
		],
		passes: [doc('Set `DB_PING_TIMEOUT_MS`; manual executions run on workers in queue mode.')],
	}),
];

/** Every row over every subject of its kind. */
export function check(subjects: Partial<SubjectLists>, rules: Rule[] = RULES): Finding[] {
	return rules.flatMap((r) =>
		((subjects[r.where] ?? []) as Array<Subjects[Where]>).flatMap((subject) => {
			const detail = r.detect(subject);
			if (detail === undefined) return [];
			const named = 'node' in subject ? `${subject.file} › ${subject.node.name}` : subject.file;
			return [{ rule: r.id, at: named, detail, change: r.change }];
		}),
	);
}

function filesBelow(folder: string, ending: string): string[] {
	return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(folder, entry.name);
		if (entry.isDirectory()) return filesBelow(full, ending);
		return entry.name.endsWith(ending) ? [full] : [];
	});
}
const relative = (file: string) => path.relative(ROOT, file).split(path.sep).join('/');

/**
 * The package as it ships and the examples as users import them: package.json's `n8n` section
 * (the tarball carries it unchanged), the description of every node it lists (from the node's
 * source, which `npm run build` compiles to the listed file), the source of the nodes and the
 * credential, every example workflow, and the README and docs/ pages.
 */
export function readRepository(): SubjectLists {
	const manifestFile = path.join(ROOT, 'package.json');
	const pkg = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Manifest;
	const descriptions = (pkg.n8n?.nodes ?? []).map((built) => {
		const source = built.replace(/^dist\//, '').replace(/\.js$/, '.ts');
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const loaded = require(path.join(ROOT, source)) as Record<
			string,
			new () => { description: NodeDescription }
		>;
		const [NodeClass] = Object.values(loaded);
		return { file: source, description: new NodeClass().description };
	});
	setOwnNodeOutputs(descriptions.map((d) => d.description));
	const workflows = fs
		.readdirSync(path.join(ROOT, 'examples'))
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((f) => ({
			file: `examples/${f}`,
			workflow: JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', f), 'utf8')) as Workflow,
		}));
	const texts = (files: string[]) =>
		files.map((file) => ({ file: relative(file), text: fs.readFileSync(file, 'utf8') }));
	return {
		manifest: [{ file: 'package.json', manifest: pkg }],
		nodeDescription: descriptions,
		packageSource: texts([
			...filesBelow(path.join(ROOT, 'nodes'), '.ts'),
			...filesBelow(path.join(ROOT, 'credentials'), '.ts'),
		]),
		exampleWorkflow: workflows,
		exampleNode: workflows.flatMap(({ file, workflow }) =>
			workflow.nodes.map((n) => ({ file, node: n })),
		),
		userDoc: texts([path.join(ROOT, 'README.md'), ...filesBelow(path.join(ROOT, 'docs'), '.md')]),
	};
}
