import type { Redactor } from './redaction';

/*
 * File names and MIME types the service hands us with a download: data to clean, never names to
 * trust. The rules and their limits: docs/security.md, "File names from the service".
 */

/** Most file systems allow 255 bytes in one name. */
export const MAX_FILE_NAME_BYTES = 255;

/** Invisible characters: a bidirectional override makes `evil<U+202E>fdp.exe` read `evilexe.pdf`. */
const INVISIBLE = /[\p{C}\p{Zl}\p{Zp}]/gu;
/** Characters Windows does not allow in a name (and that mean something to a shell). */
const RESERVED = /[<>:"|?*]/g;
/** An extension worth keeping when a name must be shortened. */
const EXTENSION = /\.[A-Za-z0-9]{1,16}$/;
/** Dots and spaces that end the stem, before the last dot: `Nul .pdf` is the device NUL. */
const STEM_END = /[\s.]+(\.[^.]+)$/;
/** Windows device names: a file named one, with any extension and in any case, is the device. */
const DEVICE_NAME = /^(?:CON|PRN|AUX|NUL|COM[0-9¹²³]|LPT[0-9¹²³]|CONIN\$|CONOUT\$)$/i;
/** Extensions that run a program or open as a web page: `weekly.pdf.exe` is run, not read. */
const PROGRAM_EXTENSIONS = [
	// Windows: programs, installers, shortcuts, scripts and what runs them.
	'exe com scr pif bat cmd cpl msi msp mst msc msix appx lnk url scf inf reg hta chm dll sys ocx',
	'gadget application xbap js jse mjs vb vbs vbe wsf wsh wsc ws ps1 ps1xml ps2 ps2xml psc1 psc2',
	'psm1 psd1 jar jnlp py pyw pyc pl rb php',
	// Linux and macOS: scripts, binaries, packages, launchers, bundles.
	'sh bash zsh csh ksh run bin elf desktop appimage deb rpm app command tool pkg mpkg dmg scpt',
	'scptd applescript workflow action terminal webloc',
	// Web pages.
	'html htm xhtml xht shtml mht mhtml svg svgz',
].join(' ');
const PROGRAM_EXTENSION = new RegExp(`\\.(?:${PROGRAM_EXTENSIONS.replace(/ /g, '|')})$`, 'i');

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
	const short = onEverySystem(cleaned);
	// Shortening only removes characters; a name that still holds a secret is not used at all.
	return short && redactor.text(short) === short ? short : undefined;
}

/**
 * A name Windows, macOS and Linux all keep as it is. Shortening can make a device name (its stem
 * cut back to `CON`), so one is looked for last.
 */
function onEverySystem(name: string): string {
	// Shortened first: the patterns then search at most MAX_FILE_NAME_BYTES.
	const short = shortened(name).replace(STEM_END, '$1');
	return DEVICE_NAME.test(short.split('.')[0].trim()) ? shortened(`_${short}`) : short;
}

/** The name of a report's file: the service's, made safe, as a document; else `report-<id>.<ext>`. */
export function reportFileName(
	contentDisposition: string | undefined,
	reportId: string,
	extension: string | undefined,
	redactor: Redactor,
): string {
	const given = fileNameFromContentDisposition(contentDisposition, redactor);
	const named = given === undefined ? undefined : asDocument(given, extension, redactor);
	return named ?? fallbackFileName(reportId, extension, redactor);
}

/** A safe name as a document: program extensions gone, the format's own extension at its end. */
function asDocument(
	name: string,
	extension: string | undefined,
	redactor: Redactor,
): string | undefined {
	// `weekly.pdf.exe` is `weekly.pdf`; `weekly.exe .scr` is `weekly`.
	let stem = name;
	while (PROGRAM_EXTENSION.test(stem))
		stem = stem.replace(PROGRAM_EXTENSION, '').replace(/[\s.]+$/, '');
	if (!stem) return undefined;
	const named =
		!extension || stem.toLowerCase().endsWith(`.${extension}`) ? stem : `${stem}.${extension}`;
	// Made safe again: the extension added may need room, which shortening makes.
	return sanitiseFileName(named, redactor);
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
