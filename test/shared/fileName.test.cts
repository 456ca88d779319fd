import {
	fallbackFileName,
	fileNameFromContentDisposition,
	MAX_FILE_NAME_BYTES,
	mimeTypeFromContentType,
	sanitiseFileName,
} from '../../nodes/shared/fileName';
import { Redactor } from '../../nodes/shared/redaction';

const KEY = 'service_live_abcdefghijklmnopqrstuvwxyz012345';
const redactor = new Redactor([KEY]);
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
