#!/usr/bin/env node
// `npm start`: the demo. Builds and packs this package, starts the offline sandbox service on
// 127.0.0.1:4010, installs the latest n8n into a cache outside the clone (first run only, with
// progress), loads the package into a kept n8n user folder exactly as a user install does,
// imports a sandbox credential and the example workflows, and starts n8n on
// http://127.0.0.1:5678 with an owner account. Ctrl-C stops n8n and the sandbox.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

import { cacheRoot, ensureLine } from './e2e/install-n8n.mjs';
import { createInstance } from './e2e/n8n-instance.mjs';
import { packPackage, REPO_ROOT } from './e2e/pack.mjs';

const SANDBOX_PORT = Number(process.env.SANDBOX_PORT ?? 4010);
const N8N_PORT = Number(process.env.N8N_PORT_DEMO ?? 5678);
const say = (line) => process.stdout.write(`[start] ${line}\n`);

async function startSandbox() {
	const tsx = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
	const child = spawn(tsx, ['test/fake-service/cli.cts', '--json', '--port', String(SANDBOX_PORT), '--time-scale', '1'], {
		cwd: REPO_ROOT,
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const info = await new Promise((resolve, reject) => {
		readline.createInterface({ input: child.stdout }).once('line', (line) => resolve(JSON.parse(line)));
		child.once('exit', (code) => reject(new Error(`the sandbox exited (${code}); is port ${SANDBOX_PORT} free? Set SANDBOX_PORT to use another.`)));
	});
	return { ...info, child };
}

const userFolder = path.join(path.dirname(cacheRoot()), 'start-user');
fs.mkdirSync(userFolder, { recursive: true });
// The kept user folder keeps its credentials, so it keeps its encryption key too.
const keyFile = path.join(userFolder, 'demo-encryption-key');
if (!fs.existsSync(keyFile)) fs.writeFileSync(keyFile, crypto.randomBytes(24).toString('hex'));
const encryptionKey = fs.readFileSync(keyFile, 'utf8').trim();

say('building and packing the package…');
const { tarball } = await packPackage({ outDir: fs.mkdtempSync(path.join(os.tmpdir(), 'adperf-start-')) });
say('starting the sandbox service…');
const sandbox = await startSandbox();
say(`sandbox: ${sandbox.url} (keys: live ${sandbox.keys.live})`);
let n8n;
const stop = async () => {
	say('stopping…');
	await n8n?.stop().catch(() => {});
	sandbox.child.kill('SIGTERM');
	process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
say('making sure n8n is installed (the first run installs it: a few minutes)…');
await ensureLine('latest', { log: (line) => say(line) });

n8n = await createInstance({ line: 'latest', packageTarball: tarball, userFolder, encryptionKey, keep: true });
await n8n.importCredentials([
	{ id: 'adperf-sandbox', name: 'Ad Performance sandbox', type: 'adPerformanceApi', data: { apiKey: sandbox.keys.live, baseUrl: sandbox.url, apiVersion: '2026-03-01' } },
]);
const examplesDir = path.join(REPO_ROOT, 'examples');
for (const [index, file] of fs.readdirSync(examplesDir).filter((f) => f.endsWith('.json')).sort().entries()) {
	const workflow = JSON.parse(fs.readFileSync(path.join(examplesDir, file), 'utf8'));
	// Fixed ids: a second `npm start` updates the examples instead of adding copies.
	await n8n.importWorkflow({ ...workflow, id: `adperfExample${index + 1}` });
}
say('starting n8n…');
const server = await n8n.start({ port: N8N_PORT, timeoutMs: 180_000 });

process.stdout.write(`
  n8n with the Ad Performance nodes is running.

    Open:      ${server.baseUrl}
    Log in:    ${server.email}
    Password:  ${server.password}

  Already there: the credential "Ad Performance sandbox" (pointing at the offline sandbox
  ${sandbox.url}) and the example workflows. Try "Weekly client report e-mail": open the
  "Generate last week's report" node and click Execute step, or add an SMTP credential and run
  it all. The sandbox behaves like the real service: reports take 10–20 s, rate limits apply.

  n8n's log: ${server.logFile}
  Press Ctrl-C to stop n8n and the sandbox.
`);
