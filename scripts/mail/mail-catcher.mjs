// A mail catcher for the demo and the end-to-end tests: an SMTP server on 127.0.0.1 that accepts
// every message (any AUTH user and password, no TLS) and keeps it in memory, and a small web
// inbox to read them and download their attachments. Built on nodemailer's own `smtp-server`
// and `mailparser`, so what n8n's Send Email node (nodemailer) sends is parsed by the same
// family of libraries.
//
//   const mail = await startMailCatcher({ smtpPort: 0, webPort: 0 });   // spoolFirst: true: see below
//   mail.credentialData()     // data of an n8n `smtp` credential pointing at it
//   mail.inboxUrl             // http://127.0.0.1:<port>/ (a message's HTML body alone: /messages/<id>/html)
//   await mail.waitForMessage((m) => m.subject === '…')
//   mail.messages             // [{ id, from, to, toHeader, cc, auth, subject, text, html, attachments, headerLines, receivedAt }]
//                             // (to: every envelope recipient; toHeader, cc: the message's To and Cc headers;
//                             // headerLines: each header as sent, folded lines kept as they came)
//   await mail.close()
import { EventEmitter } from 'node:events';
import http from 'node:http';

import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * @typedef {{ filename?: string, contentType: string, size: number, content: Buffer }} CaughtAttachment
 * @typedef {{ id: number, from?: string, to: string[], toHeader?: string, cc?: string, auth?: { method: string, user: string, pass: string },
 *   subject?: string, text?: string, html?: string, attachments: CaughtAttachment[],
 *   headerLines: { key: string, line: string }[], receivedAt: Date }} CaughtMessage
 */

const escapeHtml = (text) =>
	String(text ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

export async function startMailCatcher(options = {}) {
	const host = options.host ?? '127.0.0.1';
	const maxBytes = options.maxMessageBytes ?? 50 * 1024 * 1024;
	/** @type {CaughtMessage[]} */
	const messages = [];
	const events = new EventEmitter();
	// spoolFirst: answer 250 when the message is in, parse it after (a mail server's order; the
	// window in which a sender that dies has sent but not recorded is then the mail server's
	// answer, not our parsing). Readers then wait for parsed() before reading messages.
	const spoolFirst = options.spoolFirst === true;
	/** @type {Set<Promise<void>>} */
	const pending = new Set();

	const smtp = new SMTPServer({
		secure: false,
		disabledCommands: ['STARTTLS'],
		authMethods: ['PLAIN', 'LOGIN'],
		authOptional: true,
		size: maxBytes,
		banner: 'Ad Performance demo mail catcher',
		logger: false,
		onAuth(auth, session, callback) {
			session.caughtAuth = { method: auth.method, user: auth.username, pass: auth.password };
			callback(null, { user: auth.username });
		},
		onData(stream, session, callback) {
			// The envelope as it is now: the session moves on to the next message after the answer.
			const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined;
			const to = session.envelope.rcptTo.map((rcpt) => rcpt.address);
			const keep = (parsed, receivedAt) => {
				const message = {
					id: messages.length + 1,
					from,
					to,
					toHeader: parsed.to?.text,
					cc: parsed.cc?.text,
					auth: session.caughtAuth,
					subject: parsed.subject,
					text: parsed.text,
					html: typeof parsed.html === 'string' ? parsed.html : undefined,
					attachments: parsed.attachments.map((a) => ({
						filename: a.filename,
						contentType: a.contentType,
						size: a.size,
						content: a.content,
					})),
					// the raw lines, not the decoded values: a line break smuggled into a header shows here
					headerLines: (parsed.headerLines ?? []).map(({ key, line }) => ({ key, line })),
					receivedAt,
				};
				messages.push(message);
				events.emit('message', message);
			};
			if (!spoolFirst) {
				simpleParser(stream)
					.then((parsed) => {
						keep(parsed, new Date());
						callback();
					})
					.catch((error) => callback(error));
				return;
			}
			// As a mail server does: the message is accepted once it is received in full (spooled),
			// and read after the answer. A sender that dies before the end of DATA sent nothing.
			const chunks = [];
			stream.on('data', (chunk) => chunks.push(chunk));
			stream.once('error', () => {});
			stream.once('end', () => {
				const receivedAt = new Date();
				callback();
				const parsing = simpleParser(Buffer.concat(chunks))
					.then((parsed) => keep(parsed, receivedAt))
					.catch((error) => keep({ subject: `(unreadable: ${error.message})`, attachments: [] }, receivedAt))
					.finally(() => pending.delete(parsing));
				pending.add(parsing);
			});
		},
	});
	smtp.on('error', () => {});
	await new Promise((resolve, reject) => {
		smtp.server.once('error', reject);
		smtp.listen(options.smtpPort ?? 0, host, resolve);
	});
	const smtpPort = smtp.server.address().port;

	const web = http.createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://inbox.invalid');
		const send = (status, type, body) => {
			res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
			res.end(body);
		};
		if (url.pathname === '/api/messages') {
			const list = messages.map(({ attachments, ...m }) => ({
				...m,
				attachments: attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, size: a.size })),
			}));
			return send(200, 'application/json', JSON.stringify(list));
		}
		// A message's HTML body alone, as a mail client shows it (open it in a 600 px wide window
		// to see what a client sees); nothing it contains may run or load.
		const body = /^\/messages\/(\d+)\/html$/.exec(url.pathname);
		if (body) {
			const message = messages[Number(body[1]) - 1];
			if (!message?.html) return send(404, 'text/plain', 'not found');
			res.writeHead(200, {
				'Content-Type': 'text/html; charset=utf-8',
				'Cache-Control': 'no-store',
				'Content-Security-Policy': "sandbox; default-src 'none'; style-src 'unsafe-inline'",
			});
			return res.end(`<!doctype html><html><head><meta charset="utf-8"></head><body style="margin:8px">${message.html}</body></html>`);
		}
		const file = /^\/messages\/(\d+)\/attachments\/(\d+)$/.exec(url.pathname);
		if (file) {
			const attachment = messages[Number(file[1]) - 1]?.attachments[Number(file[2])];
			if (!attachment) return send(404, 'text/plain', 'not found');
			res.writeHead(200, {
				'Content-Type': attachment.contentType,
				'Content-Disposition': `attachment; filename="${String(attachment.filename ?? 'attachment').replace(/["\\]/g, '_')}"`,
			});
			return res.end(attachment.content);
		}
		if (url.pathname !== '/') return send(404, 'text/plain', 'not found');
		// Each HTML body in a sandboxed frame: no scripts, no forms; its links (an approval request's
		// Approve and Hold buttons, target=_blank) open in a tab of their own, as in a mail client.
		const rows = [...messages]
			.reverse()
			.map(
				(m) => `<article data-test-id="message">
  <h2>${escapeHtml(m.subject ?? '(no subject)')}</h2>
  <p class="meta">To ${escapeHtml(m.toHeader ?? m.to.join(', '))}${m.cc ? ` · Cc ${escapeHtml(m.cc)}` : ''} · from ${escapeHtml(m.from)} · ${m.receivedAt.toISOString()}</p>
  ${
		m.html
			? `<iframe title="HTML body" sandbox="allow-popups allow-popups-to-escape-sandbox" srcdoc="${escapeHtml(m.html)}"></iframe>`
			: `<pre>${escapeHtml((m.text ?? '').slice(0, 2000))}</pre>`
	}
  ${m.html ? `<p><a data-test-id="html-body" href="/messages/${m.id}/html">The HTML body alone</a></p>` : ''}
  <ul>${m.attachments
		.map(
			(a, i) =>
				`<li><a data-test-id="attachment" href="/messages/${m.id}/attachments/${i}">${escapeHtml(a.filename ?? 'attachment')}</a> (${escapeHtml(a.contentType)}, ${a.size} bytes)</li>`,
		)
		.join('')}</ul>
</article>`,
			)
			.join('\n');
		send(
			200,
			'text/html; charset=utf-8',
			`<!doctype html><html><head><meta charset="utf-8"><title>Demo inbox (${messages.length})</title>
<meta http-equiv="refresh" content="5">
<style>body{font:15px system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}
article{border:1px solid #ddd;border-radius:6px;padding:.5rem 1rem;margin:1rem 0}.meta{color:#666}
pre{white-space:pre-wrap;background:#f7f7f7;padding:.5rem}
iframe{width:100%;height:30rem;border:1px solid #eee;border-radius:4px}</style></head>
<body><h1>Demo inbox: ${messages.length} message(s)</h1>
<p>Every e-mail n8n sends through the "Demo mail catcher" SMTP credential lands here. Nothing leaves this machine. This page refreshes every 5 seconds.</p>
${rows || '<p>No e-mail yet.</p>'}</body></html>`,
		);
	});
	await new Promise((resolve, reject) => {
		web.once('error', reject);
		web.listen(options.webPort ?? 0, host, resolve);
	});
	const webPort = web.address().port;

	return {
		host,
		port: smtpPort,
		smtpPort,
		webPort,
		inboxUrl: `http://${host}:${webPort}/`,
		messages,
		/** n8n SMTP credential data (type `smtp`) pointing at the catcher. */
		credentialData(user = 'demo', password = 'demo') {
			return { user, password, host, port: smtpPort, secure: false, disableStartTls: true, hostName: '' };
		},
		/**
		 * Resolves with the first message (already received or arriving) matching `predicate`.
		 * @param {(m: CaughtMessage) => boolean} [predicate]
		 * @param {number} [timeoutMs]
		 * @returns {Promise<CaughtMessage>}
		 */
		waitForMessage(predicate = () => true, timeoutMs = 30_000) {
			const found = messages.find(predicate);
			if (found) return Promise.resolve(found);
			return new Promise((resolve, reject) => {
				const timer = setTimeout(() => {
					events.off('message', listener);
					reject(new Error(`no matching e-mail within ${timeoutMs} ms (${messages.length} received)`));
				}, timeoutMs);
				const listener = (m) => {
					if (!predicate(m)) return;
					clearTimeout(timer);
					events.off('message', listener);
					resolve(m);
				};
				events.on('message', listener);
			});
		},
		/** Resolves when every message accepted so far is in `messages` (with spoolFirst). */
		async parsed() {
			while (pending.size) await Promise.all([...pending]);
		},
		clear() {
			messages.length = 0;
		},
		async close() {
			web.closeAllConnections?.();
			await Promise.all([
				new Promise((resolve) => smtp.close(() => resolve())),
				new Promise((resolve) => web.close(() => resolve())),
			]);
		},
	};
}
