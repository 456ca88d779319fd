/**
 * "One execution, many clients" (issue 40, item 3): Generate → Wait for Ad Report → Send Email
 * for N clients in ONE execution, each report's file 0.2–2 MB. The memory the process holds at
 * its peak must grow by at most 2× the largest file, not by the sum of the files: the files go
 * to n8n's binary store (the harness's filesystem mode) one at a time, and Send Email reads each
 * item's file only while it sends that item.
 *
 * Run through n8n-core's WorkflowExecute (test/harness/run-workflow.cts) against the fake in a
 * child process (its buffers do not count), real HTTP on 127.0.0.1; Send Email is n8n's own
 * node (n8n-nodes-base.emailSend 2.1, loaded from the cached n8n of scripts/e2e/install-n8n.mjs)
 * sending to the mail catcher of scripts/mail/ (also a child process). Without a cached n8n, a
 * stand-in that reads each item's file as Send Email does (getBinaryDataBuffer, then nodemailer)
 * takes its place, and the note says so.
 *
 * What the peak holds beyond the items (every node's output JSON, still held when the run ends)
 * is the measure of the files: it must stay within 2× the largest file.
 *
 * Alone: node --expose-gc --no-concurrent-array-buffer-sweeping --require tsx/cjs test/bench/one-execution.cts [items...]
 */
import '../harness/env.cjs';

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IVersionedNodeType,
} from 'n8n-workflow';
import { createTransport } from 'nodemailer';

import { Rng } from '../../sandbox/rng.cjs';
import { harnessUserFolder } from '../harness/env.cjs';
import { registerNodeType, runWorkflow, type RunWorkflowResult } from '../harness/run-workflow.cjs';
import { control, startChildFake, type ChildFake } from './memory.cjs';
import { credentialsFor, generateFromItems, WAIT_NODE } from './rows.cjs';

const MB = 1024 * 1024;
const SMALLEST_FILE = 0.2 * MB;
const LARGEST_FILE = 2 * MB;
/**
 * One forced GC and a sample of what is still held at least this often (ms) during the run; a
 * full GC of this process takes 100–250 ms on 2 cores, so the next one waits 4× as long as the
 * last took (GC at most a fifth of the time), or the run would be nothing but GC.
 */
const LIVE_SAMPLE_MS = 100;
const GC_DUTY = 0.2;
const EMAIL_NODE = 'n8n-nodes-base.emailSend';

export interface OneExecutionRun {
	items: number;
	/** Sum and largest of the files served (bytes). */
	totalBytes: number;
	largestBytes: number;
	/** Peak growth of heap + Buffers still held, sampled after a forced GC every 100 ms. */
	liveGrowth: number;
	/** Which node was running at that peak. */
	liveGrowthDuring: string;
	/** How many forced-GC samples the run took. */
	liveSamples: number;
	/** The peak held while each node ran (nodes no sample fell in are missing), and at the end. */
	heldByNode: Record<string, number>;
	heldAfter: number;
	/** Peak growth of heap + Buffers and of RSS sampled every 5 ms without forcing GC. */
	rawGrowth: number;
	rssGrowth: number;
	wallMs: number;
	/** Wall time of each node, by name. */
	nodeMs: Record<string, number>;
	mails: number;
	/** The files in n8n's binary store, sorted by size, are the files served, sorted. */
	storedMatch: boolean;
	/**
	 * Attachments whose sizes (as the catcher's mailparser decodes them), sorted, equal the files
	 * served, sorted; a text report (Markdown, JSON) can come out a byte or two shorter.
	 */
	attachmentsMatch: boolean;
	/** The first sizes that differ (attachment for file), when they do. */
	attachmentsDiffer: string[];
	binaryMode: string;
	error?: string;
}

export interface OneExecutionResult {
	ok: boolean;
	runs: OneExecutionRun[];
	emailNode: string;
	timeScale: number;
	/**
	 * Whether V8 frees a dead Buffer's memory within the GC that found it dead: with concurrent
	 * ArrayBuffer sweeping (V8's default) `process.memoryUsage().arrayBuffers` read right after a
	 * forced GC still counts Buffers that GC found dead (measured: +12 to +20 MB "held" at 100
	 * clients with it, +2 to +6 MB without; a heap snapshot at such a peak held one file).
	 */
	sweptAtOnce: boolean;
	note: string;
}

/** The V8 flag the held figures need (see sweptAtOnce); `npm run bench` passes it. */
export const SWEEP_AT_ONCE_FLAG = '--no-concurrent-array-buffer-sweeping';

function gcHandle(): (() => void) | undefined {
	const exposed = (globalThis as { gc?: () => void }).gc;
	if (exposed) return exposed;
	try {
		setFlagsFromString('--expose-gc');
		return runInNewContext('gc') as (() => void) | undefined;
	} catch {
		return undefined;
	}
}

/** n8n's Send Email node (2.1) from a cached n8n install, or undefined. */
async function loadSendEmail(
	root: string,
): Promise<{ version: string; node: () => INodeType | IVersionedNodeType } | undefined> {
	try {
		const installer = pathToFileURL(path.join(root, 'scripts/e2e/install-n8n.mjs')).href;
		const { installedLine } = (await import(installer)) as {
			installedLine(line: string): { dir: string; version: string };
		};
		// The 1.x line is installed for this Node.js (the latest runs on Node 24); try both.
		for (const line of ['latest', '1.x']) {
			try {
				const { dir, version } = installedLine(line);
				const file = path.join(
					dir,
					'node_modules/n8n-nodes-base/dist/nodes/EmailSend/EmailSend.node.js',
				);
				// eslint-disable-next-line @typescript-eslint/no-require-imports
				const { EmailSend } = require(file) as { EmailSend: new () => IVersionedNodeType };
				const node = new EmailSend();
				if (!node.nodeVersions[2.1]) continue;
				return { version, node: () => node };
			} catch {
				// this line is not installed or does not load here
			}
		}
	} catch {
		// no installer
	}
	return undefined;
}

/**
 * Stand-in for Send Email when no n8n is cached: per item, the file read the way Send Email
 * reads it (assertBinaryData, getBinaryDataBuffer) and sent with nodemailer, a transport per item.
 */
class SendEmailStandIn implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Send Email (stand-in)',
		name: 'emailSend',
		group: ['output'],
		version: [2.1],
		description: 'Reads each item’s file like Send Email and sends it over SMTP',
		defaults: { name: 'Send Email' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'smtp', required: true }],
		properties: [
			{ displayName: 'To', name: 'toEmail', type: 'string', default: '' },
			{ displayName: 'Subject', name: 'subject', type: 'string', default: '' },
			{ displayName: 'Options', name: 'options', type: 'json', default: {} },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const credentials = await this.getCredentials('smtp');
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < this.getInputData().length; i++) {
			const property = (this.getNodeParameter('options', i) as { attachments: string }).attachments;
			const meta = this.helpers.assertBinaryData(i, property);
			const content = await this.helpers.getBinaryDataBuffer(i, property);
			const transport = createTransport({
				host: credentials.host as string,
				port: credentials.port as number,
				secure: false,
				ignoreTLS: true,
			});
			const info = await transport.sendMail({
				from: 'reports@agency.example',
				to: this.getNodeParameter('toEmail', i) as string,
				subject: this.getNodeParameter('subject', i) as string,
				text: 'Your report is attached.',
				attachments: [{ filename: meta.fileName ?? 'unknown', content, cid: property }],
			});
			out.push({ json: { messageId: info.messageId }, pairedItem: { item: i } });
		}
		return [out];
	}
}

interface MailCatcher {
	child: ChildProcess;
	smtp: Record<string, unknown>;
	inboxUrl: string;
}

/**
 * scripts/mail/mail-catcher.mjs in a child process, so the e-mails it receives are not counted;
 * it keeps each attachment's size and drops its bytes.
 */
async function startMailCatcherChild(root: string): Promise<MailCatcher> {
	const script = `
const { startMailCatcher } = await import(process.env.MAIL_CATCHER_URL);
const mail = await startMailCatcher({ smtpPort: 0, webPort: 0, maxMessageBytes: 16 * 1024 * 1024 });
const empty = Buffer.alloc(0);
setInterval(() => {
	for (const m of mail.messages) for (const a of m.attachments) if (a.content.length) a.content = empty;
}, 200);
process.stdout.write(JSON.stringify({ smtp: mail.credentialData(), inboxUrl: mail.inboxUrl }) + '\\n');
`;
	const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
		cwd: root,
		env: {
			...process.env,
			MAIL_CATCHER_URL: pathToFileURL(path.join(root, 'scripts/mail/mail-catcher.mjs')).href,
		},
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	return await new Promise<MailCatcher>((resolve, reject) => {
		let out = '';
		let err = '';
		child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
		child.stdout!.on('data', (chunk: Buffer) => {
			out += chunk.toString();
			if (out.includes('\n')) {
				const info = JSON.parse(out.split('\n')[0]) as Omit<MailCatcher, 'child'>;
				resolve({ ...info, child });
			}
		});
		child.once('exit', (code) => reject(new Error(`mail catcher exited with ${code}: ${err}`)));
	});
}

interface CaughtSummary {
	subject?: string;
	attachments: Array<{ filename?: string; size: number }>;
}

async function caughtMessages(mail: MailCatcher): Promise<CaughtSummary[]> {
	const response = await fetch(`${mail.inboxUrl}api/messages`);
	return (await response.json()) as CaughtSummary[];
}

/** Sizes for N files, uniform in [0.2, 2] MB, the largest exactly 2 MB. */
function drawSizes(items: number, seed: number): number[] {
	const rng = new Rng(seed);
	const sizes = Array.from({ length: items }, () =>
		Math.round(rng.range(SMALLEST_FILE, LARGEST_FILE)),
	);
	sizes[rng.int(0, items - 1)] = LARGEST_FILE;
	return sizes;
}

/** Removes the files an execution left in n8n's filesystem binary store (outside the measure). */
function removeStoredFiles(binaryIds: string[]) {
	const roots = [
		path.join(harnessUserFolder, '.n8n', 'binaryData'),
		path.join(harnessUserFolder, 'binaryData'),
	];
	for (const id of binaryIds) {
		const rel = id.slice(id.indexOf(':') + 1);
		for (const root of roots) {
			const file = path.join(root, rel);
			if (!file.startsWith(root)) continue;
			rmSync(file, { force: true });
			rmSync(`${file}.metadata`, { force: true });
		}
	}
	// Empty execution folders go too.
	for (const root of roots) {
		const executions = path.join(root, 'workflows', 'harness-workflow', 'executions');
		if (!existsSync(executions)) continue;
		for (const entry of readdirSync(executions))
			rmSync(path.join(executions, entry), { recursive: true, force: true });
	}
}

async function runOnce(
	fake: ChildFake,
	mail: MailCatcher,
	options: { items: number; timeScale: number; seed: number },
): Promise<OneExecutionRun> {
	const { items, timeScale } = options;
	const gc = gcHandle();
	const state = (await control(fake, 'GET', '/state')) as {
		accounts: Array<{ platformAccountId: string; connectionStatus: string }>;
	};
	const accounts = state.accounts.filter((a) => a.connectionStatus === 'active');
	const sizes = drawSizes(items, options.seed);
	await control(fake, 'POST', '/reports/size-next', { bytes: sizes });
	await control(fake, 'POST', '/limits/reset');
	const before = (await caughtMessages(mail)).length;
	const clients = Array.from({ length: items }, (_, i) => ({
		account: accounts[i % accounts.length].platformAccountId,
		title: `Client ${i + 1} weekly report`,
	}));
	const workflow = {
		nodes: [
			{ name: 'Set Items', type: 'test.setItems', parameters: { items: JSON.stringify(clients) } },
			// Report → Generate for each `{ account, title }`, as the other rows (without Continue
			// On Fail: a failed item fails the row).
			{ ...generateFromItems, name: 'Generate', continueOnFail: false },
			{
				name: 'Wait for Ad Report',
				type: WAIT_NODE,
				parameters: { pollIntervalSeconds: 0.2, timeoutSeconds: 600 },
			},
			{
				name: 'Send Email',
				type: EMAIL_NODE,
				typeVersion: 2.1,
				credentials: { smtp: { id: 'smtp-1', name: 'Mail catcher' } },
				parameters: {
					fromEmail: 'reports@agency.example',
					toEmail: '={{ $json.id }}@clients.example',
					subject: '={{ $json.title }}',
					emailFormat: 'text',
					text: '=Hello, attached is "{{ $json.title }}".',
					options: { attachments: 'data', appendAttribution: false },
				},
			},
		],
		credentials: { ...credentialsFor(fake, timeScale), smtp: mail.smtp as never },
	};

	gc?.();
	await new Promise((resolve) => setTimeout(resolve, 200));
	gc?.();
	gc?.();
	const base = process.memoryUsage();
	const baseHeld = base.heapUsed + base.arrayBuffers;
	let peakRss = base.rss;
	let peakRaw = baseHeld;
	let peakLive = baseHeld;
	let peakLiveAt = Date.now();
	const sampleRaw = () => {
		const now = process.memoryUsage();
		peakRss = Math.max(peakRss, now.rss);
		peakRaw = Math.max(peakRaw, now.heapUsed + now.arrayBuffers);
	};
	const liveAt: Array<[number, number]> = [];
	let liveSamples = 0;
	let liveTimer: NodeJS.Timeout | undefined;
	const sampleLive = () => {
		sampleRaw();
		const g0 = performance.now();
		gc?.();
		const gcMs = performance.now() - g0;
		liveSamples++;
		const now = process.memoryUsage();
		liveAt.push([Date.now(), now.heapUsed + now.arrayBuffers - baseHeld]);
		if (now.heapUsed + now.arrayBuffers > peakLive) {
			peakLive = now.heapUsed + now.arrayBuffers;
			peakLiveAt = Date.now();
		}
		return Math.max(LIVE_SAMPLE_MS, (gcMs * (1 - GC_DUTY)) / GC_DUTY);
	};
	const scheduleLive = (ms: number) => {
		liveTimer = setTimeout(() => scheduleLive(sampleLive()), ms);
	};
	const rawTimer = setInterval(sampleRaw, 5);
	scheduleLive(LIVE_SAMPLE_MS);
	const t0 = performance.now();
	let result: RunWorkflowResult;
	try {
		result = await runWorkflow(workflow);
		sampleLive();
	} finally {
		clearInterval(rawTimer);
		clearTimeout(liveTimer);
	}
	const wallMs = performance.now() - t0;

	const runData = result.run?.data.resultData.runData ?? {};
	const nodeMs: Record<string, number> = {};
	const heldByNode: Record<string, number> = {};
	let liveGrowthDuring = 'after the run';
	for (const [name, tasks] of Object.entries(runData)) {
		const task = tasks[0];
		nodeMs[name] = task.executionTime;
		const during = liveAt.filter(
			([t]) => t >= task.startTime && t <= task.startTime + task.executionTime,
		);
		if (during.length) heldByNode[name] = Math.max(...during.map(([, held]) => held));
		if (peakLiveAt >= task.startTime && peakLiveAt <= task.startTime + task.executionTime)
			liveGrowthDuring = name;
	}
	const waited = result.nodes['Wait for Ad Report']?.items ?? [];
	const binaryIds = waited.map((i) => i.binary?.data?.id).filter((id): id is string => !!id);
	const first = waited[0]?.binary?.data;
	const binaryMode = first?.id
		? first.id.split(':')[0]
		: first?.data
			? 'default (in memory, base64 in the item)'
			: 'none';
	// The catcher parses each e-mail after it is sent: give it a moment.
	let caught: CaughtSummary[] = [];
	for (let i = 0; i < 100; i++) {
		caught = (await caughtMessages(mail)).slice(before);
		if (caught.length >= items) break;
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	const stored = waited.map((i) => i.binary?.data?.bytes ?? -1).sort((a, b) => a - b);
	const attached = caught.flatMap((m) => m.attachments.map((a) => a.size)).sort((a, b) => a - b);
	const served = [...sizes].sort((a, b) => a - b);
	removeStoredFiles(binaryIds);
	return {
		items,
		totalBytes: sizes.reduce((s, b) => s + b, 0),
		largestBytes: Math.max(...sizes),
		liveGrowth: peakLive - baseHeld,
		liveGrowthDuring,
		liveSamples,
		heldByNode,
		heldAfter: liveAt[liveAt.length - 1]?.[1] ?? Number.NaN,
		rawGrowth: peakRaw - baseHeld,
		rssGrowth: peakRss - base.rss,
		wallMs,
		nodeMs,
		mails: caught.length,
		storedMatch: stored.length === served.length && stored.every((size, i) => size === served[i]),
		attachmentsMatch:
			attached.length === served.length && attached.every((size, i) => size === served[i]),
		attachmentsDiffer: attached
			.flatMap((size, i) => (size === served[i] ? [] : [`${size} for ${served[i]}`]))
			.slice(0, 5),
		binaryMode,
		error: result.error ? result.error.message : undefined,
	};
}

export async function benchOneExecution(options: {
	root: string;
	/** The service's clock speed for this row: 500 generations at 5 a minute take 100 service minutes. */
	timeScale: number;
	itemCounts: number[];
	log: (line: string) => void;
}): Promise<OneExecutionResult> {
	const loaded = await loadSendEmail(options.root);
	const emailNode = loaded
		? `n8n's Send Email node 2.1 (n8n-nodes-base of the cached n8n ${loaded.version})`
		: 'a stand-in for Send Email (no cached n8n: run node scripts/e2e/install-n8n.mjs 1.x): getBinaryDataBuffer per item, then nodemailer';
	registerNodeType(EMAIL_NODE, loaded ? loaded.node : () => new SendEmailStandIn());
	const fake = await startChildFake(options.root, options.timeScale);
	const mail = await startMailCatcherChild(options.root);
	try {
		// Warm-up: loads every module, n8n's binary-data service and nodemailer.
		const warm = await runOnce(fake, mail, { items: 3, timeScale: options.timeScale, seed: 1 });
		if (warm.error) throw new Error(`warm-up run failed: ${warm.error}`);
		const runs: OneExecutionRun[] = [];
		for (const items of options.itemCounts) {
			options.log(`one execution, ${items} clients: Generate → Wait for Ad Report → Send Email…`);
			const run = await runOnce(fake, mail, {
				items,
				timeScale: options.timeScale,
				seed: 40 + items,
			});
			runs.push(run);
			options.log(
				`${items} clients: live peak +${(run.liveGrowth / MB).toFixed(1)} MB (during ${run.liveGrowthDuring}), largest file ${(run.largestBytes / MB).toFixed(1)} MB, all files ${(run.totalBytes / MB).toFixed(0)} MB, ${run.mails} e-mails, ${Math.round(run.wallMs)} ms${run.error ? `, ERROR ${run.error}` : ''}`,
			);
		}
		const ok = runs.every(
			(r) => !r.error && r.mails === r.items && r.storedMatch && r.binaryMode !== 'none',
		);
		const describe = (r: OneExecutionRun) =>
			`${r.items} clients: files ${(r.totalBytes / MB).toFixed(0)} MB in all, largest ${(r.largestBytes / MB).toFixed(2)} MB; held at the peak +${(r.liveGrowth / MB).toFixed(1)} MB (during ${r.liveGrowthDuring}; ${r.liveSamples} samples; peak while each node ran: ${Object.entries(
				r.heldByNode,
			)
				.map(([name, held]) => `${name} +${(held / MB).toFixed(1)} MB`)
				.join(
					', ',
				)}; at the end +${(r.heldAfter / MB).toFixed(1)} MB), unforced heap+Buffers peak +${(r.rawGrowth / MB).toFixed(1)} MB, RSS +${(r.rssGrowth / MB).toFixed(1)} MB; stored files ${r.storedMatch ? 'equal in size to' : 'DIFFERENT FROM'} the files served; ${r.mails} e-mails, attachment sizes ${r.attachmentsMatch ? 'equal' : `differ (${r.attachmentsDiffer.join(', ')})`}; wall ${(r.wallMs / 1000).toFixed(1)} s (${Object.entries(
				r.nodeMs,
			)
				.map(([name, ms]) => `${name} ${(ms / 1000).toFixed(1)} s`)
				.join(', ')})${r.error ? `; ERROR: ${r.error}` : ''}`;
		const sweptAtOnce = process.execArgv.includes(SWEEP_AT_ONCE_FLAG);
		return {
			ok,
			runs,
			emailNode,
			timeScale: options.timeScale,
			sweptAtOnce,
			note: `${sweptAtOnce ? '' : `NOT MEASURED AS HELD: node ran without ${SWEEP_AT_ONCE_FLAG}, so the held figures count dead Buffers not yet freed. `}Set Items → Report > Generate → Wait for Ad Report (Download File on) → Send Email (${emailNode}; one attachment per e-mail, to the mail catcher of scripts/mail/ in a child process) in ONE execution through n8n-core's WorkflowExecute; the fake in a child process at time scale ${options.timeScale} (the generation limit paces Generate), files sized 0.2–2 MB (drawn, the largest exactly 2 MB) through POST /__fake/reports/size-next; binary data mode measured: ${runs[0]?.binaryMode ?? '?'} (N8N_DEFAULT_BINARY_DATA_MODE=${process.env.N8N_DEFAULT_BINARY_DATA_MODE ?? '(unset)'}); held = heap + Buffers after a forced GC, sampled every ${LIVE_SAMPLE_MS} ms or 4× the last GC's time if longer (GC at most ${GC_DUTY * 100}% of the run), growth = peak - the same after a GC before the run (garbage not yet collected is not held: the unforced figures are given for comparison); the goal is on the growth beyond the items, that is the peak less what the run's items hold at its end. ${runs.map(describe).join('. ')}.`,
		};
	} finally {
		fake.child.kill('SIGTERM');
		mail.child.kill('SIGTERM');
	}
}

if (require.main === module) {
	const counts = process.argv
		.slice(2)
		.map(Number)
		.filter((n) => n > 0);
	void benchOneExecution({
		root: path.resolve(__dirname, '..', '..'),
		timeScale: Number(process.env.BENCH_ONE_EXECUTION_TIME_SCALE ?? 0.004),
		itemCounts: counts.length ? counts : [100, 500],
		log: (line) => process.stderr.write(`[bench] ${line}\n`),
	}).then(
		(result) => {
			process.stdout.write(`${JSON.stringify(result, null, 1)}\n`);
			process.exit(result.ok ? 0 : 1);
		},
		(error: unknown) => {
			process.stderr.write(
				`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
			);
			process.exit(1);
		},
	);
}
