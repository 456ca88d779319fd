/**
 * Peak memory growth while Report → Download fetches a 50 MB report. The fake runs in a child
 * process (its CLI, steered through the /__fake control API) so its own buffers do not count;
 * n8n's binary data uses the mode the harness sets (test/harness/env.ts), measured below from
 * the id n8n gave the stored file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { SERVICE_VERSION } from '../../sandbox/index.cjs';
import { runWorkflow } from '../harness/run-workflow.cjs';
import { AD_NODE, credentialsFor } from './rows.cjs';

export interface MemoryResult {
	ok: boolean;
	how: string;
	fileBytes: number;
	rssGrowth: number;
	heapGrowth: number;
	note: string;
}

const FILE_BYTES = 50 * 1024 * 1024;

function collectGarbage(): void {
	try {
		setFlagsFromString('--expose-gc');
		const gc = runInNewContext('gc') as (() => void) | undefined;
		gc?.();
		gc?.();
	} catch {
		// Without a GC handle the baseline is taken as is.
	}
}

interface ChildFake {
	url: string;
	keys: { live: string };
	child: ChildProcess;
}

async function startChildFake(root: string, timeScale: number): Promise<ChildFake> {
	const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
	const child = spawn(
		tsx,
		[
			path.join(root, 'sandbox/cli.cts'),
			'--json',
			'--port',
			'0',
			'--time-scale',
			String(timeScale),
		],
		{ cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
	);
	return await new Promise<ChildFake>((resolve, reject) => {
		let out = '';
		let err = '';
		const timer = setTimeout(() => reject(new Error(`fake CLI did not start: ${err}`)), 30_000);
		child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
		child.stdout!.on('data', (chunk: Buffer) => {
			out += chunk.toString();
			const line = out.split('\n').find((l) => l.trim().startsWith('{'));
			if (line && out.includes('\n')) {
				clearTimeout(timer);
				const info = JSON.parse(line) as { url: string; keys: { live: string } };
				resolve({ ...info, child });
			}
		});
		child.once('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`fake CLI exited with ${code}: ${err}`));
		});
	});
}

async function control(fake: ChildFake, method: string, route: string, body?: unknown) {
	const response = await fetch(`${fake.url}/__fake${route}`, {
		method,
		headers: body ? { 'content-type': 'application/json' } : {},
		body: body ? JSON.stringify(body) : undefined,
	});
	const json = (await response.json()) as { data: unknown };
	if (!response.ok) throw new Error(`control ${method} ${route}: ${JSON.stringify(json)}`);
	return json.data;
}

export async function benchDownloadMemory(options: {
	root: string;
	timeScale: number;
	log: (line: string) => void;
}): Promise<MemoryResult> {
	const fake = await startChildFake(options.root, options.timeScale);
	try {
		const state = (await control(fake, 'GET', '/state')) as {
			reports: Array<{ id: string; status: string; format: string }>;
		};
		const report = state.reports.find((r) => r.status === 'completed' && r.format === 'pdf');
		if (!report) throw new Error('the sandbox has no completed PDF report');
		await control(fake, 'POST', `/reports/${report.id}/size`, { bytes: FILE_BYTES });
		const check = await fetch(`${fake.url}/v1/reports/${report.id}/download`, {
			method: 'GET',
			headers: { 'x-api-key': fake.keys.live, 'service-version': SERVICE_VERSION },
		});
		const served = Number(check.headers.get('content-length'));
		await check.body?.cancel();

		const workflow = (reportId: string) => ({
			nodes: [
				{
					name: 'Set Items',
					type: 'test.setItems',
					parameters: { items: JSON.stringify([{ id: reportId }]) },
				},
				{
					name: 'Ad Performance',
					type: AD_NODE,
					parameters: { resource: 'report', operation: 'download', reportId: '={{ $json.id }}' },
				},
			],
			credentials: credentialsFor(fake, options.timeScale),
		});
		// Warm-up with a small report: loads every module and n8n's binary-data service.
		const small = state.reports.find((r) => r.status === 'completed' && r.id !== report.id)!;
		await runWorkflow(workflow(small.id));

		collectGarbage();
		await new Promise((resolve) => setTimeout(resolve, 200));
		collectGarbage();
		const base = process.memoryUsage();
		let peakRss = base.rss;
		let peakHeap = base.heapUsed;
		const sample = () => {
			const now = process.memoryUsage();
			peakRss = Math.max(peakRss, now.rss);
			peakHeap = Math.max(peakHeap, now.heapUsed);
		};
		const sampler = setInterval(sample, 5);
		const t0 = performance.now();
		const result = await runWorkflow(workflow(report.id));
		const wallMs = performance.now() - t0;
		sample();
		clearInterval(sampler);

		const item = result.items[0];
		const binary = item?.binary?.data;
		const id = binary?.id;
		const mode = id
			? id.split(':')[0]
			: binary?.data
				? 'default (in memory, base64 in the item)'
				: 'unknown';
		const envMode = process.env.N8N_DEFAULT_BINARY_DATA_MODE ?? '(unset)';
		const ok = !result.error && served === FILE_BYTES;
		options.log(`downloaded ${binary?.fileSize ?? '?'} in ${Math.round(wallMs)} ms, mode ${mode}`);
		return {
			ok,
			how: 'Report > Download',
			fileBytes: FILE_BYTES,
			rssGrowth: peakRss - base.rss,
			heapGrowth: peakHeap - base.heapUsed,
			note: `Report > Download of one ${FILE_BYTES} B PDF (served Content-Length ${served}) in ${Math.round(wallMs)} ms; fake in a child process (sandbox/cli.cts, sized through POST /__fake/reports/:id/size); binary data mode measured: ${mode} (N8N_DEFAULT_BINARY_DATA_MODE=${envMode}, stored id ${id ?? 'none'}); memory sampled every 5 ms after a forced GC, growth = peak - baseline${result.error ? `; ERROR: ${result.error.message}` : ''}.`,
		};
	} finally {
		fake.child.kill('SIGTERM');
	}
}
