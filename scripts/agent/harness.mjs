// Everything the agent tests run against, started once: the sandbox (fake service, own process),
// the scripted model, and a real n8n (the `latest` line of install-n8n.mjs) with the packed package
// as a user install, the credentials and the given workflows published.
//
//   const h = await startAgentHarness({ tarball, workflows: [agentWorkflow(...), mcpWorkflow(...)] });
//   h.model.plan('#q1', [{ call: 'Get_many_accounts', args: {} }, { say: 'done' }]);
//   const answer = await h.ask('agent-live', '#q1 Which accounts do I have?');
//   const url = h.mcpUrl('ad-performance');   // for the MCP SDK's StreamableHTTPClientTransport
//   await h.stop();
import fs from 'node:fs';
import path from 'node:path';

import { createInstance } from '../e2e/n8n-instance.mjs';
import { startFakeProcess } from '../e2e/sandbox-process.mjs';
import { startScriptedModel } from './scripted-model.mjs';

export const SERVICE_VERSION = '2026-03-01';
/** Credential references for workflows (ids are fixed; the data is filled in at start). */
export const CREDENTIALS = Object.freeze({
	adLive: { id: 'adperf-agent-live', name: 'Ad Performance sandbox' },
	adRevoked: { id: 'adperf-agent-revoked', name: 'Ad Performance revoked key' },
	openAi: { id: 'openai-scripted', name: 'Scripted model' },
});

/**
 * @param {{
 *   tarball: string,                  // from packPackage()
 *   workflows: object[],              // imported and published, in order
 *   unpublished?: object[],           // imported only (ids follow those of `workflows`)
 *   credentials?: object[],           // more credentials to import ({ id, name, type, data })
 *   timeScale?: number,               // sandbox clock (and the credential's Time Scale)
 *   prepareSandbox?: (sandbox) => Promise<void>,  // e.g. add accounts before n8n starts
 *   log?: (line: string) => void,
 * }} options
 */
export async function startAgentHarness({
	tarball,
	workflows,
	unpublished = [],
	credentials = [],
	timeScale = 0.02,
	prepareSandbox,
	log = () => {},
}) {
	const stops = [];
	const harness = {
		async stop() {
			for (const stop of stops.reverse()) await stop().catch((e) => log(`stop: ${e.message}`));
			stops.length = 0;
		},
	};
	try {
		const sandbox = await startFakeProcess({ timeScale });
		stops.push(() => sandbox.stop());
		if (prepareSandbox) await prepareSandbox(sandbox);
		const model = await startScriptedModel({ log });
		stops.push(() => model.close());
		const n8n = await createInstance({ line: 'latest', packageTarball: tarball, log });
		stops.push(() => n8n.dispose());
		await n8n.importCredentials([
			{
				...CREDENTIALS.adLive,
				type: 'adPerformanceApi',
				data: sandbox.credentialData(),
			},
			{
				...CREDENTIALS.adRevoked,
				type: 'adPerformanceApi',
				data: {
					apiKey: sandbox.keys.revoked,
					baseUrl: sandbox.url,
					apiVersion: SERVICE_VERSION,
					timeScale,
				},
			},
			// n8n's OpenAI credential; Base URL is the field `url`
			{
				...CREDENTIALS.openAi,
				type: 'openAiApi',
				data: { apiKey: 'sk-scripted-model', url: model.url },
			},
			...credentials,
		]);
		const workflowIds = await n8n.importWorkflows([...workflows, ...unpublished]);
		// Published through the CLI before the server starts, as test:scale does: that route stores
		// the version without the editor's pre-publish check of required parameters, so the workflows
		// run whatever that check says (a test can try the editor's route on `unpublished` copies).
		for (const id of workflowIds.slice(0, workflows.length)) await n8n.publishWorkflow(id);
		const server = await n8n.start();
		for (const id of workflowIds.slice(0, workflows.length)) await n8n.waitUntilPublished(id);

		Object.assign(harness, {
			n8n,
			server,
			sandbox,
			model,
			timeScale,
			/** ids of `workflows`, then of `unpublished`, in order */
			workflowIds,
			/**
			 * Publishes a workflow the way the editor's Publish button does (REST, with n8n's
			 * pre-publish validation): { status, text, json }.
			 */
			publishFromEditor: async (id) => {
				const wf = await server.request('GET', `/rest/workflows/${id}`);
				return server.request('POST', `/rest/workflows/${id}/activate`, {
					versionId: wf.json?.data?.versionId,
				});
			},
			/** The sandbox's request log (API keys are in its headers: do not print it whole). */
			sandboxLog: async () => (await sandbox.log()).data,
			/**
			 * Sends `chatInput` to the agent workflow behind POST /webhook/<path> and resolves when the
			 * run has ended: { status, json, text } of the webhook's answer (the agent's output).
			 */
			async ask(webhookPath, chatInput, { timeoutMs = 180_000 } = {}) {
				const res = await fetch(`${server.baseUrl}/webhook/${webhookPath}`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ chatInput }),
					signal: AbortSignal.timeout(timeoutMs),
				});
				const text = await res.text();
				let json;
				try {
					json = JSON.parse(text);
				} catch {}
				return { status: res.status, json, text };
			},
			/** Production URL of an MCP Server Trigger with this path. */
			mcpUrl: (triggerPath) => `${server.baseUrl}/mcp/${triggerPath}`,
			/** The last warnings and errors of the n8n server log (no stack lines). */
			serverLogTail: (lines = 15) =>
				fs.existsSync(server.logFile)
					? fs
							.readFileSync(server.logFile, 'utf8')
							.split('\n')
							.filter(
								(l) =>
									/error|fail|warn|invalid|issue/i.test(l) &&
									!/^\s+at |api\.n8n\.io|system task/i.test(l),
							)
							.slice(-lines)
							.join('\n')
					: '',
			/** Writes the model's request log (everything offered and received) to `dir`. */
			saveModelLog(dir, name = 'model-requests.json') {
				fs.mkdirSync(dir, { recursive: true });
				const file = path.join(dir, name);
				fs.writeFileSync(file, JSON.stringify(model.requests, null, 2));
				return file;
			},
		});
		return harness;
	} catch (error) {
		await harness.stop();
		throw error;
	}
}
