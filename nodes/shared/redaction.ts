/**
 * Every text that reaches the user (error messages, descriptions, the error details n8n saves
 * with the execution, Continue On Fail items, and the records of every successful answer, which
 * become output items) passes through a Redactor first: a service that
 * echoes the API key in an error message, or an address with a password in it, must not put
 * either into run data.
 */
const REDACTED = '[redacted]';

/** user:password@ in any URL inside a text. */
const URL_USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi;

export class Redactor {
	private readonly secrets: string[];

	constructor(secrets: Array<string | undefined>) {
		const forms = new Set<string>();
		for (const secret of secrets) {
			// Shorter strings would scrub ordinary words; a key is at least 37 characters.
			if (!secret || secret.length < 8) continue;
			forms.add(secret);
			forms.add(encodeURIComponent(secret));
		}
		// Longest first, so an encoded form is replaced whole.
		this.secrets = [...forms].sort((a, b) => b.length - a.length);
	}

	text(value: string): string {
		// Almost every text holds neither a secret nor an address with a user name (which needs
		// an @): those are returned as they are, without the regular expression and the copies.
		if (!value.includes('@') && !this.secrets.some((secret) => value.includes(secret))) {
			return value;
		}
		let text = value.replace(URL_USERINFO, `$1${REDACTED}@`);
		for (const secret of this.secrets) text = text.split(secret).join(REDACTED);
		return text;
	}

	/** A copy of a JSON-like value with every string redacted. */
	value<T>(value: T, depth = 0): T {
		if (typeof value === 'string') return this.text(value) as T;
		if (!value || typeof value !== 'object' || depth > 8) return value;
		if (Array.isArray(value)) return value.map((entry) => this.value(entry, depth + 1)) as T;
		const copy: Record<string, unknown> = {};
		for (const [key, entry] of Object.entries(value)) copy[key] = this.value(entry, depth + 1);
		return copy as T;
	}

	/**
	 * Scrubs an error in place (message, description, stack, the saved response) and
	 * returns it, for errors that may carry text we did not write ourselves.
	 */
	error<E>(error: E): E {
		if (!error || typeof error !== 'object') return error;
		const target = error as Record<string, unknown>;
		for (const key of ['message', 'description', 'stack']) {
			if (typeof target[key] === 'string') target[key] = this.text(target[key] as string);
		}
		// Wrapped library errors may hold the whole request, headers included: not needed, dropped.
		delete target.cause;
		for (const key of ['errorResponse', 'context', 'messages']) {
			if (target[key] && typeof target[key] === 'object') {
				try {
					target[key] = this.value(target[key]);
				} catch {
					delete target[key];
				}
			}
		}
		return error;
	}
}
