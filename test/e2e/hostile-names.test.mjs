// End-to-end (issue 48): what a client or the team reads is safe and right, whatever the names.
// In real n8n (latest line, 2.x: the examples' data tables) with Debian's Chromium, the
// client-directory example runs with a directory row whose client_name carries markup, an
// ampersand, quotes and Slack control text, and a sandbox account whose own name (read by the
// example when the row leaves client_name empty) carries an <img onerror> and a Slack link and
// mention. Both have the review before it goes on and a critical week, so each name goes through
// every message a run writes: the approval request (weekly-report-review.json, Send and Wait),
// the client's e-mail (sent when the request is approved), the team digest e-mail and the
// digest's Slack text. A third client with a plain name has the same figures: its messages are
// the template, and each hostile client's message must have exactly its elements. A fourth row's
// To address carries a line break and a Bcc header: it is skipped, never sent.
//
// Checked for each name: it reads back exactly as given, as text (HTML parsed in Chromium,
// textContent; the plain-text parts; the decoded headers; Slack's text with its own three
// entities undone); the HTML holds only the template's elements and attributes (no <img>,
// <script>, <b>, link or on… handler from data; nothing runs or loads when it is rendered);
// the Slack text holds no `<!`, `<@`, `<http` from data and `&lt;`/`&gt;`/`&amp;` where the name
// had the characters; no header line holds CR or LF beyond its folding; each HTML body ≤ 100 KB.
// Screenshots at 600 px (the client e-mail, the approval request, the digest) to docsImages
// (demo.mjs; E2E_DOCS_IMAGES=docs/images refreshes the pictures docs/security.md shows).
//
// Env: E2E_EDITOR_LINES (default latest) · E2E_BROWSER=0 skips it.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';

import { executeWorkflowInEditor, screenshotUrl } from '../../scripts/e2e/browser.mjs';
import {
	DEMO_ACCOUNT_MANAGER,
	dataTableRows,
	insertDataTableRows,
} from '../../scripts/e2e/data-tables.mjs';
import {
	browserSkip as skip,
	DESKTOP_CHROME,
	docsImages,
	editorLines,
	lastRun,
	outDir,
	outputOf,
	readExample,
	useReviewDemo,
} from './demo.mjs';

const DIRECTORY = readExample('weekly-client-report-email-directory.json');
const REVIEW = readExample('weekly-report-review.json');
const TEAM_ADDRESS = DIRECTORY.nodes.find((n) => n.name === 'E-mail the team').parameters.toEmail;

/** The directory row's client_name. */
const DIRECTORY_NAME = 'Smith & Sons <Kids> "quoted" <!channel> <b>bold</b>';
/** The sandbox account's own name (its directory row leaves client_name empty). */
const ACCOUNT_NAME =
	"O'Hara & Co <img src=x onerror=alert(1)> <https://evil.example|click> <@U024BE7LH>";
/** The plain client: the same figures, so its messages are the template to compare with. */
const PLAIN_NAME = 'Elm Bakery';
/** A critical week (review.test.mjs: ROAS 0.7 is critical in the sandbox). */
const CRITICAL_WEEK = { totalSpend: 980, totalConversions: 12, avgRoas: 0.7 };
/** A To address with a line break and a header after it. */
const INJECTED_TO = 'fir@clients.example\r\nBcc: evil@evil.example';
/** The characters Slack's mrkdwn reads as control, as Slack's documentation says to write them. */
const slackEscaped = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const slackUnescaped = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/**
 * What the digest's HTML is built of (examples/src/lib/digest.js, the portfolio's table; the
 * parser adds a tbody to each table).
 */
const DIGEST_TAGS = ['div', 'p', 'h3', 'ul', 'li', 'table', 'tbody', 'tr', 'td'];
const DIGEST_ATTRIBUTES = ['style', 'role', 'class', 'cellpadding', 'cellspacing', 'border'];

for (const line of editorLines) {
	describe(`names with markup and Slack control text, in n8n ${line}`, { skip }, () => {
		const demo = useReviewDemo(line, { directory: DIRECTORY, review: REVIEW });
		let fake;
		let mail;
		let server;
		let browser;
		let tables;
		before(() => ({ fake, mail, server, browser, tables } = demo));

		/**
		 * An e-mail's HTML as Chromium reads it, with scripts on and no Content-Security-Policy (the
		 * inbox's own page has one, which would hide an injected handler): every element's name
		 * and attributes, each element's text, the links, and whatever ran (a dialog) or loaded.
		 */
		async function readHtml(html) {
			const context = await browser.newContext({ javaScriptEnabled: true });
			const page = await context.newPage();
			const dialogs = [];
			const loads = [];
			page.on('dialog', (d) => {
				dialogs.push(d.message());
				d.dismiss().catch(() => {});
			});
			page.on('request', (r) => loads.push(r.url()));
			try {
				const document = /^\s*(<!doctype|<html)/i.test(html)
					? html
					: `<!doctype html><html><head><meta charset="utf-8"></head><body>${html}</body></html>`;
				await page.setContent(document, { waitUntil: 'load' });
				await page.waitForTimeout(300);
				const dom = await page.evaluate(() => {
					const elements = [...document.body.querySelectorAll('*')];
					return {
						tags: elements.map((e) => e.localName),
						attributes: [...new Set(elements.flatMap((e) => e.getAttributeNames()))].sort(),
						texts: elements.map((e) => e.textContent),
						items: [...document.querySelectorAll('li')].map((e) => e.textContent),
						text: document.body.textContent,
						links: [...document.querySelectorAll('a')].map((a) => ({
							text: a.textContent.trim(),
							href: a.getAttribute('href'),
						})),
					};
				});
				return { ...dom, dialogs, loads };
			} finally {
				await context.close().catch(() => {});
			}
		}

		/** No header line holds CR or LF but its folding (CRLF before a space or tab). */
		function assertHeadersOneLine(message, label) {
			assert.ok(
				message.headerLines.some((h) => h.key === 'subject'),
				`${label}: the catcher kept no header lines`,
			);
			for (const { key, line: raw } of message.headerLines)
				assert.doesNotMatch(
					raw.replace(/\r\n(?=[ \t])/g, ''),
					/[\r\n]/,
					`${label}: header ${key} holds a line break: ${JSON.stringify(raw)}`,
				);
			for (const [field, value] of Object.entries({
				subject: message.subject,
				to: message.toHeader,
				cc: message.cc,
			}))
				assert.doesNotMatch(value ?? '', /[\r\n]/, `${label}: decoded ${field}`);
			assert.ok(
				!message.headerLines.some((h) => h.key === 'bcc'),
				`${label}: a Bcc header was sent`,
			);
			const bytes = Buffer.byteLength(message.html ?? '');
			assert.ok(bytes <= 100 * 1024, `${label}: ${bytes} bytes of HTML`);
		}

		test('the checks can fail: markup from data in an e-mail is seen, and its handler runs', async () => {
			const broken = await readHtml(`<p>Hello ${ACCOUNT_NAME}, <b>bold</b></p>`);
			// `<https://evil.example|click>` is an element too, named `https:`
			assert.deepEqual(broken.tags, ['p', 'img', 'https:', 'b']);
			assert.ok(broken.attributes.includes('onerror'));
			assert.deepEqual(broken.dialogs, ['1'], 'the onerror handler ran');
			assert.ok(!broken.text.includes(ACCOUNT_NAME), 'parsed markup does not read back as text');
		});

		test('each name reads back as given in the approval request, the client e-mail, the team digest and its Slack text; no markup, link, mention or header break from data', async (t) => {
			const hostileRow = await fake.addAccount({ name: 'Plain Account Name', currency: 'USD' });
			const hostileAccount = await fake.addAccount({ name: ACCOUNT_NAME, currency: 'USD' });
			const plain = await fake.addAccount({ name: PLAIN_NAME, currency: 'USD' });
			const injected = await fake.addAccount({ name: 'Fir Hotels', currency: 'USD' });
			const row = (account, fields) => ({
				account_id: account.platformAccountId,
				client_name: '',
				to_email: '',
				cc_email: '',
				send: true,
				locale: 'en-US',
				review: true,
				review_spend_change_pct: 50,
				account_manager_email: DEMO_ACCOUNT_MANAGER,
				...fields,
			});
			const rows = [
				row(hostileRow, { client_name: DIRECTORY_NAME, to_email: 'smith@clients.example' }),
				row(hostileAccount, { to_email: 'ohara@clients.example' }),
				row(plain, { client_name: PLAIN_NAME, to_email: 'elm@clients.example' }),
				row(injected, { client_name: 'Fir Hotels', to_email: INJECTED_TO }),
			];
			await insertDataTableRows(server, tables, 'clients', rows);
			const stored = await dataTableRows(server, tables, 'clients');
			assert.equal(
				stored.find((r) => r.account_id === injected.platformAccountId).to_email,
				INJECTED_TO,
				'the data table keeps the line break',
			);
			assert.equal(
				stored.find((r) => r.account_id === hostileRow.platformAccountId).client_name,
				DIRECTORY_NAME,
			);
			for (const account of [hostileRow, hostileAccount, plain])
				await fake.setNextReports(account.id, { summary: CRITICAL_WEEK });
			const clients = [
				{ name: DIRECTORY_NAME, account: hostileRow, to: 'smith@clients.example' },
				{ name: ACCOUNT_NAME, account: hostileAccount, to: 'ohara@clients.example' },
				{ name: PLAIN_NAME, account: plain, to: 'elm@clients.example' },
			];
			const hostile = clients.slice(0, 2);
			const plainClient = clients[2];

			// the Monday run: the three critical reports wait for review, the digest goes out
			await executeWorkflowInEditor({
				...server,
				browser,
				workflowId: DIRECTORY.id,
				screenshotPath: path.join(outDir, `hostile-names-run-${line}.png`),
			});
			const runData = await lastRun(server, DIRECTORY.id);
			assert.deepEqual(
				outputOf(runData, 'Send it for review')
					.map((r) => r.accountId)
					.sort(),
				clients.map((c) => c.account.platformAccountId).sort(),
			);
			const digest = await mail.waitForMessage((m) => m.toHeader === TEAM_ADDRESS, 30_000);
			const requestOf = (client) =>
				mail.messages.find(
					(m) =>
						m.toHeader === DEMO_ACCOUNT_MANAGER &&
						m.subject ===
							`Review before it goes: the weekly report of ${client.name} (critical risk)`,
				);
			await mail.waitForMessage(() => clients.every(requestOf), 30_000).catch(() => {});
			for (const client of clients)
				assert.ok(
					requestOf(client),
					`no approval request whose subject names ${client.name}: ${JSON.stringify(mail.messages.map((m) => m.subject))}`,
				);

			// the To address with a line break: skipped with the reason, nothing sent to either part
			const [summary] = outputOf(runData, 'Run summary');
			assert.deepEqual(
				summary.skipped.find((s) => s.account_id === injected.platformAccountId),
				{
					client_name: 'Fir Hotels',
					account_id: injected.platformAccountId,
					reason: 'e-mail address "fir@clients.example Bcc: evil@evil.example" has a line break',
				},
			);

			// the approval requests
			const plainRequest = await readHtml(requestOf(plainClient).html);
			for (const client of clients) {
				const message = requestOf(client);
				const label = `the approval request of ${client.name}`;
				assertHeadersOneLine(message, label);
				assert.deepEqual(message.to, [DEMO_ACCOUNT_MANAGER]);
				const dom = await readHtml(message.html);
				assert.ok(
					dom.text.includes(
						`The weekly report of ${client.name} (${client.account.platformAccountId}) for `,
					),
					`${label}: the name does not read back as text: ${dom.text.replace(/\s+/g, ' ').slice(0, 600)}`,
				);
				assert.deepEqual(dom.tags, plainRequest.tags, `${label}: elements beyond the template's`);
				assert.deepEqual(dom.attributes, plainRequest.attributes, `${label}: attributes`);
				assert.deepEqual(
					dom.links.map((l) => l.text),
					['Hold it', 'Approve and send'],
					`${label}: links`,
				);
				assert.deepEqual(dom.dialogs, [], `${label}: something ran`);
				assert.deepEqual(dom.loads, [], `${label}: something loaded`);
			}
			await screenshotUrl({
				url: `${mail.inboxUrl}messages/${requestOf(hostile[1]).id}/html`,
				browser,
				viewport: { width: 600, height: 900 },
				fullPage: true,
				screenshotPath: path.join(docsImages, 'hostile-names-approval-request.png'),
			});

			// the team digest: e-mail (text and HTML) and the Slack text
			assertHeadersOneLine(digest, 'the team digest');
			const digestDom = await readHtml(digest.html);
			assert.deepEqual(
				[...new Set(digestDom.tags)].filter((tag) => !DIGEST_TAGS.includes(tag)),
				[],
				'the digest holds elements beyond its template',
			);
			assert.deepEqual(
				digestDom.attributes.filter((a) => !DIGEST_ATTRIBUTES.includes(a)),
				[],
				'the digest holds attributes beyond its template',
			);
			assert.deepEqual(digestDom.dialogs, []);
			assert.deepEqual(digestDom.loads, []);
			const [composed] = outputOf(runData, 'Compose the team digest');
			const [withReviews] = outputOf(runData, 'Add the reviews to the digest');
			assert.equal(digest.subject, withReviews.subject);
			for (const client of clients) {
				const at = (start) => digestDom.items.filter((s) => s.startsWith(start)).length;
				// at risk; waiting for review; the portfolio's cell of the name
				assert.equal(at(`${client.name}: CRITICAL `), 1, `${client.name}: at-risk line`);
				assert.equal(
					at(`${client.name}: critical risk; week of `),
					1,
					`${client.name}: review line`,
				);
				assert.ok(
					digestDom.texts.includes(client.name),
					`${client.name}: no portfolio cell reads the name`,
				);
				for (const part of [
					`- ${client.name}: CRITICAL `,
					`- ${client.name}: critical risk; week of `,
				])
					assert.ok(
						digest.text.includes(part),
						`${client.name}: "${part}" not in the digest's text`,
					);
			}
			await screenshotUrl({
				url: `${mail.inboxUrl}messages/${digest.id}/html`,
				browser,
				viewport: { width: 600, height: 900 },
				fullPage: true,
				screenshotPath: path.join(docsImages, 'hostile-names-team-digest.png'),
			});
			for (const [node, message] of [
				['Compose the team digest', composed],
				['Add the reviews to the digest', withReviews],
			]) {
				const slack = message.slack_text;
				// the digest's Slack template writes no link or mention of its own: any is from data
				for (const control of ['<!', '<@', '<http'])
					assert.ok(!slack.includes(control), `${node}: "${control}" in the Slack text:\n${slack}`);
				assert.doesNotMatch(slack, /[<>]/, `${node}: an unescaped < or > in the Slack text`);
				for (const client of clients) {
					assert.ok(
						slack.includes(`• ${slackEscaped(client.name)}: CRITICAL `),
						`${node}: ${client.name} not written with Slack's entities:\n${slack}`,
					);
					assert.ok(slackUnescaped(slack).includes(`• ${client.name}: CRITICAL `));
				}
			}
			assert.ok(
				withReviews.slack_text.includes(
					`• ${slackEscaped(DIRECTORY_NAME)}: critical risk; week of `,
				),
			);

			// the account manager approves each: the client gets its e-mail (the PDF attached)
			for (const client of clients) {
				const { links } = await readHtml(requestOf(client).html);
				const approve = links.find((l) => l.text === 'Approve and send');
				const answer = await fetch(approve.href, { headers: { 'user-agent': DESKTOP_CHROME } });
				assert.match(await answer.text(), /<title>Action recorded<\/title>/, client.name);
			}
			const emailOf = (client) => mail.messages.find((m) => m.toHeader === client.to);
			await mail.waitForMessage(() => clients.every(emailOf), 60_000);
			const plainEmail = await readHtml(emailOf(plainClient).html);
			for (const client of clients) {
				const message = emailOf(client);
				const label = `the e-mail to ${client.name}`;
				assertHeadersOneLine(message, label);
				assert.deepEqual(message.to, [client.to]);
				assert.equal(
					message.subject,
					`Your weekly ad performance report: Weekly performance – ${client.name}`,
				);
				assert.equal(message.attachments.length, 1, `${label}: the PDF`);
				assert.ok(message.text.includes(`Hello ${client.name},\n`), `${label}: text part`);
				const dom = await readHtml(message.html);
				assert.ok(dom.texts.includes(`Hello ${client.name},`), `${label}: greeting`);
				assert.ok(dom.texts.includes(`Weekly performance – ${client.name}`), `${label}: title`);
				assert.deepEqual(dom.tags, plainEmail.tags, `${label}: elements beyond the template's`);
				assert.deepEqual(dom.attributes, plainEmail.attributes, `${label}: attributes`);
				assert.deepEqual(dom.links, [], `${label}: a link`);
				assert.deepEqual(dom.dialogs, [], `${label}: something ran`);
				assert.deepEqual(dom.loads, [], `${label}: something loaded`);
			}
			const shown = await screenshotUrl({
				url: `${mail.inboxUrl}messages/${emailOf(hostile[0]).id}/html`,
				browser,
				viewport: { width: 600, height: 900 },
				fullPage: true,
				screenshotPath: path.join(docsImages, 'hostile-names-client-email.png'),
			});
			assert.ok(shown.includes(`Hello ${DIRECTORY_NAME},`), shown);

			// nobody but the clients, the account manager and the team got anything
			const recipients = new Set(mail.messages.flatMap((m) => m.to));
			assert.deepEqual(
				[...recipients].sort(),
				[TEAM_ADDRESS, DEMO_ACCOUNT_MANAGER, ...clients.map((c) => c.to)].sort(),
			);
			t.diagnostic(`the digest's Slack text:\n${withReviews.slack_text}`);
			t.diagnostic(
				`HTML bytes: ${mail.messages.map((m) => `${m.subject.slice(0, 40)}… ${Buffer.byteLength(m.html ?? '')}`).join('; ')}`,
			);
		});
	});
}
