/**
 * The rules for what the Ad Performance credential holds: the API key's form, the Base URL's
 * form, and the service version sent by default. The credential (its `authenticate`) and the
 * nodes (before any request) both apply them from here, so the two can never disagree.
 */

/** The `service-version` header sent when the credential names none. */
export const DEFAULT_API_VERSION = '2026-03-01';

/** A key: service_live_ or service_test_ followed by at least 24 letters and digits. */
const API_KEY_PATTERN = /^service_(live|test)_[A-Za-z0-9]{24,}$/;

/** What is wrong with a key that does not look like one, and how to fix it; undefined if fine. */
export function apiKeyProblem(
	apiKey: string,
): { message: string; description: string } | undefined {
	if (API_KEY_PATTERN.test(apiKey)) return undefined;
	return {
		message: 'The API Key in the Ad Performance credential does not look like a service key',
		description:
			'A key starts with service_live_ or service_test_ followed by at least 24 letters and digits. Copy it again from the dashboard (Settings → API Keys) into the credential.',
	};
}

/** The base URL as the user typed it, without trailing slashes or an accidental `/v1`. */
export function normaliseBaseUrl(raw: unknown): string {
	let url = String(raw ?? '').trim();
	url = url.replace(/\/+$/, '');
	url = url.replace(/\/v1$/i, '');
	return url.replace(/\/+$/, '');
}

/** Why a (normalised) Base URL cannot be used, or undefined when it can. */
export function baseUrlProblem(baseUrl: string): string | undefined {
	let url: URL;
	try {
		url = new URL(baseUrl);
	} catch {
		return 'is not a web address';
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must start with https://';
	// A password typed into the address would show up wherever the address is shown.
	if (url.username || url.password) return 'must not contain a user name or password';
	if (url.search || url.hash) return 'must not contain a query (?…) or fragment (#…)';
	return undefined;
}

/** The scheme, host and port of an address, or undefined for one that is not an address. */
export function originOf(url: string): string | undefined {
	try {
		return new URL(url).origin;
	} catch {
		return undefined;
	}
}
