/**
 * Peak memory growth while Report → Download fetches a 50 MB report, and while Account → Get
 * Many reads a hostile 1 GiB answer (a JSON body that would go on for a gigabyte). The fake
 * runs in a child process (its CLI, steered through the /__fake control API) so its own
 * buffers do not count; n8n's binary data uses the mode the harness sets (test/harness/env.ts),
 * measured below from the id n8n gave the stored file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { ANSWER_LIMITS } from '../../nodes/shared/limits';
import { endlessJsonAnswer, SERVICE_VERSION, type LoggedRequest } from '../../sandbox/index.cjs';
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

/**
 * Peak growth of RSS and heap while `fn` runs, sampled every 5 ms, from a baseline taken after
 * a forced garbage collection.
 */
async function measurePeakGrowth<T>(fn: () => Promise<T>) {
	collectGarbage();
	await new Promise((resolve) => setTimeout(resolve, 200));
	collectGarbage();
	const base = process.memoryUsage();
	let peakRss = base.rss;
	let peakHeap = base.heapUsed;
	let peakHeapAndBuffers = base.heapUsed + base.arrayBuffers;
	const sample = () => {
		const now = process.memoryUsage();
		peakRss = Math.max(peakRss, now.rss);
		peakHeap = Math.max(peakHeap, now.heapUsed);
		peakHeapAndBuffers = Math.max(peakHeapAndBuffers, now.heapUsed + now.arrayBuffers);
	};
	const sampler = setInterval(sample, 5);
	const t0 = performance.now();
	try {
		const value = await fn();
		sample();
		return {
			value,
			wallMs: performance.now() - t0,
			rssGrowth: peakRss - base.rss,
			heapGrowth: peakHeap - base.heapUsed,
			/** Buffers live outside the heap: what a reader holds of an answer shows here. */
			heapAndBuffersGrowth: peakHeapAndBuffers - (base.heapUsed + base.arrayBuffers),
		};
	} finally {
		clearInterval(sampler);
	}
}

export interface ChildFake {
	url: string;
	keys: { live: string };
	child: ChildProcess;
}

export async function startChildFake(root: string, timeScale: number): Promise<ChildFake> {
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

export async function control(fake: ChildFake, method: string, route: string, body?: unknown) {
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

		const {
			value: result,
			wallMs,
			rssGrowth,
			heapGrowth,
		} = await measurePeakGrowth(() => runWorkflow(workflow(report.id)));

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
			rssGrowth,
			heapGrowth,
			note: `Report > Download of one ${FILE_BYTES} B PDF (served Content-Length ${served}) in ${Math.round(wallMs)} ms; fake in a child process (sandbox/cli.cts, sized through POST /__fake/reports/:id/size); binary data mode measured: ${mode} (N8N_DEFAULT_BINARY_DATA_MODE=${envMode}, stored id ${id ?? 'none'}); memory sampled every 5 ms after a forced GC, growth = peak - baseline${result.error ? `; ERROR: ${result.error.message}` : ''}.`,
		};
	} finally {
		fake.child.kill('SIGTERM');
	}
}

export interface HostileAnswerResult {
	ok: boolean;
	/** What the hostile answer would have been, had it been read to its end. */
	answerBytes: number;
	/** The limit for one JSON answer (ANSWER_LIMITS.jsonBytes). */
	limitBytes: number;
	/** Bytes the fake had sent when the reader hung up (socket buffers included). */
	sentBytes: number;
	rssGrowth: number;
	/** Peak growth of the heap and the Buffers beside it together. */
	heapAndBuffersGrowth: number;
	note: string;
}

const HOSTILE_ANSWER_BYTES = 1024 * 1024 * 1024;

/**
 * Account → Get Many against an answer that would go on for 1 GiB (an endless JSON list): the
 * bounded reader stops at the 16 MiB limit, so memory grows by the limit and a constant, not
 * by the answer. One attempt (Max Attempts 1), so the row measures one read.
 */
export async function benchHostileAnswerMemory(options: {
	root: string;
	timeScale: number;
	log: (line: string) => void;
}): Promise<HostileAnswerResult> {
	const fake = await startChildFake(options.root, options.timeScale);
	try {
		const workflow = {
			nodes: [
				{
					name: 'Ad Performance',
					type: AD_NODE,
					parameters: {
						resource: 'account',
						operation: 'getAll',
						returnAll: true,
						requestOptions: { maxAttempts: 1 },
					},
				},
			],
			credentials: credentialsFor(fake, options.timeScale),
		};
		// Warm-up with the fake's own answer: loads every module the run needs.
		const warm = await runWorkflow(workflow);
		if (warm.error) throw warm.error;
		await control(fake, 'POST', '/answers', {
			method: 'GET',
			pathPrefix: '/v1/accounts',
			answer: endlessJsonAnswer({ stopAfterBytes: HOSTILE_ANSWER_BYTES }),
		});
		await control(fake, 'DELETE', '/log');
		const {
			value: result,
			wallMs,
			rssGrowth,
			heapAndBuffersGrowth,
		} = await measurePeakGrowth(() => runWorkflow(workflow));
		// The fake notes what it sent just after the reader hung up.
		let entry: LoggedRequest | undefined;
		for (let i = 0; i < 100 && !entry?.streamed; i++) {
			await new Promise((resolve) => setTimeout(resolve, 20));
			entry = ((await control(fake, 'GET', '/log')) as LoggedRequest[])[0];
		}
		const sentBytes = entry?.streamed?.bodyBytes ?? Number.NaN;
		const refused = /larger than 16 MiB/.test(result.error?.message ?? '');
		options.log(
			`hostile answer refused after ${Math.round(wallMs)} ms: ${result.error?.message ?? 'no error'}`,
		);
		return {
			ok: refused && sentBytes < HOSTILE_ANSWER_BYTES,
			answerBytes: HOSTILE_ANSWER_BYTES,
			limitBytes: ANSWER_LIMITS.jsonBytes,
			sentBytes,
			rssGrowth,
			heapAndBuffersGrowth,
			note: `Account > Get Many (Max Attempts 1) against an endless JSON list that would stop only after ${HOSTILE_ANSWER_BYTES} B (sandbox/hostile.cts, scripted in the child fake through POST /__fake/answers); the fake had sent ${sentBytes} B when the reader hung up after ${Math.round(wallMs)} ms; error: ${result.error?.message ?? 'none (the answer was accepted!)'}; memory sampled every 5 ms after a forced GC, growth = peak - baseline.`,
		};
	} finally {
		fake.child.kill('SIGTERM');
	}
}
