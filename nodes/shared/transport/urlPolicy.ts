/**
 * Where a request may go: the rules for redirects and download links (the Base URL's own are in
 * ../credentialRules.ts). Pure functions of URLs: node code may not resolve names.
 */

import { isServiceOrigin } from '../credentialRules';

/** Redirects followed for one request at most (the service itself needs none or one). */
export const MAX_REDIRECTS = 5;

export const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Host names and addresses that lead into the machine or network n8n runs in: loopback, private,
 * link-local (cloud metadata), carrier-grade NAT, unspecified, `localhost`/`.local`/`.internal`.
 */
export function isInternalHost(hostname: string): boolean {
	const host = hostname
		.toLowerCase()
		.replace(/^\[|\]$/g, '')
		.replace(/\.$/, '');
	if (host === 'localhost' || /\.(localhost|local|internal)$/.test(host)) return true;
	const v4 = ipv4Of(host);
	if (v4) return isInternalIpv4(v4);
	return host.includes(':') && isInternalIpv6(host);
}

function ipv4Of(host: string): number[] | undefined {
	const parts = host.split('.');
	if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part))) return undefined;
	const bytes = parts.map(Number);
	return bytes.every((byte) => byte <= 255) ? bytes : undefined;
}

function isInternalIpv4([a, b]: number[]): boolean {
	return (
		a === 0 ||
		a === 10 ||
		a === 127 ||
		(a === 100 && b >= 64 && b <= 127) ||
		(a === 169 && b === 254) ||
		(a === 172 && b >= 16 && b <= 31) ||
		(a === 192 && b === 168)
	);
}

function isInternalIpv6(host: string): boolean {
	if (host === '::' || host === '::1') return true;
	// IPv4-mapped (::ffff:127.0.0.1, or as the URL parser writes it, ::ffff:7f00:1).
	const mapped = /^::ffff:(.+)$/.exec(host);
	if (mapped) {
		const dotted = ipv4Of(mapped[1]);
		if (dotted) return isInternalIpv4(dotted);
		const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(mapped[1]);
		if (hex) {
			const high = parseInt(hex[1], 16);
			return isInternalIpv4([high >> 8, high & 0xff]);
		}
	}
	const first = parseInt(host.split(':')[0] || '0', 16);
	return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80;
}

/**
 * Why a request may not go from `current` to `next` (a redirect hop, a download link), if so.
 * `api`: its answer would be read as the service's records, and only the Base URL's origin
 * speaks for the service (a file may come from another host, such as a CDN, without the key).
 */
export function hopProblem(
	baseUrl: string,
	current: string | undefined,
	next: string,
	api = false,
): string | undefined {
	let target: URL;
	try {
		target = new URL(next);
	} catch {
		return 'is not a valid web address';
	}
	if (target.protocol !== 'https:' && target.protocol !== 'http:') {
		return `uses ${target.protocol.replace(/:$/, '')}, not http(s)`;
	}
	if (target.username || target.password) return 'contains a user name or password';
	if (current?.startsWith('https:') && target.protocol === 'http:') {
		return 'would downgrade the connection from https to unencrypted http';
	}
	if (isServiceOrigin(baseUrl, next)) return undefined;
	if (api)
		return `is on another origin (${target.origin}): only the Base URL's origin answers for the service`;
	// The sandbox (a Base URL on this machine) may link to this machine; the real service may not.
	if (isInternalHost(target.hostname) && !isInternalHost(new URL(baseUrl).hostname)) {
		return `points at an internal address (${target.hostname})`;
	}
	return undefined;
}
