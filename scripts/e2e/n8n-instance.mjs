// A throwaway n8n for end-to-end tests, on either installed line (see install-n8n.mjs).
//
//   import { createInstance } from './n8n-instance.mjs';
//   const n8n = await createInstance({ line: 'latest', packageTarball: '/path/n8n-nodes-x-0.1.0.tgz' });
//   await n8n.importCredentials([{ id: 'cred1', name: 'My API', type: 'adPerformanceApi', data: {...} }]);
//   const wfId = await n8n.importWorkflow({ name: 'wf', nodes: [...], connections: {...} });
//   const ids = await n8n.importWorkflows([wf1, wf2]);  // one CLI start for several
//   await n8n.publishWorkflow(wfId);                   // 2.x publish / 1.x activate (REST once started)
//   await n8n.waitUntilPublished(wfId);                // 2.x: its triggers are live (server started)
//   const { exitCode, result } = await n8n.execute(wfId);
//   const nodes = await n8n.exportNodes();            // node type descriptions n8n loaded
//   const server = await n8n.start();                 // { baseUrl, cookie, email, password, request() }
//   const worker = await n8n.startWorker({ concurrency: 5 }); // queue mode (env: EXECUTIONS_MODE=queue, …)
//   await n8n.stop();
//   await n8n.dispose();                              // stop + delete the user folder (unless keep)
//
// The community package is unpacked into <userFolder>/.n8n/nodes/node_modules/<name> with
// <userFolder>/.n8n/nodes/package.json listing it, the layout a user install in n8n leaves; n8n
// then loads it as `<name>.<node>` (e.g. `n8n-nodes-ad-performance.adPerformance`).

import { spawn, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { installedLine, ensureLine } from './install-n8n.mjs';

export const OWNER = Object.freeze({ email: 'e2e-owner@example.com', firstName: 'E2E', lastName: 'Owner', password: 'E2e-Passw0rd!' });

/**
 * n8n processes run in their own process group (so that stopping one also ends its task
 * runners). Such a group outlives this process unless it is killed: do that on exit, on an
 * uncaught error and on SIGINT/SIGTERM/SIGHUP.
 */
const liveGroups = new Set();
let reaperInstalled = false;
function track(pid) {
	liveGroups.add(pid);
	if (reaperInstalled) return;
	reaperInstalled = true;
	const killAll = () => {
		for (const g of liveGroups) {
			try {
				process.kill(-g, 'SIGKILL');
			} catch {}
		}
		liveGroups.clear();
	};
	process.on('exit', killAll);
	for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
		const handler = () => {
			// A program with its own handler (npm start) stops n8n gracefully itself; the 'exit'
			// hook above still kills whatever it left.
			if (process.listenerCount(sig) > 1) return;
			killAll();
			process.off(sig, handler);
			process.kill(process.pid, sig); // default action (exit) once the groups are gone
		};
		process.on(sig, handler);
	}
}
function untrack(pid) {
	liveGroups.delete(pid);
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort() {
	return new Promise((resolve, reject) => {
		const srv = net.createServer();
		srv.unref();
		srv.once('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = /** @type {net.AddressInfo} */ (srv.address());
			srv.close(() => resolve(port));
		});
	});
}

/**
 * The credentials the examples name, bound to a fake service (scripts/e2e/sandbox-process.mjs)
 * and a mail catcher (scripts/mail/mail-catcher.mjs), as `npm start` binds them.
 */
export function demoCredentials(fake, mail) {
	return [
		{ id: 'adperf-sandbox', name: 'Ad Performance sandbox', type: 'adPerformanceApi', data: fake.credentialData() },
		{ id: 'smtp-agency', name: 'Demo mail catcher (SMTP)', type: 'smtp', data: mail.credentialData() },
	];
}

/** n8n-style workflow/credential id: 16 alphanumerics. */
export function newId() {
	const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
	return Array.from(crypto.randomBytes(16), (b) => alphabet[b % alphabet.length]).join('');
}

/** Parses `n8n execute --rawOutput` stdout: JSON from the first line that starts with `{`. */
/**
 * n8n keeps run data in the `flatted` format: a JSON array whose first entry is the root, and in
 * which every string and every object inside an object or array is the index of its entry.
 */
export function unflatten(text) {
	const table = JSON.parse(text);
	const built = new Map();
	const entry = (index) => {
		const value = table[index];
		if (typeof value !== 'object' || value === null) return value;
		if (built.has(index)) return built.get(index);
		const out = Array.isArray(value) ? [] : {};
		built.set(index, out);
		for (const [key, item] of Object.entries(value))
			out[key] = typeof item === 'string' ? entry(Number(item)) : item;
		return out;
	};
	return entry(0);
}

/**
 * The run of an execution as n8n stores it (`data` of GET /rest/executions/<id>, unflattened),
 * through a started server's owner session: { status, resultData, … }.
 */
export async function executionRun(server, executionId) {
	const r = await server.request('GET', `/rest/executions/${executionId}`);
	if (r.status !== 200)
		throw new Error(`GET /rest/executions/${executionId} answered ${r.status}: ${r.text.slice(0, 300)}`);
	const data = r.json.data.data;
	return { status: r.json.data.status, ...(typeof data === 'string' ? unflatten(data) : data) };
}

export function parseExecuteOutput(stdout) {
	const lines = stdout.split(/\r?\n/);
	const start = lines.findIndex((l) => l.startsWith('{'));
	if (start < 0) return undefined;
	const rest = lines.slice(start);
	// log lines may follow the JSON: shrink from the end until it parses
	for (let end = rest.length; end > 0; end--) {
		if (!rest[end - 1].startsWith('}')) continue;
		try {
			return JSON.parse(rest.slice(0, end).join('\n'));
		} catch {}
	}
	return undefined;
}

/**
 * @param {{
 *   line?: 'latest'|'1.x',
 *   packageTarball?: string,           // from `npm pack`; omitted: no community package
 *   userFolder?: string,               // default: a new folder under os.tmpdir()
 *   encryptionKey?: string,
 *   env?: Record<string,string>,       // extra env for every n8n process
 *   keep?: boolean,                    // dispose() keeps the user folder
 *   install?: boolean,                 // install the line when it is missing (minutes)
 *   log?: (line: string) => void,      // progress / n8n server output
 * }} [options]
 */
export async function createInstance(options = {}) {
	const line = options.line ?? 'latest';
	let info;
	try {
		info = installedLine(line);
	} catch (e) {
		if (!options.install) throw e;
		info = await ensureLine(line);
	}
	const log = options.log ?? (() => {});
	const userFolder = options.userFolder ?? fs.mkdtempSync(path.join(os.tmpdir(), `n8n-e2e-${line.replace(/\W/g, '')}-`));
	fs.mkdirSync(userFolder, { recursive: true });
	const n8nDir = path.join(userFolder, '.n8n');
	const nodesDir = path.join(n8nDir, 'nodes');
	const workDir = path.join(userFolder, 'e2e-files');
	fs.mkdirSync(nodesDir, { recursive: true });
	fs.mkdirSync(workDir, { recursive: true });
	const encryptionKey = options.encryptionKey ?? crypto.randomBytes(24).toString('hex');

	let packageInfo;
	if (options.packageTarball) packageInfo = installPackageTarball(options.packageTarball, nodesDir, info);

	const baseEnv = (extra = options.env) => {
		const env = { ...process.env };
		for (const k of Object.keys(env)) if (k.startsWith('N8N_') || k.startsWith('DB_') || k.toLowerCase().startsWith('npm_')) delete env[k];
		return {
			...env,
			PATH: `${info.pathPrefix}${path.delimiter}${process.env.PATH}`,
			N8N_USER_FOLDER: userFolder,
			N8N_ENCRYPTION_KEY: encryptionKey,
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			N8N_PERSONALIZATION_ENABLED: 'false',
			N8N_HIRING_BANNER_ENABLED: 'false',
			N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
			N8N_DEFAULT_BINARY_DATA_MODE: 'default',
			N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
			N8N_LOG_LEVEL: 'info',
			N8N_LOG_OUTPUT: 'console',
			DB_TYPE: 'sqlite',
			NODE_ENV: 'production',
			// n8n ≥ 1.123.7x evaluates expressions in isolated-vm by default; that native addon needs
			// Node ≥ 22, so under Node 20 the only engine that starts is the (deprecated) legacy one
			...(vmEngineAvailable(info) ? {} : { N8N_EXPRESSION_ENGINE: 'legacy' }),
			...extra,
		};
	};

	// A fresh SQLite database is migrated by the first n8n process that opens it (about 5 s on
	// 2.x, every instance): start from a copy of one migrated once per installed version instead.
	const ownDatabase = Object.keys(options.env ?? {}).some((k) => k.startsWith('DB_'));
	if (!ownDatabase && options.migratedDatabase !== false && !fs.existsSync(path.join(n8nDir, 'database.sqlite')))
		await seedMigratedDatabase(info, n8nDir, baseEnv, log);

	/** Runs one n8n CLI command to completion. */
	async function cli(args, { timeoutMs = 180_000, env: extraEnv = {} } = {}) {
		return await runN8nCommand(info, args, { cwd: workDir, env: { ...baseEnv(), ...extraEnv }, timeoutMs });
	}

	function writeInput(name, value) {
		const file = path.join(workDir, `${name}-${Date.now()}-${crypto.randomBytes(3).toString('hex')}.json`);
		fs.writeFileSync(file, JSON.stringify(value, null, 2));
		return file;
	}

	function expectOk(what, r) {
		if (r.exitCode !== 0) throw new Error(`${what} failed (exit ${r.exitCode})\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`);
		return r;
	}

	let server; // { child, port, baseUrl, ... }
	const workers = [];

	const instance = {
		line,
		version: info.version,
		nodeVersion: info.nodeVersion,
		userFolder,
		encryptionKey,
		package: packageInfo,
		/** Raw access to the CLI: `n8n <args>`. */
		cli,
		/**
		 * Imports credentials (plain values; n8n encrypts them). Missing ids are generated.
		 * @param {Array<{id?: string, name: string, type: string, data: object}>} creds
		 * @returns {Promise<string[]>} the ids
		 */
		async importCredentials(creds) {
			const list = creds.map((c) => ({ ...c, id: c.id ?? newId() }));
			const file = writeInput('credentials', list);
			expectOk('n8n import:credentials', await cli(['import:credentials', `--input=${file}`]));
			return list.map((c) => c.id);
		},
		/**
		 * Imports one workflow; returns its id (generated when absent).
		 * @param {{id?: string, name?: string, nodes: object[], connections: object, settings?: object}} wf
		 */
		async importWorkflow(wf) {
			const [id] = await instance.importWorkflows([wf]);
			return id;
		},
		/**
		 * Imports several workflows with one `n8n import:workflow` (one CLI start instead of one per
		 * workflow); returns their ids in order.
		 * @param {Array<{id?: string, name?: string, nodes: object[], connections: object, settings?: object}>} wfs
		 */
		async importWorkflows(wfs) {
			const list = wfs.map((wf) => ({
				name: 'e2e workflow',
				active: false,
				settings: { executionOrder: 'v1' },
				pinData: {},
				...wf,
				id: wf.id ?? newId(),
				nodes: wf.nodes.map((n, i) => ({ id: crypto.randomUUID(), position: [i * 220, 0], typeVersion: 1, parameters: {}, ...n })),
			}));
			const file = writeInput('workflow', list.length === 1 ? list[0] : list);
			expectOk('n8n import:workflow', await cli(['import:workflow', `--input=${file}`]));
			return list.map((wf) => wf.id);
		},
		/**
		 * Makes a workflow's triggers and webhooks live. 2.x publishes its current version, 1.x
		 * activates it. With the server running this goes through its REST API, as the editor's
		 * Publish/Activate button does (n8n's pre-publish checks included; the running server registers
		 * the webhooks), then waits until they are live; otherwise through the CLI
		 * (`publish:workflow`, or `update:workflow --active=true` on 1.x), which a server started later
		 * picks up (see waitUntilPublished).
		 */
		async publishWorkflow(workflowId) {
			if (server?.handle) {
				const { request } = server.handle;
				const wf = await request('GET', `/rest/workflows/${workflowId}`);
				if (wf.status !== 200) throw new Error(`GET /rest/workflows/${workflowId} answered ${wf.status}: ${wf.text.slice(0, 500)}`);
				const { versionId } = wf.json.data;
				let r = await request('POST', `/rest/workflows/${workflowId}/activate`, { versionId });
				// 1.x has no publish route: activation is a PATCH of `active`
				if (r.status === 404) r = await request('PATCH', `/rest/workflows/${workflowId}`, { active: true, versionId });
				if (r.status !== 200) throw new Error(`could not publish workflow ${workflowId}: HTTP ${r.status} ${r.text.slice(0, 1000)}`);
				await instance.waitUntilPublished(workflowId);
				return r.json.data;
			}
			const r = await cli(['publish:workflow', `--id=${workflowId}`]);
			if (r.exitCode === 0 && !/not found/i.test(r.stderr)) return undefined;
			const old = await cli(['update:workflow', `--id=${workflowId}`, '--active=true']);
			if (old.exitCode !== 0) throw new Error(`could not activate workflow ${workflowId}:\n${r.stderr}\n${old.stderr}`);
			return undefined;
		},
		/**
		 * With the server running, waits until a published workflow's triggers are live. n8n 2.x
		 * activates published workflows in the background (its publication outbox), also after the
		 * server reports ready: until then a production webhook answers 404. Asks
		 * GET /rest/workflows/<id>/publication-status; a server without that route (1.x) activates
		 * synchronously, so there is nothing to wait for.
		 */
		async waitUntilPublished(workflowId, { timeoutMs = 60_000 } = {}) {
			if (!server?.handle) throw new Error('waitUntilPublished needs the server: call start() first');
			const started = Date.now();
			for (;;) {
				const r = await server.handle.request('GET', `/rest/workflows/${workflowId}/publication-status`);
				if (r.status === 404) return undefined;
				const status = r.json?.data?.status;
				if (status === 'published') return r.json.data;
				if (status === 'failed' || status === 'partial') throw new Error(`workflow ${workflowId} publication ${status}: ${JSON.stringify(r.json.data.triggers)}`);
				if (Date.now() - started > timeoutMs) throw new Error(`workflow ${workflowId} not live after ${timeoutMs} ms (publication status: HTTP ${r.status} ${r.text.slice(0, 500)})`);
				await new Promise((res) => setTimeout(res, 250));
			}
		},
		/**
		 * Runs a workflow with `n8n execute --id=… --rawOutput`.
		 * @returns {Promise<{exitCode: number, result: any, stdout: string, stderr: string, durationMs: number}>}
		 */
		async execute(workflowId, { timeoutMs = 300_000 } = {}) {
			const r = await cli(['execute', `--id=${workflowId}`, '--rawOutput'], { timeoutMs });
			return { ...r, result: parseExecuteOutput(r.stdout) };
		},
		/**
		 * Node type descriptions n8n loaded (`n8n export:nodes`). n8n releases before that command
		 * existed (e.g. 1.85) are asked through the server's /types/nodes.json instead.
		 */
		async exportNodes() {
			const file = path.join(workDir, `nodes-${Date.now()}.json`);
			const r = await cli(['export:nodes', `--output=${file}`]);
			if (r.exitCode !== 0 && /command export:nodes not found/.test(r.stderr)) {
				const running = Boolean(server);
				const handle = await instance.start();
				const types = await handle.request('GET', '/types/nodes.json');
				if (!running) await instance.stop();
				if (types.status !== 200) throw new Error(`GET /types/nodes.json answered ${types.status}`);
				return types.json;
			}
			expectOk('n8n export:nodes', r);
			return JSON.parse(fs.readFileSync(file, 'utf8'));
		},
		/**
		 * Starts `n8n start` on 127.0.0.1 with a free port, waits for /healthz/readiness and sets up
		 * the owner (POST /rest/owner/setup). Resolves the server handle.
		 */
		async start({ timeoutMs = 120_000, setupOwner = true, port: requestedPort } = {}) {
			if (server) return server.handle;
			const port = requestedPort ?? (await freePort());
			const brokerPort = await freePort();
			const env = {
				...baseEnv(),
				N8N_PORT: String(port),
				N8N_LISTEN_ADDRESS: '127.0.0.1',
				N8N_HOST: '127.0.0.1',
				N8N_PROTOCOL: 'http',
				N8N_SECURE_COOKIE: 'false',
				N8N_RUNNERS_BROKER_PORT: String(brokerPort),
				N8N_EDITOR_BASE_URL: `http://127.0.0.1:${port}/`,
				WEBHOOK_URL: `http://127.0.0.1:${port}/`,
			};
			const started = Date.now();
			const child = spawn(info.nodeBin, [info.n8nBin, 'start'], { cwd: workDir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
			track(child.pid);
			const logFile = path.join(workDir, `server-${port}.log`);
			const out = fs.createWriteStream(logFile);
			let exited = null;
			child.stdout.on('data', (d) => {
				out.write(d);
				for (const l of String(d).split('\n')) if (l.trim()) log(`[n8n ${line}] ${l}`);
			});
			child.stderr.on('data', (d) => {
				out.write(d);
				for (const l of String(d).split('\n')) if (l.trim()) log(`[n8n ${line}!] ${l}`);
			});
			const exitPromise = new Promise((resolve) =>
				child.on('exit', (code, signal) => {
					exited = { code, signal };
					resolve(exited);
				}),
			);
			const baseUrl = `http://127.0.0.1:${port}`;
			server = { child, port, baseUrl, logFile, exitPromise };
			try {
				for (;;) {
					if (exited) throw new Error(`n8n start exited early (${JSON.stringify(exited)}); log ${logFile}:\n${fs.readFileSync(logFile, 'utf8').slice(-4000)}`);
					if (Date.now() - started > timeoutMs) throw new Error(`n8n not ready after ${timeoutMs} ms; log ${logFile}`);
					try {
						const res = await fetch(`${baseUrl}/healthz/readiness`);
						if (res.ok) break;
					} catch {}
					await new Promise((r) => setTimeout(r, 250));
				}
			} catch (e) {
				await instance.stop();
				throw e;
			}
			const readyMs = Date.now() - started;
			const browserId = crypto.randomUUID();
			let cookie;
			const request = async (method, urlPath, body, headers = {}) => {
				const res = await fetch(`${baseUrl}${urlPath}`, {
					method,
					headers: {
						'browser-id': browserId,
						...(cookie ? { cookie } : {}),
						...(body !== undefined ? { 'content-type': 'application/json' } : {}),
						...headers,
					},
					body: body === undefined ? undefined : JSON.stringify(body),
				});
				const text = await res.text();
				let json;
				try {
					json = JSON.parse(text);
				} catch {}
				return { status: res.status, headers: res.headers, text, json };
			};
			if (setupOwner) {
				try {
					// readiness answers before the REST controllers are mounted: retry while the route is missing
					let r;
					for (;;) {
						r = await request('POST', '/rest/owner/setup', { email: OWNER.email, firstName: OWNER.firstName, lastName: OWNER.lastName, password: OWNER.password });
						if (r.status !== 404 || Date.now() - started > timeoutMs || exited) break;
						await new Promise((res) => setTimeout(res, 250));
					}
					if (r.status === 400 && /already/i.test(r.text)) {
						// A kept user folder (npm start): the owner exists, log in instead.
						r = await request('POST', '/rest/login', { emailOrLdapLoginId: OWNER.email, email: OWNER.email, password: OWNER.password });
					}
					if (r.status !== 200) throw new Error(`owner setup failed: HTTP ${r.status} ${r.text.slice(0, 500)}`);
					const setCookie = r.headers.getSetCookie?.() ?? [r.headers.get('set-cookie')];
					const auth = setCookie.map((c) => c && c.split(';')[0]).find((c) => c?.startsWith('n8n-auth='));
					if (!auth) throw new Error(`owner setup returned no n8n-auth cookie (${JSON.stringify(setCookie)})`);
					cookie = auth;
				} catch (e) {
					await instance.stop();
					throw e;
				}
			}
			server.handle = {
				port,
				baseUrl,
				logFile,
				/** ms from spawn to /healthz/readiness answering 200 */
				readyMs,
				/** ms from spawn to the owner being set up (REST API usable) */
				usableMs: Date.now() - started,
				cookie,
				browserId,
				email: OWNER.email,
				password: OWNER.password,
				owner: { ...OWNER },
				/** fetch against the server with the owner's cookie and browser id; JSON in and out */
				request,
			};
			return server.handle;
		},
		/** Stops the server started by start() (SIGTERM, then SIGKILL after graceMs). */
		async stop({ graceMs = 15_000 } = {}) {
			if (!server) return;
			const { child, exitPromise } = server;
			server = undefined;
			if (child.exitCode === null && child.signalCode === null) {
				try {
					process.kill(-child.pid, 'SIGTERM');
				} catch {}
				const timer = setTimeout(() => {
					try {
						process.kill(-child.pid, 'SIGKILL');
					} catch {}
				}, graceMs);
				await exitPromise;
				clearTimeout(timer);
			}
			// task runners and other children of the group
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch {}
			untrack(child.pid);
		},
		/**
		 * Starts an `n8n worker` (queue mode: pass EXECUTIONS_MODE=queue, the database and Redis in
		 * `env` of createInstance). Resolves once the worker says it is ready. The worker shares the
		 * user folder, so it loads the same installed community packages as the main process.
		 * @returns {Promise<{name: string, pid: number, logFile: string, log: () => string, kill: (signal?: string) => void, stop: () => Promise<void>, exited: () => boolean}>}
		 */
		async startWorker({ name = `worker-${workers.length + 1}`, concurrency = 5, timeoutMs = 120_000, env: extraEnv = {} } = {}) {
			const brokerPort = await freePort();
			const healthPort = await freePort();
			const env = {
				...baseEnv(),
				N8N_RUNNERS_BROKER_PORT: String(brokerPort),
				QUEUE_HEALTH_CHECK_PORT: String(healthPort),
				N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
				...extraEnv,
			};
			const child = spawn(info.nodeBin, [info.n8nBin, 'worker', `--concurrency=${concurrency}`], { cwd: workDir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
			track(child.pid);
			const logFile = path.join(workDir, `${name}.log`);
			const out = fs.createWriteStream(logFile);
			let text = '';
			let exitInfo = null;
			const onData = (d) => {
				out.write(d);
				text += d;
				for (const l of String(d).split('\n')) if (l.trim()) log(`[n8n ${name}] ${l}`);
			};
			child.stdout.on('data', onData);
			child.stderr.on('data', onData);
			const exitPromise = new Promise((resolve) =>
				child.on('exit', (code, signal) => {
					exitInfo = { code, signal };
					untrack(child.pid);
					resolve(exitInfo);
				}),
			);
			const worker = {
				name,
				pid: child.pid,
				logFile,
				log: () => text,
				exited: () => exitInfo !== null,
				/** Sends a signal to the worker's process group (SIGKILL: a crash, no shutdown). */
				kill(signal = 'SIGKILL') {
					try {
						process.kill(-child.pid, signal);
					} catch {}
				},
				async stop({ graceMs = 15_000 } = {}) {
					if (!exitInfo) {
						worker.kill('SIGTERM');
						const timer = setTimeout(() => worker.kill('SIGKILL'), graceMs);
						await exitPromise;
						clearTimeout(timer);
					}
					worker.kill('SIGKILL'); // its task runners
				},
			};
			workers.push(worker);
			const started = Date.now();
			while (!/n8n worker is now ready/.test(text)) {
				if (exitInfo) throw new Error(`n8n worker ${name} exited early (${JSON.stringify(exitInfo)}):\n${text.slice(-4000)}`);
				if (Date.now() - started > timeoutMs) {
					await worker.stop();
					throw new Error(`n8n worker ${name} not ready after ${timeoutMs} ms:\n${text.slice(-4000)}`);
				}
				await new Promise((r) => setTimeout(r, 250));
			}
			return worker;
		},
		/** The workers started by startWorker(), in start order. */
		workers,
		/** stop() and remove the user folder unless `keep` was set. */
		async dispose() {
			await Promise.all(workers.map((w) => w.stop()));
			await instance.stop();
			if (!options.keep && !options.userFolder) fs.rmSync(userFolder, { recursive: true, force: true });
		},
	};
	return instance;
}

/** Migrated empty databases made by this process, by install folder (one build at a time). */
const migratedDatabases = new Map();

/**
 * Runs one n8n CLI command (`n8n <args>`) to completion in its own process group, on a free task
 * runner broker port; the group is killed when the command ends (the CLI may leave a task-runner
 * child behind) or when it runs past `timeoutMs`, which rejects.
 */
async function runN8nCommand(info, args, { cwd, env, timeoutMs = 180_000 }) {
	const brokerPort = await freePort();
	const started = Date.now();
	return new Promise((resolve, reject) => {
		const child = spawn(info.nodeBin, [info.n8nBin, ...args], {
			cwd,
			env: { ...env, N8N_RUNNERS_BROKER_PORT: String(brokerPort) },
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: true,
		});
		track(child.pid);
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (d) => (stdout += d));
		child.stderr.on('data', (d) => (stderr += d));
		const killGroup = () => {
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch {}
		};
		const timer = setTimeout(() => {
			killGroup();
			reject(new Error(`n8n ${args.join(' ')} timed out after ${timeoutMs} ms\n${stdout}\n${stderr}`));
		}, timeoutMs);
		child.on('error', reject);
		child.on('close', (code) => {
			clearTimeout(timer);
			killGroup();
			untrack(child.pid);
			resolve({ exitCode: code ?? 1, stdout, stderr, durationMs: Date.now() - started });
		});
	});
}

/**
 * Copies an empty SQLite database that n8n of `info` has migrated into `n8nDir`
 * (<N8N_USER_FOLDER>/.n8n). The database is made once per install, by
 * `n8n import:credentials` of nothing in a scratch user folder with the instances' own
 * environment (no community package, no options.env), and kept in <install>/.e2e-migrated-db/
 * (deleted with the install). It holds what migrations write: the tables, the roles, the
 * settings rows and the not yet set up owner with its personal project; nothing in it depends on
 * the encryption key. Its files (with SQLite's write-ahead log when n8n left one) are copied, not
 * linked: every instance has its own database.
 */
async function seedMigratedDatabase(info, n8nDir, baseEnv, log) {
	const templateDir = path.join(info.dir, '.e2e-migrated-db');
	const done = path.join(templateDir, 'database.sqlite');
	if (!fs.existsSync(done)) {
		if (!migratedDatabases.has(info.dir)) migratedDatabases.set(info.dir, buildMigratedDatabase(info, templateDir, baseEnv, log).finally(() => migratedDatabases.delete(info.dir)));
		await migratedDatabases.get(info.dir);
	}
	for (const file of ['database.sqlite', 'database.sqlite-wal']) {
		const from = path.join(templateDir, file);
		if (fs.existsSync(from)) fs.copyFileSync(from, path.join(n8nDir, file));
	}
}

async function buildMigratedDatabase(info, templateDir, baseEnv, log) {
	const started = Date.now();
	const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-migrate-'));
	try {
		const input = path.join(scratch, 'none.json');
		fs.writeFileSync(input, '[]');
		const env = baseEnv({}); // the instances' environment without their options.env
		const result = await runN8nCommand(info, ['import:credentials', `--input=${input}`], { cwd: scratch, env: { ...env, N8N_USER_FOLDER: scratch } });
		if (result.exitCode !== 0) throw new Error(`migrating an empty database for n8n ${info.version} failed (exit ${result.exitCode}):\n${(result.stdout + result.stderr).slice(-4000)}`);
		// built beside, renamed into place: a reader sees a whole database or none
		const partial = fs.mkdtempSync(`${templateDir}.partial-`);
		for (const file of ['database.sqlite', 'database.sqlite-wal']) {
			const from = path.join(scratch, '.n8n', file);
			if (fs.existsSync(from)) fs.copyFileSync(from, path.join(partial, file));
		}
		if (!fs.existsSync(path.join(partial, 'database.sqlite'))) throw new Error(`n8n ${info.version} left no database in ${scratch}/.n8n`);
		try {
			fs.renameSync(partial, templateDir);
		} catch (e) {
			fs.rmSync(partial, { recursive: true, force: true }); // another process was first
			if (!fs.existsSync(path.join(templateDir, 'database.sqlite'))) throw e;
		}
		log(`migrated an empty database for n8n ${info.version} in ${Date.now() - started} ms (${templateDir})`);
	} finally {
		fs.rmSync(scratch, { recursive: true, force: true });
	}
}

/**
 * Unpacks an `npm pack` tarball as n8n's community-package install leaves it:
 * <nodesDir>/node_modules/<name>/…, and <nodesDir>/package.json listing the dependency.
 */
export function installPackageTarball(tarball, nodesDir, info) {
	const abs = path.resolve(tarball);
	if (!fs.existsSync(abs)) throw new Error(`package tarball not found: ${abs}`);
	const tmp = fs.mkdtempSync(path.join(nodesDir, '.unpack-'));
	try {
		execFileSync('tar', ['-xzf', abs, '-C', tmp]);
		const pkgRoot = path.join(tmp, 'package');
		const pj = JSON.parse(fs.readFileSync(path.join(pkgRoot, 'package.json'), 'utf8'));
		if (!/^(@[^/]+\/)?n8n-nodes-/.test(pj.name)) throw new Error(`${pj.name}: n8n only loads community packages named n8n-nodes-* (or @scope/n8n-nodes-*)`);
		const dest = path.join(nodesDir, 'node_modules', pj.name);
		fs.rmSync(dest, { recursive: true, force: true });
		fs.mkdirSync(path.dirname(dest), { recursive: true });
		fs.renameSync(pkgRoot, dest);
		const hostFile = path.join(nodesDir, 'package.json');
		const host = fs.existsSync(hostFile) ? JSON.parse(fs.readFileSync(hostFile, 'utf8')) : { name: 'installed-nodes', private: true, dependencies: {} };
		host.dependencies = { ...host.dependencies, [pj.name]: pj.version };
		fs.writeFileSync(hostFile, JSON.stringify(host, null, 2) + '\n');
		const deps = Object.keys(pj.dependencies ?? {});
		if (deps.length) {
			// n8n installs a package's runtime dependencies too; a strict (verified) package has none
			execFileSync(info?.nodeBin ?? process.execPath, [npmCliPath(), 'install', '--omit=dev', '--omit=peer', '--ignore-scripts', '--no-package-lock', '--no-audit', '--no-fund'], {
				cwd: dest,
				stdio: 'inherit',
				env: { ...process.env, PATH: `${info?.pathPrefix ?? path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}` },
			});
		}
		return { name: pj.name, version: pj.version, dir: dest, n8n: pj.n8n, dependencies: deps };
	} finally {
		fs.rmSync(tmp, { recursive: true, force: true });
	}
}

/** Whether the install has a working isolated-vm (needed by n8n's default `vm` expression engine). */
export function vmEngineAvailable(info) {
	return Boolean(info.builds?.built?.includes('isolated-vm'));
}

function npmCliPath() {
	const npmBin = execFileSync('bash', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
	const real = fs.realpathSync(npmBin);
	return real.endsWith('.js') ? real : path.join(path.dirname(real), 'npm-cli.js');
}
