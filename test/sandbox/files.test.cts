import fc from 'fast-check';
import { collectParts, renderReportFile, type FileContext } from '../../sandbox/files.cjs';
import type { Report } from '../../sandbox/types.cjs';

// A report file padded to a size must have exactly that size, wherever the size falls: the
// benches compare the bytes n8n stored and e-mailed with the sizes they asked the fake for.
// The PDF's own numbers (the filler's /Length, startxref) change width at each power of ten,
// which is where an estimate of the overhead goes wrong.
const context = (padTo: number): FileContext => ({
	report: {
		id: 'rpt_files',
		accountId: 'act_files',
		title: 'Weekly performance – Files test',
		format: 'pdf',
		dateRange: { from: '2026-11-16', to: '2026-11-22' },
	} as unknown as Report,
	accountName: 'Files test',
	currency: 'EUR',
	analysis: {
		campaigns: [
			{ name: 'Search', spend: 120.5, conversions: 4, roas: 2.1, riskLevel: 'low' },
		] as FileContext['analysis']['campaigns'],
		insights: ['Spend rose.'],
		recommendations: [{ priority: 1, title: 'Raise bids', description: 'On search.' }],
	},
	padTo,
});

/** Sizes around every power of ten from 10^3 to 10^7, and anywhere between. */
const sizes = fc.oneof(
	fc
		.tuple(fc.integer({ min: 3, max: 7 }), fc.integer({ min: -60, max: 60 }))
		.map(([k, d]) => 10 ** k + d),
	fc.integer({ min: 1_000, max: 12_000_000 }),
);

describe('fake service: report files', () => {
	test('a padded PDF is exactly the size asked for, and its offsets point where they say', async () => {
		const plain = renderReportFile(context(0)).length;
		await fc.assert(
			fc.asyncProperty(sizes, async (padTo) => {
				const file = renderReportFile(context(padTo));
				expect(file.length).toBe(Math.max(padTo, plain));
				if (file.length > 1_200_000) return; // the layout is the same; spare the bytes
				const bytes = await collectParts(file.parts);
				expect(bytes.length).toBe(file.length);
				const text = bytes.toString('latin1');
				const startxref = Number(/startxref\n(\d+)\n%%EOF$/.exec(text)?.[1]);
				expect(text.startsWith('xref\n', startxref)).toBe(true);
				const offsets = [...text.slice(startxref).matchAll(/^(\d{10}) 00000 n $/gm)].map((m) =>
					Number(m[1]),
				);
				offsets.forEach((offset, i) =>
					expect(text.startsWith(`${i + 1} 0 obj\n`, offset)).toBe(true),
				);
				const filler = /(\d+) 0 obj\n<< \/Length (\d+) >>\nstream\n/.exec(
					text.slice(offsets[5] ?? 0),
				);
				if (offsets.length > 5) {
					const start = (offsets[5] as number) + (filler?.[0].length ?? 0);
					expect(text.startsWith('\nendstream', start + Number(filler?.[2]))).toBe(true);
				}
			}),
			{ numRuns: 300, examples: [[999_999], [1_000_000], [998_570], [1_000_160], [99_998]] },
		);
	});
});
