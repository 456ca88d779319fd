// Proof of the tool variants (issue 21, docs/agent-tools.md) in a real n8n: n8n's AI Agent 3.1 with
// its OpenAI Chat Model pointed at the scripted model (scripts/agent/scripted-model.mjs), and an
// activated MCP Server Trigger called by the official MCP TypeScript SDK client (Streamable HTTP),
// both with one tool node per
// operation, each added as a user adds it (only Resource and Operation set). The assertions are on
// what the model was offered (tool names, schemas, descriptions) and what it received (tool
// messages), and on the sandbox's request log. `npm run test:agent`.
//
// One n8n, sandbox and model serve every test. A failing assertion prints the conversation (what
// was offered, called and received); every request the model got is saved to
// .e2e-out/agent/model-requests.json, and the measured figures to .e2e-out/agent/figures.{json,md}
// (E2E_OUT=<dir> to put them elsewhere). E2E_TARBALL=<.tgz> skips the build and pack;
// AGENT_TEST_VERBOSE=1 streams n8n's log and each model turn to stderr.
//
// Until the tool variants implement docs/agent-tools.md, most assertions fail; the run itself goes
// end to end (the workflows are published through the CLI, which skips the editor's check, see
// the last suite) and still writes the figures.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { CREDENTIALS, startAgentHarness } from '../../scripts/agent/harness.mjs';
import { parseToolContent } from '../../scripts/agent/scripted-model.mjs';
import {
	agentWorkflow,
	mcpWorkflow,
	TOOL_OPERATIONS,
	toolNode,
} from '../../scripts/agent/workflows.mjs';
import { installedLine } from '../../scripts/e2e/install-n8n.mjs';
import { packPackage, REPO_ROOT } from '../../scripts/e2e/pack.mjs';
import {
	DEFAULT_LIMIT,
	DESCRIPTION_CHARS,
	ERROR_FORMAT,
	GENERATE_RESULT_KEYS,
	LIST_RESULT_KEYS,
	LIST_TOOLS,
	MAX_ERROR_CHARS,
	MAX_RESULT_CHARS,
	REPORT_RESULT_KEYS,
	SCHEMA_KEYS,
	TOOL_NAMES,
} from './contract.mjs';

const TIME_SCALE = 0.02;
const OUT_DIR = path.resolve(process.env.E2E_OUT ?? path.join(REPO_ROOT, '.e2e-out'), 'agent');
/** Sandbox size: enough records that a listing has more than one page and Return All is large. */
const ACCOUNTS = 60;
const CAMPAIGNS_PER_NEW_ACCOUNT = 3;
const EXTRA_REPORTS = 60;

const PATHS = {
	live: 'agent-live',
	revoked: 'agent-revoked',
	returnAll: 'agent-return-all',
	mcp: 'ad-performance',
	mcpRevoked: 'ad-performance-revoked',
};
const live = (op) => toolNode(op, CREDENTIALS.adLive);

/** An importable example (examples/), its Ad Performance nodes bound to the harness's live key. */
function example(file, name) {
	const wf = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'examples', file), 'utf8'));
	for (const node of wf.nodes)
		if (node.credentials?.adPerformanceApi)
			node.credentials = { adPerformanceApi: CREDENTIALS.adLive };
	return { ...wf, id: undefined, name };
}
const MCP_TOKEN = `agent-test-${crypto.randomBytes(16).toString('hex')}`;
const MCP_BEARER = { id: 'mcp-bearer', name: 'Ad Performance MCP token' };
const mcpServerExample = () =>
	example('ad-performance-mcp-server.json', 'MCP: every tool (the example)');
/**
 * The chat example as a user runs it, with two changes a test needs: the scripted model instead
 * of OpenAI's, and the chat made public, so that its production URL answers a test's POST (a
 * non-public Chat Trigger answers only the editor's chat).
 */
function chatExample() {
	const wf = example('chat-with-your-ad-accounts.json', 'Chat with your ad accounts (the example)');
	for (const node of wf.nodes) {
		if (node.type === '@n8n/n8n-nodes-langchain.chatTrigger')
			node.parameters = { ...node.parameters, public: true };
		if (node.type === '@n8n/n8n-nodes-langchain.lmChatOpenAi') {
			node.credentials = { openAiApi: CREDENTIALS.openAi };
			node.parameters = {
				...node.parameters,
				model: { __rl: true, mode: 'id', value: 'scripted-model' },
			};
		}
	}
	return wf;
}
const CHAT = chatExample();

/**
 * An MCP client session through the official SDK (Streamable HTTP): { client, transport, close }.
 * `headers` go with every request (the example's bearer token).
 */
async function connectMcp(url, headers = {}) {
	const client = new Client({ name: 'ad-performance-agent-test', version: '1.0.0' });
	const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
	await client.connect(transport);
	return {
		client,
		transport,
		async close() {
			await transport.terminateSession().catch(() => {});
			await client.close();
		},
	};
}
const withToken = { authorization: `Bearer ${MCP_TOKEN}` };
const listOps = TOOL_OPERATIONS.filter((op) => op.operation === 'getAll');

const WORKFLOWS = [
	agentWorkflow({
		name: 'Agent: every tool',
		path: PATHS.live,
		openAiCredential: CREDENTIALS.openAi,
		tools: TOOL_OPERATIONS.map(live),
	}),
	agentWorkflow({
		name: 'Agent: revoked key',
		path: PATHS.revoked,
		openAiCredential: CREDENTIALS.openAi,
		tools: TOOL_OPERATIONS.map((op) => toolNode(op, CREDENTIALS.adRevoked)),
	}),
	agentWorkflow({
		name: 'Agent: Return All saved on the list tools',
		path: PATHS.returnAll,
		openAiCredential: CREDENTIALS.openAi,
		tools: listOps.map((op) => toolNode(op, CREDENTIALS.adLive, { extra: { returnAll: true } })),
	}),
	// examples/ad-performance-mcp-server.json: every tool, behind bearer authentication
	mcpServerExample(),
	// examples/chat-with-your-ad-accounts.json
	CHAT,
	mcpWorkflow({
		name: 'MCP: revoked key',
		path: PATHS.mcpRevoked,
		tools: TOOL_OPERATIONS.map((op) => toolNode(op, CREDENTIALS.adRevoked)),
	}),
];

/** Copies of the live workflows (own paths), imported unpublished for the editor's Publish check. */
const PUBLISH_CHECK = [
	agentWorkflow({
		name: 'Agent: publish check',
		path: 'agent-publish-check',
		openAiCredential: CREDENTIALS.openAi,
		tools: TOOL_OPERATIONS.map(live),
	}),
	mcpWorkflow({
		name: 'MCP: publish check',
		path: 'ad-performance-publish-check',
		tools: TOOL_OPERATIONS.map(live),
	}),
];

/** What the tests measured, for the README table (written in after()). */
const figures = {
	n8n: undefined,
	publish: {},
	offered: {},
	defaultList: {},
	returnAll: {},
	nextPage: {},
	revoked: {},
	flow: {},
	reuse: {},
	mcp: { tools: {}, calls: {} },
};

let h;
let packDir;
before(async () => {
	installedLine('latest');
	if (!process.env.E2E_TARBALL) packDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-pack-'));
	const tarball = process.env.E2E_TARBALL ?? (await packPackage({ outDir: packDir })).tarball;
	h = await startAgentHarness({
		tarball,
		workflows: WORKFLOWS,
		unpublished: PUBLISH_CHECK,
		credentials: [{ ...MCP_BEARER, type: 'httpBearerAuth', data: { token: MCP_TOKEN } }],
		timeScale: TIME_SCALE,
		log: process.env.AGENT_TEST_VERBOSE ? (line) => process.stderr.write(`${line}\n`) : undefined,
		async prepareSandbox(sandbox) {
			const state = async () => (await sandbox.state()).data;
			const { accounts } = await state();
			// the state lists workspace A, the one the live key reaches
			for (let i = accounts.length; i < ACCOUNTS; i++)
				await sandbox.addAccount({
					name: `Client ${String(i + 1).padStart(2, '0')}`,
					campaigns: CAMPAIGNS_PER_NEW_ACCOUNT,
				});
			await sandbox.control('POST', '/__fake/reports', { count: EXTRA_REPORTS });
		},
	});
	figures.n8n = h.n8n.version;
});

after(async () => {
	if (h) {
		fs.mkdirSync(OUT_DIR, { recursive: true });
		h.saveModelLog(OUT_DIR);
		fs.writeFileSync(path.join(OUT_DIR, 'figures.json'), JSON.stringify(figures, null, 2));
		fs.writeFileSync(path.join(OUT_DIR, 'figures.md'), figuresMarkdown(figures));
	}
	await h?.stop();
	if (packDir) fs.rmSync(packDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------- helpers

let conversations = 0;
/**
 * Runs one agent conversation: registers `steps` under a fresh key, sends the question to the agent
 * workflow at `webhookPath`, and returns what the model was offered and received.
 */
async function converse(webhookPath, steps, question = 'Please help with our ad accounts.') {
	const key = `#c${++conversations}`;
	h.model.plan(key, steps);
	const reply = await h.ask(webhookPath, `${key} ${question}`);
	return {
		key,
		reply,
		offered: h.model.offered(key),
		received: h.model.received(key),
		answer: h.model.answer(key),
		transcript: () => h.model.transcript(key),
	};
}

/** Runs `fn`; a failing assertion gets `context()` (the conversation) appended to its message. */
async function explained(context, fn) {
	try {
		return await fn();
	} catch (error) {
		if (error instanceof assert.AssertionError || error?.code === 'ERR_ASSERTION') {
			error.message = `${error.message}\n\n--- what the model saw\n${typeof context === 'function' ? context() : context}`;
		}
		throw error;
	}
}

/** The agent run ended normally and the script could follow its plan to the end. */
function runSucceeded(c) {
	return explained(c.transcript, () => {
		assert.equal(
			c.reply.status,
			200,
			`the agent workflow failed (HTTP ${c.reply.status}): ${c.reply.text.slice(0, 1000)}\n${h.serverLogTail()}`,
		);
		const errors = h.model.errors.filter((e) => e.key === c.key);
		assert.equal(
			errors.length,
			0,
			`the script could not go on: ${errors.map((e) => `step ${e.step}: ${e.message}`).join('; ')}`,
		);
	});
}

/** One offered tool as JSON, for a failure message. */
function toolJson(tools, name) {
	const tool = tools.find((x) => x.name === name);
	return tool
		? JSON.stringify(tool, null, 1)
		: `${name} not offered; offered: ${tools.map((x) => x.name).join(', ')}`;
}

/** Records in a tool result: the contract's `results`, or the items of an uncapped array (before). */
function recordsOf(json) {
	if (Array.isArray(json)) return json.length;
	if (Array.isArray(json?.results)) return json.results.length;
	return json === undefined ? 0 : 1;
}

function accountsIn(json) {
	if (Array.isArray(json)) return json;
	return json?.results ?? [];
}

function checkListResult(result, { limit = DEFAULT_LIMIT } = {}) {
	assert.ok(
		result.chars <= MAX_RESULT_CHARS,
		`${result.name}: ${result.chars} characters sent to the model (at most ${MAX_RESULT_CHARS})`,
	);
	const json = result.json;
	assert.ok(
		json && !Array.isArray(json) && typeof json === 'object',
		`${result.name}: one item { ${LIST_RESULT_KEYS.join(', ')} } expected, got ${Array.isArray(json) ? `${json.length} items` : typeof json}`,
	);
	for (const k of LIST_RESULT_KEYS)
		assert.ok(k in json, `${result.name}: no \`${k}\` in the result`);
	assert.ok(Array.isArray(json.results), `${result.name}: results is not an array`);
	assert.ok(
		json.results.length <= limit,
		`${result.name}: ${json.results.length} records (limit ${limit})`,
	);
	assert.equal(json.returned, json.results.length, `${result.name}: returned ≠ results.length`);
	assert.equal(typeof json.hasMore, 'boolean', `${result.name}: hasMore is not a boolean`);
	assert.equal(typeof json.hint, 'string', `${result.name}: hint is not a string`);
	if (json.hasMore)
		assert.match(
			json.hint,
			/\bpage\b/,
			`${result.name}: with hasMore the hint says how to get the next page`,
		);
}

/** POST /v1/reports in the sandbox log after sequence number `sinceSeq`. */
async function reportPosts(sinceSeq, title) {
	return (await h.sandboxLog()).filter(
		(e) =>
			e.seq > sinceSeq &&
			e.method === 'POST' &&
			e.path === '/v1/reports' &&
			(title === undefined || e.body?.title === title),
	);
}
async function lastSeq() {
	return (await h.sandboxLog()).at(-1)?.seq ?? 0;
}

function ymd(date) {
	return date.toISOString().slice(0, 10);
}
const DAY = 86_400_000;

// ---------------------------------------------------------------- AI Agent

describe(`AI Agent 3.1 + OpenAI Chat Model (scripted) with one tool node per operation`, () => {
	test('the model is offered every tool with a zero-setup schema (the documented keys) and a description of 150–700 characters', async (t) => {
		const c = await converse(PATHS.live, [{ say: 'Nothing to do.' }]);
		await runSucceeded(c);
		for (const tool of c.offered) {
			const properties = Object.keys(tool.parameters?.properties ?? {});
			figures.offered[tool.name] = {
				properties: properties.length,
				keys: properties,
				required: tool.parameters?.required ?? [],
				descriptionChars: tool.description.length,
				description: tool.description,
			};
		}
		t.diagnostic(
			`offered: ${Object.entries(figures.offered)
				.map(
					([name, f]) =>
						`${name} ${f.properties} properties, description ${f.descriptionChars} chars`,
				)
				.join('; ')}`,
		);
		await explained(c.transcript, () =>
			assert.deepEqual(
				c.offered.map((tool) => tool.name).sort(),
				[...TOOL_NAMES].sort(),
				'one tool per operation, named after its node',
			),
		);
		for (const name of TOOL_NAMES) {
			const tool = c.offered.find((x) => x.name === name);
			await t.test(`${name}: schema keys ${SCHEMA_KEYS[name].join(', ')}`, () =>
				explained(
					() => toolJson(c.offered, name),
					() => {
						assert.ok(tool, `${name} not offered`);
						assert.deepEqual(
							Object.keys(tool.parameters?.properties ?? {}).sort(),
							[...SCHEMA_KEYS[name]].sort(),
						);
						for (const [key, schema] of Object.entries(tool.parameters.properties))
							assert.ok(
								(schema.description ?? '').trim().length > 0,
								`${name}.${key} has no description for the model`,
							);
					},
				),
			);
			await t.test(
				`${name}: description of ${DESCRIPTION_CHARS.min}–${DESCRIPTION_CHARS.max} characters`,
				() =>
					explained(
						() => toolJson(c.offered, name),
						() => {
							assert.ok(tool, `${name} not offered`);
							const n = tool.description.length;
							assert.ok(
								n >= DESCRIPTION_CHARS.min && n <= DESCRIPTION_CHARS.max,
								`${name}: description of ${n} characters: ${JSON.stringify(tool.description)}`,
							);
						},
					),
			);
		}
		await t.test('the Wait for Ad Report tool does not promise binary data', () =>
			explained(
				() => toolJson(c.offered, 'Wait_for_Ad_Report'),
				() => {
					const wait = c.offered.find((x) => x.name === 'Wait_for_Ad_Report');
					assert.ok(wait, 'Wait_for_Ad_Report not offered');
					assert.doesNotMatch(wait.description, /binary/i);
				},
			),
		);
	});

	test('a default Get Many sends one bounded item { results, returned, hasMore, page, hint } of at most 12,000 characters; page 2 gives the next records', async (t) => {
		const c = await converse(PATHS.live, [
			{ call: 'Get_many_accounts', args: {} },
			{ call: 'Get_many_campaigns', args: {} },
			{ call: 'Get_many_reports', args: {} },
			{ call: 'Get_many_campaigns', args: { page: 2 } },
			{ say: 'Listed.' },
		]);
		await runSucceeded(c);
		const [accounts, campaigns, reports, campaigns2] = c.received;
		for (const r of [accounts, campaigns, reports])
			figures.defaultList[r.name] = { chars: r.chars, records: recordsOf(r.json) };
		figures.nextPage = { chars: campaigns2?.chars, records: recordsOf(campaigns2?.json) };
		t.diagnostic(
			`default Get Many: ${Object.entries(figures.defaultList)
				.map(([n, f]) => `${n} ${f.chars} chars, ${f.records} records`)
				.join('; ')}`,
		);
		for (const r of [accounts, campaigns, reports])
			await t.test(`${r.name}: bounded, hasMore and a hint`, () =>
				explained(c.transcript, () => {
					checkListResult(r);
					assert.equal(
						r.json.hasMore,
						true,
						`${r.name}: the sandbox has more than ${DEFAULT_LIMIT} records, hasMore must say so`,
					);
					assert.equal(r.json.page, 1);
				}),
			);
		await t.test('Get_many_accounts: records keep both `id` and `platformAccountId`', () =>
			explained(c.transcript, () => {
				const list = accountsIn(accounts.json);
				assert.ok(list.length > 0, 'no accounts');
				for (const a of list) {
					assert.ok(a.id, 'an account without id');
					assert.match(String(a.platformAccountId), /^act_\d+$/);
				}
			}),
		);
		await t.test('Get_many_campaigns { page: 2 }: the next records', () =>
			explained(c.transcript, () => {
				checkListResult(campaigns2);
				assert.equal(campaigns2.json.page, 2);
				const first = new Set(campaigns.json.results.map((x) => x.id));
				assert.ok(campaigns2.json.results.length > 0, 'page 2 is empty');
				for (const x of campaigns2.json.results)
					assert.ok(!first.has(x.id), `${x.id} is on pages 1 and 2`);
			}),
		);
	});

	test('Return All saved on a list tool is ignored: still one bounded item', async (t) => {
		const c = await converse(PATHS.returnAll, [
			{ call: 'Get_many_accounts', args: {} },
			{ call: 'Get_many_campaigns', args: {} },
			{ call: 'Get_many_reports', args: {} },
			{ say: 'Listed everything.' },
		]);
		await runSucceeded(c);
		for (const r of c.received)
			figures.returnAll[r.name] = { chars: r.chars, records: recordsOf(r.json) };
		t.diagnostic(
			`Return All: ${Object.entries(figures.returnAll)
				.map(([n, f]) => `${n} ${f.chars} chars, ${f.records} records`)
				.join('; ')}`,
		);
		for (const name of LIST_TOOLS)
			await t.test(`${name}: bounded`, () =>
				explained(c.transcript, () => {
					const r = c.received.find((x) => x.name === name);
					assert.ok(r, `${name} was not called`);
					checkListResult(r);
					assert.equal(r.json.hasMore, true);
				}),
			);
	});

	test('a revoked key: the tool message says what went wrong, the fix and not to retry (≤ 400 characters, no key)', async (t) => {
		const c = await converse(PATHS.revoked, [
			{ call: 'Get_many_accounts', args: {} },
			{ say: 'The key is revoked.' },
		]);
		await runSucceeded(c);
		const [r] = c.received;
		const message = typeof r?.json?.error === 'string' ? r.json.error : (r?.content ?? '');
		figures.revoked = { chars: r?.chars, content: r?.content, message };
		t.diagnostic(
			`revoked key, the model received (${r?.chars} chars): ${r?.content.slice(0, 600)}`,
		);
		await explained(c.transcript, () => {
			assert.ok(r, 'no tool message');
			assert.doesNotMatch(
				r.content,
				new RegExp(h.sandbox.keys.revoked),
				'the key reached the model',
			);
			assert.ok(
				message.length <= MAX_ERROR_CHARS,
				`${message.length} characters (at most ${MAX_ERROR_CHARS})`,
			);
			assert.match(message, /revoked/i);
			assert.match(
				message,
				ERROR_FORMAT,
				'format: <what went wrong> (<type>). Fix: <fix>. Retry: <yes|no, why>.',
			);
			assert.match(message, /Settings → API Keys/, 'the fix names the dashboard page');
			assert.match(message, /Retry: no/i);
		});
	});

	test('an invalid argument: the error names it and lists the allowed values, before any request', async (t) => {
		const since = await lastSeq();
		const c = await converse(PATHS.live, [
			{ call: 'Get_many_accounts', args: { status: 'paused-ish' } },
			{ say: 'Invalid status.' },
		]);
		await runSucceeded(c);
		const [r] = c.received;
		const requests = (await h.sandboxLog()).filter(
			(e) => e.seq > since && e.path.startsWith('/v1/'),
		);
		const message = typeof r?.json?.error === 'string' ? r.json.error : (r?.content ?? '');
		figures.invalidArgument = {
			chars: r?.chars,
			content: r?.content.slice(0, 2000),
			requests: requests.length,
		};
		t.diagnostic(
			`invalid status, the model received (${r?.chars} chars): ${r?.content.slice(0, 300)}; requests to the service: ${requests.length}`,
		);
		await explained(c.transcript, () => {
			assert.ok(r, 'no tool message');
			assert.ok(
				typeof r.json?.error === 'string',
				`an error expected, got ${r.content.slice(0, 300)}`,
			);
			assert.match(message, /\bstatus\b/, 'names the argument');
			for (const allowed of ['active', 'disconnected', 'token_expired'])
				assert.match(message, new RegExp(allowed), `lists ${allowed}`);
			assert.ok(message.length <= MAX_ERROR_CHARS, `${message.length} characters`);
			assert.equal(
				requests.length,
				0,
				`requests sent: ${requests.map((e) => `${e.method} ${e.path}`).join(', ')}`,
			);
		});
	});

	test('Get Many accounts → Generate with the account `id` → Wait for Ad Report → a completed report, with exactly one POST /v1/reports; Download gives text', async (t) => {
		const since = await lastSeq();
		const title = `Agent flow ${Date.now()}`;
		const end = new Date(Date.now() - DAY);
		const args = { title, dateStart: ymd(new Date(end.getTime() - 6 * DAY)), dateEnd: ymd(end) };
		let chosen;
		const reportIdOf = (ctx) => ctx.results.find((x) => x.name === 'Generate_a_report')?.json?.id;
		// after the first Wait: wait again while it says "generating", then Download, then answer
		const next = (ctx) => {
			if (ctx.results.at(-1)?.name === 'Wait_for_Ad_Report' && ctx.last?.status === 'generating')
				return { call: 'Wait_for_Ad_Report', args: { reportId: reportIdOf(ctx) } };
			if (!ctx.results.some((x) => x.name === 'Download_a_report'))
				return { call: 'Download_a_report', args: { reportId: reportIdOf(ctx) } };
			return { say: `Report ${reportIdOf(ctx)} is ready.` };
		};
		const c = await converse(PATHS.live, [
			{ call: 'Get_many_accounts', args: { status: 'active' } },
			{
				call: 'Generate_a_report',
				args: (ctx) => {
					chosen =
						accountsIn(ctx.last).find((a) => a.name === 'Acme Outdoor') ?? accountsIn(ctx.last)[0];
					if (!chosen?.id) throw new Error(`no account with an id in the Get_many_accounts result`);
					return { account: chosen.id, ...args };
				},
			},
			{
				call: 'Wait_for_Ad_Report',
				args: (ctx) => {
					if (!ctx.last?.id)
						throw new Error(
							`Generate_a_report gave no report id: ${ctx.results.at(-1)?.content.slice(0, 300)}`,
						);
					return { reportId: ctx.last.id };
				},
			},
			next,
			next,
			next,
			next,
		]);
		const posts = await reportPosts(since);
		const generated = c.received.find((x) => x.name === 'Generate_a_report');
		const waited = c.received.filter((x) => x.name === 'Wait_for_Ad_Report').at(-1);
		const downloaded = c.received.find((x) => x.name === 'Download_a_report');
		figures.flow = {
			posts: posts.length,
			calls: c.received.map((x) => ({
				name: x.name,
				args: x.args,
				chars: x.chars,
				content: x.content.slice(0, 2000),
			})),
		};
		t.diagnostic(
			`flow: ${c.received.map((x) => `${x.name} (${x.chars} chars)`).join(' → ')}; POST /v1/reports: ${posts.length}`,
		);
		await t.test('Generate answers { id, status, estimatedCompletionSeconds, reused, next }', () =>
			explained(c.transcript, () => {
				assert.ok(generated, 'Generate_a_report was not called');
				for (const k of GENERATE_RESULT_KEYS)
					assert.ok(
						k in (generated.json ?? {}),
						`no \`${k}\` in ${generated.content.slice(0, 500)}`,
					);
				assert.equal(generated.json.reused, false);
			}),
		);
		await t.test(
			'exactly one POST /v1/reports, for the platform account of the `id` the model passed',
			async () =>
				explained(c.transcript, async () => {
					assert.equal(posts.length, 1, `POST /v1/reports: ${posts.length}`);
					const account = (await h.sandbox.state()).data.accounts.find((a) => a.id === chosen?.id);
					assert.ok(account, `account ${chosen?.id} unknown to the sandbox`);
					assert.equal(
						posts[0].body.account_id,
						account.platformAccountId,
						`sent ${JSON.stringify(posts[0].body)}`,
					);
					assert.equal(posts[0].body.title, title);
				}),
		);
		await t.test('Wait for Ad Report answers the completed report as text (no binary)', () =>
			explained(c.transcript, () => {
				assert.ok(waited, 'Wait_for_Ad_Report was not called');
				assert.equal(waited.json?.status, 'completed', waited.content.slice(0, 500));
				assert.equal(waited.json.id, generated?.json?.id);
				for (const k of REPORT_RESULT_KEYS)
					assert.ok(k in waited.json, `no \`${k}\` in the Wait result`);
				assert.ok(waited.chars <= MAX_RESULT_CHARS, `${waited.chars} characters`);
			}),
		);
		await t.test('Download a report answers the report as text (no binary)', () =>
			explained(c.transcript, () => {
				assert.ok(downloaded, 'Download_a_report was not called');
				assert.equal(downloaded.json?.id, generated?.json?.id, downloaded.content.slice(0, 500));
				for (const k of REPORT_RESULT_KEYS)
					assert.ok(k in downloaded.json, `no \`${k}\` in the Download result`);
				assert.ok(downloaded.chars <= MAX_RESULT_CHARS, `${downloaded.chars} characters`);
			}),
		);
		await t.test('the conversation ran to its end', () => runSucceeded(c));
	});

	test('an identical Generate within 10 minutes returns the same report with reused: true (same run and a new run), still one POST', async (t) => {
		const since = await lastSeq();
		const title = `Agent reuse ${Date.now()}`;
		const end = new Date(Date.now() - DAY);
		const args = {
			account: 'act_placeholder',
			title,
			dateStart: ymd(new Date(end.getTime() - 6 * DAY)),
			dateEnd: ymd(end),
		};
		const acme = (await h.sandbox.state()).data.accounts.find((a) => a.name === 'Acme Outdoor');
		args.account = acme.id;
		const first = await converse(PATHS.live, [
			{ call: 'Generate_a_report', args },
			{ call: 'Generate_a_report', args },
			{ say: 'Asked twice.' },
		]);
		const second = await converse(PATHS.live, [
			{ call: 'Generate_a_report', args },
			{ say: 'Asked again.' },
		]);
		const posts = await reportPosts(since, title);
		const results = [...first.received, ...second.received].filter(
			(x) => x.name === 'Generate_a_report',
		);
		figures.reuse = { posts: posts.length, results: results.map((x) => x.content) };
		t.diagnostic(
			`reuse: ${results.map((x) => `id ${x.json?.id} reused ${x.json?.reused}`).join('; ')}; POST /v1/reports: ${posts.length}`,
		);
		const context = () => `${first.transcript()}\n\n${second.transcript()}`;
		await runSucceeded(first);
		await runSucceeded(second);
		await explained(context, () => {
			assert.equal(results.length, 3, 'three Generate calls');
			assert.equal(posts.length, 1, `POST /v1/reports for "${title}": ${posts.length}`);
			assert.equal(results[0].json?.reused, false, 'the first call creates the report');
			assert.ok(results[0].json?.id, 'the first call gives an id');
			for (const r of results.slice(1)) {
				assert.equal(r.json?.reused, true, `repeated call: ${r.content.slice(0, 300)}`);
				assert.equal(r.json.id, results[0].json.id, 'the same report');
			}
		});
	});
});

// ---------------------------------------------------------------- the chat example

describe("the chat example (Chat Trigger, AI Agent with memory, the tools) answers an agency's questions", () => {
	const trigger = CHAT.nodes.find((n) => n.type === '@n8n/n8n-nodes-langchain.chatTrigger');
	const sessionId = `chat-${crypto.randomUUID()}`;
	const chat = async (chatInput) => {
		const res = await fetch(`${h.server.baseUrl}/webhook/${trigger.webhookId}/chat`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ action: 'sendMessage', sessionId, chatInput }),
			signal: AbortSignal.timeout(180_000),
		});
		return { status: res.status, text: await res.text() };
	};
	const day = (d) => d.toISOString().slice(0, 10);
	const now = new Date();
	const lastMonth = {
		start: day(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1))),
		end: day(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 0))),
	};
	const key = '#chat-example';
	before(() => {
		// one plan for the session: the follow-up question continues it (the memory replays the
		// first question, so the conversation keeps its key)
		// one plan for the session (the memory replays the first question, which holds the key);
		// each question starts again at step 0, so the steps look at the latest question
		const followUp = (ctx) =>
			/Acme/.test(JSON.stringify(ctx.messages.filter((m) => m.role === 'user').at(-1)?.content));
		const generate = {
			call: 'Generate_a_report',
			args: (ctx) => {
				const acme = ctx.last.results.find((a) => /^Acme/.test(a.name));
				if (!acme) throw new Error(`no Acme among ${JSON.stringify(ctx.last.results)}`);
				return {
					account: acme.id,
					title: `Acme Outdoor – ${lastMonth.start.slice(0, 7)}`,
					dateStart: lastMonth.start,
					dateEnd: lastMonth.end,
					format: 'pdf',
				};
			},
		};
		const highRisk = {
			say: (ctx) =>
				`High risk this week: ${
					ctx.last.results
						.filter((r) => ['HIGH', 'CRITICAL'].includes(r.riskLevel))
						.map((r) => r.title)
						.join(', ') || 'none'
				}.`,
		};
		h.model.plan(key, [
			(ctx) =>
				followUp(ctx)
					? { call: 'Get_many_accounts', args: {} }
					: {
							call: 'Get_many_reports',
							args: { status: 'completed', from: day(new Date(Date.now() - 7 * 86_400_000)) },
						},
			(ctx) => (followUp(ctx) ? generate : highRisk),
			{ call: 'Wait_for_Ad_Report', args: (ctx) => ({ reportId: ctx.last.id }) },
			{ say: (ctx) => `Report ${ctx.last.id} is ${ctx.last.status}: ${ctx.last.downloadUrl}` },
		]);
	});

	test('"which clients are at high risk this week?" runs with the system message, every tool and the reports of the week', async () => {
		const reply = await chat(`${key} Which clients are at high risk this week?`);
		await explained(
			() => h.model.transcript(key),
			() => {
				assert.equal(reply.status, 200, reply.text.slice(0, 1000));
				assert.match(JSON.parse(reply.text).output, /^High risk this week: /);
				const [first] = h.model.chats(key);
				const system = first.body.messages.find((m) => m.role === 'system');
				assert.match(system?.content ?? '', /reporting assistant of an advertising agency/);
				// $now in n8n's time zone: within a day of this machine's UTC date
				const today = /Today is \w+ (\d{4}-\d{2}-\d{2})\./.exec(system.content)?.[1];
				assert.ok(
					today && Math.abs(Date.parse(today) - Date.parse(day(new Date()))) <= 86_400_000,
					`today: ${today}`,
				);
				assert.doesNotMatch(system.content, /\{\{/, 'the expression is rendered');
				assert.deepEqual(
					h.model
						.offered(key)
						.map((t) => t.name)
						.sort(),
					[...TOOL_NAMES].sort(),
				);
				const [reports] = h.model.received(key);
				assert.equal(reports.name, 'Get_many_reports');
				assert.ok(reports.json.results.length > 0, reports.content.slice(0, 500));
			},
		);
	});

	test('the follow-up "generate last month\'s report for Acme" remembers the conversation and waits for the report', async () => {
		const reply = await chat("Generate last month's report for Acme.");
		await explained(
			() => h.model.transcript(key),
			() => {
				assert.equal(reply.status, 200, reply.text.slice(0, 1000));
				const last = h.model.chats(key).at(-1);
				assert.ok(
					last.body.messages.some(
						(m) =>
							m.role === 'user' && /Which clients are at high risk/.test(JSON.stringify(m.content)),
					),
					'the memory gives the model the first question',
				);
				const generated = h.model.received(key).find((r) => r.name === 'Generate_a_report');
				assert.ok(generated?.json?.id, generated?.content);
				assert.match(
					JSON.parse(reply.text).output,
					new RegExp(`Report ${generated.json.id} is completed`),
				);
			},
		);
		const report = (await h.sandbox.state()).data.reports.find(
			(r) => r.title === `Acme Outdoor – ${lastMonth.start.slice(0, 7)}`,
		);
		assert.ok(report, 'the sandbox holds the report');
		assert.deepEqual(report.dateRange, { from: lastMonth.start, to: lastMonth.end });
	});
});

// ---------------------------------------------------------------- MCP

describe('the MCP server example (MCP Server Trigger, bearer authentication) through the official MCP SDK client', () => {
	let mcp;
	let tools;
	before(async () => {
		mcp = await connectMcp(h.mcpUrl(PATHS.mcp), withToken);
		tools = (await mcp.client.listTools()).tools;
		for (const tool of tools)
			figures.mcp.tools[tool.name] = {
				properties: Object.keys(tool.inputSchema?.properties ?? {}).length,
				keys: Object.keys(tool.inputSchema?.properties ?? {}),
				required: tool.inputSchema?.required ?? [],
				descriptionChars: tool.description?.length ?? 0,
			};
		figures.mcp.transport = {
			client: '@modelcontextprotocol/sdk (Streamable HTTP)',
			protocolVersion: mcp.transport.protocolVersion,
			sessionId: Boolean(mcp.transport.sessionId),
			server: mcp.client.getServerVersion(),
		};
	});
	after(async () => {
		await mcp?.close();
	});

	test('tools/list: every tool, with the documented schema keys and a description of 150–700 characters', async (t) => {
		t.diagnostic(
			`MCP SDK client, protocol ${mcp.transport.protocolVersion}, server ${JSON.stringify(mcp.client.getServerVersion())}`,
		);
		assert.deepEqual(
			tools.map((x) => x.name).sort(),
			[...TOOL_NAMES].sort(),
			'one tool per operation, named after its node',
		);
		for (const name of TOOL_NAMES)
			await t.test(name, () =>
				explained(
					() => toolJson(tools, name),
					() => {
						const tool = tools.find((x) => x.name === name);
						assert.ok(tool, `${name} not listed`);
						assert.deepEqual(
							Object.keys(tool.inputSchema?.properties ?? {}).sort(),
							[...SCHEMA_KEYS[name]].sort(),
						);
						const n = tool.description?.length ?? 0;
						assert.ok(
							n >= DESCRIPTION_CHARS.min && n <= DESCRIPTION_CHARS.max,
							`description of ${n} characters: ${JSON.stringify(tool.description)}`,
						);
					},
				),
			);
	});

	test('tools/call: a default Get Many gives one bounded result', async (t) => {
		for (const name of LIST_TOOLS) {
			const result = await mcp.client.callTool({ name, arguments: {} });
			const text = result.content?.map((x) => x.text ?? '').join('') ?? '';
			const json = parseToolContent(text);
			figures.mcp.calls[name] = {
				chars: text.length,
				records: recordsOf(json),
				isError: Boolean(result.isError),
			};
			await t.test(name, () =>
				explained(`tools/call ${name} → ${JSON.stringify(result).slice(0, 3000)}`, () => {
					assert.ok(!result.isError, `isError: ${text.slice(0, 500)}`);
					checkListResult({ name, chars: text.length, json });
				}),
			);
		}
		t.diagnostic(
			`MCP tools/call: ${Object.entries(figures.mcp.calls)
				.map(([n, f]) => `${n} ${f.chars} chars, ${f.records} records`)
				.join('; ')}`,
		);
	});

	test('without the bearer token, or with a wrong one, the server refuses the session (n8n answers 403)', async () => {
		for (const headers of [{}, { authorization: 'Bearer wrong-token' }])
			await assert.rejects(
				() => connectMcp(h.mcpUrl(PATHS.mcp), headers),
				// the SDK's StreamableHTTPError carries the HTTP status as `code`
				(error) => error.code === 403 && /Authorization data is wrong/.test(error.message),
				JSON.stringify(headers),
			);
	});

	test('tools/call with a revoked key: isError, and the text says the fix', async (t) => {
		const revoked = await connectMcp(h.mcpUrl(PATHS.mcpRevoked));
		try {
			const result = await revoked.client.callTool({ name: 'Get_many_accounts', arguments: {} });
			const text = result.content?.map((x) => x.text ?? '').join('') ?? '';
			figures.mcp.revoked = { isError: Boolean(result.isError), text };
			t.diagnostic(
				`MCP revoked key: isError ${Boolean(result.isError)}, text (${text.length} chars): ${text.slice(0, 600)}`,
			);
			await explained(
				`tools/call Get_many_accounts → ${JSON.stringify(result).slice(0, 3000)}`,
				() => {
					assert.equal(result.isError, true);
					assert.doesNotMatch(text, new RegExp(h.sandbox.keys.revoked));
					assert.match(text, /revoked/i);
					assert.match(text, /Fix: /);
					assert.match(text, /Settings → API Keys/);
					assert.match(text, /Retry: no/i);
				},
			);
		} finally {
			await revoked.close();
		}
	});
});

// ---------------------------------------------------------------- publishing

describe('publishing from the editor', () => {
	// n8n 2.x checks a workflow before it publishes it (required parameters of every connected node);
	// without publishing, neither the production webhook nor the MCP Server Trigger answers.
	for (const [i, wf] of PUBLISH_CHECK.entries())
		test(`"${wf.name}" (tool nodes with only Resource and Operation set) can be published`, async (t) => {
			const id = h.workflowIds[WORKFLOWS.length + i];
			const r = await h.publishFromEditor(id);
			figures.publish[wf.name] = { status: r.status, message: r.json?.message };
			t.diagnostic(
				`POST /rest/workflows/${id}/activate: HTTP ${r.status}${r.status === 200 ? '' : ` ${r.json?.message ?? r.text.slice(0, 500)}`}`,
			);
			assert.equal(r.status, 200, r.json?.message ?? r.text.slice(0, 2000));
		});
});

// ---------------------------------------------------------------- figures

function figuresMarkdown(f) {
	const rows = [
		`# What the model receives (n8n ${f.n8n}, Agent 3.1, measured by npm run test:agent)`,
		'',
	];
	rows.push(
		'| tool | schema properties | description (chars) | MCP properties |',
		'| --- | --- | --- | --- |',
	);
	for (const [name, o] of Object.entries(f.offered))
		rows.push(
			`| ${name} | ${o.properties}${o.keys.length ? ` (${o.keys.join(', ')})` : ''} | ${o.descriptionChars} | ${f.mcp.tools[name]?.properties ?? ''} |`,
		);
	rows.push('', '| call | characters | records |', '| --- | --- | --- |');
	for (const [name, o] of Object.entries(f.defaultList))
		rows.push(`| ${name}, default | ${o.chars} | ${o.records} |`);
	for (const [name, o] of Object.entries(f.returnAll))
		rows.push(`| ${name}, Return All saved | ${o.chars} | ${o.records} |`);
	for (const [name, o] of Object.entries(f.mcp.calls))
		rows.push(`| MCP ${name}, default | ${o.chars} | ${o.records} |`);
	rows.push('', `Revoked key, the model received: \`${f.revoked.content ?? ''}\``, '');
	rows.push(
		`MCP revoked key: isError ${f.mcp.revoked?.isError}, text \`${f.mcp.revoked?.text ?? ''}\``,
		'',
	);
	return rows.join('\n');
}
