// Workflows of the agent tests, as a user builds them in the editor: a Webhook → AI Agent (3.1) with
// n8n's OpenAI Chat Model and our tool nodes, and an MCP Server Trigger with the same tool nodes.
// Each tool node is added as a user adds it from the node creator: only Resource and Operation are
// set (the Wait for Ad Report tool has neither), plus the credential.
import crypto from 'node:crypto';

export const PKG = 'n8n-nodes-ad-performance';
export const AD_TOOL_TYPE = `${PKG}.adPerformanceTool`;
export const WAIT_TOOL_TYPE = `${PKG}.adPerformanceWaitForReportTool`;

/**
 * One tool node per operation of docs/agent-tools.md. `name` is the canvas name (n8n makes the
 * tool name from it: spaces become `_`), the same as the operation's action in the node creator.
 */
export const TOOL_OPERATIONS = [
	{ name: 'Get many accounts', resource: 'account', operation: 'getAll' },
	{ name: 'Get many campaigns', resource: 'campaign', operation: 'getAll' },
	{ name: 'Get a campaign', resource: 'campaign', operation: 'get' },
	{ name: 'Get many reports', resource: 'report', operation: 'getAll' },
	{ name: 'Generate a report', resource: 'report', operation: 'generate' },
	{ name: 'Get a report', resource: 'report', operation: 'get' },
	{ name: 'Download a report', resource: 'report', operation: 'download' },
	{ name: 'Run a diagnostic', resource: 'diagnostic', operation: 'run' },
	{ name: 'Get a diagnostic', resource: 'diagnostic', operation: 'get' },
	{ name: 'Wait for Ad Report', wait: true },
];

/** The tool name n8n gives a node (n8n-workflow's nodeNameToToolName). */
export function toolName(nodeName) {
	return nodeName.replace(/[^a-zA-Z0-9_-]+/g, '_').slice(0, 64);
}

/**
 * A tool node as a user adds it: resource and operation only (and `extra` parameters when a test
 * stands for a user who changed something, e.g. Return All).
 */
export function toolNode(op, credential, { extra = {}, name = op.name } = {}) {
	return {
		name,
		type: op.wait ? WAIT_TOOL_TYPE : AD_TOOL_TYPE,
		typeVersion: 1,
		credentials: { adPerformanceApi: credential },
		parameters: op.wait
			? { ...extra }
			: { resource: op.resource, operation: op.operation, ...extra },
	};
}

function connectTools(connections, tools, target) {
	for (const tool of tools)
		connections[tool.name] = { ai_tool: [[{ node: target, type: 'ai_tool', index: 0 }]] };
}

/**
 * Webhook (POST /webhook/<path>, body { chatInput }) → AI Agent 3.1 (prompt defined below from the
 * body) with n8n's OpenAI Chat Model (Chat Completions API, model given by ID) and `tools`. The
 * webhook answers with the agent's output once the run has ended.
 */
export function agentWorkflow({ name, path, openAiCredential, tools }) {
	const webhook = {
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2.1,
		webhookId: crypto.randomUUID(),
		parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', options: {} },
	};
	const agent = {
		name: 'AI Agent',
		type: '@n8n/n8n-nodes-langchain.agent',
		typeVersion: 3.1,
		parameters: { promptType: 'define', text: '={{ $json.body.chatInput }}', options: {} },
	};
	const model = {
		name: 'OpenAI Chat Model',
		type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
		typeVersion: 1.3,
		credentials: { openAiApi: openAiCredential },
		parameters: {
			model: { __rl: true, mode: 'id', value: 'scripted-model' },
			// 1.3 defaults to OpenAI's Responses API; a compatible local model speaks Chat Completions
			responsesApiEnabled: false,
			options: {},
		},
	};
	const connections = {
		[webhook.name]: { main: [[{ node: agent.name, type: 'main', index: 0 }]] },
		[model.name]: {
			ai_languageModel: [[{ node: agent.name, type: 'ai_languageModel', index: 0 }]],
		},
	};
	connectTools(connections, tools, agent.name);
	return { name, nodes: [webhook, agent, model, ...tools], connections };
}

/** MCP Server Trigger (2.1, no authentication, /mcp/<path>) with `tools`. */
export function mcpWorkflow({ name, path, tools }) {
	const trigger = {
		name: 'MCP Server Trigger',
		type: '@n8n/n8n-nodes-langchain.mcpTrigger',
		typeVersion: 2.1,
		webhookId: crypto.randomUUID(),
		parameters: { path, authentication: 'none' },
	};
	const connections = {};
	connectTools(connections, tools, trigger.name);
	return { name, nodes: [trigger, ...tools], connections };
}
