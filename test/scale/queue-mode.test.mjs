// Proof at scale: the package in n8n's queue mode (Postgres, Redis, n8n main and two workers, the
// cached latest n8n of the e2e setup), the weekly e-mail example reached through a Webhook and
// the Drive-archive trigger example writing to a local folder instead of Drive, one API key for
// everything. `npm run test:scale`. The tests run in order and build on each other.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { installedLine } from '../../scripts/e2e/install-n8n.mjs';
import { executionRun } from '../../scripts/e2e/n8n-instance.mjs';
import { packPackage } from '../../scripts/e2e/pack.mjs';
import {
	archivedReports,
	EXACTLY_ONCE_WEBHOOK_PATH,
	runRound,
	startQueueCluster,
	waitUntil,
} from '../../scripts/scale/queue-mode.mjs';

const TIME_SCALE = Number(process.env.SCALE_TIME_SCALE ?? 0.05);
const EXECUTIONS = 10;
const ACCOUNTS_EACH = 6;
const ACCOUNTS = EXECUTIONS * ACCOUNTS_EACH;
// The trigger polls every minute (n8n's shortest polling interval), in real time.
const TRIGGER_CATCH_UP_MS = 150_000;
// A dead worker's executions fail after the job lock expires (15 s here); the recovery then runs
// each again, paced by the service's 5 report generations a minute.
const RECOVERY_MS = 300_000;
// How long after the kill the mail catcher may finish reading an e-mail the worker had sent.
const IN_FLIGHT_MS = 1000;

let cluster;
before(async () => {
	installedLine('latest');
	const tarball =
		process.env.E2E_TARBALL ??
		(await packPackage({ outDir: fs.mkdtempSync(path.join(os.tmpdir(), 'scale-pack-')) })).tarball;
	cluster = await startQueueCluster({
		tarball,
		timeScale: TIME_SCALE,
		// the first round's clients, then the exactly-once example's
		activeAccounts: 2 * ACCOUNTS,
		workers: 2,
		concurrency: 5,
	});
});
after(async () => {
	await cluster?.stop();
});

/** Report id → count, of the reports among `ids` that the archive trigger wrote. */
function archivedAmong(ids) {
	const all = archivedReports(cluster.archiveDir);
	return new Map(ids.map((id) => [id, all.get(id) ?? 0]));
}

/** Key → how many of `items` have it. */
function countBy(items, key) {
	const counts = new Map();
	for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
	return counts;
}

/** Each execution's accounts are known (from its stored webhook request), and they are the round's accounts, each once. */
function assertAccountsPartitioned(executions, accounts = cluster.accounts.slice(0, ACCOUNTS)) {
	for (const e of executions) {
		assert.equal(e.accounts?.length, ACCOUNTS_EACH, `the accounts of execution ${e.id}`);
	}
	assert.deepEqual(
		executions.flatMap((e) => e.accounts).sort(),
		accounts.map((a) => a.platformAccountId).sort(),
	);
}

async function waitForArchive(ids) {
	await waitUntil(() => [...archivedAmong(ids).values()].every((n) => n >= 1), {
		timeoutMs: TRIGGER_CATCH_UP_MS,
		what: `the archive trigger to emit ${ids.length} reports`,
		intervalMs: 1000,
	});
}

describe('queue mode: n8n main + 2 workers, Postgres, Redis, one API key', () => {
	let first;
	let second;

	test(`${EXECUTIONS} executions at once, ${ACCOUNTS_EACH} accounts each: every client gets exactly one e-mail with its own PDF`, async (t) => {
		first = await runRound(cluster, { executions: EXECUTIONS, accountsEach: ACCOUNTS_EACH });
		t.diagnostic(
			`round: ${(first.wallMs / 1000).toFixed(1)} s vs ${(first.boundMs / 1000).toFixed(1)} s generation bound; ${first.requests} requests, ${first.posts} POST /v1/reports (${first.rejected429} answers of 429) for ${first.newReports.length} reports`,
		);

		assert.deepEqual(
			first.executions.map((e) => e.status),
			Array(EXECUTIONS).fill('success'),
		);
		assertAccountsPartitioned(first.executions);
		const workersUsed = new Set(first.executions.map((e) => e.worker));
		assert.deepEqual(
			[...workersUsed].sort(),
			['worker-1', 'worker-2'],
			'executions ran on both workers',
		);

		// exactly 60 new reports, one per account: no duplicate
		assert.equal(first.newReports.length, ACCOUNTS);
		const reportOf = new Map(first.newReports.map((r) => [r.accountId, r]));
		assert.equal(reportOf.size, ACCOUNTS, 'one new report per account');
		assert.deepEqual(
			[...reportOf.keys()].sort(),
			cluster.accounts
				.slice(0, ACCOUNTS)
				.map((a) => a.platformAccountId)
				.sort(),
		);

		// exactly one e-mail per account, with the account's own report as the service sends it
		assert.equal(first.mails.length, ACCOUNTS);
		const mailsTo = new Map();
		for (const m of first.mails) {
			assert.equal(m.to.length, 1);
			mailsTo.set(m.to[0], [...(mailsTo.get(m.to[0]) ?? []), m]);
		}
		for (const account of cluster.accounts.slice(0, ACCOUNTS)) {
			const mails = mailsTo.get(`${account.platformAccountId}@clients.example`) ?? [];
			assert.equal(mails.length, 1, `${account.name} got ${mails.length} e-mails`);
			const report = reportOf.get(account.platformAccountId);
			assert.equal(report.status, 'completed');
			const file = await cluster.sandbox.download(report.id);
			const expectedName = /filename="([^"]+)"/.exec(file.disposition)[1];
			assert.equal(mails[0].attachments.length, 1);
			const [attachment] = mails[0].attachments;
			assert.equal(attachment.filename, expectedName, 'file name from the service');
			assert.ok(
				attachment.content.equals(file.bytes),
				`${account.name}: the attached PDF differs from the service's file`,
			);
			assert.match(mails[0].subject, new RegExp(account.name));
		}
	});

	test('the archive trigger (in main) emits each of the 60 completed reports exactly once', async () => {
		assert.ok(first, 'needs the first round');
		const ids = first.newReports.map((r) => r.id);
		await waitForArchive(ids);
		const counts = archivedAmong(ids);
		assert.deepEqual(
			[...counts.entries()].filter(([, n]) => n !== 1),
			[],
			'reports archived other than once',
		);
	});

	test('a worker killed (SIGKILL) in the middle of a round of the exactly-once example: after the recovery, every client has exactly one e-mail and one report', async (t) => {
		const roundAccounts = cluster.accounts.slice(ACCOUNTS, 2 * ACCOUNTS);
		second = await runRound(cluster, {
			executions: EXECUTIONS,
			accountsEach: ACCOUNTS_EACH,
			killAfterPosts: ACCOUNTS / 3,
			webhookPath: EXACTLY_ONCE_WEBHOOK_PATH,
			workflowId: cluster.workflows.exactlyOnceId,
			accountOffset: ACCOUNTS,
		});
		const { killed } = second;
		// The scenario itself: a worker was killed while it ran executions of this round.
		assert.ok(killed, 'a worker was killed');
		assert.ok(killed.runningThere.length > 0, 'the kill hit running executions');
		assert.equal(second.executions.length, EXECUTIONS);
		assertAccountsPartitioned(second.executions, roundAccounts);
		const failed = second.executions.filter((e) => e.status !== 'success');
		assert.ok(failed.length > 0, 'the kill interrupted executions');
		for (const e of failed) {
			assert.equal(e.worker, killed.worker, `execution ${e.id} failed on the surviving worker`);
			assert.ok(['error', 'crashed'].includes(e.status), `execution ${e.id} ended ${e.status}`);
		}
		// What the public API's retry does with one whose stored run n8n emptied (no node run,
		// nothing stacked), measured before the recovery runs. Only one is asked for: the retry
		// is an execution of its own, and when it fails, the Error Workflow runs for it too. One
		// with run data is never asked for (a retry resumes at its last node, past the e-mail check).
		const retryAnswers = [];
		for (const e of failed) {
			const stored = cluster.storedRun(e.id);
			if (stored.nodesRun > 0 || stored.stacked > 0)
				retryAnswers.push(`${e.id}: run data kept (${stored.nodesRun} nodes)`);
			else if (retryAnswers.some((answer) => answer.includes('retry answered')))
				retryAnswers.push(`${e.id}: emptied`);
			else {
				const r = await cluster.retryThroughPublicApi(e.id);
				const retried = /"status":"(\w+)"/.exec(r.text)?.[1];
				retryAnswers.push(
					`${e.id}: emptied, retry answered ${r.status}, the retry ended ${retried ?? r.text.slice(0, 160)}`,
				);
			}
		}

		// The recovery (the Error Workflow) runs the workflow again for each failed execution.
		const address = (account) => `${account.platformAccountId}@clients.example`;
		const recovered = await waitUntil(
			async () => {
				const rows = await cluster.rows('weekly_report_recoveries');
				const runs = cluster.executionsOfWorkflow(cluster.workflows.recoveryId);
				const done = failed.every((e) => rows.some((r) => r.failed_execution_id === String(e.id)));
				const settled = runs.every(
					(r) => !['new', 'running', 'waiting', 'unknown'].includes(r.status),
				);
				return done && settled ? { rows, runs } : undefined;
			},
			{ timeoutMs: RECOVERY_MS, what: 'the recovery of every failed execution', intervalMs: 1000 },
		);
		const now = await second.sinceStart();
		second.final = now;
		const lastMailAt = Math.max(...now.mails.map((m) => m.receivedAt.getTime()));
		const reruns = cluster
			.executionsOfWorkflow(cluster.workflows.exactlyOnceId)
			.filter((e) => e.mode === 'integrated');
		t.diagnostic(
			`SIGKILL ${killed.worker} ${(killed.atMs / 1000).toFixed(1)} s into the round, after ${killed.atPosts} generations; ` +
				`failed: ${failed.map((e) => `${e.id}=${e.status}`).join(', ')}; ` +
				`public API retry of them: ${retryAnswers.join('; ')}; ` +
				`Error Workflow recoveries: ${failed.filter((e) => recovered.rows.some((r) => r.failed_execution_id === String(e.id))).length} of the ${failed.length} failed (${failed.map((e) => e.status).join('/')}), ${recovered.rows.length} in all (the rest for failed retries) (recovery executions: ${recovered.runs.map((r) => `${r.id}=${r.status}`).join(', ')}; re-runs: ${reruns.map((r) => `${r.id}=${r.status}`).join(', ')}); ` +
				`${now.mails.length} e-mails, ${now.newReports.length} new reports, ${now.posts} POST /v1/reports; ` +
				`kill → last e-mail: ${((lastMailAt - killed.at) / 1000).toFixed(1)} s`,
		);

		// Every one of the 60 clients got exactly one e-mail, with one exception, identified
		// rather than excused: SMTP cannot recognise a repeated message, so a worker that dies
		// after the mail server accepted an e-mail and before the e-mail's record was written
		// leaves no trace of it, and the recovery sends it again. Such a client's first e-mail
		// arrived by the kill (the catcher may finish reading it a moment after), it belongs to a
		// failed execution, its only record is the recovery's, and a failed execution can have at
		// most one such e-mail (it sends one client at a time).
		const emailRows = (await cluster.rows('weekly_report_emails')).filter((r) =>
			roundAccounts.some((a) => a.platformAccountId === r.account_id),
		);
		const failedIds = new Set(failed.map((e) => String(e.id)));
		const inFlight = [];
		const wrong = [];
		for (const account of roundAccounts) {
			const mails = now.mails
				.filter((m) => m.to[0] === address(account))
				.sort((x, y) => x.receivedAt - y.receivedAt);
			if (mails.length === 1) continue;
			const owner = failed.find((e) => e.accounts.includes(account.platformAccountId));
			const rows = emailRows.filter((r) => r.account_id === account.platformAccountId);
			const sentAsTheWorkerDied =
				mails.length === 2 &&
				mails[0].receivedAt.getTime() <= killed.at + IN_FLIGHT_MS &&
				owner !== undefined &&
				rows.length === 1 &&
				!failedIds.has(rows[0].execution_id);
			if (sentAsTheWorkerDied) inFlight.push({ account, owner });
			else wrong.push(`${account.name}: ${mails.length}`);
		}
		assert.deepEqual(wrong, [], 'clients without exactly one e-mail');
		for (const e of failed) {
			const mine = inFlight.filter((c) => c.owner === e);
			assert.ok(mine.length <= 1, `execution ${e.id}: ${mine.length} e-mails in flight at once`);
		}
		assert.equal(now.mails.length, ACCOUNTS + inFlight.length, 'e-mails to anyone else');
		// How long a record follows its e-mail: the window above.
		const gaps = emailRows
			.map((r) => {
				const recordedAt = Date.parse(r.createdAt);
				const sentAt = Math.max(
					...now.mails
						.filter((m) => m.to[0] === `${r.account_id}@clients.example`)
						.map((m) => m.receivedAt.getTime())
						.filter((at) => at <= recordedAt),
				);
				return recordedAt - sentAt;
			})
			.sort((x, y) => x - y);
		t.diagnostic(
			`e-mails sent again because the worker died between sending and recording: ${inFlight.length}${inFlight.map((c) => ` (${c.account.name}, execution ${c.owner.id})`).join('')}; ` +
				`e-mail accepted → its record written: median ${gaps[gaps.length >> 1]} ms, 90th percentile ${gaps[Math.floor(gaps.length * 0.9)]} ms, max ${gaps.at(-1)} ms`,
		);
		// exactly 60 new reports, one per client
		assert.equal(now.newReports.length, ACCOUNTS, 'new reports');
		const reportOf = new Map(now.newReports.map((r) => [r.accountId, r]));
		for (const account of roundAccounts) {
			const report = reportOf.get(account.platformAccountId);
			assert.ok(report, `no report for ${account.name}`);
			const [mail] = now.mails.filter((m) => m.to[0] === address(account));
			assert.equal(mail.attachments.length, 1);
			const file = await cluster.sandbox.download(report.id);
			assert.ok(
				mail.attachments[0].content.equals(file.bytes),
				`${account.name}: the PDF is not its report`,
			);
		}
		// no execution is left failed without a successful recovery
		for (const e of failed) {
			const rows = recovered.rows.filter((r) => r.failed_execution_id === String(e.id));
			assert.equal(rows.length, 1, `execution ${e.id} recovered ${rows.length} times`);
			const run = recovered.runs.find((r) => String(r.id) === rows[0].recovery_execution_id);
			assert.equal(
				run?.status,
				'success',
				`the recovery of execution ${e.id} ended ${run?.status}`,
			);
		}
		assert.deepEqual(
			reruns.filter((r) => r.status !== 'success'),
			[],
			're-runs that did not succeed',
		);
		// the e-mail log holds each client once
		const logged = countBy(emailRows, (r) => r.account_id);
		assert.equal(logged.size, ACCOUNTS);
		assert.deepEqual(
			[...logged.values()].filter((n) => n !== 1),
			[],
		);
	});

	test('the exactly-once example run again for the same clients sends nothing and creates no report', async () => {
		assert.ok(second, 'needs the recovered round');
		const again = await runRound(cluster, {
			executions: EXECUTIONS,
			accountsEach: ACCOUNTS_EACH,
			webhookPath: EXACTLY_ONCE_WEBHOOK_PATH,
			workflowId: cluster.workflows.exactlyOnceId,
			accountOffset: ACCOUNTS,
		});
		assert.deepEqual(
			again.executions.map((e) => e.status),
			Array(EXECUTIONS).fill('success'),
		);
		assert.equal(again.mails.length, 0, 'e-mails sent again');
		assert.equal(again.newReports.length, 0, 'reports created again');
		assert.equal(again.posts, 0, 'POST /v1/reports sent');
		// each execution's Run summary names its clients, skipped as already e-mailed this week
		for (const e of again.executions) {
			const run = await executionRun(cluster.main, e.id);
			const summary = run.resultData.runData['Run summary']?.[0]?.data?.main?.[0]?.[0]?.json;
			assert.ok(summary, `execution ${e.id} has no Run summary`);
			assert.deepEqual(summary.sent, [], `execution ${e.id} sent`);
			assert.deepEqual(
				summary.skipped.map((c) => `${c.account_id}: ${c.reason}`).sort(),
				e.accounts.map((a) => `${a}: already e-mailed this week`).sort(),
				`execution ${e.id}`,
			);
		}
	});

	test('the trigger emitted every report of both rounds exactly once, the crashed executions’ reports included', async () => {
		assert.ok(first && second, 'needs both rounds');
		const completed = [...first.newReports, ...(second.final ?? second).newReports].map(
			(r) => r.id,
		);
		await waitForArchive(completed);
		const counts = archivedAmong(completed);
		assert.deepEqual(
			[...counts.entries()].filter(([, n]) => n !== 1),
			[],
		);
	});

	test('the API key is in no Postgres table, no Redis key and no process log', () => {
		const key = cluster.apiKey;
		assert.ok(key.length >= 20);
		const dump = cluster.pg.dump();
		assert.ok(dump.includes('execution_entity'), 'the dump holds the executions');
		assert.ok(!dump.includes(key), 'the API key is in the Postgres dump');
		const redis = cluster.redis.snapshot();
		assert.ok(redis.bytes.length > 0);
		assert.ok(!redis.bytes.includes(key), 'the API key is in the Redis keyspace');
		for (const { file, text } of cluster.logs()) {
			assert.ok(!text.includes(key), `the API key is in ${path.basename(file)}`);
		}
		assert.ok(
			cluster.logs().some(({ text }) => /Worker started execution/.test(text)),
			'the worker logs were read',
		);
	});
});
