import { baseUrlProblem, isServiceOrigin } from '../../nodes/shared/credentialRules';
import { hopProblem, isInternalHost } from '../../nodes/shared/transport/urlPolicy';

describe('urlPolicy: where the key and requests may go', () => {
	const base = 'https://api.example.com';

	test('the key goes to the Base URL origin only: scheme, host and port', () => {
		expect(isServiceOrigin(base, 'https://api.example.com/v1/reports?page=2')).toBe(true);
		expect(isServiceOrigin(base, 'http://api.example.com/v1/reports')).toBe(false);
		expect(isServiceOrigin(base, 'https://api.example.com:8443/v1/reports')).toBe(false);
		expect(isServiceOrigin(base, 'https://cdn.example.com/file.pdf')).toBe(false);
		expect(isServiceOrigin(base, 'https://api.example.com.evil.test/v1')).toBe(false);
	});

	test.each([
		['https://api.example.com', undefined],
		['http://127.0.0.1:4010', undefined],
		['https://user:secret@api.example.com', 'must not contain a user name or password'],
		['https://api.example.com?x=1', 'must not contain a query (?…) or fragment (#…)'],
		['ftp://api.example.com', 'must start with https://'],
		['api.example.com', 'is not a web address'],
	])('Base URL %s', (url, problem) => {
		expect(baseUrlProblem(url)).toBe(problem);
	});

	test('a redirect never downgrades https to http, even on the same host', () => {
		expect(hopProblem(base, `${base}/v1/accounts`, 'http://api.example.com/v1/accounts')).toMatch(
			/downgrade/,
		);
		expect(hopProblem(base, `${base}/v1/accounts`, `${base}/v1/accounts?page=2`)).toBeUndefined();
		expect(
			hopProblem('http://127.0.0.1:1', 'http://127.0.0.1:1/x', 'http://127.0.0.1:1/y'),
		).toBeUndefined();
	});

	test('an API answer comes only from the Base URL origin; a file may come from another', () => {
		const from = `${base}/v1/accounts`;
		for (const next of [
			'https://cdn.example.com/v1/accounts',
			'https://api.example.com:8443/v1/accounts',
			'https://API.example.com.evil.test/v1/accounts',
		]) {
			expect(hopProblem(base, from, next, true)).toMatch(/^is on another origin \(https:\/\//);
			expect(hopProblem(base, from, next)).toBeUndefined();
		}
		for (const next of ['https://API.Example.com/v2/accounts', '/v1/accounts?page=2'])
			expect(hopProblem(base, from, new URL(next, from).toString(), true)).toBeUndefined();
	});

	test('links and redirects with credentials or odd schemes are refused', () => {
		expect(hopProblem(base, undefined, 'https://u:p@cdn.example.com/f.pdf')).toMatch(/password/);
		expect(hopProblem(base, undefined, 'file:///etc/passwd')).toMatch(/not http/);
		expect(hopProblem(base, undefined, 'javascript:alert(1)')).toMatch(/not http/);
		expect(hopProblem(base, undefined, 'https://cdn.example.com/f.pdf')).toBeUndefined();
	});

	test.each([
		'http://127.0.0.1/x',
		'http://127.1.2.3:8080/x',
		'http://localhost/x',
		'http://files.localhost/x',
		'http://10.0.0.5/x',
		'http://172.16.0.1/x',
		'http://172.31.255.255/x',
		'http://192.168.1.1/x',
		'http://169.254.169.254/latest/meta-data/',
		'http://100.64.0.1/x',
		'http://0.0.0.0/x',
		'http://[::1]/x',
		'http://[::ffff:127.0.0.1]/x',
		'http://[fd00::1]/x',
		'http://[fe80::1]/x',
		'http://2130706433/x',
		'http://0x7f000001/x',
		'http://metadata.google.internal/x',
		'http://printer.local/x',
	])('a link to the internal address %s is refused for a public Base URL', (link) => {
		expect(hopProblem(base, undefined, link)).toMatch(/internal address/);
	});

	test('…but allowed when the Base URL itself is internal (the sandbox on this machine)', () => {
		expect(
			hopProblem('http://127.0.0.1:4010', undefined, 'http://127.0.0.1:4011/f.pdf'),
		).toBeUndefined();
		expect(hopProblem('http://localhost:4010', undefined, 'http://10.1.2.3/f.pdf')).toBeUndefined();
	});

	test.each([
		'api.example.com',
		'8.8.8.8',
		'172.32.0.1',
		'192.169.0.1',
		'[2001:db8::1]',
		'100.128.0.1',
	])('%s is not internal', (host) => {
		expect(isInternalHost(host)).toBe(false);
	});
});
