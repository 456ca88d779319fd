/**
 * Attack: hostile file names in a download's Content-Disposition. Whatever the service names
 * its file, the name n8n stores, shows and hands to the next node (mail attachment, Drive,
 * Write to Disk) has no directory part, no control or bidirectional character, at most 255
 * bytes of UTF-8 with the extension kept, no Windows device name, and ends with the extension
 * of the report's format, never a program's (test/shared/fileName.test.cts draws the names);
 * a file without a usable name is report-<id>.<ext>. These reports are PDFs.
 */
import type { IBinaryData, IDataObject } from 'n8n-workflow';

import { adNode, WAIT_NODE } from '../nodes/helpers.cjs';
import { editListedReports, runAttack, useHostileService } from './helpers.cjs';
import { downloadHeaders, storedMetadata } from './raw-answers.cjs';

const service = useHostileService();

const downloadNode = (reportId: string) =>
	adNode({
		resource: 'report',
		operation: 'download',
		reportId,
		requestOptions: { maxAttempts: 1 },
	});
const waitNode = () => ({
	name: 'Wait for Ad Report',
	type: WAIT_NODE,
	parameters: { pollIntervalSeconds: 0.1, timeoutSeconds: 10 },
});
const inspector = { name: 'Inspect', type: 'test.binaryInspector', parameters: {} };

/** A header value carrying these UTF-8 bytes, as a service writing raw UTF-8 sends it. */
const rawUtf8 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
const LONG = `${'a'.repeat(10_000)}.pdf`;
const LONG_KEPT = `${'a'.repeat(251)}.pdf`;

const HOSTILE: Array<[string, string, string]> = [
	[
		'a right-to-left override (percent-encoded)',
		"attachment; filename*=UTF-8''invoice-%E2%80%AEfdp.exe",
		'invoice-fdp.pdf',
	],
	[
		'a right-to-left override (raw UTF-8)',
		`attachment; filename="${rawUtf8('invoice-\u202efdp.exe')}"`,
		'invoice-fdp.pdf',
	],
	[
		'bidirectional isolates and marks',
		"attachment; filename*=UTF-8''a%E2%81%A6b%E2%81%A9c%E2%80%8Fd%D8%9C.pdf",
		'abcd.pdf',
	],
	['directory parts', 'attachment; filename="../../../../etc/cron.d/weekly.pdf"', 'weekly.pdf'],
	[
		'Windows directory parts',
		"attachment; filename*=UTF-8''..%5C..%5CUsers%5CPublic%5Cweekly.pdf",
		'weekly.pdf',
	],
	['an absolute path', 'attachment; filename="/var/lib/n8n/weekly.pdf"', 'weekly.pdf'],
	['10,000 characters', `attachment; filename="${LONG}"`, LONG_KEPT],
	['control characters', "attachment; filename*=UTF-8''week%00ly%07%0D%0A%1B.pdf", 'weekly.pdf'],
	['a leading dot', 'attachment; filename=".weekly.pdf"', 'weekly.pdf'],
	['a Windows device name', 'attachment; filename="Nul .pdf"', '_Nul.pdf'],
	['a program extension', 'attachment; filename="weekly.pdf.scr"', 'weekly.pdf'],
];

/** The file's name everywhere n8n keeps it: binary metadata, its store, the next node. */
function expectFileName(binary: IBinaryData | undefined, next: IDataObject, name: string) {
	expect(binary?.fileName).toBe(name);
	expect(storedMetadata(binary!).fileName).toBe(name);
	expect(next.fileName).toBe(name);
}

describe('hostile file names are sanitised', () => {
	test.each(HOSTILE)('Report → Download: %s', async (_name, header, expected) => {
		const [report] = service.fake.addReports(1, { status: 'completed' });
		downloadHeaders(service, { 'Content-Disposition': header });
		const result = await runAttack(service, [downloadNode(report.id), inspector]);
		expect(result.error).toBeUndefined();
		const downloaded = result.nodes['Ad Performance'].items[0];
		expect(downloaded.json.fileName).toBe(expected);
		expectFileName(downloaded.binary?.data, result.items[0].json, expected);
		expect(Buffer.byteLength(expected)).toBeLessThanOrEqual(255);
	});

	test.each(HOSTILE)('Wait for Ad Report: %s', async (_name, header, expected) => {
		const [report] = service.fake.addReports(1, { status: 'completed' });
		downloadHeaders(service, { 'Content-Disposition': header });
		const result = await runAttack(service, [waitNode(), inspector], {
			items: [{ id: report.id }],
		});
		expect(result.error).toBeUndefined();
		expectFileName(
			result.nodes['Wait for Ad Report'].items[0].binary?.data,
			result.items[0].json,
			expected,
		);
	});
});

describe('a file without a usable name', () => {
	test('a report title cut in the middle of a word no longer ends the name in "-.pdf"', async () => {
		// Cut at 80 characters, this title left "aaa…a-" before the extension.
		const [report] = service.fake.addReports(1, {
			status: 'completed',
			title: `${'a'.repeat(79)} x`,
		});
		downloadHeaders(service, { 'Content-Disposition': '' });
		const result = await runAttack(service, [waitNode(), inspector], {
			items: [{ id: report.id }],
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.fileName).toBe(`report-${report.id}.pdf`);
	});

	test('an id ending in "-" does not end the name in "-.pdf"', async () => {
		const reportId = 'rpt_weekly-';
		service.fake.intercept({
			method: 'GET',
			pathPrefix: `/v1/reports/${reportId}/download`,
			respond: () => ({
				status: 200,
				headers: { 'Content-Type': 'application/pdf' },
				body: '%PDF-1.4\n%%EOF\n',
			}),
		});
		const result = await runAttack(service, [downloadNode(reportId), inspector]);
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({
			fileName: 'report-rpt_weekly.pdf',
			mimeType: 'application/pdf',
		});
	});

	test.each([
		['constructor', 'application/pdf', 'pdf'],
		['__proto__', 'application/pdf', 'pdf'],
		['toString', '', undefined],
	])(
		'a report of format %j (Content-Type %j): nothing inherited names the file',
		async (format, contentType, extension) => {
			const [report] = service.fake.addReports(1, { status: 'completed' });
			// The first rule that matches a request answers it: the download's goes first.
			downloadHeaders(service, { 'Content-Disposition': '', 'Content-Type': contentType });
			editListedReports(service, (record) => {
				if (record.id === report.id) record.format = format;
			});
			const result = await runAttack(service, [waitNode(), inspector], {
				items: [{ id: report.id }],
			});
			expect(result.error).toBeUndefined();
			expect(result.items[0].json).toMatchObject({
				fileName: extension ? `report-${report.id}.${extension}` : `report-${report.id}`,
				mimeType: contentType || 'application/octet-stream',
			});
		},
	);
});
