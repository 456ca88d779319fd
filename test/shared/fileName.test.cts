import fc from 'fast-check';

import {
	fallbackFileName,
	fileNameFromContentDisposition,
	MAX_FILE_NAME_BYTES,
	mimeTypeFromContentType,
	reportFileName,
	sanitiseFileName,
} from '../../nodes/shared/fileName';
import { Redactor } from '../../nodes/shared/redaction';
import { secretsOf } from '../../nodes/shared/credentialRules';

const KEY = 'service_live_abcdefghijklmnopqrstuvwxyz012345';
const redactor = new Redactor(secretsOf({ apiKey: KEY }));
const sanitise = (name: string) => sanitiseFileName(name, redactor);

/** Every bidirectional control and mark Unicode has, and the zero-width characters. */
const BIDI_AND_INVISIBLE = [
	'\u061c',
	'\u200b',
	'\u200c',
	'\u200d',
	'\u200e',
	'\u200f',
	'\u202a',
	'\u202b',
	'\u202c',
	'\u202d',
	'\u202e',
	'\u2066',
	'\u2067',
	'\u2068',
	'\u2069',
	'\ufeff',
];

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
/** Whether a text survives UTF-8 unchanged (no half of a surrogate pair). */
const wellFormed = (text: string) => Buffer.from(text, 'utf8').toString('utf8') === text;

describe('file names from the service', () => {
	test.each([
		['../../etc/passwd', 'passwd'],
		['..\\..\\Windows\\win.ini', 'win.ini'],
		['C:\\Users\\x\\report.pdf', 'report.pdf'],
		['/abs/path/report.pdf', 'report.pdf'],
		['reports/2026/weekly.pdf', 'weekly.pdf'],
		['..／..／etc／report.pdf', 'report.pdf'],
		['a/b\\c/', undefined],
		['..', undefined],
		['...', undefined],
		['   ', undefined],
		['.bashrc', 'bashrc'],
		['report.pdf. . ', 'report.pdf'],
		['a<b>:c"d|e?f*.pdf', 'a_b__c_d_e_f_.pdf'],
		['Bericht März 2026.pdf', 'Bericht März 2026.pdf'],
	])('%j has no directory part: %j', (name, expected) => {
		expect(sanitise(name)).toBe(expected);
	});

	test.each(
		BIDI_AND_INVISIBLE.map((character) => [character.codePointAt(0)!.toString(16), character]),
	)('U+%s is removed', (_code, character) => {
		expect(sanitise(`invoice${character}fdp.exe`)).toBe('invoicefdp.exe');
	});

	test('the right-to-left override cannot make an .exe read as a .pdf', () => {
		const name = sanitise('invoice-\u202efdp.exe');
		expect(name).toBe('invoice-fdp.exe');
		expect(name).toMatch(/^[\x20-\x7e]+$/);
	});

	test('control characters, line breaks and separators are removed', () => {
		expect(sanitise('a\u0000b\u0007c\r\nd\u0085e\u2028f\u2029g\u001b[31m.pdf')).toBe(
			'abcdefg[31m.pdf',
		);
	});

	test.each([
		['ASCII', 'a'],
		['two-byte', 'é'],
		['three-byte', '€'],
		['four-byte (surrogate pairs)', '😀'],
	])('a name of 10,000 %s characters is cut to 255 bytes, extension kept', (_kind, character) => {
		const name = sanitise(`${character.repeat(10_000)}.pdf`)!;
		expect(bytes(name)).toBeLessThanOrEqual(MAX_FILE_NAME_BYTES);
		expect(bytes(name)).toBeGreaterThan(MAX_FILE_NAME_BYTES - 4);
		expect(name.endsWith(`${character}.pdf`)).toBe(true);
		expect(wellFormed(name)).toBe(true);
	});

	test('a long name without an extension is cut too', () => {
		expect(bytes(sanitise('x'.repeat(10_000))!)).toBe(MAX_FILE_NAME_BYTES);
	});

	test.each([
		['as it is', `weekly-${KEY}.pdf`],
		['URL-encoded', `weekly-${encodeURIComponent(KEY)}.pdf`],
		['split by invisible characters', `weekly-${KEY.slice(0, 10)}\u202e\u200b${KEY.slice(10)}.pdf`],
		[
			'in full-width letters',
			`weekly-${[...KEY].map((c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0)).join('')}.pdf`,
		],
		['in a directory part', `${KEY}/weekly.pdf`],
		['past 255 bytes', `${'a'.repeat(240)}${KEY}.pdf`],
	])('the key %s is not in the name', (_how, name) => {
		const sanitised = sanitise(name);
		expect(sanitised ?? '').not.toContain(KEY);
		expect(sanitised ?? '').not.toContain(KEY.slice(0, 20));
	});

	test('the key is replaced, the rest of the name kept', () => {
		expect(sanitise(`weekly-${KEY}.pdf`)).toBe('weekly-[redacted].pdf');
	});
});

describe('Content-Disposition', () => {
	const fromHeader = (header: string | undefined) =>
		fileNameFromContentDisposition(header, redactor);

	test.each([
		['attachment; filename="weekly.pdf"', 'weekly.pdf'],
		['attachment; filename=weekly.pdf', 'weekly.pdf'],
		['attachment; FILENAME="weekly.pdf"; size=3', 'weekly.pdf'],
		['attachment; filename="a \\"quoted\\" name.pdf"', 'a _quoted_ name.pdf'],
		["attachment; filename*=UTF-8''Bericht%20M%C3%A4rz.pdf", 'Bericht März.pdf'],
		["attachment; filename*=utf-8'de'Bericht.pdf", 'Bericht.pdf'],
		['attachment; filename="fallback.pdf"; filename*=UTF-8\'\'preferred.pdf', 'preferred.pdf'],
		['attachment; filename*=UTF-8\'\'%E0%A4%A.pdf; filename="plain.pdf"', 'plain.pdf'],
		["attachment; filename*=UTF-8''%2E%2E%2Fetc%2Fpasswd", 'passwd'],
		["attachment; filename*=UTF-8''invoice%E2%80%AEfdp.exe", 'invoicefdp.exe'],
		["attachment; filename*=UTF-8''a%00b%07c.pdf", 'abc.pdf'],
		// UTF-8 bytes in a plain filename= arrive as Latin-1 text and are read back as UTF-8.
		[`attachment; filename="${Buffer.from('März\u202e.pdf').toString('latin1')}"`, 'März.pdf'],
		['attachment; filename="caf\u00e9.pdf"', 'café.pdf'],
		['attachment', undefined],
		['attachment; filename=""', undefined],
		['attachment; filename="../"', undefined],
		[undefined, undefined],
	])('%j gives %j', (header, expected) => {
		expect(fromHeader(header)).toBe(expected);
	});

	test('a name echoing the key, in either form, is scrubbed', () => {
		expect(fromHeader(`attachment; filename="r-${KEY}.pdf"`)).toBe('r-[redacted].pdf');
		expect(fromHeader(`attachment; filename*=UTF-8''r-${encodeURIComponent(KEY)}.pdf`)).toBe(
			'r-[redacted].pdf',
		);
	});
});

describe('the name of a file the service gave no name for', () => {
	test.each([
		['rpt_abc123', 'pdf', 'report-rpt_abc123.pdf'],
		['rpt_abc-', 'pdf', 'report-rpt_abc.pdf'],
		['rpt_abc_', 'md', 'report-rpt_abc.md'],
		['../../x/', 'pdf', 'report-x.pdf'],
		['---', 'pdf', 'report.pdf'],
		['', 'json', 'report.json'],
		['rpt_abc', undefined, 'report-rpt_abc'],
		['rpt\u202e_1', 'pdf', 'report-rpt-_1.pdf'],
	])('report %j (%s): %j', (id, extension, expected) => {
		expect(fallbackFileName(id, extension, redactor)).toBe(expected);
	});

	test('never ends in "-.<extension>", however long the id', () => {
		for (let length = 90; length <= 110; length++) {
			const name = fallbackFileName(`${'a'.repeat(length - 1)}-b`, 'pdf', redactor);
			expect(name).not.toMatch(/[-_]\.pdf$/);
			expect(bytes(name)).toBeLessThanOrEqual(MAX_FILE_NAME_BYTES);
		}
	});

	test('an id that is the key does not name the file', () => {
		expect(fallbackFileName(KEY, 'pdf', redactor)).toBe('report-redacted.pdf');
	});
});

describe('MIME types from the service', () => {
	test.each([
		['application/pdf', 'application/pdf'],
		['text/markdown; charset=utf-8', 'text/markdown'],
		['Application/PDF', 'application/pdf'],
		[
			'application/vnd.openxmlformats-officedocument+xml',
			'application/vnd.openxmlformats-officedocument+xml',
		],
		['text/html\u202e', undefined],
		['text/../../html', undefined],
		['no-slash', undefined],
		[`application/${'x'.repeat(10_000)}`, undefined],
		[`application/${KEY}`, undefined],
		['', undefined],
		[undefined, undefined],
	])('%j gives %j', (header, expected) => {
		expect(mimeTypeFromContentType(header, redactor)).toBe(expected);
	});
});

/**
 * A report's file name on Windows, macOS and Linux (issue 48): whatever the service names the
 * file, the name is one every system keeps as it is, and says what the file is. fast-check draws
 * hostile names from pieces (device names in any case, dots and spaces, program and document
 * extensions, bidirectional and zero-width characters, lone halves of surrogate pairs, directory
 * parts, thousands of characters) in either form of Content-Disposition, and a served format.
 * `FC_FILE_NAME_RUNS` sets the runs (300); `FC_SEED=… FC_PATH=…` replays a failure.
 */
describe("a report file's name on every system", () => {
	const RUNS = Number(process.env.FC_FILE_NAME_RUNS ?? 300);
	const replay = process.env.FC_SEED
		? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH }
		: {};

	/** Windows' reserved names, as Microsoft lists them (written out here, not taken from the code). */
	const RESERVED_NAMES = new Set([
		'CON',
		'PRN',
		'AUX',
		'NUL',
		'CONIN$',
		'CONOUT$',
		...['COM', 'LPT'].flatMap((port) => [...'0123456789¹²³'].map((digit) => `${port}${digit}`)),
	]);
	/** Extensions that run something when the file is opened (a sample of the code's list). */
	const PROGRAMS = ['exe', 'scr', 'bat', 'cmd', 'com', 'js', 'vbs', 'ps1', 'msi', 'lnk', 'hta'];
	const PROGRAMS_TOO = ['jar', 'sh', 'app', 'html', 'htm', 'svg', 'pif', 'reg', 'desktop'];
	const PROGRAM_AT_END = new RegExp(`\\.(?:${[...PROGRAMS, ...PROGRAMS_TOO].join('|')})$`, 'i');

	/** Each letter in upper or lower case, as `mask` says. */
	const inCase = (word: string, mask: number) =>
		[...word].map((c, i) => (mask & (1 << i % 30) ? c.toUpperCase() : c.toLowerCase())).join('');

	const piece = fc.oneof(
		fc
			.tuple(fc.constantFrom(...RESERVED_NAMES), fc.nat())
			.map(([device, mask]) => inCase(device, mask)),
		fc.constantFrom('.', ' ', '. ', ' .', '..', '. . ', '\t', '\u00a0', '\u3000'),
		fc
			.tuple(
				fc.constantFrom(...PROGRAMS, ...PROGRAMS_TOO, 'pdf', 'md', 'json', 'tar', 'gz', 'txt'),
				fc.nat(),
			)
			.map(([extension, mask]) => `.${inCase(extension, mask)}`),
		fc.constantFrom('\u202e', '\u202d', '\u2066', '\u200b', '\ufeff', '\u0000', '\u001b', '\r\n'),
		fc.constantFrom('\ud800', '\udfff', '\udbff\udbff', '😀', '\u0301'),
		fc.constantFrom('/', '\\', '../', '..\\', ':', '*', '?', '"', '<', '>', '|', '／', '․'),
		fc.string({ maxLength: 8, unit: 'grapheme' }),
		fc
			.tuple(fc.integer({ min: 1, max: 3_000 }), fc.constantFrom('a', 'é', '€', '😀', ' '))
			.map(([length, character]) => character.repeat(length)),
	);
	const hostileName = fc.array(piece, { minLength: 1, maxLength: 10 }).map((p) => p.join(''));

	/** The name as a header carries it: quoted, or percent-encoded UTF-8 (`filename*=`). */
	const header = fc
		.tuple(hostileName, fc.boolean())
		.map(([name, extended]) =>
			extended
				? `attachment; filename*=UTF-8''${[...Buffer.from(name, 'utf8')]
						.map((byte) => `%${byte.toString(16).padStart(2, '0')}`)
						.join('')}`
				: `attachment; filename="${name.replace(/["\\]/g, '\\$&')}"`,
		);

	test('is a name every system keeps as it is, ending with the extension of the format served', () => {
		fc.assert(
			fc.property(
				fc.option(header, { nil: undefined, freq: 10 }),
				fc.constantFrom('pdf', 'md', 'json', undefined),
				fc.oneof(fc.constant('rpt_8k2m4x'), hostileName),
				(disposition, extension, reportId) => {
					const name = reportFileName(disposition, reportId, extension, redactor);
					expect(name.length).toBeGreaterThan(0);
					expect(bytes(name)).toBeLessThanOrEqual(MAX_FILE_NAME_BYTES);
					expect(wellFormed(name)).toBe(true);
					// No directory part, no character a system refuses or shows as another.
					expect(name).not.toMatch(/[\\/<>:"|?*\p{C}\p{Zl}\p{Zp}]/u);
					expect(name).not.toMatch(/^[\s.]/);
					expect(RESERVED_NAMES.has(name.split('.')[0].trim().toUpperCase())).toBe(false);
					// No dot or space ending the name, or the stem before its extension.
					expect(name).not.toMatch(/[\s.]$/);
					expect(name).not.toMatch(/[\s.]\.[^.]*$/);
					if (extension) expect(name.toLowerCase().endsWith(`.${extension}`)).toBe(true);
					else expect(name).not.toMatch(PROGRAM_AT_END);
				},
			),
			{ numRuns: RUNS, ...replay },
		);
	});

	test.each([
		['con.pdf', 'pdf', '_con.pdf'],
		['Nul .pdf', 'pdf', '_Nul.pdf'],
		['COM¹.md', 'md', '_COM1.md'],
		['lpt9', 'json', '_lpt9.json'],
		['report.pdf.exe', 'pdf', 'report.pdf'],
		['report.exe', 'pdf', 'report.pdf'],
		['invoice-\u202efdp.exe', 'pdf', 'invoice-fdp.pdf'],
		['weekly.exe.scr', undefined, 'weekly'],
		['Weekly.PDF', 'pdf', 'Weekly.PDF'],
		['weekly.md', 'pdf', 'weekly.md.pdf'],
		['report. . .pdf. ', 'pdf', 'report.pdf'],
		['.exe', 'pdf', 'exe.pdf'],
	])('%j served as %s is %j', (name, extension, expected) => {
		const disposition = `attachment; filename="${name}"`;
		expect(reportFileName(disposition, 'rpt_1', extension, redactor)).toBe(expected);
	});
});
