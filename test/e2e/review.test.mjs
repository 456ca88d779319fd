// End-to-end: review before it goes, in real n8n (latest line) with Debian's Chromium. The
// client-directory example as `npm start` sets it up, its review workflow published; two clients
// have the review on and reports the sandbox shapes to critical and high risk. The account
// manager's approval requests arrive in the demo inbox; Approve and send, clicked there, sends
// the held client its e-mail with the PDF (once: a second click and a later run send nothing
// more); Hold it never sends; the team digest lists them waiting, then approved and held.
//
// The approval request as the inbox shows it is saved for docs/images/ (demo.mjs: docsImages) for
// docs/review-before-it-goes.md; the canvas after the run to .e2e-out/ (E2E_OUT).
//
// Env: E2E_EDITOR_LINES (default latest) · E2E_BROWSER=0 skips it.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';

import { executeWorkflowInEditor } from '../../scripts/e2e/browser.mjs';
import {
	DEMO_ACCOUNT_MANAGER,
	dataTableRows,
	demoClientRows,
	insertDataTableRows,
} from '../../scripts/e2e/data-tables.mjs';
import {
	browserSkip as skip,
	DESKTOP_CHROME,
	docsImages,
	editorLines,
	executions,
	lastRun,
	outDir,
	outputOf,
	readExample,
	useReviewDemo,
} from './demo.mjs';

const DIRECTORY = readExample('weekly-client-report-email-directory.json');
const REVIEW = readExample('weekly-report-review.json');
const TEAM_ADDRESS = DIRECTORY.nodes.find((n) => n.name === 'E-mail the team').parameters.toEmail;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

for (const line of editorLines) {
	describe(`review before it goes, in n8n ${line}`, { skip }, () => {
		const demo = useReviewDemo(line, { directory: DIRECTORY, review: REVIEW });
		let fake;
		let mail;
		let n8n;
		let server;
		let browser;
		let tables;
		before(() => ({ fake, mail, n8n, server, browser, tables } = demo));

		/**
		 * Opens the demo inbox in Chromium and clicks `label` in the approval request whose subject
		 * names `client`, as the account manager does; resolves with the page the link opened.
		 */
		async function clickInInbox(client, label, screenshot) {
			const context = await browser.newContext({
				userAgent: DESKTOP_CHROME,
				viewport: { width: 1280, height: 1000 },
			});
			try {
				for (let attempt = 1; ; attempt++) {
					const page = await context.newPage();
					try {
						// the inbox reloads itself every 5 s; a click cut off by that is tried again
						await page.goto(mail.inboxUrl);
						const article = page.locator('article', {
							hasText: `Review before it goes: the weekly report of ${client}`,
						});
						const button = article.frameLocator('iframe').getByRole('link', { name: label });
						await button.waitFor({ state: 'visible', timeout: 4_000 });
						if (screenshot) {
							// the frame's body has painted (a shot right after the button appears can be blank)
							await page.waitForLoadState('load');
							await page.waitForTimeout(500);
							await article.screenshot({ path: screenshot });
						}
						const opened = context.waitForEvent('page', { timeout: 4_000 });
						await button.click({ timeout: 3_000 });
						const answer = await opened;
						await answer.waitForLoadState('domcontentloaded');
						return {
							href: await button.getAttribute('href').catch(() => answer.url()),
							title: await answer.title(),
							url: answer.url(),
						};
					} catch (e) {
						if (attempt >= 4) throw e;
					} finally {
						await page.close().catch(() => {});
					}
				}
			} finally {
				await context.close().catch(() => {});
			}
		}

		test('Approve and send, clicked in the inbox, sends the held e-mail once; Hold it never sends; the digest lists both', async (t) => {
			// a third client whose week is fine: e-mailed at once while the other two wait
			const fine = await fake.addAccount({ name: 'Elm Bakery' });
			const accounts = (await fake.state()).data.accounts;
			const byName = (name) => accounts.find((a) => a.name === name);
			const approved = byName('Acme Outdoor');
			const held = byName('Delta Fitness');
			// the directory as `npm start` fills it; the review is on for these three clients only,
			// so that the sandbox's other (random) figures cannot hold anyone else
			const rows = demoClientRows(accounts).map((row) => ({
				...row,
				review: [approved, held, fine].some((a) => a.platformAccountId === row.account_id),
			}));
			await insertDataTableRows(server, tables, 'clients', rows);
			const addressOf = (account) =>
				rows.find((r) => r.account_id === account.platformAccountId).to_email;
			await fake.setNextReports(approved.id, {
				summary: { totalSpend: 980, totalConversions: 12, avgRoas: 0.7 },
			});
			await fake.setNextReports(fine.id, {
				summary: { totalSpend: 410, totalConversions: 30, avgRoas: 4.2 },
			});
			await fake.setNextReports(held.id, {
				summary: { totalSpend: 640, totalConversions: 20, avgRoas: 1.4 },
			});
			const active = accounts.filter((a) => a.connectionStatus === 'active');
			const to = (address) => mail.messages.filter((m) => m.toHeader === address);
			const requests = () => to(DEMO_ACCOUNT_MANAGER);

			// the Monday run: two reports held, the other clients e-mailed, the digest says so
			const started = Date.now();
			await executeWorkflowInEditor({
				...server,
				browser,
				workflowId: DIRECTORY.id,
				screenshotPath: path.join(outDir, `review-run-${line}.png`),
			});
			const first = await lastRun(server, DIRECTORY.id);
			assert.deepEqual(
				outputOf(first, 'Send it for review')
					.map((r) => r.accountId)
					.sort(),
				[approved, held].map((a) => a.platformAccountId).sort(),
			);
			const firstDigest = await mail.waitForMessage((m) => m.toHeader === TEAM_ADDRESS, 30_000);
			await mail.waitForMessage(() => requests().length >= 2, 30_000);
			await mail.waitForMessage(() => mail.messages.length >= active.length + 1, 30_000);
			const runSeconds = (Date.now() - started) / 1000;
			assert.equal(to(addressOf(approved)).length, 0, 'held: not e-mailed before the review');
			assert.equal(to(addressOf(held)).length, 0, 'held: not e-mailed before the review');
			assert.equal(to(addressOf(fine)).length, 1, `${fine.name} e-mailed at once`);
			for (const account of active.filter((a) => a !== approved && a !== held))
				assert.equal(to(addressOf(account)).length, 1, `${account.name} e-mailed at once`);
			assert.match(firstDigest.text, /Sent \(1\):\n- Elm Bakery/);
			assert.match(firstDigest.subject, /2 waiting for review/);
			assert.match(
				firstDigest.text,
				/Review before it goes: Waiting for review, not sent yet \(2\):/,
			);
			for (const [account, reason] of [
				[approved, 'critical risk'],
				[held, 'high risk'],
			]) {
				assert.ok(firstDigest.text.includes(`- ${account.name}: ${reason}`), firstDigest.text);
				const request = requests().find((m) => m.subject.includes(account.name));
				assert.equal(
					request.subject,
					`Review before it goes: the weekly report of ${account.name} (${reason})`,
				);
				assert.match(request.html, /Approve and send/);
				assert.match(request.html, /Hold it/);
			}
			// each review waits in an execution of its own
			const waiting = (await executions(server, REVIEW.id)).filter((e) => e.status === 'waiting');
			assert.equal(
				waiting.length,
				2,
				JSON.stringify(await executions(server, REVIEW.id)).slice(0, 600),
			);

			// the account manager approves one in the inbox: the client gets the e-mail with the PDF
			const click = await clickInInbox(
				approved.name,
				'Approve and send',
				path.join(docsImages, 'review-approval-request.png'),
			);
			assert.equal(click.title, 'Action recorded');
			const sent = await mail.waitForMessage((m) => m.toHeader === addressOf(approved), 30_000);
			assert.match(sent.subject, /^Your weekly ad performance report: /);
			assert.equal(sent.attachments.length, 1);
			assert.equal(sent.attachments[0].contentType, 'application/pdf');
			assert.ok(sent.text.includes('0.70×'), sent.text);
			assert.ok(sent.text.includes('Overall risk: CRITICAL'), sent.text);
			// and holds the other
			const hold = await clickInInbox(held.name, 'Hold it');
			assert.equal(hold.title, 'Action recorded');
			// the approved one still downloads the PDF and sends for a moment
			const over = (list) => list.every((e) => !['new', 'running', 'waiting'].includes(e.status));
			for (let i = 0; i < 120 && !over(await executions(server, REVIEW.id)); i++) await sleep(250);
			assert.deepEqual((await executions(server, REVIEW.id)).map((e) => e.status).sort(), [
				'success',
				'success',
			]);

			// clicking Approve again finds the review over: nothing more is sent
			const again = await fetch(click.url, { headers: { 'user-agent': DESKTOP_CHROME } });
			const againPage = await again.text();
			t.diagnostic(`a second click on Approve and send: HTTP ${again.status}`);
			assert.match(againPage, /<title>No action required<\/title>/);
			await sleep(3_000);
			assert.equal(to(addressOf(approved)).length, 1, 'approved: e-mailed once');
			assert.equal(to(addressOf(held)).length, 0, 'held: never e-mailed');
			const reviews = Object.fromEntries(
				(await dataTableRows(server, tables, 'weekly_report_reviews')).map((r) => [
					r.account_id,
					r,
				]),
			);
			assert.equal(reviews[approved.platformAccountId].status, 'approved and sent');
			assert.equal(reviews[held.platformAccountId].status, 'declined');
			const record = (await dataTableRows(server, tables, 'weekly_report_emails')).filter(
				(r) => r.account_id === approved.platformAccountId,
			);
			assert.equal(record.length, 1, 'the exactly-once record holds the approved e-mail');

			// a later run: neither asked nor sent again; its digest says approved and held
			mail.clear();
			await executeWorkflowInEditor({ ...server, browser, workflowId: DIRECTORY.id });
			const second = await lastRun(server, DIRECTORY.id);
			assert.equal(outputOf(second, 'Send it for review').length, 0, 'not asked again');
			const digest = await mail.waitForMessage((m) => m.toHeader === TEAM_ADDRESS, 30_000);
			await mail.waitForMessage(() => mail.messages.length >= active.length - 1, 30_000);
			await sleep(2_000);
			assert.equal(requests().length, 0, 'no second approval request');
			assert.equal(to(addressOf(approved)).length, 0, 'the approved client is not e-mailed again');
			assert.equal(to(addressOf(held)).length, 0, 'the held client is not e-mailed');
			assert.ok(
				digest.text.includes('Review before it goes: Approved in review and sent (1):'),
				digest.text,
			);
			assert.ok(digest.text.includes(`- ${approved.name}: critical risk`), digest.text);
			assert.ok(
				digest.text.includes('Review before it goes: Held: declined in review (1):'),
				digest.text,
			);
			assert.ok(digest.text.includes(`- ${held.name}: high risk`), digest.text);
			assert.match(digest.subject, /1 held/);
			assert.ok(digest.html.includes('Held: declined in review (1)'));
			const [composed] = outputOf(second, 'Add the reviews to the digest');
			assert.deepEqual(composed.reviews.map((r) => [r.client_name, r.status]).sort(), [
				[approved.name, 'approved and sent'],
				[held.name, 'declined'],
			]);
			t.diagnostic(`first run to every e-mail and both requests: ${runSeconds.toFixed(1)} s`);
			t.diagnostic(`the later run's digest:\n${digest.subject}\n${digest.text}`);
		});

		test('no answer within the time the review allows holds it, and the digest says so', async (t) => {
			// the review workflow as imported, with a limit of 1 minute instead of 24 hours
			const quick = structuredClone(REVIEW);
			quick.id = 'adperfWeeklyReviewQuick';
			quick.name = `${REVIEW.name}: 1 minute`;
			const ask = quick.nodes.find((n) => n.name === 'Ask the account manager');
			assert.equal(ask.parameters.options.limitWaitTime.values.resumeAmount, 24);
			ask.parameters.options.limitWaitTime.values = {
				limitType: 'afterTimeInterval',
				resumeAmount: 1,
				resumeUnit: 'minutes',
			};
			const directory = structuredClone(DIRECTORY);
			directory.id = 'adperfDirectoryQuickReview';
			directory.name = `${DIRECTORY.name}: 1-minute review`;
			directory.nodes.find((n) => n.name === 'Send it for review').parameters.workflowId.value =
				quick.id;
			await n8n.importWorkflows([quick, directory]);
			await n8n.publishWorkflow(quick.id);
			const silent = await fake.addAccount({ name: 'Fir Hotels' });
			const [row] = demoClientRows([silent]);
			await insertDataTableRows(server, tables, 'clients', [row]);
			await fake.setNextReports(silent.id, {
				summary: { totalSpend: 300, totalConversions: 3, avgRoas: 0.5 },
			});
			mail.clear();
			await executeWorkflowInEditor({ ...server, browser, workflowId: directory.id });
			const request = await mail.waitForMessage(
				(m) => m.toHeader === DEMO_ACCOUNT_MANAGER && m.subject.includes(silent.name),
				30_000,
			);
			const asked = request.receivedAt.getTime();
			// n8n's wait tracker looks for due executions once a minute
			let review;
			for (; Date.now() - asked < 150_000; await sleep(2_000)) {
				review = (await dataTableRows(server, tables, 'weekly_report_reviews')).find(
					(r) => r.account_id === silent.platformAccountId,
				);
				if (review?.status !== 'waiting') break;
			}
			assert.equal(review.status, 'no answer');
			t.diagnostic(
				`held for no answer ${((Date.now() - asked) / 1000).toFixed(0)} s after the request`,
			);
			assert.equal(
				mail.messages.filter((m) => m.toHeader === row.to_email).length,
				0,
				'never e-mailed',
			);
			// the next digest says so
			mail.clear();
			await executeWorkflowInEditor({ ...server, browser, workflowId: directory.id });
			const digest = await mail.waitForMessage((m) => m.toHeader === TEAM_ADDRESS, 60_000);
			assert.ok(
				digest.text.includes('Review before it goes: Held: no answer in time (1):'),
				digest.text,
			);
			assert.ok(digest.text.includes(`- ${silent.name}: critical risk`), digest.text);
			assert.equal(mail.messages.filter((m) => m.toHeader === row.to_email).length, 0);
		});
	});
}
