#!/usr/bin/env node
// The examples' logic lives in examples/src (linted, unit-tested); this writes it into the example
// workflows users import (examples/*.json), so the JSON stays one file that imports as it is:
//   - every Code node's code: the node's source (examples/src/nodes/<name>.js) after the library
//     files its first line names (`// @uses text money` → examples/src/lib/text.js, money.js);
//   - the parameters of the nodes that send what the Code nodes compose (e-mail, Slack): they
//     only read composed fields, never a value from outside.
//   node scripts/examples/build.cjs          write the examples (prints what changed)
//   node scripts/examples/build.cjs --check  exit 1 when an example differs from its sources
// test/examples/generated.test.cts runs the check in npm test (CommonJS, so jest requires it).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const EXAMPLES = path.join(__dirname, '..', '..', 'examples');
const SOURCES = path.join(EXAMPLES, 'src');

const DIRECTORY = 'weekly-client-report-email-directory.json';
const EXACTLY_ONCE = 'weekly-client-report-email-exactly-once.json';
const REVIEW = 'weekly-report-review.json';
const SIMPLE = 'weekly-client-report-email.json';
const SLACK = 'slack-report-risk-level.json';
const TOKEN = 'token-expired-alert.json';
const WATCH = 'client-watch.json';

const EACH = 'runOnceForEachItem';
const ALL = 'runOnceForAllItems';
/** Every Code node of every example, and the source it is written from. */
const CODE_NODES = [
	{
		examples: [DIRECTORY, EXACTLY_ONCE],
		node: 'Who gets what',
		source: 'who-gets-what.js',
		mode: EACH,
	},
	{
		examples: [DIRECTORY, EXACTLY_ONCE],
		node: 'Compare with last week',
		source: 'compare-with-last-week.js',
		mode: EACH,
	},
	{ examples: [DIRECTORY], node: 'Why review it', source: 'why-review-it.js', mode: EACH },
	{ examples: [DIRECTORY], node: 'Compose the team digest', source: 'team-digest.js', mode: ALL },
	// the exactly-once example records each e-mail in "Record the e-mail" (one item per e-mail sent)
	{
		examples: [EXACTLY_ONCE],
		node: 'Compose the team digest',
		source: 'team-digest.js',
		mode: ALL,
		constants: { SENT: 'Record the e-mail' },
	},
	{
		examples: [DIRECTORY],
		node: 'Add the reviews to the digest',
		source: 'add-reviews.js',
		mode: ALL,
	},
	{ examples: [EXACTLY_ONCE], node: "Client's own week", source: 'clients-own-week.js', mode: ALL },
	{ examples: [EXACTLY_ONCE], node: "The day's digest", source: 'days-digest.js', mode: ALL },
	{ examples: [REVIEW], node: 'The approved report', source: 'approved-report.js', mode: ALL },
	{ examples: [SIMPLE], node: 'Compose the e-mail', source: 'simple-email.js', mode: EACH },
	{ examples: [SLACK], node: 'Compose the message', source: 'slack-risk.js', mode: EACH },
	{ examples: [TOKEN], node: 'Compose the alert', source: 'token-alert.js', mode: EACH },
	{ examples: [WATCH], node: 'Who to watch', source: 'watch-who.js', mode: ALL },
	{
		examples: [WATCH],
		node: 'Campaigns to diagnose',
		source: 'watch-pick-campaigns.js',
		mode: ALL,
	},
	{ examples: [WATCH], node: 'Findings', source: 'watch-findings.js', mode: ALL },
	{ examples: [WATCH], node: 'Alerts per client', source: 'watch-alerts.js', mode: ALL },
];

/** The client's weekly e-mail, as "Compare with last week" composes it (`email`). */
const CLIENT_EMAIL = {
	fromEmail: 'Your Agency <reports@your-agency.example>',
	toEmail: '={{ $json.email.to }}',
	subject: '={{ $json.email.subject }}',
	emailFormat: 'both',
	text: '={{ $json.email.text }}',
	html: '={{ $json.email.html }}',
	options: { attachments: 'data', appendAttribution: false, ccEmail: '={{ $json.email.cc }}' },
};
/** Parameters of the nodes that send what a Code node composed (the rest of each node stays). */
const SENDING_NODES = [
	{ examples: [DIRECTORY, REVIEW], node: 'E-mail the report', parameters: CLIENT_EMAIL },
	{ examples: [EXACTLY_ONCE], node: 'E-mail the PDF', parameters: CLIENT_EMAIL },
	{
		examples: [SIMPLE],
		node: 'E-mail the PDF',
		parameters: {
			...CLIENT_EMAIL,
			toEmail: 'client@example.com',
			options: { attachments: 'data', appendAttribution: false },
		},
	},
	{ examples: [SLACK], node: 'Post to Slack', parameters: { text: '={{ $json.slack_text }}' } },
	{
		examples: [WATCH],
		node: 'E-mail the account manager',
		// the account manager's alert, composed as the client's e-mail is (no attachment, no Cc)
		parameters: { ...CLIENT_EMAIL, options: { appendAttribution: false } },
	},
	{
		examples: [WATCH],
		node: 'Post the alert to Slack',
		parameters: { text: '={{ $json.slack_text }}' },
	},
	{
		examples: [TOKEN],
		node: 'E-mail the team',
		parameters: { subject: '={{ $json.email.subject }}', text: '={{ $json.email.text }}' },
	},
	// the review request ("Why review it" composes it for n8n's Send and Wait, which writes the
	// message into its HTML e-mail or Slack's mrkdwn as it is, after decoding entities once)
	{
		examples: [REVIEW],
		node: 'Ask the account manager',
		parameters: {
			subject: '={{ $json.review.request.subject }}',
			message: '={{ $json.review.request.email }}',
		},
	},
	{
		examples: [REVIEW],
		node: 'Ask on Slack instead',
		parameters: { message: '={{ $json.review.request.slack }}' },
	},
];

/** Single parameters (by dotted path) of nodes that keep what a Code node composed. */
const KEPT_FIELDS = [
	// a run's digest is kept as data (headline, sections, lists), never as markup: "The day's
	// digest" reads it back at its door and writes it out as any digest is written
	{
		examples: [EXACTLY_ONCE],
		node: "Keep for the day's digest",
		path: 'columns.value.digest',
		value:
			'={{ JSON.stringify({ subject: $json.subject, headline: $json.headline, sections: $json.sections, all_well: $json.all_well, sent: $json.sent, skipped: $json.skipped, failed: $json.failed, at_risk: $json.at_risk, to_reconnect: $json.to_reconnect }) }}',
	},
];

/** The code of one Code node: its libraries, then its own source (with its example's constants). */
function nodeCode(source, constants = {}) {
	let own = fs.readFileSync(path.join(SOURCES, 'nodes', source), 'utf8');
	for (const [name, value] of Object.entries(constants)) {
		const line = new RegExp(`^(\\t*)const ${name} = [^;]*; // @constant`, 'm');
		if (!line.test(own)) throw new Error(`${source}: no line "const ${name} = …; // @constant"`);
		own = own.replace(line, `$1const ${name} = ${JSON.stringify(value)}; // @constant`);
	}
	const uses = /^\/\/ @uses ((?:\w+ ?)+)\n/.exec(own);
	const libs = (uses ? uses[1].trim().split(' ') : []).map((lib) =>
		fs.readFileSync(path.join(SOURCES, 'lib', `${lib}.js`), 'utf8').trimEnd(),
	);
	// The source wraps the Code node's body in `function code() { … }` (a top-level return does not
	// parse as a module, and n8n's lint reads every .js file); the node gets the body, one tab less.
	const rest = uses ? own.slice(uses[0].length) : own;
	const wrapped = /^function code\(\) \{\n([\s\S]*)\n\}\n*$/m.exec(rest);
	if (!wrapped)
		throw new Error(`${source}: the body must be inside "function code() {" … "}" at the end`);
	const body = rest.slice(0, wrapped.index) + wrapped[1].replace(/^\t/gm, '');
	// The libraries' names and the body's own share one scope in the Code node: a clash would
	// stop the node with "Identifier … has already been declared" only when it runs.
	const declared = libs.flatMap((lib) =>
		[...lib.matchAll(/^(?:function|const|let) (\w+)/gm)].map((m) => m[1]),
	);
	const twice = declared.filter((name, i) => declared.indexOf(name) !== i);
	if (twice.length) throw new Error(`${source}: its libraries both declare ${twice.join(', ')}`);
	const offered = new Set(
		libs.flatMap((lib) => [...lib.matchAll(/^(?:function|const|let) (\w+)/gm)].map((m) => m[1])),
	);
	const clashes = [...wrapped[1].matchAll(/^\t(?:function|const|let) (\w+)/gm)]
		.map((m) => m[1])
		.filter((n) => offered.has(n));
	if (clashes.length)
		throw new Error(`${source}: ${clashes.join(', ')} also declared by its libraries; rename it`);
	const from = [
		`examples/src/nodes/${source}`,
		...(uses
			? uses[1]
					.trim()
					.split(' ')
					.map((l) => `lib/${l}.js`)
			: []),
	];
	return [
		`// Written from ${from.join(', ')} by \`npm run examples\`: change those, not this.`,
		...libs.map((lib) => `${lib}\n`),
		body.trimEnd(),
		'',
	].join('\n');
}

/** Each example as its sources make it: file name -> text. */
function builtExamples() {
	const out = new Map();
	const files = new Set(
		[...CODE_NODES, ...SENDING_NODES, ...KEPT_FIELDS].flatMap((n) => n.examples),
	);
	for (const file of files) {
		const text = fs.readFileSync(path.join(EXAMPLES, file), 'utf8');
		const workflow = JSON.parse(text);
		const find = (name) => {
			const node = workflow.nodes.find((n) => n.name === name);
			if (!node) throw new Error(`${file}: no node "${name}" (add it to the workflow first)`);
			return node;
		};
		for (const spec of CODE_NODES.filter((n) => n.examples.includes(file))) {
			const node = find(spec.node);
			node.type = 'n8n-nodes-base.code';
			node.typeVersion = 2;
			node.parameters = {
				...(spec.mode === EACH ? { mode: EACH } : {}),
				jsCode: nodeCode(spec.source, spec.constants),
			};
		}
		for (const spec of SENDING_NODES.filter((n) => n.examples.includes(file))) {
			const node = find(spec.node);
			node.parameters = { ...node.parameters, ...structuredClone(spec.parameters) };
		}
		for (const spec of KEPT_FIELDS.filter((n) => n.examples.includes(file))) {
			const keys = spec.path.split('.');
			const parent = keys.slice(0, -1).reduce((o, k) => o?.[k], find(spec.node).parameters);
			if (!parent) throw new Error(`${file}: "${spec.node}" has no ${spec.path}`);
			parent[keys[keys.length - 1]] = spec.value;
		}
		out.set(file, { before: text, after: `${JSON.stringify(workflow, null, '\t')}\n` });
	}
	return out;
}

/** The examples whose JSON differs from what their sources make. */
function examplesDiffering() {
	return [...builtExamples()].filter(([, t]) => t.before !== t.after).map(([file]) => file);
}

module.exports = {
	CODE_NODES,
	SENDING_NODES,
	KEPT_FIELDS,
	nodeCode,
	builtExamples,
	examplesDiffering,
};

if (require.main === module) {
	if (process.argv.includes('--check')) {
		const differing = examplesDiffering();
		process.stdout.write(
			differing.length
				? `differ from examples/src: ${differing.join(', ')} (run npm run examples)\n`
				: 'examples match examples/src\n',
		);
		process.exit(differing.length ? 1 : 0);
	}
	for (const [file, t] of builtExamples()) {
		if (t.before === t.after) continue;
		fs.writeFileSync(path.join(EXAMPLES, file), t.after);
		process.stdout.write(`wrote examples/${file}\n`);
	}
}
