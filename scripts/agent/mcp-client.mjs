// A small MCP client (JSON-RPC 2.0 over the Streamable HTTP transport) for the agent tests:
// initialize, tools/list, tools/call, close. n8n's MCP Server Trigger (version 2 and later)
// serves it at <n8n>/mcp/<path>: a POST without a session starts one (the answer carries the
// `mcp-session-id` header), later POSTs carry that header, DELETE ends it. Answers come as JSON
// or as a short server-sent-event stream; both are read here.
//
//   const mcp = await connectMcp(`${n8n.baseUrl}/mcp/ad-performance`);
//   const { tools } = await mcp.listTools();
//   const result = await mcp.callTool('List_accounts', {});   // { content: [{type:'text', text}], isError? }
//   await mcp.close();

export const PROTOCOL_VERSION = '2025-06-18';

/** JSON-RPC messages in a text/event-stream body (`data:` lines of each event). */
export function parseEventStream(text) {
	const messages = [];
	for (const event of text.split(/\r?\n\r?\n/)) {
		const data = event
			.split(/\r?\n/)
			.filter((l) => l.startsWith('data:'))
			.map((l) => l.slice(5).replace(/^ /, ''))
			.join('\n');
		if (!data) continue;
		try {
			messages.push(JSON.parse(data));
		} catch {}
	}
	return messages;
}

/**
 * @param {string} url  the trigger's production URL
 * @param {{ headers?: Record<string,string>, timeoutMs?: number, clientName?: string }} [options]
 */
export async function connectMcp(
	url,
	{ headers = {}, timeoutMs = 120_000, clientName = 'ad-performance-agent-test' } = {},
) {
	let sessionId;
	let protocolVersion = PROTOCOL_VERSION;
	let nextId = 1;
	/** Every exchange: { request, status, contentType, text, messages } */
	const log = [];

	async function post(message) {
		const res = await fetch(url, {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				accept: 'application/json, text/event-stream',
				...(sessionId
					? { 'mcp-session-id': sessionId, 'mcp-protocol-version': protocolVersion }
					: {}),
				...headers,
			},
			body: JSON.stringify(message),
			signal: AbortSignal.timeout(timeoutMs),
		});
		const text = await res.text();
		const contentType = res.headers.get('content-type') ?? '';
		const messages = contentType.includes('text/event-stream')
			? parseEventStream(text)
			: text.trim()
				? (() => {
						try {
							const v = JSON.parse(text);
							return Array.isArray(v) ? v : [v];
						} catch {
							return [];
						}
					})()
				: [];
		const entry = {
			request: message,
			status: res.status,
			contentType,
			text,
			messages,
			sessionHeader: res.headers.get('mcp-session-id'),
		};
		log.push(entry);
		return entry;
	}

	async function request(method, params) {
		const id = nextId++;
		const entry = await post({
			jsonrpc: '2.0',
			id,
			method,
			...(params === undefined ? {} : { params }),
		});
		const reply = entry.messages.find((m) => m.id === id);
		if (!reply)
			throw new Error(
				`MCP ${method}: no JSON-RPC answer (HTTP ${entry.status}, ${entry.contentType}): ${entry.text.slice(0, 1000)}`,
			);
		if (reply.error) {
			const error = new Error(
				`MCP ${method}: JSON-RPC error ${reply.error.code}: ${reply.error.message}`,
			);
			error.rpcError = reply.error;
			throw error;
		}
		return reply.result;
	}

	const init = await post({
		jsonrpc: '2.0',
		id: nextId++,
		method: 'initialize',
		params: {
			protocolVersion: PROTOCOL_VERSION,
			capabilities: {},
			clientInfo: { name: clientName, version: '1.0.0' },
		},
	});
	const initReply = init.messages.find((m) => m.id === 1);
	if (init.status !== 200 || !initReply?.result)
		throw new Error(
			`MCP initialize failed (HTTP ${init.status}, ${init.contentType}): ${init.text.slice(0, 1000)}`,
		);
	sessionId = init.sessionHeader ?? undefined;
	protocolVersion = initReply.result.protocolVersion ?? PROTOCOL_VERSION;
	const notified = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });

	return {
		url,
		sessionId,
		protocolVersion,
		/** The server's initialize result: { protocolVersion, capabilities, serverInfo, instructions? } */
		server: initReply.result,
		/** HTTP status of the notifications/initialized POST (202 expected) */
		initializedStatus: notified.status,
		/** Transport as seen in the first answer: 'sse' (event stream) or 'json' */
		answerFormat: init.contentType.includes('text/event-stream') ? 'sse' : 'json',
		log,
		request,
		listTools: () => request('tools/list', {}),
		callTool: (name, args = {}) => request('tools/call', { name, arguments: args }),
		async close() {
			if (!sessionId) return;
			await fetch(url, {
				method: 'DELETE',
				headers: {
					'mcp-session-id': sessionId,
					'mcp-protocol-version': protocolVersion,
					...headers,
				},
			}).catch(() => {});
		},
	};
}
