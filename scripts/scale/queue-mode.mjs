// Our package in n8n's queue mode, as an agency that outgrew one n8n process runs it: Postgres as
// the database, Redis as the job queue, a main process (webhooks and polling triggers) and
// several `n8n worker` processes (executions), all with the package installed as a user would,
// against the sandbox (the fake service in its own process) with one API key for everything.
//
//   const cluster = await startQueueCluster({ tarball, timeScale: 0.05 });
//   const round = await runRound(cluster, { executions: 10, accountsEach: 6 });
//   await cluster.stop();
//
// Used by test/scale/queue-mode.test.mjs (assertions) and test/bench (figures).

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import {
	dataTableRows,
	ensureDataTables,
	EXAMPLE_DATA_TABLES,
	insertDataTableRows,
} from '../e2e/data-tables.mjs';
import { createInstance, unflatten } from '../e2e/n8n-instance.mjs';
import { REPO_ROOT } from '../e2e/pack.mjs';
import { startFakeProcess } from '../e2e/sandbox-process.mjs';
import { startMailCatcher } from '../mail/mail-catcher.mjs';
import { ensureDebianPackages, startPostgres, startRedis, waitUntil } from './services.mjs';

export { waitUntil };

export const WEBHOOK_PATH = 'adperf-weekly-clients';
/** The webhook of the exactly-once variant (examples/weekly-client-report-email-exactly-once.json). */
export const EXACTLY_ONCE_WEBHOOK_PATH = 'adperf-weekly-clients-once';
/** The data tables of the exactly-once example and its recovery, and the webhook variant's own. */
export const DATA_TABLES = Object.freeze({
	...EXAMPLE_DATA_TABLES,
	// the clients each execution of the webhook variant was started for
	weekly_report_runs: ['execution_id', 'accounts'],
});
const WINDOW_MS = 60_000;
const GENERATIONS_PER_WINDOW = 5;

/**
 * Settings a queue-mode user can set too, lowered so that a crashed worker's executions are
 * noticed in about a minute instead of n8n's defaults (a 60 s job lock, and a check for dangling
 * executions every 180 minutes). README "Running at scale" explains them.
 */
export const CRASH_DETECTION_ENV = Object.freeze({
	QUEUE_WORKER_LOCK_DURATION: '15000',
	QUEUE_WORKER_LOCK_RENEW_TIME: '5000',
	QUEUE_WORKER_STALLED_INTERVAL: '10000',
	N8N_EXECUTIONS_QUEUE_RECOVERY_INTERVAL: '1',
});

function readExample(name) {
	return JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'examples', name), 'utf8'));
}

/** The Webhook that starts a round's execution: POST { accounts: [<act_ id>, …] }. */
function roundWebhook(path, position) {
	return {
		id: crypto.randomUUID(),
		name: 'Round of client reports',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position,
		webhookId: crypto.randomUUID(),
		parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
	};
}

/** A Filter that keeps the accounts whose `platformAccountId` makes `includes` true. */
function accountsFilter(includes, position) {
	return {
		id: crypto.randomUUID(),
		name: 'Accounts of this round',
		type: 'n8n-nodes-base.filter',
		typeVersion: 2,
		position,
		parameters: {
			conditions: {
				options: { caseSensitive: true, leftValue: '', typeValidation: 'loose' },
				conditions: [
					{
						id: crypto.randomUUID(),
						leftValue: `={{ ${includes}($json.platformAccountId) }}`,
						rightValue: '',
						operator: { type: 'boolean', operation: 'true', singleValue: true },
					},
				],
				combinator: 'and',
			},
			options: {},
		},
	};
}

/**
 * The weekly e-mail example (Generate with Wait for Completion → Send Email: an execution's
 * reports are all requested, then waited for in one wait), reached through a Webhook instead of
 * the Monday schedule so that executions are enqueued on demand: the request names the accounts
 * of this execution, a Filter keeps those of the listed active accounts, and each client's e-mail
 * goes to an address made of its account id (so that the test can tell whose e-mail is whose).
 */
export function weeklyEmailWebhookVariant() {
	const wf = readExample('weekly-client-report-email.json');
	const schedule = wf.nodes.find((n) => n.type === 'n8n-nodes-base.scheduleTrigger');
	const list = wf.nodes.find((n) => n.name === 'Active client accounts');
	// Generate waits for its reports (Wait for Completion) and feeds the e-mail node.
	const generate = wf.nodes.find((n) => n.name === "Generate last week's report");
	const mail = wf.nodes.find((n) => n.type === 'n8n-nodes-base.emailSend');
	if (!list || !generate?.parameters.waitForCompletion || !mail)
		throw new Error('the weekly example no longer has the nodes this variant is made of');
	const webhook = roundWebhook(WEBHOOK_PATH, schedule.position);
	const filter = accountsFilter(
		"$('Round of client reports').first().json.body.accounts.includes",
		[list.position[0] + 110, list.position[1] + 160],
	);
	mail.parameters.toEmail = '={{ $json.accountId }}@clients.example';
	const nodes = [
		webhook,
		filter,
		...wf.nodes.filter((n) => n !== schedule && n.type !== 'n8n-nodes-base.stickyNote'),
	];
	const connections = { ...wf.connections };
	delete connections[schedule.name];
	connections[webhook.name] = { main: [[{ node: list.name, type: 'main', index: 0 }]] };
	connections[list.name] = { main: [[{ node: filter.name, type: 'main', index: 0 }]] };
	connections[filter.name] = { main: [[{ node: generate.name, type: 'main', index: 0 }]] };
	return {
		...wf,
		id: undefined,
		name: 'Weekly client report e-mail (webhook)',
		nodes,
		connections,
		active: false,
	};
}

function dataTableNode(name, table, position, parameters) {
	return {
		id: crypto.randomUUID(),
		name,
		type: 'n8n-nodes-base.dataTable',
		typeVersion: 1.1,
		position,
		parameters: {
			resource: 'row',
			dataTableId: { __rl: true, mode: 'name', value: table },
			...parameters,
		},
	};
}

function insertColumns(values) {
	return {
		mappingMode: 'defineBelow',
		value: values,
		matchingColumns: [],
		schema: Object.keys(values).map((id) => ({
			id,
			displayName: id,
			required: false,
			defaultMatch: false,
			display: true,
			type: 'string',
			canBeUsedToMatch: true,
		})),
		attemptToConvertTypes: false,
		convertFieldsToString: false,
	};
}

/**
 * The exactly-once example (examples/weekly-client-report-email-exactly-once.json) sharded as a
 * big agency runs it: each Webhook call names the accounts of its execution. The execution
 * records them first (data table `weekly_report_runs`, keyed by execution id), because n8n empties
 * the stored data of an execution whose worker died: when the recovery runs the workflow again
 * for a failed execution, "Clients of the failed run" reads them back. Each client's e-mail goes
 * to the address the client directory gives it (`clients`, filled by clientDirectoryRows: one
 * made of its account id). The team digest after the Run summary is left out: a sharded run would
 * send one per execution, and these tests count every e-mail as a client's. Every other node is
 * the example's, unchanged: run by a webhook, it e-mails every client of the run not yet e-mailed
 * for its last full week in its own time zone (as a run by hand or by the recovery does).
 */
export function exactlyOnceWebhookVariant({ errorWorkflow } = {}) {
	const wf = readExample('weekly-client-report-email-exactly-once.json');
	const schedule = wf.nodes.find((n) => n.type === 'n8n-nodes-base.scheduleTrigger');
	const again = wf.nodes.find((n) => n.type === 'n8n-nodes-base.executeWorkflowTrigger');
	const list = wf.nodes.find((n) => n.name === 'Active client accounts');
	const webhook = roundWebhook(EXACTLY_ONCE_WEBHOOK_PATH, [
		schedule.position[0] - 440,
		schedule.position[1],
	]);
	const remember = dataTableNode(
		"Remember this run's clients",
		'weekly_report_runs',
		[schedule.position[0] - 220, schedule.position[1]],
		{
			operation: 'insert',
			columns: insertColumns({
				execution_id: '={{ $execution.id }}',
				accounts: "={{ $json.body.accounts.join(',') }}",
			}),
			options: {},
		},
	);
	const failedRun = dataTableNode(
		'Clients of the failed run',
		'weekly_report_runs',
		[again.position[0] + 110, again.position[1] + 160],
		{
			operation: 'get',
			matchType: 'allConditions',
			filters: {
				conditions: [
					{ keyName: 'execution_id', condition: 'eq', keyValue: '={{ $json.execution.id }}' },
				],
			},
		},
	);
	const clients = {
		id: crypto.randomUUID(),
		name: "This run's clients",
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [list.position[0] - 110, list.position[1] - 160],
		parameters: {},
	};
	const filter = accountsFilter(
		"$('This run\\'s clients').first().json.accounts.split(',').includes",
		[list.position[0] + 110, list.position[1] + 160],
	);
	const to = (node) => ({ main: [[{ node, type: 'main', index: 0 }]] });
	const digest = new Set([
		'All ad accounts',
		'Open findings of the watch',
		'Compose the team digest',
		"Keep for the day's digest",
		"Parts of the day's digest",
		"The day's digest",
		'E-mail the team',
		'Post the digest to Slack',
		'Mark the parts sent',
	]);
	// where both triggers lead ("What time is it": the run's instant; a webhook run catches up
	// every client not yet e-mailed for its week)
	const entry = wf.connections[again.name].main[0][0].node;
	const connections = { ...wf.connections };
	delete connections[schedule.name];
	delete connections['Run summary'];
	for (const name of digest) delete connections[name];
	Object.assign(connections, {
		[webhook.name]: to(remember.name),
		[remember.name]: to(clients.name),
		[again.name]: to(failedRun.name),
		[failedRun.name]: to(clients.name),
		[clients.name]: to(entry),
		[list.name]: to(filter.name),
		[filter.name]: to('Look up the client'),
	});
	return {
		...wf,
		id: undefined,
		name: 'Weekly client report e-mail, exactly once (webhook)',
		nodes: [
			webhook,
			remember,
			failedRun,
			clients,
			filter,
			...wf.nodes.filter(
				(n) => n !== schedule && n.type !== 'n8n-nodes-base.stickyNote' && !digest.has(n.name),
			),
		],
		connections,
		settings: { ...wf.settings, ...(errorWorkflow ? { errorWorkflow } : {}) },
		active: false,
	};
}

/**
 * The client directory of the exactly-once variant: each account with sending on and the address
 * the test reads its e-mails at, `<act_ id>@clients.example`.
 */
export function clientDirectoryRows(accounts) {
	return accounts.map((account) => ({
		account_id: account.platformAccountId,
		client_name: account.name,
		to_email: `${account.platformAccountId}@clients.example`,
		cc_email: '',
		send: true,
	}));
}

/** The recovery example (examples/weekly-report-recovery.json), unchanged but for its id. */
export function recoveryWorkflow() {
	const wf = readExample('weekly-report-recovery.json');
	return { ...wf, id: undefined, active: false };
}

/**
 * The Drive-archive example with a local stand-in for the Drive step: Write File puts each
 * downloaded report in `folder`, named `<report id>--<execution id>--<file name>`, so that a
 * report emitted twice leaves two files.
 */
export function archiveTriggerVariant(folder) {
	const wf = readExample('drive-archive-finished-reports.json');
	const drive = wf.nodes.find((n) => n.type === 'n8n-nodes-base.googleDrive');
	const writeFile = {
		id: drive.id,
		name: 'Write to the archive folder',
		type: 'n8n-nodes-base.readWriteFile',
		typeVersion: 1,
		position: drive.position,
		parameters: {
			operation: 'write',
			fileName: `=${folder}/{{ $json.id }}--{{ $execution.id }}--{{ $binary.data.fileName }}`,
			dataPropertyName: 'data',
		},
	};
	const nodes = wf.nodes
		.filter((n) => n !== drive && n.type !== 'n8n-nodes-base.stickyNote')
		.concat(writeFile);
	const connections = JSON.parse(
		JSON.stringify(wf.connections).replaceAll(
			JSON.stringify(drive.name),
			JSON.stringify(writeFile.name),
		),
	);
	return {
		...wf,
		id: undefined,
		name: 'Archive finished reports (local folder)',
		nodes,
		connections,
		active: false,
	};
}

/** Reports in the archive folder: report id → how many times it was written. */
export function archivedReports(folder) {
	const counts = new Map();
	for (const f of fs.readdirSync(folder)) {
		const id = f.split('--')[0];
		counts.set(id, (counts.get(id) ?? 0) + 1);
	}
	return counts;
}

/**
 * Starts everything: Postgres, Redis, the sandbox with `activeAccounts` active client accounts,
 * a mail catcher, n8n main (queue mode) and `workers` workers, with both workflows published.
 * `archiveTrigger: false` leaves the Drive-archive trigger example unpublished (imported, never
 * polling): a round then downloads each report only once, in its own execution.
 */
export async function startQueueCluster({
	tarball,
	timeScale = 0.05,
	activeAccounts = 60,
	workers = 2,
	concurrency = 5,
	env = {},
	archiveTrigger = true,
	log = () => {},
} = {}) {
	const stops = [];
	const cluster = {
		async stop() {
			for (const stop of stops.reverse()) await stop().catch((e) => log(`stop: ${e.message}`));
		},
	};
	try {
		ensureDebianPackages({ log });
		const [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
		stops.push(
			() => pg.stop(),
			() => redis.stop(),
		);
		const sandbox = await startFakeProcess({ timeScale });
		stops.push(() => sandbox.stop());
		const mail = await startMailCatcher({ spoolFirst: true });
		stops.push(() => mail.close());
		const archiveDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scale-archive-'));
		stops.push(async () => fs.rmSync(archiveDir, { recursive: true, force: true }));

		// 60 active client accounts: the sandbox's own active ones plus new ones with campaigns
		const state = async () => (await sandbox.state()).data;
		const active = (await state()).accounts.filter((a) => a.connectionStatus === 'active');
		for (let i = active.length; i < activeAccounts; i++)
			await sandbox.addAccount({ name: `Client ${String(i + 1).padStart(2, '0')}` });
		const accounts = (await state()).accounts.filter((a) => a.connectionStatus === 'active');
		if (accounts.length !== activeAccounts)
			throw new Error(`sandbox has ${accounts.length} active accounts, not ${activeAccounts}`);

		const n8n = await createInstance({
			line: 'latest',
			packageTarball: tarball,
			log,
			env: {
				EXECUTIONS_MODE: 'queue',
				...pg.env(),
				...redis.env(),
				N8N_RESTRICT_FILE_ACCESS_TO: archiveDir,
				...CRASH_DETECTION_ENV,
				...env,
			},
		});
		stops.push(() => n8n.dispose());
		await n8n.importCredentials([
			{
				id: 'adperf-sandbox',
				name: 'Ad Performance sandbox',
				type: 'adPerformanceApi',
				data: sandbox.credentialData(),
			},
			{ id: 'smtp-agency', name: 'Agency SMTP', type: 'smtp', data: mail.credentialData() },
		]);
		const weeklyId = await n8n.importWorkflow(weeklyEmailWebhookVariant());
		const archiveId = await n8n.importWorkflow(archiveTriggerVariant(archiveDir));
		// The recovery is an Error Workflow, which n8n 2.x runs only when it is published
		// (measured: "Workflow … is not active and cannot be executed").
		const recoveryId = await n8n.importWorkflow(recoveryWorkflow());
		const exactlyOnceId = await n8n.importWorkflow(
			exactlyOnceWebhookVariant({ errorWorkflow: recoveryId }),
		);
		for (const id of [weeklyId, ...(archiveTrigger ? [archiveId] : []), recoveryId, exactlyOnceId])
			await n8n.publishWorkflow(id);

		const startedWorkers = [];
		for (let i = 0; i < workers; i++)
			startedWorkers.push(await n8n.startWorker({ name: `worker-${i + 1}`, concurrency }));
		const main = await n8n.start();
		const dataTables = await ensureDataTables(main, DATA_TABLES);
		// the exactly-once example's client directory: every round's client, at its own address
		await insertDataTableRows(main, dataTables, 'clients', clientDirectoryRows(accounts));

		Object.assign(cluster, {
			n8n,
			main,
			workers: startedWorkers,
			sandbox,
			mail,
			pg,
			redis,
			archiveDir,
			timeScale,
			accounts,
			apiKey: sandbox.keys.live,
			workflows: { weeklyId, archiveId, exactlyOnceId, recoveryId },
			/** The rows of one of DATA_TABLES, oldest first. */
			rows: (table) => dataTableRows(main, dataTables, table),
			/** The executions of a workflow (all of its modes) in the database. */
			executionsOfWorkflow: (id) => executionsOf(pg, id, { allModes: true }),
			/**
			 * Asks n8n's public API to retry an execution (POST /api/v1/executions/{id}/retry) with an
			 * n8n API key of the owner: { status, text }. Measures what the endpoint accepts.
			 */
			retryThroughPublicApi: async (executionId) => {
				cluster.n8nApiKey ??= await createN8nApiKey(main);
				const res = await fetch(`${main.baseUrl}/api/v1/executions/${executionId}/retry`, {
					method: 'POST',
					headers: { 'x-n8n-api-key': cluster.n8nApiKey, 'content-type': 'application/json' },
					body: '{}',
				});
				return { status: res.status, text: await res.text() };
			},
			/** What n8n kept of an execution's run data: { nodesRun, stacked }. */
			storedRun: (executionId) => storedRun(pg, executionId),
			/** Every log an operator would look at: n8n main and workers, Postgres, Redis. */
			logs: () =>
				[main.logFile, ...startedWorkers.map((w) => w.logFile), pg.logFile, redis.logFile].map(
					(file) => ({ file, text: fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '' }),
				),
			/** The weekly workflow's executions in the database. */
			executions: () => executionsOf(pg, weeklyId),
		});
		// The trigger's activation poll records what exists; only later completions are events.
		if (archiveTrigger)
			await waitUntil(
				async () =>
					(await sandbox.log()).data.some((e) => e.path === '/v1/reports' && e.method === 'GET'),
				{ timeoutMs: 60_000, what: 'the trigger’s first poll' },
			);
		return cluster;
	} catch (error) {
		await cluster.stop();
		throw error;
	}
}

async function createN8nApiKey(main) {
	const r = await main.request('POST', '/rest/api-keys', {
		label: `scale test ${Date.now()}`,
		expiresAt: null,
		scopes: ['execution:read', 'execution:list', 'execution:retry'],
	});
	if (r.status !== 200)
		throw new Error(`creating an n8n API key answered ${r.status}: ${r.text.slice(0, 300)}`);
	return r.json.data.rawApiKey;
}

/**
 * What n8n kept of an execution's run: how many nodes it has run data for, and how many nodes
 * wait on its execution stack (what a retry would start from).
 */
function storedRun(pg, executionId) {
	const text = pg
		.query(`SELECT data FROM execution_data WHERE "executionId" = ${Number(executionId)}`, {
			maxBuffer: 256 * 1024 * 1024,
		})
		.trim();
	const run = text ? unflatten(text) : undefined;
	return {
		nodesRun: Object.keys(run?.resultData?.runData ?? {}).length,
		stacked: run?.executionData?.nodeExecutionStack?.length ?? 0,
	};
}

/**
 * The executions of a workflow, oldest first. Unless `allModes`, only those started by its own
 * trigger: not the runs a recovery starts through the Execute Workflow node (mode `integrated`).
 */
function executionsOf(pg, workflowId, options) {
	return parseExecutions(pg.query(executionsSql(workflowId, options)));
}

/** executionsOf without blocking this process (the mail catcher runs in it). */
async function executionsOfAsync(pg, workflowId, options) {
	return parseExecutions(await pg.queryAsync(executionsSql(workflowId, options)));
}

function executionsSql(workflowId, { allModes = false } = {}) {
	return `SELECT id, status, extract(epoch from "startedAt") * 1000, extract(epoch from "stoppedAt") * 1000, mode FROM execution_entity WHERE "workflowId" = '${workflowId}'${allModes ? '' : ` AND mode <> 'integrated'`} ORDER BY id`;
}

function parseExecutions(rows) {
	return rows
		.split('\n')
		.filter(Boolean)
		.map((line) => {
			const [id, status, startedAt, stoppedAt, mode] = line.split('|');
			return {
				id,
				status,
				mode,
				startedAt: startedAt ? Number(startedAt) : undefined,
				stoppedAt: stoppedAt ? Number(stoppedAt) : undefined,
			};
		});
}

/**
 * The accounts an execution was started for: the `accounts` of its webhook request, read from
 * the run data n8n stores with the execution. Main stores the webhook's output when it enqueues
 * the execution, and a successful execution's data keeps it; but when a worker dies, main
 * replaces the data of its stalled executions with an empty run, so runRound reads each
 * execution as soon as it exists. Undefined when the data names no list, or more than one.
 */
async function accountsOfExecution(pg, id) {
	const text = (
		await pg.queryAsync(`SELECT data FROM execution_data WHERE "executionId" = ${Number(id)}`, {
			maxBuffer: 256 * 1024 * 1024,
		})
	).trim();
	if (!text) return undefined;
	const lists = new Set();
	const stack = [unflatten(text)];
	const seen = new Set();
	while (stack.length > 0) {
		const value = stack.pop();
		if (typeof value !== 'object' || value === null || seen.has(value)) continue;
		seen.add(value);
		const accounts = value.body?.accounts;
		if (Array.isArray(accounts) && accounts.every((a) => typeof a === 'string'))
			lists.add(JSON.stringify(accounts));
		stack.push(...Object.values(value));
	}
	return lists.size === 1 ? JSON.parse([...lists][0]) : undefined;
}

const UNFINISHED = new Set(['new', 'running', 'waiting', 'unknown']);

/** Which worker's log says it started each execution id. */
function workerOfExecutions(workers) {
	const byExecution = new Map();
	for (const w of workers)
		for (const m of w.log().matchAll(/Worker started execution (\d+)/g))
			byExecution.set(m[1], w.name);
	return byExecution;
}

/**
 * Fires `executions` webhook calls at once, each for `accountsEach` accounts (every account once),
 * and waits until every execution has ended. With `killAfterPosts`, the worker that runs the
 * most executions of this round is killed (SIGKILL) once the sandbox has accepted that many of
 * the round's generations. Each execution comes back with its status, the worker that ran it and
 * the accounts it was started for. `pollMs`: how often the round's progress is read (each read
 * fetches the sandbox's whole request log when `killAfterPosts` is set: raise it for big rounds).
 */
export async function runRound(
	cluster,
	{
		executions = 10,
		accountsEach = 6,
		killAfterPosts,
		timeoutMs = 10 * 60_000,
		log = () => {},
		webhookPath = WEBHOOK_PATH,
		workflowId,
		accountOffset = 0,
		pollMs = 200,
	} = {},
) {
	const { main, sandbox, mail } = cluster;
	const accounts = cluster.accounts.slice(accountOffset);
	if (executions * accountsEach > accounts.length)
		throw new Error('not enough accounts for the round');
	const workflowExecutions = () =>
		executionsOfAsync(cluster.pg, workflowId ?? cluster.workflows.weeklyId);
	const before = new Set((await workflowExecutions()).map((e) => e.id));
	const logSeqBefore = Math.max(0, ...(await sandbox.log()).data.map((e) => e.seq));
	await mail.parsed();
	const mailsBefore = mail.messages.length;
	const reportsBefore = new Set((await sandbox.state()).data.reports.map((r) => r.id));

	const started = Date.now();
	const answers = await Promise.all(
		Array.from({ length: executions }, (_, i) =>
			fetch(`${main.baseUrl}/webhook/${webhookPath}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({
					accounts: accounts
						.slice(i * accountsEach, (i + 1) * accountsEach)
						.map((a) => a.platformAccountId),
				}),
			}).then(async (r) => ({ status: r.status, text: await r.text() })),
		),
	);
	const refused = answers.filter((a) => a.status !== 200);
	if (refused.length)
		throw new Error(`webhook refused ${refused.length} calls: ${JSON.stringify(refused[0])}`);

	let killed;
	const roundExecutions = async () => (await workflowExecutions()).filter((e) => !before.has(e.id));
	const accountsOf = new Map();
	const readAccounts = async (ids) => {
		for (const id of ids)
			if (!accountsOf.get(id)) accountsOf.set(id, await accountsOfExecution(cluster.pg, id));
	};
	const ended = await waitUntil(
		async () => {
			await readAccounts((await roundExecutions()).map((e) => e.id));
			if (killAfterPosts !== undefined && !killed) {
				const posts = (await sandbox.log()).data.filter(
					(e) =>
						e.seq > logSeqBefore &&
						e.method === 'POST' &&
						e.path === '/v1/reports' &&
						e.status === 202,
				).length;
				if (posts >= killAfterPosts) {
					// the executions of this round still running, by the worker that runs them
					const unfinished = (await roundExecutions()).filter((e) => UNFINISHED.has(e.status));
					const owner = workerOfExecutions(cluster.workers);
					const load = cluster.workers
						.map((w) => ({
							w,
							running: unfinished.filter((e) => owner.get(e.id) === w.name).map((e) => e.id),
						}))
						.sort((a, b) => b.running.length - a.running.length);
					killed = {
						worker: load[0].w.name,
						atPosts: posts,
						atMs: Date.now() - started,
						at: Date.now(),
						runningThere: load[0].running,
					};
					log(
						`SIGKILL ${killed.worker} after ${posts} generations (${killed.runningThere.length} executions of this round running on it)`,
					);
					load[0].w.kill('SIGKILL');
				}
			}
			const mine = await roundExecutions();
			return mine.length >= executions && mine.every((e) => !UNFINISHED.has(e.status))
				? mine
				: undefined;
		},
		{ timeoutMs, what: `the ${executions} executions of the round to end`, intervalMs: pollMs },
	);
	const wallMs = Math.max(...ended.map((e) => e.stoppedAt ?? Date.now())) - started;

	const owner = workerOfExecutions(cluster.workers);
	await readAccounts(ended.map((e) => e.id));
	const requests = (await sandbox.log()).data.filter(
		(e) => e.seq > logSeqBefore && e.path.startsWith('/v1/'),
	);
	const newReports = (await sandbox.state()).data.reports.filter((r) => !reportsBefore.has(r.id));
	await mail.parsed();
	const mails = mail.messages.slice(mailsBefore);
	return {
		executions: ended.map((e) => ({
			...e,
			worker: owner.get(e.id),
			accounts: accountsOf.get(e.id),
		})),
		wallMs,
		boundMs:
			((executions * accountsEach - 1) / GENERATIONS_PER_WINDOW) * WINDOW_MS * cluster.timeScale,
		requests: requests.length,
		posts: requests.filter((e) => e.method === 'POST' && e.path === '/v1/reports').length,
		rejected429: requests.filter((e) => e.status === 429).length,
		newReports,
		mails,
		killed,
		started,
		/** What reached the clients since the round started, read again now (after a recovery). */
		async sinceStart() {
			await mail.parsed();
			return {
				mails: mail.messages.slice(mailsBefore),
				newReports: (await sandbox.state()).data.reports.filter((r) => !reportsBefore.has(r.id)),
				posts: (await sandbox.log()).data.filter(
					(e) => e.seq > logSeqBefore && e.method === 'POST' && e.path === '/v1/reports',
				).length,
			};
		},
	};
}
