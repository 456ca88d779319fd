// The examples' libraries (examples/src/lib) as a Code node has them: an e-mail address is taken
// only when it is exactly one plain address, and money is never one currency passing for another.
import fc from 'fast-check';

import { anyCodePoint } from '../harness/arbitraries.cjs';
import { examplesLib, isWellFormed } from './compose.cjs';

const lib = examplesLib() as unknown as {
	emailAddress: (v: unknown) => { address?: string; reason?: string };
	money: (n: unknown, o: { locale?: string; currency?: unknown; byCode?: boolean }) => string;
	plainText: (v: unknown, max?: number) => string;
	oneLine: (v: unknown, max?: number) => string;
};
const RUNS = Number(process.env.FC_EXAMPLE_RUNS ?? 25) * 20;

test('an address is taken as it is when it is one plain address, and refused with a reason otherwise', () => {
	fc.assert(
		fc.property(
			fc.oneof(
				fc.emailAddress(),
				fc
					.tuple(
						fc.emailAddress(),
						fc.constantFrom(',', ';', ' , ', '\r\n', ' <', '>'),
						fc.emailAddress(),
					)
					.map((p) => p.join('')),
				fc.string({ unit: anyCodePoint, maxLength: 60 }),
			),
			(given) => {
				const got = lib.emailAddress(given);
				if (got.address === undefined) {
					expect(got.reason).toMatch(/\S/);
					return;
				}
				expect(got.address).toBe(given.trim());
				if (got.address) {
					expect(got.address).toMatch(/^[^\s,;<>"()\r\n]+@[A-Za-z0-9.-]+$/);
					expect(got.address.split('@')).toHaveLength(2);
				}
			},
		),
		{ numRuns: RUNS },
	);
	// every address fast-check makes that a mail server would take is taken
	fc.assert(
		fc.property(fc.emailAddress(), (a) => {
			if (a.length <= 254 && /\.[A-Za-z]{2,63}$/.test(a) && a.split('@')[0].length <= 64)
				expect(lib.emailAddress(a)).toEqual({ address: a });
		}),
		{ numRuns: RUNS },
	);
});

test('money for the team names its currency: two currencies never read the same', () => {
	const codes = Intl.supportedValuesOf('currency');
	fc.assert(
		fc.property(
			fc.constantFrom(...codes),
			fc.constantFrom(...codes),
			fc.double({ min: -1e9, max: 1e9, noNaN: true }),
			fc.constantFrom('en-US', 'en-AU', 'de-DE', 'fr-FR', 'ja-JP', 'ar-EG'),
			(a, b, amount, locale) => {
				const one = lib.money(amount, { locale, currency: a, byCode: true });
				const other = lib.money(amount, { locale, currency: b, byCode: true });
				expect(one).toContain(a);
				if (a !== b) expect(one).not.toBe(other);
			},
		),
		{ numRuns: RUNS },
	);
	// no currency, or one Intl does not know: the figure says so
	for (const currency of ['', null, 'A$', 'usdollar', '<b>'])
		expect(lib.money(12.5, { currency })).toBe('12.50 (currency not given)');
});

test('text from outside: valid Unicode, no control characters, cut at a whole character', () => {
	fc.assert(
		fc.property(
			fc.string({ unit: anyCodePoint, maxLength: 80 }),
			fc.integer({ min: 2, max: 40 }),
			(s, max) => {
				for (const out of [lib.plainText(s, max), lib.oneLine(s, max)]) {
					expect(isWellFormed(out)).toBe(true);
					expect(Array.from(out).length).toBeLessThanOrEqual(max);
					// eslint-disable-next-line no-control-regex -- the control characters are what it finds
					expect(out).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/);
				}
				expect(lib.oneLine(s, max)).not.toMatch(/[\r\n\u0085\u2028\u2029]/);
			},
		),
		{ numRuns: RUNS },
	);
});
