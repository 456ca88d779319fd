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
import { packPackage } from '../../scripts/e2e/pack.mjs';
import {
	archivedReports,
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

let cluster;
before(async () => {
	installedLine('latest');
	const tarball =
		process.env.E2E_TARBALL ??
		(await packPackage({ outDir: fs.mkdtempSync(path.join(os.tmpdir(), 'scale-pack-')) })).tarball;
	cluster = await startQueueCluster({
		tarball,
		timeScale: TIME_SCALE,
		activeAccounts: ACCOUNTS,
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
function assertAccountsPartitioned(executions) {
	for (const e of executions) {
		assert.equal(e.accounts?.length, ACCOUNTS_EACH, `the accounts of execution ${e.id}`);
	}
	assert.deepEqual(
		executions.flatMap((e) => e.accounts).sort(),
		cluster.accounts.map((a) => a.platformAccountId).sort(),
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
			cluster.accounts.map((a) => a.platformAccountId).sort(),
		);

		// exactly one e-mail per account, with the account's own report as the service sends it
		assert.equal(first.mails.length, ACCOUNTS);
		const mailsTo = new Map();
		for (const m of first.mails) {
			assert.equal(m.to.length, 1);
			mailsTo.set(m.to[0], [...(mailsTo.get(m.to[0]) ?? []), m]);
		}
		for (const account of cluster.accounts) {
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

	test('a worker killed (SIGKILL) in the middle of a round: what reaches the clients', async (t) => {
		second = await runRound(cluster, {
			executions: EXECUTIONS,
			accountsEach: ACCOUNTS_EACH,
			killAfterPosts: ACCOUNTS / 3,
		});
		const { killed } = second;
		// The scenario itself: a worker was killed while it ran executions of this round.
		assert.ok(killed, 'a worker was killed');
		assert.ok(killed.runningThere.length > 0, 'the kill hit running executions');
		assert.equal(second.executions.length, EXECUTIONS);
		assertAccountsPartitioned(second.executions);

		const address = (accountId) => `${accountId}@clients.example`;
		const mailsPerAccount = countBy(second.mails, (m) => m.to[0]);
		const reportsPerAccount = countBy(second.newReports, (r) => r.accountId);
		const failed = second.executions.filter((e) => e.status !== 'success');
		const succeeded = second.executions.filter((e) => e.status === 'success');
		const delivered = (e) => e.accounts.filter((a) => mailsPerAccount.has(address(a))).length;
		const reported = (e) => e.accounts.filter((a) => reportsPerAccount.has(a)).length;
		const lost = cluster.accounts.filter((a) => !mailsPerAccount.has(address(a.platformAccountId)));

		// Figures, which depend on the moment of the kill: how far each failed execution had got.
		// An execution counts as failed when its worker died before telling n8n it had finished,
		// which can be after its last e-mail was sent.
		t.diagnostic(
			`SIGKILL ${killed.worker} ${(killed.atMs / 1000).toFixed(1)} s into the round, after ${killed.atPosts} generations, with ${killed.runningThere.length} executions running on it; ` +
				`failed: ${failed.length} (${failed.map((e) => `${e.id}@${e.worker}=${e.status}: ${delivered(e)}/${ACCOUNTS_EACH} e-mails sent, ${reported(e)}/${ACCOUNTS_EACH} reports started`).join('; ') || 'none'}); ` +
				`e-mails: ${second.mails.length} sent, ${lost.length} clients without one; ` +
				`reports: ${second.newReports.length} new; round ended after ${(second.wallMs / 1000).toFixed(1)} s`,
		);

		// What holds whatever the moment of the kill.
		// n8n does not run a killed worker's executions again (it sets maxStalledCount 0): they end
		// as failed ("job stalled more than maxStalledCount") or crashed, visible in the execution
		// list; none stays running; an execution fails only if it ran on the killed worker at the
		// kill (one running there may still have finished in the moment before it).
		assert.ok(failed.length > 0, 'the kill interrupted executions');
		for (const e of failed) {
			assert.equal(e.worker, killed.worker, `execution ${e.id} failed on the surviving worker`);
			assert.ok(
				killed.runningThere.includes(e.id),
				`execution ${e.id} was not running at the kill`,
			);
			assert.ok(['error', 'crashed'].includes(e.status), `execution ${e.id} ended ${e.status}`);
		}
		// nothing is sent twice, no report is made twice
		assert.deepEqual(
			[...mailsPerAccount.entries()].filter(([, n]) => n > 1),
			[],
			'clients with more than one e-mail',
		);
		assert.deepEqual(
			[...reportsPerAccount.entries()].filter(([, n]) => n > 1),
			[],
			'accounts with more than one report',
		);
		// every successful execution delivered all its e-mails
		for (const e of succeeded) {
			assert.deepEqual(
				e.accounts.filter((a) => !mailsPerAccount.has(address(a))),
				[],
				`execution ${e.id} succeeded without e-mailing these clients`,
			);
		}
		// every client without an e-mail belongs to a failed execution: no silent loss
		const failedAccounts = new Set(failed.flatMap((e) => e.accounts));
		assert.deepEqual(
			lost.map((a) => a.platformAccountId).filter((a) => !failedAccounts.has(a)),
			[],
			'clients without an e-mail whose execution succeeded',
		);
	});

	test('the trigger emitted every report of both rounds exactly once, the crashed executions’ reports included', async () => {
		assert.ok(first && second, 'needs both rounds');
		const completed = [...first.newReports, ...second.newReports].map((r) => r.id);
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
