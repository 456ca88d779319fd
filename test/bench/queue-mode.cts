/**
 * One round of the queue-mode proof (scripts/scale/queue-mode.mjs) for the table: 10 webhook
 * executions of the weekly e-mail workflow at once, 6 accounts each, on n8n main + `workers`
 * workers (1, 2, 4 or 8: one key as queue mode grows) with Postgres and Redis, against the sandbox in
 * its own process. Needs the cached latest n8n
 * of `npm run test:e2e` (no install here: minutes); otherwise the row says it was skipped.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface QueueRoundResult {
	skipped?: string;
	workers: number;
	executions: number;
	accountsEach: number;
	succeeded: number;
	workersUsed: number;
	newReports: number;
	mails: number;
	requests: number;
	posts: number;
	rejected429: number;
	wallMs: number;
	boundMs: number;
	n8nVersion?: string;
}

interface ScaleModule {
	startQueueCluster(o: object): Promise<{
		n8n: { version: string };
		stop(): Promise<void>;
	}>;
	runRound(
		cluster: unknown,
		o: object,
	): Promise<{
		executions: Array<{ status: string; worker?: string }>;
		newReports: unknown[];
		mails: unknown[];
		requests: number;
		posts: number;
		rejected429: number;
		wallMs: number;
		boundMs: number;
	}>;
}

export async function benchQueueRound(options: {
	root: string;
	timeScale: number;
	workers: number;
	log: (line: string) => void;
}): Promise<QueueRoundResult> {
	const executions = 10;
	const accountsEach = 6;
	const { workers } = options;
	const empty = {
		workers,
		executions,
		accountsEach,
		succeeded: 0,
		workersUsed: 0,
		newReports: 0,
		mails: 0,
		requests: 0,
		posts: 0,
		rejected429: 0,
		wallMs: 0,
		boundMs: 0,
	};
	const { installedLine } = (await import(
		path.join(options.root, 'scripts/e2e/install-n8n.mjs')
	)) as {
		installedLine(line: string): unknown;
	};
	try {
		installedLine('latest');
	} catch {
		return { ...empty, skipped: 'no cached latest n8n (npm run e2e:install -- latest)' };
	}
	const { packPackage } = (await import(path.join(options.root, 'scripts/e2e/pack.mjs'))) as {
		packPackage(o: object): Promise<{ tarball: string }>;
	};
	const scale = (await import(
		path.join(options.root, 'scripts/scale/queue-mode.mjs')
	)) as ScaleModule;
	const { tarball } = await packPackage({
		outDir: mkdtempSync(path.join(os.tmpdir(), 'bench-pack-')),
	});
	options.log(`starting Postgres, Redis, the sandbox, n8n main and ${workers} worker(s)…`);
	const cluster = await scale.startQueueCluster({
		tarball,
		timeScale: options.timeScale,
		activeAccounts: executions * accountsEach,
		workers,
	});
	try {
		// Workers as they are on a Monday morning: running for days. n8n loads a workflow's node
		// types in a worker on its first execution there (about 1.4 s measured, inside the round's
		// wall otherwise): one round for no client first, enough executions to reach every worker.
		options.log('warming the workers: a round for no client…');
		await scale.runRound(cluster, { executions: 5 * workers, accountsEach: 0 });
		const round = await scale.runRound(cluster, { executions, accountsEach });
		return {
			workers,
			executions,
			accountsEach,
			succeeded: round.executions.filter((e) => e.status === 'success').length,
			workersUsed: new Set(round.executions.map((e) => e.worker)).size,
			newReports: round.newReports.length,
			mails: round.mails.length,
			requests: round.requests,
			posts: round.posts,
			rejected429: round.rejected429,
			wallMs: round.wallMs,
			boundMs: round.boundMs,
			n8nVersion: cluster.n8n.version,
		};
	} finally {
		await cluster.stop();
	}
}
