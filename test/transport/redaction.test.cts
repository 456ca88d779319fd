import { NodeApiError } from 'n8n-workflow';

import { Redactor } from '../../nodes/shared/redaction';

const KEY = 'service_live_abcdefghijklmnopqrstuvwxyz012345';

describe('Redactor: no key and no URL password reaches the user', () => {
	const redactor = new Redactor([KEY]);

	test('texts lose the key, its URL-encoded form and URL user info', () => {
		expect(redactor.text(`bad key ${KEY}!`)).toBe('bad key [redacted]!');
		expect(redactor.text(`?k=${encodeURIComponent(KEY + '/')}`)).not.toContain(KEY);
		expect(redactor.text('see https://bob:hunter2@api.example.com/v1')).toBe(
			'see https://[redacted]@api.example.com/v1',
		);
		expect(redactor.text('nothing secret here')).toBe('nothing secret here');
	});

	test('values are copied with every string scrubbed, at any depth', () => {
		const value = { a: [{ b: `x${KEY}` }], n: 1, t: true, z: null };
		expect(redactor.value(value)).toEqual({ a: [{ b: 'x[redacted]' }], n: 1, t: true, z: null });
		expect(value.a[0].b).toContain(KEY);
	});

	test('errors are scrubbed in place, including what n8n saves with the execution', () => {
		const error = new NodeApiError(
			{ id: '1', name: 'n', type: 't', typeVersion: 1, position: [0, 0], parameters: {} },
			{ message: `echo ${KEY}` },
			{ message: `failed for ${KEY}`, description: `key ${KEY}` },
		);
		redactor.error(error);
		expect(JSON.stringify({ ...error, message: error.message, stack: error.stack })).not.toContain(
			KEY,
		);
	});

	test('short strings are never treated as secrets', () => {
		expect(new Redactor(['', undefined, 'abc']).text('abc')).toBe('abc');
	});
});
