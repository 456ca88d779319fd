// End-to-end: each client's own Monday (issue 41, item 3). The exactly-once example
// (examples/weekly-client-report-email-exactly-once.json, imported unchanged) runs in real n8n
// (latest line) once for every hour of a simulated week around Monday 2026-10-26, and for the
// hours around each client's next Monday 08:00, through its "When the recovery runs it again" trigger with the
// instant in its input item as the Schedule Trigger gives it (`{ timestamp }`): no OS clock is
// faked. (Its Schedule Trigger is switched off in the imported copy, so the real clock does not
// run it too; the example is published, as n8n 2.x runs only published sub-workflows.) Three clients: Pacific/Auckland
// (the account's zone), Europe/Berlin (the directory's `timezone`, over the account's
// America/New_York) and America/Los_Angeles (the account's; the directory's "Mars/Olympus" is not
// a zone and the run summary says so). The agency (n8n's GENERIC_TIMEZONE) is Europe/London.
// Berlin's and London's clocks go back on 2026-10-25, Los Angeles' on 2026-11-01.
//
// Checked: each client gets exactly one e-mail a week, from the run of its own Monday 08:00, for
// its own last week (the dates Generate sent to the fake service, and the period the e-mail
// states); every other run sends nothing; the team digest goes out at most once per agency day,
// from the day's last sending run, and names every client e-mailed since the last one, once.
// Then two runs as the recovery starts it (no timestamp, the real clock): the first catches every
// client up for the week of its latest send time, the second sends nothing.
//
// Env: E2E_CLOCK_LINES (default latest; the example needs n8n 2.x).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import {
	dataTableRows,
	ensureDataTables,
	EXAMPLE_DATA_TABLES,
	insertDataTableRows,
} from '../../scripts/e2e/data-tables.mjs';
import { installedLine } from '../../scripts/e2e/install-n8n.mjs';
import { createInstance, demoCredentials, executionRun } from '../../scripts/e2e/n8n-instance.mjs';
import { packPackage, REPO_ROOT } from '../../scripts/e2e/pack.mjs';
import { startMailCatcher } from '../../scripts/mail/mail-catcher.mjs';
import { startFakeProcess } from '../../scripts/e2e/sandbox-process.mjs';

const lines = (process.env.E2E_CLOCK_LINES ?? 'latest')
	.split(',')
	.map((s) => s.trim())
	.filter(Boolean);
const AGENCY_ZONE = 'Europe/London';
const HOUR = 3_600_000;
const EXAMPLE = JSON.parse(
	fs.readFileSync(
		path.join(REPO_ROOT, 'examples', 'weekly-client-report-email-exactly-once.json'),
		'utf8',
	),
);
const EXAMPLE_NO_CLOCK = {
	...EXAMPLE,
	nodes: EXAMPLE.nodes.map((n) =>
		n.type === 'n8n-nodes-base.scheduleTrigger' ? { ...n, disabled: true } : n,
	),
};
const TEAM_ADDRESS = EXAMPLE.nodes.find((n) => n.name === 'E-mail the team').parameters.toEmail;
const TICK_PATH = 'adperf-simulated-clock';

/**
 * The hours the simulated clock strikes: every hour of a week (Thursday to Thursday around Monday
 * 2026-10-26), then around the next Monday only each client's hour and the hours before and after
 * it (the whole week again would take another 4 minutes).
 */
function ticks() {
	const out = [];
	for (let h = 0; h < 7 * 24; h++)
		out.push(new Date(Date.parse('2026-10-22T00:00:00Z') + h * HOUR));
	for (const due of ['2026-11-01T19:00:00Z', '2026-11-02T07:00:00Z', '2026-11-02T16:00:00Z'])
		for (const h of [-1, 0, 1]) out.push(new Date(Date.parse(due) + h * HOUR));
	return out;
}

const CLIENTS = [
	{
		name: 'Kiwi Kitchens',
		account: { timezone: 'Pacific/Auckland', currency: 'NZD' },
		directoryZone: '',
		zone: 'Pacific/Auckland',
	},
	{
		name: 'Berliner Bikes',
		account: { timezone: 'America/New_York', currency: 'EUR' },
		directoryZone: 'Europe/Berlin',
		zone: 'Europe/Berlin',
	},
	{
		name: 'Sunset Surf',
		account: { timezone: 'America/Los_Angeles', currency: 'USD' },
		directoryZone: 'Mars/Olympus',
		zone: 'America/Los_Angeles',
	},
];

/** Weekday, hour and date of an instant in a zone, read with Intl (not Luxon, as the workflow does). */
function wallClock(date, timeZone) {
	const parts = Object.fromEntries(
		new Intl.DateTimeFormat('en-US', {
			timeZone,
			hourCycle: 'h23',
			weekday: 'short',
			year: 'numeric',
			month: '2-digit',
			day: '2-digit',
			hour: '2-digit',
		})
			.formatToParts(date)
			.map((p) => [p.type, p.value]),
	);
	return {
		weekday: parts.weekday,
		hour: Number(parts.hour),
		day: `${parts.year}-${parts.month}-${parts.day}`,
	};
}
const plusDays = (day, n) =>
	new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/** Webhook → the instant → Execute Workflow (the example, by id, waiting for it). */
function driverWorkflow(exampleId) {
	const node = (name, type, typeVersion, x, parameters, extra = {}) => ({
		id: crypto.randomUUID(),
		name,
		type,
		typeVersion,
		position: [x, 0],
		parameters,
		...extra,
	});
	const nodes = [
		node(
			'Tick',
			'n8n-nodes-base.webhook',
			2,
			0,
			{ httpMethod: 'POST', path: TICK_PATH, responseMode: 'lastNode', options: {} },
			{ webhookId: crypto.randomUUID() },
		),
		node('The instant', 'n8n-nodes-base.set', 3.4, 220, {
			assignments: {
				assignments: [
					{
						id: 'i1',
						name: 'timestamp',
						value: "={{ $json.body.timestamp ?? '' }}",
						type: 'string',
					},
					{ id: 'i2', name: 'now', value: "={{ $json.body.now ?? '' }}", type: 'string' },
				],
			},
			options: {},
		}),
		node(
			'Run the weekly workflow',
			'n8n-nodes-base.executeWorkflow',
			1.2,
			440,
			{
				source: 'database',
				workflowId: { __rl: true, mode: 'id', value: exampleId },
				mode: 'once',
				options: { waitForSubWorkflow: true },
			},
			{ alwaysOutputData: true },
		),
	];
	const connections = {};
	for (let i = 0; i < nodes.length - 1; i++)
		connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	return {
		id: 'adperfSimulatedClock',
		name: 'Simulated clock',
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
		active: false,
	};
}

for (const line of lines) {
	describe(`each client's own Monday on n8n ${line}`, () => {
		let fake;
		let mail;
		let n8n;
		let server;
		let tables;
		const clients = [];
		before(async () => {
			installedLine(line);
			// E2E_TARBALL: a tarball packed once for the run (`.ci/run`), as package-loads takes it.
			const tarball =
				process.env.E2E_TARBALL ??
				(await packPackage({ outDir: fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-pack-')) }))
					.tarball;
			fake = await startFakeProcess({ timeScale: 0.02 });
			mail = await startMailCatcher();
			// only the three clients are connected: the sandbox's own accounts would have Mondays of their own
			for (const a of (await fake.state()).data.accounts)
				await fake.control('POST', `/__fake/accounts/${a.platformAccountId}/connection`, {
					status: 'disconnected',
				});
			for (const c of CLIENTS) {
				const account = await fake.addAccount({ name: c.name, ...c.account });
				clients.push({
					...c,
					id: account.platformAccountId,
					to: `${account.platformAccountId}@clients.example`,
				});
			}
			n8n = await createInstance({
				line,
				packageTarball: tarball,
				env: { GENERIC_TIMEZONE: AGENCY_ZONE },
			});
			await n8n.importCredentials(demoCredentials(fake, mail));
			await n8n.importWorkflows([EXAMPLE_NO_CLOCK, driverWorkflow(EXAMPLE.id)]); // one CLI boot
			server = await n8n.start();
			tables = await ensureDataTables(server, EXAMPLE_DATA_TABLES);
			await insertDataTableRows(
				server,
				tables,
				'clients',
				clients.map((c) => ({
					account_id: c.id,
					client_name: c.name,
					to_email: c.to,
					cc_email: '',
					send: true,
					timezone: c.directoryZone,
				})),
			);
			// n8n 2.x calls only published sub-workflows (its Schedule Trigger is off: see above)
			await n8n.publishWorkflow(EXAMPLE.id);
			await n8n.publishWorkflow('adperfSimulatedClock');
			await n8n.waitUntilPublished('adperfSimulatedClock');
		});
		after(async () => {
			await n8n?.dispose();
			await mail?.close();
			await fake?.stop();
		});

		test('hourly runs over a simulated week: each client one e-mail at its own Monday 08:00 for its own last week, the digest once per agency day', async (t) => {
			if (!n8n.version.startsWith('2.')) return t.skip(`n8n ${n8n.version} is not 2.x`);
			const started = Date.now();
			const runs = [];
			for (const at of ticks()) {
				const messages = await run({ timestamp: at.toISOString() });
				runs.push({ at, messages });
				// the run where the invalid directory zone's client is due: its summary says so
				if (messages.some((m) => m.toHeader === clients[2].to))
					runs.at(-1).runData = await lastRun();
			}
			const seconds = (Date.now() - started) / 1000;
			t.diagnostic(
				`${runs.length} hourly runs in ${seconds.toFixed(0)} s (${((seconds * 1000) / runs.length).toFixed(0)} ms a run)`,
			);

			// Each client: exactly the runs at its own Monday 08:00 e-mail it, for its own last week.
			const reports = (await fake.state()).data.reports;
			for (const c of clients) {
				const expected = runs
					.map((r) => r.at)
					.filter((at) => {
						const w = wallClock(at, c.zone);
						return w.weekday === 'Mon' && w.hour === 8;
					});
				assert.equal(expected.length, 2, `${c.name}: two Mondays 08:00 in the simulated hours`);
				const got = runs.filter((r) => r.messages.some((m) => m.toHeader === c.to));
				assert.deepEqual(
					got.map((r) => r.at.toISOString()),
					expected.map((at) => at.toISOString()),
					`${c.name} (${c.zone}): e-mailed at its own Monday 08:00 only`,
				);
				const weeks = expected.map((at) => {
					const monday = wallClock(at, c.zone).day;
					return { from: plusDays(monday, -7), to: plusDays(monday, -1) };
				});
				for (const [i, r] of got.entries()) {
					const mails = r.messages.filter((m) => m.toHeader === c.to);
					assert.equal(mails.length, 1, `${c.name}: one e-mail at ${r.at.toISOString()}`);
					assert.ok(
						mails[0].text.includes(`from ${weeks[i].from} to ${weeks[i].to}`),
						`${c.name}: the e-mail states ${weeks[i].from} – ${weeks[i].to}: ${mails[0].text.slice(0, 300)}`,
					);
					assert.equal(mails[0].attachments.length, 1, `${c.name}: the PDF`);
				}
				assert.deepEqual(
					reports
						.filter((r) => r.accountId === c.id)
						.map((r) => r.dateRange)
						.sort((a, b) => a.from.localeCompare(b.from)),
					weeks,
					`${c.name}: Generate asked for its own last weeks, once each`,
				);
				t.diagnostic(
					`${c.name} (${c.zone}): e-mailed at ${got.map((r) => r.at.toISOString()).join(', ')} for ${weeks.map((w) => `${w.from}..${w.to}`).join(', ')}`,
				);
			}
			// the first Monday's Berlin run is after the clocks went back (07:00 UTC, not 06:00),
			// the second Monday's Los Angeles run too (16:00 UTC, not 15:00)
			const at = (c, i) =>
				runs
					.filter((r) => r.messages.some((m) => m.toHeader === clients[c].to))
					.at(i)
					.at.toISOString();
			assert.equal(at(1, 0), '2026-10-26T07:00:00.000Z');
			assert.equal(at(2, 0), '2026-10-26T15:00:00.000Z');
			assert.equal(at(2, 1), '2026-11-02T16:00:00.000Z');
			assert.equal(at(0, 0), '2026-10-25T19:00:00.000Z');

			// Nothing else: every run without a client due sends no e-mail at all.
			const sending = runs.filter((r) => r.messages.some((m) => m.toHeader !== TEAM_ADDRESS));
			for (const r of runs)
				if (!sending.includes(r))
					assert.deepEqual(
						r.messages.map((m) => m.subject),
						[],
						`nothing sent at ${r.at.toISOString()}`,
					);

			// The digest: at most one per agency day, from the day's last sending run, naming every
			// client e-mailed since the previous one exactly once.
			const digests = runs.flatMap((r) =>
				r.messages.filter((m) => m.toHeader === TEAM_ADDRESS).map((m) => ({ at: r.at, m })),
			);
			const dayOf = (d) => wallClock(d, AGENCY_ZONE).day;
			const sendDays = [...new Set(sending.map((r) => dayOf(r.at)))];
			assert.deepEqual(
				digests.map((d) => dayOf(d.at)),
				sendDays,
				'one digest on each agency day with e-mails, none on the others',
			);
			for (const d of digests) {
				const lastOfDay = sending.filter((r) => dayOf(r.at) === dayOf(d.at)).at(-1);
				assert.equal(
					d.at,
					lastOfDay.at,
					`the digest of ${dayOf(d.at)} comes with the day's last run`,
				);
			}
			let previous = new Date(0);
			for (const d of digests) {
				const since = sending.filter((r) => r.at > previous && r.at <= d.at);
				const names = since.flatMap((r) =>
					clients.filter((c) => r.messages.some((m) => m.toHeader === c.to)).map((c) => c.name),
				);
				for (const name of names)
					assert.ok(
						d.m.text.includes(name),
						`digest of ${d.at.toISOString()} names ${name}: ${d.m.text}`,
					);
				for (const c of clients.filter((c) => !names.includes(c.name)))
					assert.ok(
						!d.m.text.includes(c.name),
						`digest of ${d.at.toISOString()} does not name ${c.name}`,
					);
				previous = d.at;
				t.diagnostic(`digest ${d.at.toISOString()}: ${d.m.subject}`);
			}
			const parts = await dataTableRows(server, tables, 'weekly_report_digests');
			assert.equal(parts.length, sending.length, 'one digest part per sending run');
			assert.deepEqual(
				parts.filter((p) => p.digest_execution === 'pending'),
				[],
				'every part went out in a digest',
			);

			// exactly-once records: one per client and local week
			const records = (await dataTableRows(server, tables, 'weekly_report_emails'))
				.map((r) => r.client_week)
				.sort();
			assert.deepEqual(
				records,
				clients
					.flatMap((c) =>
						runs
							.filter((r) => r.messages.some((m) => m.toHeader === c.to))
							.map((r) => `${c.id}:${plusDays(wallClock(r.at, c.zone).day, -7)}`),
					)
					.sort(),
			);

			// the directory's invalid zone: the account's zone is used, and the run summary says so
			const laRun = runs.find((r) => r.runData);
			const [summary] = (laRun.runData['Run summary']?.[0]?.data?.main?.[0] ?? []).map(
				(i) => i.json,
			);
			assert.ok(summary, 'the Run summary of the Los Angeles run');
			assert.deepEqual(
				summary.time_zone_notes.map((n) => n.account_id),
				[clients[2].id],
			);
			assert.match(summary.time_zone_notes[0].note, /"Mars\/Olympus".*America\/Los_Angeles/);

			// As the recovery runs it (no timestamp; the real clock): every client is caught up for the
			// week of its latest send time at or before now, then a second such run sends nothing.
			const now = new Date();
			const caughtUp = await run({});
			for (const c of clients) {
				let send = new Date(Math.floor(now.getTime() / HOUR) * HOUR);
				for (;;) {
					const w = wallClock(send, c.zone);
					if (w.weekday === 'Mon' && w.hour === 8) break;
					send = new Date(send.getTime() - HOUR);
				}
				const monday = wallClock(send, c.zone).day;
				const mails = caughtUp.filter((m) => m.toHeader === c.to);
				assert.equal(mails.length, 1, `${c.name}: caught up once`);
				assert.ok(
					mails[0].text.includes(`from ${plusDays(monday, -7)} to ${plusDays(monday, -1)}`),
					`${c.name}: caught up for ${plusDays(monday, -7)}: ${mails[0].text.slice(0, 300)}`,
				);
			}
			assert.equal(caughtUp.filter((m) => m.toHeader !== TEAM_ADDRESS).length, clients.length);
			// one digest, unless a client's send time comes later today (a Monday): then that run sends it
			assert.ok(caughtUp.filter((m) => m.toHeader === TEAM_ADDRESS).length <= 1);
			assert.deepEqual(
				(await run({})).map((m) => m.subject),
				[],
				'run again: nothing sent (already e-mailed; the day has its digest)',
			);
		});

		/** One run of the example through the driver; resolves with the e-mails it sent. */
		async function run(input) {
			const before = mail.messages.length;
			const res = await fetch(`${server.baseUrl}/webhook/${TICK_PATH}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(input),
			});
			const body = await res.text();
			assert.equal(res.status, 200, `run ${JSON.stringify(input)}: ${body.slice(0, 500)}`);
			return mail.messages.slice(before);
		}

		/** The run data of the example's latest execution (the sub-workflow run by the driver). */
		async function lastRun() {
			const list = await server.request(
				'GET',
				`/rest/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: EXAMPLE.id }))}`,
			);
			// the driver's run (integrated), not one of the real clock's hourly runs (trigger)
			const latest = (list.json?.data?.results ?? list.json?.data ?? []).find(
				(e) => e.mode === 'integrated',
			);
			assert.equal(latest?.status, 'success', `execution: ${JSON.stringify(latest).slice(0, 400)}`);
			return (await executionRun(server, latest.id)).resultData.runData;
		}
	});
}
