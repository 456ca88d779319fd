// A dependency-free SMTP sink for the end-to-end tests, plus a MIME parser that is good enough
// for what n8n's Send Email node (nodemailer) writes: multipart/mixed with nested
// multipart/alternative, base64 / quoted-printable / 7bit / 8bit bodies, RFC 2047 encoded
// headers and RFC 2231 (continued, charset-tagged) file names.
//
//   import { startSmtpServer } from './smtp-server.mjs';
//   const smtp = await startSmtpServer();            // 127.0.0.1, ephemeral port
//   ... configure n8n's SMTP credential: host 127.0.0.1, port smtp.port, secure false,
//       disableStartTls true (any user/password; AUTH PLAIN/LOGIN is accepted, not checked)
//   const msg = await smtp.waitForMessage((m) => m.subject === 'Report');
//   msg.attachments[0].filename, msg.attachments[0].content (Buffer)
//   await smtp.close();
//
// No TLS: the server never offers STARTTLS, so nodemailer with `secure: false` stays on plain TCP.

import net from 'node:net';
import { EventEmitter } from 'node:events';
import { pathToFileURL } from 'node:url';

const CRLF = '\r\n';

/**
 * @typedef {{ filename: string|undefined, contentType: string, content: Buffer, size: number,
 *             disposition: string|undefined, contentId: string|undefined, headers: Record<string,string> }} Attachment
 * @typedef {{ from: string, to: string[], auth?: {user: string, pass?: string, method: string},
 *             raw: Buffer, headers: Record<string,string>, subject: string|undefined,
 *             text: string|undefined, html: string|undefined, attachments: Attachment[],
 *             receivedAt: Date }} CapturedMessage
 */

/**
 * @param {{host?: string, port?: number, hostname?: string, maxMessageBytes?: number, log?: (line: string) => void}} [options]
 */
export async function startSmtpServer(options = {}) {
	const host = options.host ?? '127.0.0.1';
	const hostname = options.hostname ?? 'e2e-smtp.local';
	const maxBytes = options.maxMessageBytes ?? 50 * 1024 * 1024;
	const log = options.log ?? (() => {});
	/** @type {CapturedMessage[]} */
	const messages = [];
	const events = new EventEmitter();
	const sockets = new Set();

	const server = net.createServer((socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
		socket.on('error', () => {});
		handleSession(socket, { hostname, maxBytes, log, onMessage });
	});

	function onMessage(envelope, raw) {
		let parsed;
		try {
			parsed = parseMessage(raw);
		} catch (e) {
			parsed = { headers: {}, subject: undefined, text: undefined, html: undefined, attachments: [], parseError: String(e) };
		}
		const msg = { ...envelope, raw, ...parsed, receivedAt: new Date() };
		messages.push(msg);
		events.emit('message', msg);
	}

	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, host, resolve);
	});
	const port = /** @type {net.AddressInfo} */ (server.address()).port;

	return {
		host,
		port,
		messages,
		/** n8n SMTP credential data (type `smtp`) pointing at this server. */
		credentialData(user = 'e2e', password = 'e2e') {
			return { user, password, host, port, secure: false, disableStartTls: true, hostName: '' };
		},
		/**
		 * Resolves with the first message (already received or arriving) matching `predicate`.
		 * @param {(m: CapturedMessage) => boolean} [predicate]
		 * @param {number} [timeoutMs]
		 * @returns {Promise<CapturedMessage>}
		 */
		waitForMessage(predicate = () => true, timeoutMs = 30_000) {
			const found = messages.find(predicate);
			if (found) return Promise.resolve(found);
			return new Promise((resolve, reject) => {
				const timer = setTimeout(() => {
					events.off('message', listener);
					reject(new Error(`no matching SMTP message within ${timeoutMs} ms (${messages.length} received)`));
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
		clear() {
			messages.length = 0;
		},
		close() {
			for (const s of sockets) s.destroy();
			return new Promise((resolve) => server.close(() => resolve()));
		},
	};
}

function handleSession(socket, { hostname, maxBytes, log, onMessage }) {
	let buf = Buffer.alloc(0);
	let mode = 'command'; // command | data | auth-login-user | auth-login-pass | auth-plain
	let envelope = { from: '', to: [] };
	let auth;
	let dataChunks = [];
	let dataSize = 0;
	let tooBig = false;

	const reply = (line) => {
		log(`S: ${line}`);
		socket.write(line + CRLF);
	};
	reply(`220 ${hostname} ESMTP e2e sink ready`);

	socket.on('data', (chunk) => {
		buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
		for (;;) {
			const idx = buf.indexOf('\n');
			if (idx < 0) break;
			let line = buf.subarray(0, idx); // without \n
			buf = buf.subarray(idx + 1);
			if (line.length && line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
			if (mode === 'data') {
				if (line.length === 1 && line[0] === 0x2e) {
					mode = 'command';
					const raw = Buffer.concat(dataChunks);
					dataChunks = [];
					if (tooBig) {
						reply('552 5.3.4 Message too big');
					} else {
						onMessage({ ...envelope, auth }, raw);
						reply('250 2.0.0 OK: queued');
					}
					envelope = { from: '', to: [] };
					dataSize = 0;
					tooBig = false;
					continue;
				}
				// dot-unstuffing (RFC 5321 4.5.2)
				if (line.length && line[0] === 0x2e) line = line.subarray(1);
				dataSize += line.length + 2;
				if (dataSize > maxBytes) tooBig = true;
				else dataChunks.push(line, Buffer.from(CRLF));
				continue;
			}
			handleLine(line.toString('utf8'));
		}
	});

	function handleLine(line) {
		log(`C: ${line}`);
		if (mode === 'auth-login-user') {
			auth = { method: 'LOGIN', user: b64(line) };
			mode = 'auth-login-pass';
			return reply('334 UGFzc3dvcmQ6');
		}
		if (mode === 'auth-login-pass') {
			auth.pass = b64(line);
			mode = 'command';
			return reply('235 2.7.0 Authentication successful');
		}
		if (mode === 'auth-plain') {
			mode = 'command';
			auth = plainAuth(line);
			return reply('235 2.7.0 Authentication successful');
		}
		const m = /^(\S+)\s*(.*)$/.exec(line.trim());
		const verb = (m?.[1] ?? '').toUpperCase();
		const arg = m?.[2] ?? '';
		switch (verb) {
			case 'EHLO':
				socket.write(
					[`250-${hostname} greets ${arg || 'you'}`, '250-PIPELINING', '250-8BITMIME', '250-SMTPUTF8', `250-SIZE ${maxBytes}`, '250-AUTH PLAIN LOGIN', '250 HELP'].join(CRLF) +
						CRLF,
				);
				return;
			case 'HELO':
				return reply(`250 ${hostname}`);
			case 'AUTH': {
				const [method, initial] = arg.split(/\s+/);
				if (/^PLAIN$/i.test(method)) {
					if (initial) {
						auth = plainAuth(initial);
						return reply('235 2.7.0 Authentication successful');
					}
					mode = 'auth-plain';
					return reply('334 ');
				}
				if (/^LOGIN$/i.test(method)) {
					if (initial) {
						auth = { method: 'LOGIN', user: b64(initial) };
						mode = 'auth-login-pass';
						return reply('334 UGFzc3dvcmQ6');
					}
					mode = 'auth-login-user';
					return reply('334 VXNlcm5hbWU6');
				}
				return reply('504 5.5.4 Unrecognized authentication type');
			}
			case 'MAIL': {
				const addr = /FROM:\s*<([^>]*)>/i.exec(arg);
				if (!addr) return reply('501 5.5.4 Syntax: MAIL FROM:<address>');
				envelope = { from: addr[1], to: [] };
				return reply('250 2.1.0 OK');
			}
			case 'RCPT': {
				const addr = /TO:\s*<([^>]*)>/i.exec(arg);
				if (!addr) return reply('501 5.5.4 Syntax: RCPT TO:<address>');
				envelope.to.push(addr[1]);
				return reply('250 2.1.5 OK');
			}
			case 'DATA':
				if (!envelope.to.length) return reply('503 5.5.1 RCPT first');
				mode = 'data';
				return reply('354 End data with <CR><LF>.<CR><LF>');
			case 'RSET':
				envelope = { from: '', to: [] };
				return reply('250 2.0.0 OK');
			case 'NOOP':
				return reply('250 2.0.0 OK');
			case 'VRFY':
				return reply('252 2.1.5 Cannot VRFY user');
			case 'QUIT':
				reply('221 2.0.0 Bye');
				socket.end();
				return;
			case 'STARTTLS':
				return reply('454 4.7.0 TLS not available');
			default:
				return reply('502 5.5.2 Command not recognized');
		}
	}
}

function b64(s) {
	return Buffer.from(s.trim(), 'base64').toString('utf8');
}

function plainAuth(s) {
	const [, user, pass] = Buffer.from(s.trim(), 'base64').toString('utf8').split('\0');
	return { method: 'PLAIN', user, pass };
}

// ---------------------------------------------------------------- MIME

/** Splits a raw entity into its (unfolded, lower-cased name) headers and body Buffer. */
export function splitEntity(raw) {
	let sep = raw.indexOf('\r\n\r\n');
	let sepLen = 4;
	const lf = raw.indexOf('\n\n');
	if (sep < 0 || (lf >= 0 && lf < sep)) {
		sep = lf;
		sepLen = 2;
	}
	const headText = (sep < 0 ? raw : raw.subarray(0, sep)).toString('latin1');
	const body = sep < 0 ? Buffer.alloc(0) : raw.subarray(sep + sepLen);
	/** @type {Record<string,string>} */
	const headers = {};
	for (const line of headText.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
		const i = line.indexOf(':');
		if (i <= 0) continue;
		const name = line.slice(0, i).trim().toLowerCase();
		const value = line.slice(i + 1).trim();
		headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
	}
	return { headers, body };
}

/** Parses `type/sub; a=b; c="d"` including RFC 2231 `name*=charset''pct` and `name*0*=` continuations. */
export function parseHeaderValue(value = '') {
	const parts = [];
	let cur = '';
	let q = false;
	for (let i = 0; i < value.length; i++) {
		const ch = value[i];
		if (ch === '"' && value[i - 1] !== '\\') q = !q;
		if (ch === ';' && !q) {
			parts.push(cur);
			cur = '';
		} else cur += ch;
	}
	parts.push(cur);
	const main = parts.shift().trim().toLowerCase();
	const raw = {};
	for (const p of parts) {
		const i = p.indexOf('=');
		if (i < 0) continue;
		const k = p.slice(0, i).trim().toLowerCase();
		let v = p.slice(i + 1).trim();
		if (v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1).replace(/\\(.)/g, '$1');
		raw[k] = v;
	}
	const params = {};
	const continued = {};
	for (const [k, v] of Object.entries(raw)) {
		const m = /^([^*]+)\*(\d+)?(\*)?$/.exec(k);
		if (!m) {
			params[k] = decodeWords(v); // may hold RFC 2047 words; raw 8-bit bytes are taken as UTF-8
			continue;
		}
		const [, name, index, encoded] = m;
		if (index === undefined) {
			params[name] = decode2231(v, true).value;
			continue;
		}
		(continued[name] ??= []).push({ index: Number(index), value: v, encoded: Boolean(encoded) });
	}
	for (const [name, pieces] of Object.entries(continued)) {
		pieces.sort((a, b) => a.index - b.index);
		let charset = 'utf-8';
		const bytes = [];
		for (const piece of pieces) {
			if (piece.encoded) {
				let v = piece.value;
				if (piece.index === 0) {
					const d = /^([^']*)'[^']*'(.*)$/.exec(v);
					if (d) {
						charset = d[1] || charset;
						v = d[2];
					}
				}
				bytes.push(pctDecode(v));
			} else bytes.push(Buffer.from(piece.value, 'latin1'));
		}
		params[name] = decodeCharset(Buffer.concat(bytes), charset);
	}
	return { value: main, params };
}

function pctDecode(s) {
	const out = [];
	for (let i = 0; i < s.length; i++) {
		if (s[i] === '%' && /^[0-9a-fA-F]{2}$/.test(s.slice(i + 1, i + 3))) {
			out.push(parseInt(s.slice(i + 1, i + 3), 16));
			i += 2;
		} else out.push(s.charCodeAt(i) & 0xff);
	}
	return Buffer.from(out);
}

function decode2231(v) {
	const d = /^([^']*)'[^']*'(.*)$/.exec(v);
	if (!d) return { value: v };
	return { value: decodeCharset(pctDecode(d[2]), d[1] || 'utf-8') };
}

function decodeCharset(buf, charset = 'utf-8') {
	try {
		return new TextDecoder(charset.toLowerCase()).decode(buf);
	} catch {
		return buf.toString('utf8');
	}
}

/** RFC 2047 encoded words (=?utf-8?B?...?= / =?utf-8?Q?...?=); header text arrives as latin1 bytes. */
export function decodeWords(value) {
	if (value === undefined) return undefined;
	const decoded = value
		.replace(/(=\?[^?]+\?[bBqQ]\?[^?]*\?=)\s+(?==\?[^?]+\?[bBqQ]\?[^?]*\?=)/g, '$1')
		.replace(/=\?([^?*]+)(?:\*[^?]*)?\?([bBqQ])\?([^?]*)\?=/g, (_, charset, enc, text) => {
			const bytes =
				enc.toUpperCase() === 'B'
					? Buffer.from(text, 'base64')
					: Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (__, h) => String.fromCharCode(parseInt(h, 16))), 'latin1');
			// mark the decoded run so that the latin1 → utf8 step below leaves it alone
			return `\u0000${decodeCharset(bytes, charset)}\u0001`;
		});
	// outside encoded words, raw 8-bit header bytes are most likely UTF-8
	return decoded
		// NUL and SOH mark the decoded words above; nothing else in a header contains them.
		.split(/(\u0000[^\u0001]*\u0001)/)
		.map((part) => (part.startsWith('\u0000') ? part.slice(1, -1) : Buffer.from(part, 'latin1').toString('utf8')))
		.join('');
}

function decodeBody(body, encoding = '') {
	switch (encoding.trim().toLowerCase()) {
		case 'base64':
			return Buffer.from(body.toString('latin1').replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
		case 'quoted-printable': {
			const s = body.toString('latin1').replace(/=\r?\n/g, '');
			const out = [];
			for (let i = 0; i < s.length; i++) {
				if (s[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) {
					out.push(parseInt(s.slice(i + 1, i + 3), 16));
					i += 2;
				} else out.push(s.charCodeAt(i) & 0xff);
			}
			return Buffer.from(out);
		}
		default:
			return body;
	}
}

function splitMultipart(body, boundary) {
	const delim = Buffer.from(`--${boundary}`);
	const parts = [];
	let pos = body.indexOf(delim);
	while (pos >= 0) {
		let start = pos + delim.length;
		if (body[start] === 0x2d && body[start + 1] === 0x2d) break; // closing --boundary--
		// skip to the end of the delimiter line
		const eol = body.indexOf('\n', start);
		if (eol < 0) break;
		start = eol + 1;
		const next = body.indexOf(delim, start);
		if (next < 0) {
			parts.push(body.subarray(start));
			break;
		}
		let end = next;
		// the CRLF before the delimiter belongs to the delimiter
		if (body[end - 1] === 0x0a) end--;
		if (body[end - 1] === 0x0d) end--;
		parts.push(body.subarray(start, end));
		pos = next;
	}
	return parts;
}

/**
 * Parses a raw RFC 5322 message into subject, text, html and attachments (bytes decoded).
 * @param {Buffer|string} rawInput
 */
export function parseMessage(rawInput) {
	const raw = Buffer.isBuffer(rawInput) ? rawInput : Buffer.from(rawInput, 'utf8');
	const top = splitEntity(raw);
	const result = { headers: decodedHeaders(top.headers), subject: undefined, text: undefined, html: undefined, attachments: [] };
	result.subject = result.headers.subject;

	const walk = (headers, body) => {
		const ct = parseHeaderValue(headers['content-type'] || 'text/plain; charset=us-ascii');
		const cd = headers['content-disposition'] ? parseHeaderValue(headers['content-disposition']) : undefined;
		if (ct.value.startsWith('multipart/') && ct.params.boundary) {
			for (const part of splitMultipart(body, ct.params.boundary)) {
				const e = splitEntity(part);
				walk(e.headers, e.body);
			}
			return;
		}
		const content = decodeBody(body, headers['content-transfer-encoding']);
		const rawName = cd?.params.filename ?? ct.params.name;
		const filename = rawName;
		const isAttachment = cd?.value === 'attachment' || filename !== undefined || !ct.value.startsWith('text/');
		if (!isAttachment && ct.value === 'text/plain' && result.text === undefined) {
			result.text = decodeCharset(content, ct.params.charset || 'utf-8');
			return;
		}
		if (!isAttachment && ct.value === 'text/html' && result.html === undefined) {
			result.html = decodeCharset(content, ct.params.charset || 'utf-8');
			return;
		}
		result.attachments.push({
			filename,
			contentType: ct.value,
			content,
			size: content.length,
			disposition: cd?.value,
			contentId: headers['content-id']?.replace(/^<|>$/g, ''),
			headers: decodedHeaders(headers),
		});
	};
	walk(top.headers, top.body);
	return result;
}

function decodedHeaders(headers) {
	const out = {};
	for (const [k, v] of Object.entries(headers)) out[k] = decodeWords(v);
	return out;
}

// `node scripts/e2e/smtp-server.mjs [port]` runs a sink that prints what it receives.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
	const smtp = await startSmtpServer({ port: Number(process.argv[2] ?? 0) });
	console.log(`SMTP sink on ${smtp.host}:${smtp.port}`);
	let seen = 0;
	setInterval(() => {
		while (seen < smtp.messages.length) {
			const m = smtp.messages[seen++];
			console.log(JSON.stringify({ from: m.from, to: m.to, subject: m.subject, text: m.text, attachments: m.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, size: a.size })) }));
		}
	}, 200);
}
