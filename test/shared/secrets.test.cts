/**
 * One secrets rule (#25): the credential's secrets are read once per execution (secretsOf),
 * the credential is fetched once per execution whoever asks, every scrubber is built from them,
 * and a start of the key (its public head and 8 or more of its characters) counts as the key.
 */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { isServiceOrigin, secretsOf } from '../../nodes/shared/credentialRules';
import { MIN_SECRET_CHARS, Redactor } from '../../nodes/shared/redaction';
import {
	executionCredential,
	releaseExecutionCredential,
	type RequestContext,
} from '../../nodes/shared/transport';

const KEY = 'service_live_abcdefghijklmnopqrstuvwxyz012345';
const HEAD = 'service_live_'.length;

describe('secretsOf', () => {
	test('the key trimmed, and the user and password of a Base URL, plain and decoded', () => {
		const secrets = secretsOf({
			apiKey: `  ${KEY}\n`,
			baseUrl: ' https://ann:p%40ss-word-1@api.example.com ',
		});
		expect(secrets).toEqual([
			{ value: KEY, publicHead: HEAD },
			{ value: 'ann', publicHead: 0 },
			{ value: 'ann', publicHead: 0 },
			{ value: 'p%40ss-word-1', publicHead: 0 },
			{ value: 'p@ss-word-1', publicHead: 0 },
		]);
	});

	test('a Base URL that is no address adds nothing', () => {
		expect(secretsOf({ apiKey: KEY, baseUrl: 'not an address' })).toEqual([
			{ value: KEY, publicHead: HEAD },
		]);
	});
});

describe('a start of the key counts as the key', () => {
	const redactor = new Redactor(secretsOf({ apiKey: KEY }));

	test.each([MIN_SECRET_CHARS, 22, KEY.length - HEAD - 1])(
		'its head and %i of its characters are scrubbed whole',
		(chars) => {
			const start = KEY.slice(0, HEAD + chars);
			expect(redactor.text(`reason: ${start}… (cut)`)).toBe('reason: [redacted]… (cut)');
		},
	);

	test('its head and fewer than 8 characters are left: too short to tell from a word', () => {
		const start = KEY.slice(0, HEAD + MIN_SECRET_CHARS - 1);
		expect(redactor.text(start)).toBe(start);
		expect(redactor.text('Keys start with service_live_ or service_test_.')).toBe(
			'Keys start with service_live_ or service_test_.',
		);
	});

	test('the whole key and a start of it followed by other text', () => {
		expect(redactor.text(`${KEY}${KEY.slice(0, HEAD + 10)}x`)).toBe('[redacted][redacted]x');
	});

	test('clip scrubs before it cuts: a key straddling the cut is not left as a start', () => {
		const text = `${'a'.repeat(499 - HEAD - 22)}${KEY} and more`;
		const clipped = redactor.clip(text, 500);
		expect(clipped).not.toContain(KEY.slice(0, HEAD + MIN_SECRET_CHARS));
		expect(clipped).toMatch(/^a+\[redacted\] and more$/);
	});
});

describe('the credential of an execution', () => {
	test('is fetched once, however many parts ask, and gives one scrubber', async () => {
		let fetched = 0;
		const ctx = {
			getCredentials: async () => {
				fetched++;
				return {
					apiKey: KEY,
					baseUrl: 'https://api.example.com',
				} as ICredentialDataDecryptedObject;
			},
		} as unknown as RequestContext;
		const [first, second] = await Promise.all([executionCredential(ctx), executionCredential(ctx)]);
		const third = await executionCredential(ctx);
		expect(fetched).toBe(1);
		expect(second.redactor).toBe(first.redactor);
		expect(third.redactor).toBe(first.redactor);
		expect(first.redactor.text(`x ${KEY}`)).toBe('x [redacted]');
		// The next execution on the same context (a trigger's next poll) reads it as it is then.
		releaseExecutionCredential(ctx);
		await executionCredential(ctx);
		expect(fetched).toBe(2);
	});
});

describe('where the key goes', () => {
	test('only to the Base URL’s scheme, host and port; nowhere for a Base URL that is no address', () => {
		expect(isServiceOrigin('https://api.example.com', 'https://api.example.com/v1/x')).toBe(true);
		expect(isServiceOrigin('https://api.example.com', 'https://cdn.example.com/f')).toBe(false);
		expect(isServiceOrigin('not an address', 'also not one')).toBe(false);
	});
});
