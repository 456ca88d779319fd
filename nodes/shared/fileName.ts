import type { Redactor } from './redaction';

/*
 * File names and MIME types the service hands us with a download become the name of a stored
 * file, a mail attachment or a file on a drive: data to clean, never names to trust.
 */

/** Most file systems allow 255 bytes in one name. */
export const MAX_FILE_NAME_BYTES = 255;

/**
 * Control and format characters (among them the bidirectional overrides and marks, which make
 * `evil<U+202E>fdp.exe` read as `evilexe.pdf`, and zero-width characters), surrogates, private
 * and unassigned code points, line and paragraph separators.
 */
const INVISIBLE = /[\p{C}\p{Zl}\p{Zp}]/gu;
/** Characters Windows does not allow in a name (and that mean something to a shell). */
const RESERVED = /[<>:"|?*]/g;
/** An extension worth keeping when a name must be shortened. */
const EXTENSION = /\.[A-Za-z0-9]{1,16}$/;

/** The name a header gave, made safe (no leading dot: a hidden file); undefined if none is left. */
export function sanitiseFileName(name: string, redactor: Redactor): string | undefined {
	// Compatibility forms first: a full-width solidus or a one-dot leader becomes / or . and is
	// then treated as one. Invisible characters go before the secrets are looked for, so none
	// can hide one by splitting it; secrets go before the directory parts, so no part of one
	// is left behind.
	const visible = redactor.text(name.normalize('NFKC').replace(INVISIBLE, ''));
	const base = visible.split(/[\\/]/).pop() ?? '';
	const cleaned = base.replace(RESERVED, '_').replace(/^[\s.]+|[\s.]+$/g, '');
	if (!cleaned) return undefined;
	const short = shortened(cleaned);
	// Shortening only removes characters; a name that still holds a secret is not used at all.
	return short && redactor.text(short) === short ? short : undefined;
}

/** The name cut to MAX_FILE_NAME_BYTES of UTF-8, at a character boundary, extension kept. */
function shortened(name: string): string {
	if (Buffer.byteLength(name) <= MAX_FILE_NAME_BYTES) return name;
	const extension = EXTENSION.exec(name)?.[0] ?? '';
	let stem = '';
	let bytes = Buffer.byteLength(extension);
	for (const character of name.slice(0, name.length - extension.length)) {
		bytes += Buffer.byteLength(character);
		if (bytes > MAX_FILE_NAME_BYTES) break;
		stem += character;
	}
	stem = stem.replace(/[\s.]+$/, '');
	return stem ? `${stem}${extension}` : '';
}

/** The name from a `Content-Disposition` header: RFC 6266 `filename*=` first, else `filename=`. */
export function fileNameFromContentDisposition(
	header: string | undefined,
	redactor: Redactor,
): string | undefined {
	if (!header) return undefined;
	const extended = /(?:^|;)\s*filename\*\s*=\s*UTF-8'[^']*'([^;]+)/i.exec(header);
	if (extended) {
		try {
			const name = sanitiseFileName(
				decodeURIComponent(extended[1].trim().replace(/^"|"$/g, '')),
				redactor,
			);
			if (name) return name;
		} catch {
			// Not valid percent-encoded UTF-8: the plain form may still be usable.
		}
	}
	const plain = /(?:^|;)\s*filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/i.exec(header);
	if (!plain) return undefined;
	const quoted = plain[1]?.replace(/\\(.)/g, '$1');
	const name = (quoted ?? plain[2] ?? '').trim();
	return name ? sanitiseFileName(fromLatin1(name), redactor) : undefined;
}

/** Header values arrive as Latin-1: a UTF-8 name in `filename=` (as many send) is read as UTF-8. */
function fromLatin1(text: string): string {
	if (!/[\u0080-\u00ff]/.test(text) || /[\u0100-\uffff]/.test(text)) return text;
	try {
		return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(text, 'latin1'));
	} catch {
		return text;
	}
}

/** The name of a report's file when the service gives none usable. */
export function fallbackFileName(
	reportId: string,
	extension: string | undefined,
	redactor: Redactor,
): string {
	const id = redactor
		.text(String(reportId ?? ''))
		.replace(/[^A-Za-z0-9_-]+/g, '-')
		.slice(0, 100)
		.replace(/^[-_]+|[-_]+$/g, '');
	const stem = id ? `report-${id}` : 'report';
	return extension ? `${stem}.${extension}` : stem;
}

/** The `type/subtype` of a `Content-Type` header, lower case; undefined if malformed or secret. */
export function mimeTypeFromContentType(
	header: string | undefined,
	redactor: Redactor,
): string | undefined {
	const mimeType = header?.split(';')[0].trim();
	if (!mimeType || mimeType.length > 127) return undefined;
	if (!/^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+$/.test(mimeType)) return undefined;
	// Looked for as sent: in lower case a secret would no longer be recognised.
	return redactor.text(mimeType) === mimeType ? mimeType.toLowerCase() : undefined;
}
