/**
 * A second local server, on an origin that is not the service's: where a hostile redirect or
 * download link leads. It records every request with its headers (to prove what reached it and
 * what did not) and answers with what the test scripts. With `tls: true` it serves https with
 * a throwaway self-signed certificate made by Debian's openssl; the test that talks to it must
 * trust that certificate (see `trustCertificate` in test/attacks/helpers.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface OriginRequest {
	method: string;
	url: string;
	headers: Record<string, string>;
}

export interface OriginAnswer {
	status?: number;
	headers?: Record<string, string>;
	body?: string | Buffer;
	/** Send part of the body, then wait this long (real ms) before the rest. */
	stallMs?: number;
}

export interface OtherOrigin {
	/** e.g. http://127.0.0.1:41234 (or https://…) */
	url: string;
	/** The self-signed certificate (PEM) of an https origin. */
	certificate?: string;
	log: OriginRequest[];
	/** Replaces the answer for every following request. */
	answer(respond: (request: OriginRequest) => OriginAnswer): void;
	stop(): Promise<void>;
}

const JSON_OK: OriginAnswer = {
	status: 200,
	headers: { 'Content-Type': 'application/json' },
	body: JSON.stringify({
		data: [],
		pagination: { total: 0, page: 1, page_size: 100, hasMore: false },
		meta: { remaining_requests: 119 },
	}),
};

function selfSignedCertificate(): { key: Buffer; cert: Buffer } {
	const dir = mkdtempSync(join(tmpdir(), 'other-origin-'));
	try {
		execFileSync(
			'openssl',
			[
				'req',
				'-x509',
				'-newkey',
				'rsa:2048',
				'-nodes',
				'-days',
				'2',
				'-subj',
				'/CN=127.0.0.1',
				'-addext',
				'subjectAltName=IP:127.0.0.1,DNS:localhost',
				'-keyout',
				join(dir, 'key.pem'),
				'-out',
				join(dir, 'cert.pem'),
			],
			{ stdio: 'ignore' },
		);
		return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

export async function startOtherOrigin(
	options: { tls?: boolean; host?: string } = {},
): Promise<OtherOrigin> {
	const log: OriginRequest[] = [];
	let respond: (request: OriginRequest) => OriginAnswer = () => JSON_OK;
	const sockets = new Set<Socket>();
	const handler = (req: IncomingMessage, res: ServerResponse) => {
		req.resume();
		const request: OriginRequest = {
			method: req.method ?? 'GET',
			url: req.url ?? '/',
			headers: Object.fromEntries(
				Object.entries(req.headers).map(([k, v]) => [
					k,
					Array.isArray(v) ? v.join(', ') : String(v),
				]),
			),
		};
		log.push(request);
		const answer = respond(request);
		const body = Buffer.isBuffer(answer.body)
			? answer.body
			: Buffer.from(answer.body ?? '', 'utf8');
		res.writeHead(answer.status ?? 200, {
			'Content-Length': String(body.length),
			...answer.headers,
		});
		if (!answer.stallMs) {
			res.end(body);
			return;
		}
		const half = Math.floor(body.length / 2);
		res.write(body.subarray(0, half));
		const timer = setTimeout(() => res.end(body.subarray(half)), answer.stallMs);
		res.on('close', () => clearTimeout(timer));
	};
	const tls = options.tls ? selfSignedCertificate() : undefined;
	const server = tls ? createTlsServer(tls, handler) : createServer(handler);
	server.on('connection', (socket: Socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	const host = options.host ?? '127.0.0.1';
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, host, () => resolve());
	});
	const { port } = server.address() as AddressInfo;
	return {
		url: `${tls ? 'https' : 'http'}://${host}:${port}`,
		...(tls ? { certificate: tls.cert.toString('utf8') } : {}),
		log,
		answer: (next) => {
			respond = next;
		},
		stop: () =>
			new Promise<void>((resolve) => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};
}
