/**
 * Attack: the key echoed where a scrubber that looks only at the values near the top does
 * not look: deep in a record, as a property name, in the file name of a download. What a node
 * or the trigger outputs passes one scrubber at the boundary (nodes/shared/boundary.ts), so
 * the key is nowhere in the items, the binary metadata (also as n8n stores it on disk), the
 * errors or the logs (`runAttack` checks all of them on every run here).
 */
import type { IBinaryData, IDataObject } from 'n8n-workflow';

import { MAX_ANSWER_DEPTH } from '../../nodes/shared/transport/envelope';
import { captureLogs } from '../faults/matrix.cjs';
import { ActiveTrigger, ids } from '../nodes/AdPerformanceTrigger/poll-harness.cjs';
import { adNode, apiRequests, WAIT_NODE } from '../nodes/helpers.cjs';
import { editListedReports, runAttack, useHostileService } from './helpers.cjs';
import {
	downloadHeaders,
	nestedJson,
	spliceIntoFirstRecord,
	storedMetadata,
	unnest,
} from './raw-answers.cjs';

const service = useHostileService();

const key = () => service.fake.keys.live;
const echo = () => `The API key ${key()} is not valid`;
const ECHO_SCRUBBED = 'The API key [redacted] is not valid';

const listAccounts = (extra: IDataObject = {}, maxAttempts = 1) =>
	adNode(
		{ resource: 'account', operation: 'getAll', returnAll: true, requestOptions: { maxAttempts } },
		extra,
	);
const downloadNode = (reportId: string) =>
	adNode({
		resource: 'report',
		operation: 'download',
		reportId,
		requestOptions: { maxAttempts: 1 },
	});
const waitNode = (parameters: IDataObject = {}) => ({
	name: 'Wait for Ad Report',
	type: WAIT_NODE,
	parameters: { pollIntervalSeconds: 0.1, timeoutSeconds: 10, ...parameters },
});
const inspector = { name: 'Inspect', type: 'test.binaryInspector', parameters: {} };

function completedReport() {
	return service.fake.addReports(1, { status: 'completed' })[0];
}

/** The report list shows this report changed by `edit`. */
function listShows(reportId: string, edit: (record: IDataObject) => void) {
	editListedReports(service, (record) => {
		if (record.id === reportId) edit(record);
	});
}

/** `{ x: { x: … leaf } }`, `depth` objects deep. */
function nested(depth: number, leaf: unknown): IDataObject {
	return JSON.parse(nestedJson(depth, leaf)) as IDataObject;
}

describe('a key echoed deep in a record', () => {
	test('20 levels deep: the record is output, the key scrubbed where it was', async () => {
		spliceIntoFirstRecord(service, '/v1/accounts', `"deep":${nestedJson(20, echo())}`);
		const result = await runAttack(service, [listAccounts()]);
		expect(result.error).toBeUndefined();
		expect(unnest(result.items[0].json.deep)).toEqual({ leaf: ECHO_SCRUBBED, depth: 20 });
	});

	test.each([100, 10_000])(
		'%i levels deep: a protocol error naming the endpoint, retried like one; the run can be saved',
		async (depth) => {
			spliceIntoFirstRecord(service, '/v1/accounts', `"deep":${nestedJson(depth, echo())}`);
			const result = await runAttack(service, [listAccounts({}, 2)]);
			expect(result.error?.message).toBe(
				`The service sent an answer that is not in its documented format (GET /v1/accounts): the answer was nested deeper than ${MAX_ANSWER_DEPTH} levels`,
			);
			expect(apiRequests(service, { pathPrefix: '/v1/accounts' })).toHaveLength(2);
			expect(() => JSON.stringify(result.run.data)).not.toThrow();

			const cof = await runAttack(service, [listAccounts({ continueOnFail: true }, 1)]);
			expect(cof.items).toHaveLength(1);
			expect(cof.items[0].json.error).toMatch(/GET \/v1\/accounts.*nested deeper than 64/);
			expect(() => JSON.stringify(cof.run.data)).not.toThrow();
		},
	);

	test('Wait for Ad Report outputs a report holding the key 40 levels deep, scrubbed', async () => {
		const report = completedReport();
		listShows(report.id, (record) => {
			record.summary = nested(40, echo());
		});
		const result = await runAttack(service, [waitNode({ download: false })], {
			items: [{ id: report.id }],
		});
		expect(result.error).toBeUndefined();
		expect(unnest(result.items[0].json.summary)).toEqual({ leaf: ECHO_SCRUBBED, depth: 40 });
	});

	test('the trigger emits a report holding the key 40 levels deep, scrubbed', async () => {
		const trigger = new ActiveTrigger(
			{ event: 'reportCompleted' },
			service.credentials().adPerformanceApi,
		);
		await trigger.poll();
		const report = completedReport();
		listShows(report.id, (record) => {
			record.summary = nested(40, echo());
		});
		const { value: polled, logs } = await captureLogs(() => trigger.poll());
		expect(ids(polled.items)).toEqual([report.id]);
		expect(unnest(polled.items![0].json.summary)).toEqual({ leaf: ECHO_SCRUBBED, depth: 40 });
		expect(JSON.stringify(polled.items)).not.toContain(key());
		for (const line of logs) expect(line).not.toContain(key());
	});
});

describe('the key as a property name', () => {
	test('Account → Get Many: the name is scrubbed at the top and deep inside', async () => {
		spliceIntoFirstRecord(
			service,
			'/v1/accounts',
			`${JSON.stringify(key())}:"top",${JSON.stringify(`meta-${encodeURIComponent(key())}`)}:${nestedJson(10, { [key()]: 'deep' })}`,
		);
		const result = await runAttack(service, [listAccounts()]);
		expect(result.error).toBeUndefined();
		const json = result.items[0].json;
		expect(json['[redacted]']).toBe('top');
		expect(unnest(json['meta-[redacted]'])).toEqual({ leaf: { '[redacted]': 'deep' }, depth: 10 });
	});

	test('Wait for Ad Report: the name is scrubbed', async () => {
		const report = completedReport();
		listShows(report.id, (record) => {
			record[key()] = 'named';
		});
		const waited = await runAttack(service, [waitNode({ download: false })], {
			items: [{ id: report.id }],
		});
		expect(waited.items[0].json['[redacted]']).toBe('named');
	});

	test('the trigger: the name is scrubbed', async () => {
		const trigger = new ActiveTrigger(
			{ event: 'reportCompleted' },
			service.credentials().adPerformanceApi,
		);
		await trigger.poll();
		const report = completedReport();
		listShows(report.id, (record) => {
			record[key()] = 'named';
		});
		const polled = await trigger.poll();
		expect(ids(polled.items)).toEqual([report.id]);
		expect(polled.items![0].json['[redacted]']).toBe('named');
		expect(JSON.stringify(polled.items)).not.toContain(key());
	});
});

describe('the key in the file name of a download', () => {
	const HEADERS: Array<[string, () => string]> = [
		['filename=', () => `attachment; filename="weekly-${key()}.pdf"`],
		['filename*=', () => `attachment; filename*=UTF-8''weekly-${encodeURIComponent(key())}.pdf`],
	];

	/** The file's name everywhere n8n keeps it: item, binary metadata, store, next node. */
	function expectFileName(binary: IBinaryData | undefined, next: IDataObject, name: string) {
		expect(binary?.fileName).toBe(name);
		expect(storedMetadata(binary!).fileName).toBe(name);
		expect(next.fileName).toBe(name);
	}

	test.each(HEADERS)('Report → Download, %s', async (_form, header) => {
		const report = completedReport();
		downloadHeaders(service, { 'Content-Disposition': header() });
		const result = await runAttack(service, [downloadNode(report.id), inspector]);
		expect(result.error).toBeUndefined();
		const downloaded = result.nodes['Ad Performance'].items[0];
		expect(downloaded.json.fileName).toBe('weekly-[redacted].pdf');
		expectFileName(downloaded.binary?.data, result.items[0].json, 'weekly-[redacted].pdf');
	});

	test.each(HEADERS)('Wait for Ad Report, %s', async (_form, header) => {
		const report = completedReport();
		downloadHeaders(service, { 'Content-Disposition': header() });
		const result = await runAttack(service, [waitNode(), inspector], {
			items: [{ id: report.id }],
		});
		expect(result.error).toBeUndefined();
		const waited = result.nodes['Wait for Ad Report'].items[0];
		expectFileName(waited.binary?.data, result.items[0].json, 'weekly-[redacted].pdf');
	});

	test('a MIME type holding the key is not used', async () => {
		const report = completedReport();
		downloadHeaders(service, { 'Content-Type': `application/${key()}` });
		const result = await runAttack(service, [downloadNode(report.id), inspector]);
		expect(result.error).toBeUndefined();
		// Report → Download knows only the report's id, not its format.
		expect(result.items[0].json.mimeType).toBe('application/octet-stream');
	});
});
