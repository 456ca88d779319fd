import '../harness/env.cjs';

import { fc, test as fcTest } from '@fast-check/jest';
import type { IHttpRequestOptions } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { AdPerformanceApi } from '../../credentials/AdPerformanceApi.credentials';
import { baseUrlProblem, normaliseBaseUrl } from '../../nodes/shared/credentialRules';
import { nodeTypes } from '../harness/run-workflow.cjs';
import { testCredential } from '../nodes/helpers.cjs';
import type { FakeService } from '../../sandbox/index.cjs';
import { startFakeService } from '../../sandbox/index.cjs';

const credentialType = new AdPerformanceApi();
let fake: FakeService;
beforeAll(async () => {
	fake = await startFakeService({ timeScale: 0.01 });
});
afterAll(async () => fake.stop());

/**
 * Runs the credential's `test` request the way n8n's credential tester does: expressions
 * resolved against `$credentials`, then `authenticate` applied, then sent.
 */
async function credentialTest(credentials: Record<string, string>) {
	const workflow = new Workflow({ nodes: [], connections: {}, active: false, nodeTypes });
	const node = {
		id: 't',
		name: 'Temp-Node',
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [0, 0] as [number, number],
		parameters: {},
	};
	const baseURL = workflow.expression.getSimpleParameterValue(
		node,
		credentialType.test.request.baseURL as string,
		'internal',
		{ $credentials: credentials } as never,
	) as string;
	const request = await credentialType.authenticate(
		{ apiVersion: '2026-03-01', ...credentials },
		{
			...(credentialType.test.request as IHttpRequestOptions),
			baseURL,
			url: credentialType.test.request.url as string,
		},
	);
	const url = new URL(`${request.baseURL}${request.url}`);
	for (const [key, value] of Object.entries(request.qs ?? {}))
		url.searchParams.set(key, String(value));
	fake.clearLog();
	const response = await fetch(url, { headers: request.headers as Record<string, string> });
	return {
		status: response.status,
		body: (await response.json()) as { error?: { type: string } },
		log: fake.log,
	};
}

describe('credential Ad Performance API', () => {
	test('its test request is GET /v1/accounts?page_size=1 with the key and version headers', async () => {
		const result = await credentialTest({ apiKey: fake.keys.live, baseUrl: `${fake.url}/v1/` });
		expect(result.status).toBe(200);
		expect(result.log).toHaveLength(1);
		expect(result.log[0]).toMatchObject({
			method: 'GET',
			path: '/v1/accounts',
			query: { page_size: '1' },
		});
		expect(result.log[0].headers['x-api-key']).toBe(fake.keys.live);
		expect(result.log[0].headers['service-version']).toBe('2026-03-01');
	});

	test('run by n8n-core as the Test button runs it: a live key passes, a revoked one fails, a redirect is not followed', async () => {
		const credentials = { apiKey: fake.keys.live, baseUrl: fake.url, apiVersion: '2026-03-01' };
		expect(await testCredential(credentials)).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		expect((await testCredential({ ...credentials, apiKey: fake.keys.revoked })).status).toBe(
			'Error',
		);
		fake.clearLog();
		fake.intercept({
			method: 'GET',
			pathPrefix: '/v1/accounts',
			times: 1,
			respond: () => ({
				status: 302,
				headers: { Location: `${fake.url}/v1/accounts?page_size=1` },
			}),
		});
		expect((await testCredential(credentials)).status).toBe('Error');
		expect(fake.log).toHaveLength(1);
	});

	test('a revoked key fails the credential test', async () => {
		const result = await credentialTest({ apiKey: fake.keys.revoked, baseUrl: fake.url });
		expect(result.status).toBe(401);
		expect(result.body.error?.type).toBe('key_revoked');
	});

	test('a key without the service prefix fails before sending, with a message saying so', async () => {
		await expect(
			credentialTest({ apiKey: 'sk_live_1234567890abcdefghijklmn', baseUrl: fake.url }),
		).rejects.toThrow(
			/does not look like a service key. A key starts with service_live_ or service_test_/,
		);
	});

	test('the key is added only for the configured origin', async () => {
		const credentials = { apiKey: fake.keys.live, baseUrl: 'https://api.example.com' };
		const own = await credentialType.authenticate(credentials, {
			url: 'https://api.example.com/v1/reports',
		});
		expect(own.headers?.['x-api-key']).toBe(fake.keys.live);
		for (const url of [
			'https://cdn.example.net/file.pdf',
			'https://api.example.com.evil.test/v1',
			'http://api.example.com/v1/reports',
		]) {
			const other = await credentialType.authenticate(credentials, { url });
			expect(other.headers?.['x-api-key']).toBeUndefined();
		}
	});

	test.each([
		['https://api.example.com', 'https://api.example.com'],
		['https://api.example.com/', 'https://api.example.com'],
		['https://api.example.com/v1', 'https://api.example.com'],
		['https://api.example.com/v1/', 'https://api.example.com'],
		[' https://api.example.com/base/v1// ', 'https://api.example.com/base'],
	])('base URL %j is normalised to %j', (raw, expected) => {
		expect(normaliseBaseUrl(raw)).toBe(expected);
	});

	// One rule for the Base URL: the credential refuses (before adding the key) exactly the
	// addresses the nodes refuse before any request, with the same words.
	fcTest.prop([
		fc.constantFrom('https', 'http', 'ftp', 'javascript', ''),
		fc.constantFrom('', 'user@', 'user:pass@', ':pass@', 'us%40er:p%3Ass@', '@'),
		fc.constantFrom('api.example.com', '127.0.0.1:4010', 'api.example.com:8443', ''),
		fc.constantFrom('', '/', '/v1', '/base/v1/', '?key=1', '#top', '/x?y#z'),
	])('the credential refuses a Base URL exactly when the nodes do', async (...parts) => {
		const [scheme, userInfo, host, rest] = parts;
		const baseUrl = `${scheme}${scheme ? '://' : ''}${userInfo}${host}${rest}`;
		const problem = baseUrlProblem(normaliseBaseUrl(baseUrl));
		const authenticated = credentialType.authenticate(
			{ apiKey: fake.keys.live, baseUrl },
			{ url: 'https://api.example.com/v1/accounts' },
		);
		if (problem === undefined) await expect(authenticated).resolves.toBeDefined();
		else await expect(authenticated).rejects.toThrow(`Ad Performance credential ${problem}.`);
	});
});
