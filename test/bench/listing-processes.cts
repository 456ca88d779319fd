/**
 * The 5,000-record listing rows (rows.cts, benchListing) measured in several fresh processes.
 * One process's median of its own trials still carries that process's luck with the JIT and the
 * garbage collector: on a quiet machine the same code gave ours/minimal ratios from 0.99 to 1.35,
 * one process each. The ratio
 * reported is the median of the processes' ratios, each measured against the minimal node in
 * the same process; the times shown are the medians across processes.
 */
import '../harness/env.cjs';

import { spawn } from 'node:child_process';

import { benchListing, median, type ListingResult } from './rows.cjs';

export interface ListingAcrossProcesses extends ListingResult {
	/** ours / minimal node, one ratio per process, in the order they ran. */
	minimalRatios: number[];
	minimalRatio: number;
}

/** One process's listing result: this file run as a child with the options as arguments. */
async function inChildProcess(timeScale: number, n: number): Promise<ListingResult> {
	const child = spawn(
		process.execPath,
		[...process.execArgv, __filename, String(timeScale), String(n)],
		{ stdio: ['ignore', 'pipe', 'inherit'] },
	);
	let out = '';
	child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
	const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
	if (code !== 0) throw new Error(`the listing process exited with ${code}`);
	return JSON.parse(out.trim().split('\n').pop() ?? '') as ListingResult;
}

export async function benchListingAcrossProcesses(options: {
	timeScale: number;
	n: number;
	processes: number;
}): Promise<ListingAcrossProcesses> {
	const runs: ListingResult[] = [];
	for (let i = 0; i < options.processes; i++)
		runs.push(await inChildProcess(options.timeScale, options.n));
	const minimalRatios = runs.map((r) => r.wallMs / r.minimalMs);
	const at = (pick: (r: ListingResult) => number) => median(runs.map(pick));
	return {
		...runs[0],
		trials: runs.reduce((sum, r) => sum + r.trials, 0),
		requests: Math.max(...runs.map((r) => r.requests)),
		surfaced429: runs.reduce((sum, r) => sum + r.surfaced429, 0),
		provoked429: runs.reduce((sum, r) => sum + r.provoked429, 0),
		wallMs: at((r) => r.wallMs),
		bareMs: at((r) => r.bareMs),
		fixedMs: at((r) => r.fixedMs),
		minimalMs: at((r) => r.minimalMs),
		minimalRatios,
		minimalRatio: median(minimalRatios),
	};
}

if (require.main === module) {
	const [timeScale, n] = process.argv.slice(2).map(Number);
	void benchListing({ timeScale, n }).then(
		(result) => {
			process.stdout.write(`${JSON.stringify(result)}\n`);
			process.exit(0);
		},
		(error: unknown) => {
			process.stderr.write(`${String(error)}\n`);
			process.exit(1);
		},
	);
}
