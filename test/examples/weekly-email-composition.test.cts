// The client e-mail of the client-directory and exactly-once examples, composed by n8n's own
// engine (n8n-core's WorkflowExecute, as in n8n): the examples' "Who gets what" and "Compare with
// last week" Code nodes, unchanged from the example files, run as n8n's Code node runs them, over
// the figures of earlier weeks a Data Table would give. The e2e (test/e2e/editor-demo) runs the
// same in real n8n; this is the fast check of the chart and the money in every case.
import fs from 'node:fs';
import path from 'node:path';
import type { IDataObject } from 'n8n-workflow';

import { runWorkflow } from '../harness/run-workflow.cjs';

interface ExampleNode {
	name: string;
	type: string;
	parameters: IDataObject & { assignments?: { assignments: IDataObject[] } };
}
const EXAMPLES = [
	'weekly-client-report-email-directory.json',
	'weekly-client-report-email-exactly-once.json',
];
const read = (file: string) =>
	JSON.parse(fs.readFileSync(path.join(__dirname, '../../examples', file), 'utf8')) as {
		nodes: ExampleNode[];
	};

interface Week {
	from: string;
	to: string;
	spend: number;
	roas: number;
}
/** Consecutive weeks (Monday to Sunday) ending with the one starting `lastFrom`. */
function weeksUpTo(lastFrom: string, count: number): Array<{ from: string; to: string }> {
	const out = [];
	for (let i = count - 1; i >= 0; i--) {
		const from = new Date(`${lastFrom}T00:00:00Z`);
		from.setUTCDate(from.getUTCDate() - 7 * i);
		const to = new Date(from);
		to.setUTCDate(to.getUTCDate() + 6);
		out.push({ from: from.toISOString().slice(0, 10), to: to.toISOString().slice(0, 10) });
	}
	return out;
}

const ACCOUNT = 'act_1001';
/** One client's e-mail as the example composes it: this week's report over earlier weeks' rows. */
async function compose(
	file: string,
	{
		earlier,
		now,
		locale,
		currency,
	}: { earlier: Week[]; now: Week; locale?: string; currency: string },
) {
	const example = read(file);
	const node = (name: string) => {
		const found = example.nodes.find((n) => n.name === name);
		if (!found) throw new Error(`${file}: no node ${name}`);
		return found;
	};
	const codeNode = (name: string) => ({
		name,
		type: 'test.code',
		parameters: node(name).parameters,
	});
	const result = await runWorkflow({
		nodes: [
			{
				name: 'Figures of earlier weeks',
				type: 'test.setItems',
				// none: one empty item, as the example's node gives with Always Output Data
				parameters: {
					items: earlier.length
						? earlier.map((w) => ({
								account_week: `${ACCOUNT}:${w.from}..${w.to}`,
								account_id: ACCOUNT,
								date_from: w.from,
								date_to: w.to,
								spend: w.spend,
								conversions: 10,
								roas: w.roas,
								risk: 'LOW',
								currency,
								report_id: `rpt_${w.from}`,
							}))
						: [{}],
				},
			},
			{
				name: 'Look up the client',
				type: 'test.setItems',
				parameters: {
					items: [
						{
							account_id: ACCOUNT,
							account_name: 'Delta Fitness',
							currency,
							client: {
								account_id: ACCOUNT,
								client_name: 'Delta Fitness',
								to_email: 'delta@clients.example',
								send: true,
								...(locale === undefined ? {} : { locale }),
							},
						},
					],
				},
			},
			codeNode('Who gets what'),
			{
				name: 'Wait for Ad Report',
				type: 'test.setItems',
				parameters: {
					items: [
						{
							id: 'rpt_now',
							accountId: ACCOUNT,
							title: 'Weekly performance – Delta Fitness',
							dateRange: { from: now.from, to: now.to },
							summary: {
								totalSpend: now.spend,
								totalConversions: 1250,
								avgRoas: now.roas,
								overallRiskLevel: 'MEDIUM',
							},
						},
					],
				},
			},
			codeNode('Compare with last week'),
		],
	});
	if (result.error) throw result.error;
	const compared = result.nodes['Compare with last week'].items[0].json;
	const mail = compared.email as { html: string; text: string };
	return { html: mail.html, text: mail.text, compared };
}

const bars = (html: string) => ({
	spend: html.match(/class="trend-spend"/g)?.length ?? 0,
	roas: html.match(/class="trend-roas"/g)?.length ?? 0,
});
/** What Gmail, Outlook (Word engine) and Apple Mail need of an e-mail's HTML. */
function expectMailClientSafe(html: string) {
	expect(html).not.toMatch(/<svg/i);
	expect(html).not.toMatch(/<script/i);
	expect(html).not.toMatch(/\bsrc\s*=\s*["']?\s*data:/i);
	expect(html).not.toMatch(/url\(\s*["']?\s*data:/i);
	expect(Buffer.byteLength(html)).toBeLessThanOrEqual(100 * 1024);
}

const [THIS_WEEK, ...BEFORE] = weeksUpTo('2026-11-16', 12).reverse();
const history = (count: number): Week[] =>
	BEFORE.slice(0, count)
		.reverse()
		.map((w, i) => ({ ...w, spend: 1000 + 100 * i, roas: 2 + i / 10 }));
const now: Week = { ...THIS_WEEK, spend: 1540, roas: 0.8 };

describe.each(EXAMPLES)('%s: the client e-mail', (file) => {
	test('a first report: no chart, money in the client locale', async () => {
		const { html, text } = await compose(file, {
			earlier: [],
			now,
			locale: 'de-DE',
			currency: 'EUR',
		});
		expect(bars(html)).toEqual({ spend: 0, roas: 0 });
		expect(text).not.toMatch(/The last \d+ weeks/);
		expect(text).toContain('Spend: 1.540,00\u00a0€ (first report)');
		expect(text).toContain('Conversions: 1.250 (first report)');
		expect(text).toContain('ROAS: 0,80× (first report)');
		expectMailClientSafe(html);
	});

	test.each([
		[1, 2],
		[3, 4],
		[7, 8],
		[11, 8],
	])(
		'%i earlier weeks: a chart of %i weeks, a bar each for spend and ROAS',
		async (earlierWeeks, shown) => {
			const earlier = history(earlierWeeks);
			const { html, text } = await compose(file, {
				earlier,
				now,
				locale: 'en-US',
				currency: 'USD',
			});
			expect(bars(html)).toEqual({ spend: shown, roas: shown });
			expect(html).toContain(`The last ${shown} weeks`);
			// the newest weeks, oldest first, this week last
			const weeks = [...earlier.slice(-(shown - 1)), now];
			const usd = (n: number) =>
				new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(n);
			expect(text).toContain(`Spend: ${weeks.map((w) => usd(w.spend)).join(' · ')}\n`);
			expect(text).toContain(`ROAS: ${weeks.map((w) => `${w.roas.toFixed(2)}×`).join(' · ')}`);
			// the longest bar is the largest week's; this week's bar is drawn relative to it
			const top = Math.max(...weeks.map((w) => w.spend));
			expect(html).toContain(`width="${Math.round((now.spend / top) * 100)}%"`);
			expectMailClientSafe(html);
		},
	);

	test('the change from last week in the currency and locale: "▼ 60,00 AU$"', async () => {
		const earlier = [{ ...BEFORE[0], spend: 1600, roas: 2.4 }];
		const { text, compared } = await compose(file, {
			earlier,
			now,
			locale: 'de-DE',
			currency: 'AUD',
		});
		expect(text).toContain('Spend: 1.540,00\u00a0AU$ ▼ 60,00\u00a0AU$ from last week');
		expect(text).toContain('ROAS: 0,80× ▼ 1,60 from last week');
		expect(compared.money).toEqual({
			spend: '1.540,00\u00a0AU$',
			conversions: '1.250',
			roas: '0,80×',
		});
	});

	test.each([
		[undefined, '$1,540.00'],
		['', '$1,540.00'],
		['not a locale!', '$1,540.00'],
		['en-GB', 'US$1,540.00'],
		['fr-FR', '1\u202f540,00\u00a0$US'],
	])('locale %p writes %p (an unknown or empty locale: en-US)', async (locale, spend) => {
		const { text } = await compose(file, { earlier: [], now, locale, currency: 'USD' });
		expect(text).toContain(`Spend: ${spend} (first report)`);
	});

	test('a currency Intl does not know: the figure, saying no currency was given', async () => {
		const { text } = await compose(file, {
			earlier: [],
			now,
			locale: 'en-US',
			currency: 'NOT-A-CODE',
		});
		expect(text).toContain('Spend: 1,540.00 (currency not given) (first report)');
	});
});
