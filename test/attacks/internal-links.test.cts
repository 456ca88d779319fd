/**
 * Attack: download links to internal hosts. A report's download link (or the redirect of the
 * download endpoint) that leads to a loopback, private, link-local (cloud metadata) or IPv6
 * loopback/unique-local address is refused before anything is sent, with an error naming the
 * report, unless the Base URL itself is on such an address (the offline sandbox).
 *
 * The fake runs on 127.0.0.1, so the Base URL of these tests is a public-looking name that the
 * patched resolver (resolveHostNames) sends to 127.0.0.1. Links to literal addresses that no
 * local server listens on are diverted to the other origin at connect time (watchConnections):
 * had a request left, the other origin's log would show it.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Report } from '../../sandbox/index.cjs';
import { adNode, WAIT_NODE } from '../nodes/helpers.cjs';
import {
	editListedReports,
	errorText,
	resolveHostNames,
	runAttack,
	useHostileService,
	watchConnections,
	type ConnectionWatch,
} from './helpers.cjs';

const service = useHostileService();

const SERVICE_NAME = 'api.adperformance.example';
const CDN_NAME = 'files.adperformance-cdn.example';
const METADATA_NAME = 'metadata.google.internal';

/** Literal internal addresses diverted to the other origin if anything ever connects there. */
const DIVERTED = [
	'10.1.2.3',
	'172.16.0.5',
	'192.168.1.10',
	'169.254.169.254',
	'0.0.0.0',
	'100.64.0.1',
	'::1',
	'fd12:3456::1',
	'fe80::1',
	'::ffff:7f00:1',
];

let restoreNames: () => void;
let connections: ConnectionWatch;

beforeAll(() => {
	restoreNames = resolveHostNames({
		[SERVICE_NAME]: '127.0.0.1',
		[CDN_NAME]: '127.0.0.1',
		[METADATA_NAME]: '127.0.0.1',
	});
});
afterAll(() => restoreNames());
beforeEach(() => {
	const other = { host: '127.0.0.1', port: Number(new URL(service.other.url).port) };
	connections = watchConnections(Object.fromEntries(DIVERTED.map((host) => [host, other])));
});
afterEach(() => connections.restore());

const fakePort = () => new URL(service.fake.url).port;
const otherPort = () => new URL(service.other.url).port;
/** The Base URL of a service that is on the internet (as far as the nodes can tell). */
const publicBase = () => ({ baseUrl: `http://${SERVICE_NAME}:${fakePort()}` });

function completedReport(): Report {
	return service.fake.addReports(1, { status: 'completed' })[0];
}

/** The report list answers each report with the download link given for it. */
function listWithLinks(links: Record<string, string>) {
	editListedReports(service, (record) => {
		const link = links[record.id as string];
		if (link !== undefined) record.downloadUrl = link;
	});
}
const listWithLink = (reportId: string, link: string) => listWithLinks({ [reportId]: link });

/** The download endpoint redirects to this link. */
function downloadRedirectsTo(reportId: string, link: string) {
	service.fake.intercept({
		method: 'GET',
		pathPrefix: `/v1/reports/${reportId}/download`,
		respond: () => ({ status: 302, headers: { Location: link } }),
	});
}

function pdfFromOtherOrigin() {
	service.other.answer(() => ({
		status: 200,
		headers: { 'Content-Type': 'application/pdf' },
		body: '%PDF-1.4 from another origin',
	}));
}

function waitNode(parameters: IDataObject = {}, extra: IDataObject = {}) {
	return {
		name: 'Wait for Ad Report',
		type: WAIT_NODE,
		parameters: {
			pollIntervalSeconds: 0.1,
			timeoutSeconds: 10,
			requestOptions: { maxAttempts: 1 },
			...parameters,
		},
		...extra,
	};
}

const downloadNode = (reportId: string, extra: IDataObject = {}) =>
	adNode(
		{ resource: 'report', operation: 'download', reportId, requestOptions: { maxAttempts: 1 } },
		extra,
	);

/** Nothing reached the other origin, and no connection went to the link's host. */
function expectNothingSentTo(link: string) {
	expect(service.other.log).toHaveLength(0);
	const host = new URL(link).hostname.replace(/^\[|\]$/g, '');
	expect(connections.attempts.filter((attempt) => attempt.host === host)).toEqual([]);
	expect(connections.attempts.filter((attempt) => String(attempt.port) === otherPort())).toEqual(
		[],
	);
}

/** Internal links, with the address the error must name (the URL parser's form of the host). */
const INTERNAL_LINKS: Array<[string, () => string, string]> = [
	[
		'loopback 127.0.0.1 (another local port)',
		() => `http://127.0.0.1:${otherPort()}/file.pdf`,
		'127.0.0.1',
	],
	['localhost', () => `http://localhost:${otherPort()}/file.pdf`, 'localhost'],
	['private 10.0.0.0/8', () => 'http://10.1.2.3/x', '10.1.2.3'],
	['private 172.16.0.0/12', () => 'http://172.16.0.5/reports/x.pdf', '172.16.0.5'],
	['private 192.168.0.0/16', () => 'http://192.168.1.10:8080/x', '192.168.1.10'],
	[
		'the cloud metadata service 169.254.169.254',
		() => 'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
		'169.254.169.254',
	],
	[
		'a .internal name (GCP metadata)',
		() => `http://${METADATA_NAME}:${otherPort()}/computeMetadata/v1/`,
		METADATA_NAME,
	],
	['IPv6 loopback [::1]', () => `http://[::1]:${otherPort()}/x`, '[::1]'],
	['IPv6 unique-local [fd12:3456::1]', () => 'http://[fd12:3456::1]/x', '[fd12:3456::1]'],
	['IPv6 link-local [fe80::1]', () => 'http://[fe80::1]/x', '[fe80::1]'],
	[
		'IPv4-mapped IPv6 loopback [::ffff:127.0.0.1]',
		() => `http://[::ffff:127.0.0.1]:${otherPort()}/x`,
		'[::ffff:7f00:1]',
	],
	['127.0.0.1 written as one number', () => `http://2130706433:${otherPort()}/x`, '127.0.0.1'],
	['127.0.0.1 written in hex', () => `http://0x7f.0.0.1:${otherPort()}/x`, '127.0.0.1'],
	['an https link to a private address', () => 'https://10.1.2.3/x.pdf', '10.1.2.3'],
];

describe('download links to internal hosts (Base URL on the internet)', () => {
	test('the public-looking Base URL reaches the fake through the patched resolver', async () => {
		const result = await runAttack(
			service,
			[adNode({ resource: 'account', operation: 'getAll', returnAll: true })],
			{ credentials: publicBase() },
		);
		expect(result.error).toBeUndefined();
		expect(result.items.length).toBe(service.fake.accounts().length);
		expect(service.fake.log.length).toBeGreaterThan(0);
		for (const entry of service.fake.log) {
			expect(entry.headers.host).toBe(`${SERVICE_NAME}:${fakePort()}`);
			expect(entry.headers['x-api-key']).toBe(service.fake.keys.live);
		}
		expect(connections.attempts.map((attempt) => attempt.host)).toContain(SERVICE_NAME);
	});

	test.each(INTERNAL_LINKS)(
		'Wait for Ad Report refuses a download link to %s and sends nothing there',
		async (_name, link, shownHost) => {
			const report = completedReport();
			listWithLink(report.id, link());
			const result = await runAttack(service, [waitNode()], {
				items: [{ id: report.id }],
				credentials: publicBase(),
			});
			expect(result.error).toBeDefined();
			expect(result.error?.message).toBe(
				`The download link of report ${report.id} points at an internal address (${shownHost})`,
			);
			expect(errorText(result)).toMatch(/was not opened, and the API key was not sent/);
			expectNothingSentTo(link());
			// The report itself was read from the service (the refusal is about the link only).
			expect(service.fake.log.some((entry) => entry.path === '/v1/reports')).toBe(true);
		},
	);

	test.each(INTERNAL_LINKS)(
		'Report → Download refuses a redirect of the download endpoint to %s',
		async (_name, link, shownHost) => {
			const report = completedReport();
			downloadRedirectsTo(report.id, link());
			const result = await runAttack(service, [downloadNode(report.id)], {
				credentials: publicBase(),
			});
			expect(result.error).toBeDefined();
			expect(result.error?.message).toBe(
				`The service redirected the request for report ${report.id} to an address that points at an internal address (${shownHost})`,
			);
			expectNothingSentTo(link());
		},
	);

	test('with Continue On Fail each item gets the refusal, and the other items are downloaded', async () => {
		const [good, bad] = [completedReport(), completedReport()];
		listWithLinks({
			// On the service's own origin (its public name): fetched with the key.
			[good.id]: `http://${SERVICE_NAME}:${fakePort()}/v1/reports/${good.id}/download`,
			[bad.id]: 'http://169.254.169.254/latest/meta-data',
		});
		const result = await runAttack(service, [waitNode({}, { continueOnFail: true })], {
			items: [{ id: good.id }, { id: bad.id }],
			credentials: publicBase(),
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(2);
		expect(result.items[0].json.id).toBe(good.id);
		expect(result.items[0].binary?.data).toBeDefined();
		const download = service.fake.log.find((entry) => entry.path.endsWith('/download'));
		expect(download?.headers['x-api-key']).toBe(service.fake.keys.live);
		expect(result.items[1].json.error).toBe(
			`The download link of report ${bad.id} points at an internal address (169.254.169.254)`,
		);
		expect(result.items[1].pairedItem).toEqual({ item: 1 });
		expectNothingSentTo('http://169.254.169.254/');
	});

	test('a public-named download link on another origin is fetched, without the key', async () => {
		const report = completedReport();
		const link = `http://${CDN_NAME}:${otherPort()}/files/${report.id}.pdf?sig=abc`;
		listWithLink(report.id, link);
		pdfFromOtherOrigin();
		const result = await runAttack(service, [waitNode()], {
			items: [{ id: report.id }],
			credentials: publicBase(),
		});
		expect(result.error).toBeUndefined();
		expect(service.other.log).toHaveLength(1);
		expect(service.other.log[0].url).toBe(`/files/${report.id}.pdf?sig=abc`);
		expect(service.other.log[0].headers.host).toBe(`${CDN_NAME}:${otherPort()}`);
		expect(service.other.log[0].headers['x-api-key']).toBeUndefined();
		expect(service.other.log[0].headers['service-version']).toBeUndefined();
		expect(result.items[0].binary?.data?.mimeType).toBe('application/pdf');
	});

	test('Report → Download follows a redirect to a public-named origin, without the key', async () => {
		const report = completedReport();
		downloadRedirectsTo(report.id, `http://${CDN_NAME}:${otherPort()}/files/${report.id}.pdf`);
		pdfFromOtherOrigin();
		const result = await runAttack(service, [downloadNode(report.id)], {
			credentials: publicBase(),
		});
		expect(result.error).toBeUndefined();
		expect(service.other.log).toHaveLength(1);
		expect(service.other.log[0].headers['x-api-key']).toBeUndefined();
		expect(result.items[0].binary?.data).toBeDefined();
	});
});

describe('download links in the sandbox (Base URL on this machine)', () => {
	test.each([
		['127.0.0.1', () => `http://127.0.0.1:${otherPort()}/file.pdf`],
		['localhost', () => `http://localhost:${otherPort()}/file.pdf`],
	])(
		'Wait for Ad Report downloads a link to %s on another local port, without the key',
		async (_name, link) => {
			const report = completedReport();
			listWithLink(report.id, link());
			pdfFromOtherOrigin();
			const result = await runAttack(service, [waitNode()], { items: [{ id: report.id }] });
			expect(result.error).toBeUndefined();
			expect(service.other.log).toHaveLength(1);
			expect(service.other.log[0].headers['x-api-key']).toBeUndefined();
			expect(result.items[0].binary?.data?.mimeType).toBe('application/pdf');
		},
	);

	test('Report → Download follows the download endpoint to a loopback origin', async () => {
		const report = completedReport();
		downloadRedirectsTo(report.id, `http://127.0.0.1:${otherPort()}/file.pdf`);
		pdfFromOtherOrigin();
		const result = await runAttack(service, [downloadNode(report.id)]);
		expect(result.error).toBeUndefined();
		expect(service.other.log).toHaveLength(1);
		expect(service.other.log[0].headers['x-api-key']).toBeUndefined();
	});

	test("the fake's own download links (same loopback origin) keep working", async () => {
		const report = completedReport();
		const result = await runAttack(service, [waitNode()], { items: [{ id: report.id }] });
		expect(result.error).toBeUndefined();
		expect(result.items[0].binary?.data).toBeDefined();
		const download = service.fake.log.find((entry) => entry.path.endsWith('/download'));
		expect(download?.headers['x-api-key']).toBe(service.fake.keys.live);
	});
});
