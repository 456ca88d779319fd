import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import {
	apiKeyOf,
	apiKeyProblem,
	baseUrlProblem,
	DEFAULT_API_VERSION,
	isServiceOrigin,
	normaliseBaseUrl,
} from '../nodes/shared/credentialRules';

export class AdPerformanceApi implements ICredentialType {
	name = 'adPerformanceApi';

	displayName = 'Ad Performance API';

	icon: Icon = {
		light: 'file:../icons/adPerformance.svg',
		dark: 'file:../icons/adPerformance.dark.svg',
	};

	documentationUrl = 'https://github.com/ad-performance/n8n-nodes-ad-performance#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			placeholder: 'service_live_…',
			description:
				'Created in the service dashboard under Settings → API Keys → Create API Key (Agency plan). Starts with service_live_ or service_test_.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'https://api.example.com',
			description: 'The service address without /v1; the nodes add the paths',
		},
		{
			displayName: 'API Version',
			name: 'apiVersion',
			type: 'string',
			default: DEFAULT_API_VERSION,
			description:
				'Sent as the service-version header. Change it only when the service asks you to.',
		},
		{
			// Not shown in the editor: how fast the offline sandbox runs its clock (0.05: a service
			// minute in 3 s). The nodes honour it only for a Base URL on this machine; see
			// nodes/shared/transport/serviceClock.ts.
			displayName: 'Sandbox Clock Speed',
			name: 'timeScale',
			type: 'hidden',
			default: 1,
		},
	];

	/**
	 * Adds the key to requests for the configured service only. A request to any other origin
	 * (for example a signed download link on a CDN) goes out without it, so the key can never
	 * leak to a third party, whichever helper a node used.
	 */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const apiKey = apiKeyOf(credentials);
		const keyProblem = apiKeyProblem(apiKey);
		if (keyProblem) throw new Error(`${keyProblem.message}. ${keyProblem.description}`);
		const baseUrl = normaliseBaseUrl(credentials.baseUrl);
		// The nodes' rule for the Base URL (a password in it would be shown wherever it is shown).
		const urlProblem = baseUrlProblem(baseUrl);
		if (urlProblem) {
			throw new Error(
				`The Base URL in the Ad Performance credential ${urlProblem}. Enter only the service address, for example https://api.example.com.`,
			);
		}
		const target = String(requestOptions.baseURL || requestOptions.url);
		const headers = { ...(requestOptions.headers ?? {}) };
		if (isServiceOrigin(baseUrl, target)) {
			headers['x-api-key'] = apiKey;
			headers['service-version'] = String(credentials.apiVersion || DEFAULT_API_VERSION);
		}
		return { ...requestOptions, headers };
	}

	/**
	 * n8n's tester sends this request itself, and its request helper follows redirects to any
	 * origin keeping `x-api-key` (only Authorization and cookies get special care): so the test
	 * follows none. A redirect fails it, and the key goes nowhere but the Base URL.
	 */
	test: ICredentialTestRequest = {
		request: {
			baseURL:
				'={{ String($credentials.baseUrl).trim().replace(/\\/+$/, "").replace(/\\/v1$/i, "") }}',
			url: '/v1/accounts',
			qs: { page_size: 1 },
			disableFollowRedirect: true,
		},
		rules: [301, 302, 303, 307, 308].map((value) => ({
			type: 'responseCode' as const,
			properties: {
				value,
				message: `The service redirected the test request (HTTP ${value}); the test follows no redirect, so the key went nowhere else. Check that the Base URL is the service's API address itself, for example https://api.example.com.`,
			},
		})),
	};
}
