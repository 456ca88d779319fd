// Self-test of the mail catcher used by `npm start` and the end-to-end tests: a raw SMTP client
// sends what nodemailer sends for n8n's Send Email node — AUTH PLAIN, dot-stuffed lines, a
// multipart/mixed body with a nested multipart/alternative, base64 and quoted-printable parts,
// an RFC 2231 continued file name and an RFC 2047 subject — and the web inbox shows it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startMailCatcher } from '../../scripts/mail/mail-catcher.mjs';

function smtpDialog(port, lines) {
	return new Promise((resolve, reject) => {
		const socket = net.connect(port, '127.0.0.1');
		const replies = [];
		let buf = '';
		let i = 0;
		socket.on('data', (d) => {
			buf += d;
			let idx;
			while ((idx = buf.indexOf('\r\n')) >= 0) {
				const line = buf.slice(0, idx);
				buf = buf.slice(idx + 2);
				replies.push(line);
				if (/^\d{3} /.test(line)) {
					// final line of a reply: send the next command
					if (i < lines.length) socket.write(lines[i++]);
				}
			}
		});
		socket.on('end', () => resolve(replies));
		socket.on('error', reject);
	});
}

const pdfBytes = Buffer.from(Array.from({ length: 3000 }, (_, k) => (k * 37 + 11) & 255));
const boundary = 'mixed_123';
const alt = 'alt_456';
const message = [
	'From: "n8n" <n8n@example.com>',
	'To: boss@example.com',
	'Subject: =?UTF-8?Q?Wochenbericht_=E2=9C=93?= for',
	' campaign 42',
	'MIME-Version: 1.0',
	`Content-Type: multipart/mixed; boundary="${boundary}"`,
	'',
	`--${boundary}`,
	`Content-Type: multipart/alternative; boundary="${alt}"`,
	'',
	`--${alt}`,
	'Content-Type: text/plain; charset=utf-8',
	'Content-Transfer-Encoding: quoted-printable',
	'',
	'Gr=C3=BC=C3=9Fe,',
	'..a line starting with a dot',
	`--${alt}`,
	'Content-Type: text/html; charset=utf-8',
	'',
	'<p>hi</p>',
	`--${alt}--`,
	`--${boundary}`,
	'Content-Type: application/pdf',
	'Content-Transfer-Encoding: base64',
	"Content-Disposition: attachment; filename*0*=utf-8''R%C3%A9sum%C3%A9%20of%20a%20long;",
	' filename*1*=%20name.pdf',
	'',
	...pdfBytes.toString('base64').match(/.{1,76}/g),
	`--${boundary}`,
	'Content-Type: text/csv; name="report.csv"',
	'Content-Disposition: attachment; filename="report.csv"',
	'',
	'day,clicks',
	'2026-11-01,42',
	`--${boundary}--`,
	'',
].join('\r\n');

test('the mail catcher captures a message with attachments, and its inbox shows it', async () => {
	const smtp = await startMailCatcher();
	try {
		const replies = await smtpDialog(smtp.port, [
			'EHLO client.test\r\n',
			`AUTH PLAIN ${Buffer.from('\0user\0secret').toString('base64')}\r\n`,
			'MAIL FROM:<n8n@example.com> SIZE=1000\r\n',
			'RCPT TO:<boss@example.com>\r\n',
			'RCPT TO:<cc@example.com>\r\n',
			'DATA\r\n',
			`${message}\r\n.\r\n`,
			'QUIT\r\n',
		]);
		assert.ok(
			replies.some((r) => r.startsWith('250-AUTH')),
			'advertises AUTH',
		);
		assert.ok(!replies.some((r) => /STARTTLS/.test(r)), 'never offers STARTTLS');
		const m = await smtp.waitForMessage((x) => x.from === 'n8n@example.com', 2000);
		assert.deepEqual(m.to, ['boss@example.com', 'cc@example.com']);
		assert.deepEqual(m.auth, { method: 'PLAIN', user: 'user', pass: 'secret' });
		assert.equal(m.subject, 'Wochenbericht ✓ for campaign 42');
		assert.equal(m.text.trim(), 'Grüße,\n.a line starting with a dot');
		assert.equal(m.html.trim(), '<p>hi</p>');
		assert.equal(m.attachments.length, 2);
		assert.equal(m.attachments[0].filename, 'Résumé of a long name.pdf');
		assert.equal(m.attachments[0].contentType, 'application/pdf');
		assert.ok(m.attachments[0].content.equals(pdfBytes), 'base64 attachment bytes');
		assert.equal(m.attachments[1].filename, 'report.csv');
		assert.equal(m.attachments[1].content.toString(), 'day,clicks\r\n2026-11-01,42');

		const list = await (await fetch(`${smtp.inboxUrl}api/messages`)).json();
		assert.equal(list.length, 1);
		assert.equal(list[0].attachments[0].filename, 'Résumé of a long name.pdf');
		const page = await (await fetch(smtp.inboxUrl)).text();
		assert.match(page, /Wochenbericht ✓ for campaign 42/);
		// the HTML body alone, linked from the inbox, where nothing it holds may run or load
		assert.ok(page.includes(`href="/messages/${m.id}/html"`), 'the inbox links the HTML body');
		const body = await fetch(`${smtp.inboxUrl}messages/${m.id}/html`);
		assert.equal(body.status, 200);
		assert.match(body.headers.get('content-security-policy'), /sandbox; default-src 'none'/);
		assert.match(await body.text(), /<body[^>]*><p>hi<\/p>/);
		assert.equal((await fetch(`${smtp.inboxUrl}messages/99/html`)).status, 404);
		const file = await fetch(`${smtp.inboxUrl}messages/${m.id}/attachments/0`);
		assert.equal(file.headers.get('content-type'), 'application/pdf');
		assert.ok(
			Buffer.from(await file.arrayBuffer()).equals(pdfBytes),
			'downloaded attachment bytes',
		);
	} finally {
		await smtp.close();
	}
});

test('spoolFirst: a message is accepted once it is in, read after; one cut off in DATA is not kept', async () => {
	const smtp = await startMailCatcher({ spoolFirst: true });
	try {
		// A sender that dies in the middle of DATA sent nothing.
		let cutInData = false;
		await new Promise((resolve, reject) => {
			const socket = net.connect(smtp.port, '127.0.0.1');
			const steps = [
				'EHLO client.test\r\n',
				'MAIL FROM:<n8n@example.com>\r\n',
				'RCPT TO:<cut@example.com>\r\n',
				'DATA\r\n',
			];
			let buf = '';
			socket.on('data', (d) => {
				buf += d;
				if (!/\r\n$/.test(buf) || !/^\d{3} /m.test(buf.split('\r\n').at(-2) ?? '')) return;
				buf = '';
				const next = steps.shift();
				if (next) socket.write(next);
				else {
					cutInData = /^354 /m.test(d.toString());
					socket.write(message.slice(0, 800), () => socket.destroy());
				}
			});
			socket.on('close', resolve);
			socket.on('error', reject);
		});
		assert.ok(cutInData, 'the first sender was cut off after the server asked for the data');
		const replies = await smtpDialog(smtp.port, [
			'EHLO client.test\r\n',
			'MAIL FROM:<n8n@example.com>\r\n',
			'RCPT TO:<boss@example.com>\r\n',
			'DATA\r\n',
			`${message}\r\n.\r\n`,
			'QUIT\r\n',
		]);
		assert.ok(
			replies.some((r) => /^250 .*(accepted|OK)/i.test(r)),
			`accepted: ${replies.join(' | ')}`,
		);
		await smtp.parsed();
		assert.deepEqual(
			smtp.messages.map((m) => m.to),
			[['boss@example.com']],
		);
		const [m] = smtp.messages;
		assert.equal(m.subject, 'Wochenbericht ✓ for campaign 42');
		assert.ok(m.attachments[0].content.equals(pdfBytes), 'base64 attachment bytes');
		assert.ok(m.receivedAt instanceof Date);
	} finally {
		await smtp.close();
	}
});
