/**
 * The rules for what the Ad Performance credential holds: the forms of key and Base URL, its
 * secrets, and the origin the key may go to. The credential (its `authenticate`) and the nodes
 * both apply them from here, so the two can never disagree.
 */

import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

/** The `service-version` header sent when the credential names none. */
export const DEFAULT_API_VERSION = '2026-03-01';

/**
 * The part of a key that is the same for every key: it says what follows, and is no secret. In
 * any case: a key typed in capitals has no more secret in its head, and the scrubber, which
 * ignores case, must not take `service_` in a message for the start of it.
 */
const API_KEY_HEAD = /^service_(live|test)_/i;
/** A whole key: its head as the dashboard writes it (lower case), then its secret part. */
const API_KEY_PATTERN = new RegExp(`${API_KEY_HEAD.source}[A-Za-z0-9]{24,}$`);

/** The credential's API key as every part uses it: the one place it is trimmed. */
export function apiKeyOf(credentials: ICredentialDataDecryptedObject | undefined): string {
	return String(credentials?.apiKey ?? '').trim();
}

/** How much of a secret's start every key shares (`service_live_`): 0 for anything else. */
function publicHeadOf(secret: string): number {
	return API_KEY_HEAD.exec(secret)?.[0].length ?? 0;
}

/** A secret, and how much of its start is no secret (a key's `service_live_`). */
export interface Secret {
	value: string;
	/** Characters at the start that every key shares; 0 for a password. */
	publicHead: number;
}

/**
 * The secrets of the credential, read once per execution: the API key, and a user name or
 * password that a Base URL may hold (the nodes refuse such a URL, but say so in an error, and
 * the address may be echoed by the service). Every scrubber is built from this list.
 */
export function secretsOf(credentials: ICredentialDataDecryptedObject | undefined): Secret[] {
	const apiKey = apiKeyOf(credentials);
	const secrets: Secret[] = [{ value: apiKey, publicHead: publicHeadOf(apiKey) }];
	const baseUrl = String(credentials?.baseUrl ?? '').trim();
	// Not an address: nothing in it can be a password of one.
	const url = URL.canParse(baseUrl) ? new URL(baseUrl) : { username: '', password: '' };
	for (const part of [url.username, url.password]) {
		secrets.push({ value: part, publicHead: 0 });
		try {
			secrets.push({ value: decodeURIComponent(part), publicHead: 0 });
		} catch {
			// A malformed escape: the part as written is all there is to scrub.
		}
	}
	return secrets.filter((secret) => secret.value !== '');
}

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
	const url = String(raw ?? '').trim();
	return url.replace(/\/+$/, '').replace(/\/v1$/i, '').replace(/\/+$/, '');
}

/** Why a (normalised) Base URL cannot be used, or undefined when it can. */
export function baseUrlProblem(baseUrl: string): string | undefined {
	if (!URL.canParse(baseUrl)) return 'is not a web address';
	const url = new URL(baseUrl);
	if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must start with https://';
	// A password typed into the address would show up wherever the address is shown.
	if (url.username || url.password) return 'must not contain a user name or password';
	if (url.search || url.hash) return 'must not contain a query (?…) or fragment (#…)';
	return undefined;
}

/**
 * The rule for where the key goes: only to the Base URL's scheme, host and port. The credential
 * (for requests n8n authenticates) and the exchange (per redirect hop) both ask this function.
 */
export function isServiceOrigin(baseUrl: string, url: string): boolean {
	if (!URL.canParse(baseUrl) || !URL.canParse(url)) return false;
	return new URL(url).origin === new URL(baseUrl).origin;
}
