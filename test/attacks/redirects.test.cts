/**
 * Attack 1: redirects. The key goes only to the Base URL's origin (scheme, host and port), on
 * every hop; an API answer is read only from that origin (a file may come from another, without
 * the key); https is never downgraded; hops are capped. redirect-origins.test.cts draws the
 * targets for every API call the nodes make.
 */
import { adNode, rl } from '../nodes/helpers.cjs';
import { startOtherOrigin } from '../../sandbox/index.cjs';
import { errorText, trustCertificate, runAttack, useHostileService } from './helpers.cjs';

const service = useHostileService();

const listAccounts = adNode({ resource: 'account', operation: 'getAll', returnAll: true });

function redirectTo(location: string, status = 302) {
	return () => ({ status, headers: { Location: location } });
}

describe('redirects', () => {
	test('a 302 on /v1/accounts to another origin is refused: nothing is sent there, nothing read', async () => {
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/accounts',
			times: 1,
			respond: redirectTo(`${service.other.url}/v1/accounts?page=1`),
		});
		const result = await runAttack(service, [listAccounts]);
		expect(service.other.log).toHaveLength(0);
		expect(result.items).toHaveLength(0);
		expect(result.error?.context?.errorType).toBe('request_refused');
		expect(errorText(result)).toMatch(
			/redirected GET \/v1\/accounts to an address that is on another origin \(http:\/\/127\.0\.0\.1:\d+\)/,
		);
	});

	test('a 307 on POST /v1/reports to another origin is refused, not resent', async () => {
		service.fake.intercept({
			method: 'POST',
			pathPrefix: '/v1/reports',
			times: 1,
			respond: redirectTo(`${service.other.url}/collect`, 307),
		});
		const result = await runAttack(service, [
			adNode({
				resource: 'report',
				operation: 'generate',
				accountId: rl(service.fake.accounts()[0].platformAccountId),
				title: 'Redirected',
				dateStart: '2026-10-01',
				dateEnd: '2026-10-07',
			}),
		]);
		expect(service.other.log).toHaveLength(0);
		expect(result.error?.context?.errorType).toBe('request_refused');
		expect(service.fake.log.filter((entry) => entry.method === 'POST')).toHaveLength(1);
	});

	test('a redirect to the same origin keeps the key (the service may move its paths)', async () => {
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/accounts',
			times: 1,
			respond: redirectTo('/v1/accounts?page=1&page_size=100', 301),
		});
		const result = await runAttack(service, [listAccounts]);
		expect(result.error).toBeUndefined();
		expect(result.items.length).toBe(service.fake.accounts().length);
		const hops = service.fake.log.filter((entry) => entry.path === '/v1/accounts');
		expect(hops).toHaveLength(2);
		expect(hops[1].headers['x-api-key']).toBe(service.fake.keys.live);
	});

	test('a redirect to another host name of the same machine is another origin: refused', async () => {
		const port = new URL(service.fake.url).port;
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/accounts',
			respond: (request) =>
				request.headers.host?.startsWith('localhost')
					? undefined
					: { status: 302, headers: { Location: `http://localhost:${port}/v1/accounts` } },
		});
		const result = await runAttack(service, [listAccounts]);
		// The same server would have answered the real accounts: the origin decides, not the host.
		const viaOtherName = service.fake.log.filter((entry) =>
			entry.headers.host?.startsWith('localhost'),
		);
		expect(viaOtherName).toHaveLength(0);
		expect(result.error?.context?.errorType).toBe('request_refused');
	});

	test('redirects going round in circles are capped with a clear error', async () => {
		service.fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/accounts',
			respond: (request) => ({
				status: 302,
				headers: { Location: `/v1/accounts?hop=${Number(request.query.hop ?? 0) + 1}` },
			}),
		});
		const result = await runAttack(service, [listAccounts]);
		expect(result.error).toBeDefined();
		expect(errorText(result)).toMatch(/redirected .* more than \d+ times/);
		expect(service.fake.log.length).toBeLessThanOrEqual(6);
	});

	test('a download link redirected to another origin gets the file without the key', async () => {
		const [report] = service.fake.reports().filter((r) => r.status === 'completed');
		service.other.answer(() => ({
			status: 200,
			headers: { 'Content-Type': 'application/pdf' },
			body: '%PDF-1.4 elsewhere',
		}));
		service.fake.intercept({
			method: 'GET',
			pathPrefix: `/v1/reports/${report.id}/download`,
			respond: redirectTo(`${service.other.url}/files/${report.id}.pdf?sig=abc`),
		});
		const result = await runAttack(service, [
			adNode({ resource: 'report', operation: 'download', reportId: report.id }),
		]);
		expect(result.error).toBeUndefined();
		expect(service.other.log).toHaveLength(1);
		expect(service.other.log[0].headers['x-api-key']).toBeUndefined();
		expect(result.items[0].binary?.data).toBeDefined();
	});

	test('an https Base URL redirected to http is refused before the key travels in clear text', async () => {
		const tlsService = await startOtherOrigin({ tls: true });
		try {
			tlsService.answer(() => ({
				status: 302,
				headers: { Location: `${service.fake.url}/v1/accounts` },
			}));
			const result = await trustCertificate(tlsService.certificate!, () =>
				runAttack(service, [listAccounts], { credentials: { baseUrl: tlsService.url } }),
			);
			// The https origin (the Base URL) got the key, as it should; the http hop nothing.
			expect(tlsService.log).toHaveLength(1);
			expect(service.fake.log).toHaveLength(0);
			expect(result.error).toBeDefined();
			expect(errorText(result)).toMatch(/downgrade the connection from https to unencrypted http/);
		} finally {
			await tlsService.stop();
		}
	});
});
