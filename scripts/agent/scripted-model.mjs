// A scripted OpenAI-compatible chat model for the agent tests: a small HTTP server on 127.0.0.1
// (random port) that n8n's OpenAI Chat Model node can use as its Base URL. It does not think: each
// conversation follows a plan given by the test ("call tool X with these arguments", "answer with
// this text"), and every request is logged, with the tools the model was offered (names,
// descriptions, JSON schemas) and the tool messages it received back.
//
//   import { startScriptedModel } from './scripted-model.mjs';
//   const model = await startScriptedModel();
//   model.plan('#accounts', [
//     { call: 'List_accounts', args: {} },
//     { call: 'Generate_report', args: (ctx) => ({ account: ctx.last.results[0].id }) },
//     { say: (ctx) => `Done: ${ctx.last.id}` },
//   ]);
//   // credential openAiApi: { apiKey: 'anything', url: model.url }  (url ends in /v1)
//   // ... run an agent whose user message contains '#accounts' ...
//   model.offered('#accounts');   // [{ name, description, parameters }]
//   model.received('#accounts');  // [{ name, args, content, chars, json }]
//   await model.close();
//
// Endpoints: POST /v1/chat/completions (with or without `stream: true`), GET /v1/models,
// GET /v1/models/<id>. Anything else answers 404 with an OpenAI-style error, and is logged.
//
// Which plan: the one whose key occurs in the first user message of the conversation. Which step:
// the number of assistant turns already in the request's messages (so a retried request gets the
// same answer). A step is { call, args } (one tool call), { calls: [{ call, args }, ...] }
// (parallel tool calls) or { say } (the final answer), or a function of the context that returns
// one; `args` and `say` may be functions of the context too. The context is
// { messages, results, last, step, key }: `results` are the tool messages received so far,
// `last` the parsed JSON of the newest one (a one-item array is unwrapped). Past the end of a plan
// the model answers "(end of plan)". A step function that throws ends the conversation with the
// answer "SCRIPT ERROR: <message>", recorded in `errors`, instead of failing the HTTP request
// (which the OpenAI client would retry).

import crypto from 'node:crypto';
import http from 'node:http';

export const MODEL_ID = 'scripted-model';

/** Text of a chat message's content (a string or an array of parts). */
export function contentText(content) {
	if (typeof content === 'string') return content;
	if (Array.isArray(content))
		return content.map((p) => (typeof p === 'string' ? p : (p?.text ?? ''))).join('');
	if (content === null || content === undefined) return '';
	return JSON.stringify(content);
}

/** Parses a tool message's JSON; a one-item array is unwrapped. Undefined when it is not JSON. */
export function parseToolContent(text) {
	try {
		const value = JSON.parse(text);
		return Array.isArray(value) && value.length === 1 ? value[0] : value;
	} catch {
		return undefined;
	}
}

/** The tool messages of a chat request, with the tool name and arguments of their call. */
export function toolResultsOf(messages) {
	const calls = new Map();
	const results = [];
	for (const m of messages ?? []) {
		if (m.role === 'assistant')
			for (const c of m.tool_calls ?? []) {
				let args;
				try {
					args = JSON.parse(c.function?.arguments ?? '{}');
				} catch {
					args = c.function?.arguments;
				}
				calls.set(c.id, { name: c.function?.name, args });
			}
		if (m.role === 'tool') {
			const content = contentText(m.content);
			const call = calls.get(m.tool_call_id) ?? {};
			results.push({
				toolCallId: m.tool_call_id,
				name: call.name,
				args: call.args,
				content,
				chars: content.length,
				json: parseToolContent(content),
			});
		}
	}
	return results;
}

/** The tools offered in a chat request: [{ name, description, parameters }]. */
export function toolsOf(body) {
	return (body?.tools ?? []).map((t) => ({
		name: t.function?.name ?? t.name,
		description: t.function?.description ?? t.description ?? '',
		parameters: t.function?.parameters ?? t.parameters ?? {},
	}));
}

function firstUserText(messages) {
	const m = (messages ?? []).find((x) => x.role === 'user');
	return m ? contentText(m.content) : '';
}

function assistantTurns(messages) {
	// turns after the last user message: earlier ones belong to an older exchange (memory)
	let lastUser = -1;
	(messages ?? []).forEach((m, i) => {
		if (m.role === 'user') lastUser = i;
	});
	return (messages ?? []).slice(lastUser + 1).filter((m) => m.role === 'assistant').length;
}

const approxTokens = (text) => Math.ceil(String(text).length / 4);

/**
 * @param {{ host?: string, port?: number, log?: (line: string) => void }} [options]
 */
export async function startScriptedModel({ host = '127.0.0.1', port = 0, log = () => {} } = {}) {
	/** @type {Map<string, object[]>} */
	const plans = new Map();
	/** Every request, in order: { n, at, method, path, body, key, step, reply, status } */
	const requests = [];
	/** Step functions that threw: { key, step, message } */
	const errors = [];

	function planFor(messages) {
		const text = firstUserText(messages);
		// the longest matching key wins ('#a-b' over '#a')
		const keys = [...plans.keys()]
			.filter((k) => text.includes(k))
			.sort((a, b) => b.length - a.length);
		return keys.length
			? { key: keys[0], steps: plans.get(keys[0]) }
			: { key: undefined, steps: [] };
	}

	/** The assistant message for a chat request: { content, tool_calls? } */
	function decide(body) {
		const messages = body.messages ?? [];
		const { key, steps } = planFor(messages);
		const step = assistantTurns(messages);
		const results = toolResultsOf(messages);
		const ctx = { messages, results, last: results.at(-1)?.json, step, key };
		if (!key) return { key, step, message: { content: '(no plan for this conversation)' } };
		try {
			const planned = typeof steps[step] === 'function' ? steps[step](ctx) : steps[step];
			if (!planned) return { key, step, message: { content: '(end of plan)' } };
			if ('say' in planned) {
				const text = typeof planned.say === 'function' ? planned.say(ctx) : planned.say;
				return { key, step, message: { content: String(text) } };
			}
			const list = planned.calls ?? [planned];
			const toolCalls = list.map((c) => {
				const args = typeof c.args === 'function' ? c.args(ctx) : (c.args ?? {});
				return {
					id: `call_${crypto.randomBytes(9).toString('hex')}`,
					type: 'function',
					function: { name: c.call, arguments: JSON.stringify(args) },
				};
			});
			return { key, step, message: { content: null, tool_calls: toolCalls } };
		} catch (error) {
			errors.push({ key, step, message: error.message });
			return { key, step, message: { content: `SCRIPT ERROR: ${error.message}` } };
		}
	}

	function send(res, status, json) {
		const text = JSON.stringify(json);
		res.writeHead(status, {
			'content-type': 'application/json',
			'content-length': Buffer.byteLength(text),
		});
		res.end(text);
	}

	function completion(body, message) {
		const promptText = JSON.stringify(body.messages ?? []);
		const outText = JSON.stringify(message);
		return {
			id: `chatcmpl-${crypto.randomBytes(8).toString('hex')}`,
			object: 'chat.completion',
			created: Math.floor(Date.now() / 1000),
			model: body.model ?? MODEL_ID,
			choices: [
				{
					index: 0,
					message: { role: 'assistant', refusal: null, ...message },
					logprobs: null,
					finish_reason: message.tool_calls ? 'tool_calls' : 'stop',
				},
			],
			usage: {
				prompt_tokens: approxTokens(promptText),
				completion_tokens: approxTokens(outText),
				total_tokens: approxTokens(promptText) + approxTokens(outText),
			},
		};
	}

	function streamCompletion(res, body, message) {
		const full = completion(body, message);
		const base = {
			id: full.id,
			object: 'chat.completion.chunk',
			created: full.created,
			model: full.model,
		};
		res.writeHead(200, {
			'content-type': 'text/event-stream',
			'cache-control': 'no-cache',
			connection: 'keep-alive',
		});
		const chunk = (choices, extra = {}) =>
			res.write(`data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`);
		chunk([
			{
				index: 0,
				delta: { role: 'assistant', content: message.tool_calls ? null : '' },
				finish_reason: null,
			},
		]);
		if (message.tool_calls) {
			message.tool_calls.forEach((c, index) =>
				chunk([
					{
						index: 0,
						delta: {
							tool_calls: [
								{
									index,
									id: c.id,
									type: 'function',
									function: { name: c.function.name, arguments: c.function.arguments },
								},
							],
						},
						finish_reason: null,
					},
				]),
			);
		} else {
			chunk([{ index: 0, delta: { content: message.content }, finish_reason: null }]);
		}
		chunk([{ index: 0, delta: {}, finish_reason: full.choices[0].finish_reason }]);
		if (body.stream_options?.include_usage) chunk([], { usage: full.usage });
		res.end('data: [DONE]\n\n');
	}

	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			const raw = Buffer.concat(chunks).toString('utf8');
			let body;
			try {
				body = raw ? JSON.parse(raw) : undefined;
			} catch {
				body = raw;
			}
			const url = new URL(req.url ?? '/', 'http://localhost');
			const entry = {
				n: requests.length + 1,
				at: new Date().toISOString(),
				method: req.method,
				path: url.pathname,
				body,
			};
			requests.push(entry);
			const p = url.pathname.replace(/\/+$/, '');
			if (req.method === 'GET' && p === '/v1/models') {
				entry.status = 200;
				return send(res, 200, {
					object: 'list',
					data: [{ id: MODEL_ID, object: 'model', created: 0, owned_by: 'scripted' }],
				});
			}
			if (req.method === 'GET' && p.startsWith('/v1/models/')) {
				entry.status = 200;
				return send(res, 200, {
					id: decodeURIComponent(p.slice('/v1/models/'.length)),
					object: 'model',
					created: 0,
					owned_by: 'scripted',
				});
			}
			if (
				req.method === 'POST' &&
				p === '/v1/chat/completions' &&
				body &&
				typeof body === 'object'
			) {
				const { key, step, message } = decide(body);
				Object.assign(entry, {
					key,
					step,
					reply: message,
					stream: Boolean(body.stream),
					status: 200,
				});
				log(
					`[model] #${entry.n} ${key ?? '(no plan)'} step ${step}: ${message.tool_calls ? message.tool_calls.map((c) => `${c.function.name}(${c.function.arguments})`).join(', ') : JSON.stringify(message.content).slice(0, 120)}`,
				);
				if (body.stream) return streamCompletion(res, body, message);
				return send(res, 200, completion(body, message));
			}
			entry.status = 404;
			log(`[model] #${entry.n} unexpected ${req.method} ${url.pathname}`);
			send(res, 404, {
				error: {
					message: `The scripted model does not serve ${req.method} ${url.pathname}`,
					type: 'invalid_request_error',
					param: null,
					code: 'unknown_url',
				},
			});
		});
	});
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, resolve);
	});
	const address = /** @type {import('node:net').AddressInfo} */ (server.address());
	const origin = `http://${host}:${address.port}`;

	/** The chat requests of a conversation (by plan key), in order. */
	const chats = (key) =>
		requests.filter(
			(r) =>
				r.path.replace(/\/+$/, '') === '/v1/chat/completions' &&
				(key === undefined || r.key === key),
		);

	return {
		origin,
		/** Base URL for the openAiApi credential (n8n's "Base URL" field): ends in /v1 */
		url: `${origin}/v1`,
		port: address.port,
		modelId: MODEL_ID,
		requests,
		errors,
		/** Registers (or replaces) the plan of conversations whose first user message contains `key`. */
		plan(key, steps) {
			plans.set(key, steps);
		},
		chats,
		/** The tools offered in the first chat request of the conversation. */
		offered(key) {
			const first = chats(key)[0];
			return first ? toolsOf(first.body) : [];
		},
		/** The tool messages of the conversation's last chat request (everything it received). */
		received(key) {
			const last = chats(key).at(-1);
			return last ? toolResultsOf(last.body.messages) : [];
		},
		/** The final answer of the conversation (the last reply without tool calls). */
		answer(key) {
			const last = chats(key).at(-1);
			return last && !last.reply?.tool_calls ? last.reply?.content : undefined;
		},
		/** A readable account of a conversation: what was offered, called and received. */
		transcript(key, { maxChars = 1500 } = {}) {
			const list = chats(key);
			if (!list.length) return `(the model received no request for ${key})`;
			const lines = [`conversation ${key}: ${list.length} chat request(s)`];
			lines.push('offered tools:');
			for (const t of toolsOf(list[0].body))
				lines.push(
					`  ${t.name} (${t.description.length} chars): ${JSON.stringify(t.description).slice(0, 200)}; properties: ${JSON.stringify(Object.keys(t.parameters?.properties ?? {}))}`,
				);
			for (const r of list) {
				if (r.reply?.tool_calls)
					for (const c of r.reply.tool_calls)
						lines.push(`step ${r.step}: call ${c.function.name}(${c.function.arguments})`);
				else lines.push(`step ${r.step}: answer ${JSON.stringify(r.reply?.content).slice(0, 300)}`);
			}
			lines.push('received:');
			for (const t of toolResultsOf(list.at(-1).body.messages)) {
				const shown =
					t.content.length > maxChars
						? `${t.content.slice(0, maxChars)}… (${t.content.length} chars)`
						: t.content;
				lines.push(`  ${t.name}(${JSON.stringify(t.args)}) → ${shown}`);
			}
			const errs = errors.filter((e) => e.key === key);
			if (errs.length)
				lines.push(`script errors: ${errs.map((e) => `step ${e.step}: ${e.message}`).join('; ')}`);
			return lines.join('\n');
		},
		reset() {
			plans.clear();
			requests.length = 0;
			errors.length = 0;
		},
		close() {
			return new Promise((resolve) => {
				server.closeAllConnections?.();
				server.close(() => resolve());
			});
		},
	};
}
