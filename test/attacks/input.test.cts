/**
 * Attacks 5 and 6: numbers from expressions and partial writes. Every numeric parameter is
 * checked (finite, in range) before any request, on every node; and every item of a write is
 * checked before the first one is sent, so a bad 3rd item creates nothing for the first two.
 */
import type { IDataObject } from 'n8n-workflow';

import { adNode, apiRequests, rl, WAIT_NODE } from '../nodes/helpers.cjs';
import { ActiveTrigger } from '../nodes/AdPerformanceTrigger/poll-harness.cjs';
import { runAttack, useHostileService } from './helpers.cjs';

const service = useHostileService();

/** Values an expression can produce that are not a usable number. */
const NOT_A_NUMBER: Array<[string, string]> = [
	['a word', '={{ "abc" }}'],
	['an object', '={{ {} }}'],
	['NaN', '={{ 0/0 }}'],
	['Infinity', '={{ 1/0 }}'],
	['an empty list', '={{ [] }}'],
];

function expectFieldError(
	error: (Error & { description?: string; context?: IDataObject }) | undefined,
	field: string,
) {
	expect(error?.name).toBe('NodeOperationError');
	expect(error?.message.startsWith(`${field}: `)).toBe(true);
	expect(error?.description).toMatch(/Set .* to a (whole )?number from/);
}

describe('numbers from expressions are checked before any request', () => {
	test.each(NOT_A_NUMBER)('Max Attempts as %s: main node', async (_name, value) => {
		const result = await runAttack(service, [
			adNode({
				resource: 'account',
				operation: 'getAll',
				returnAll: true,
				requestOptions: { maxAttempts: value },
			}),
		]);
		expectFieldError(result.error, 'Request Options → Max Attempts');
		expect(apiRequests(service)).toHaveLength(0);
	});

	test.each([
		['zero', '={{ 0 }}'],
		['eleven', '={{ 11 }}'],
		['a fraction', '={{ 2.5 }}'],
	])('Max Attempts out of range (%s) is refused', async (_name, value) => {
		const result = await runAttack(service, [
			adNode({ resource: 'account', operation: 'getAll', requestOptions: { maxAttempts: value } }),
		]);
		expectFieldError(result.error, 'Request Options → Max Attempts');
		expect(apiRequests(service)).toHaveLength(0);
	});

	test.each([...NOT_A_NUMBER, ['negative', '={{ -1 }}'] as [string, string]])(
		'Max Wait When Rate Limited as %s is refused',
		async (_name, value) => {
			const result = await runAttack(service, [
				adNode({
					resource: 'account',
					operation: 'getAll',
					requestOptions: { rateLimitWaitMinutes: value },
				}),
			]);
			expectFieldError(result.error, 'Request Options → Max Wait When Rate Limited (Minutes)');
			expect(apiRequests(service)).toHaveLength(0);
		},
	);

	test.each([
		['Poll Interval (Seconds)', { pollIntervalSeconds: '={{ 0/0 }}' }],
		['Timeout (Seconds)', { timeoutSeconds: '={{ "abc" }}' }],
		['Timeout (Seconds)', { timeoutSeconds: '={{ {} }}' }],
		['Request Options → Max Attempts', { requestOptions: { maxAttempts: '={{ "abc" }}' } }],
	])('Wait for Ad Report: %s from an expression is refused', async (field, parameters) => {
		const result = await runAttack(
			service,
			[
				{
					name: 'Wait',
					type: WAIT_NODE,
					parameters: { reportId: '={{ $json.id }}', ...parameters },
				},
			],
			{ items: [{ id: 'rpt_1' }] },
		);
		expectFieldError(result.error, field);
		expect(apiRequests(service)).toHaveLength(0);
	});

	test('Diagnostic → Run: a poll interval of NaN is refused', async () => {
		const result = await runAttack(service, [
			adNode({
				resource: 'diagnostic',
				operation: 'run',
				campaignId: rl(service.fake.campaigns()[0].id),
				options: { pollIntervalSeconds: '={{ 0/0 }}' },
			}),
		]);
		expectFieldError(result.error, 'Options → Poll Interval (Seconds)');
		expect(apiRequests(service)).toHaveLength(0);
	});

	test('the trigger refuses Max Attempts of NaN and sends nothing', async () => {
		const trigger = new ActiveTrigger(
			{ event: 'reportCompleted', requestOptions: { maxAttempts: '={{ 0/0 }}' } },
			service.credentials().adPerformanceApi,
		);
		service.fake.clearLog();
		await expect(trigger.poll()).rejects.toThrow(/^Request Options → Max Attempts: /);
		expect(apiRequests(service)).toHaveLength(0);
	});
});

describe('a write validates every item before the first request', () => {
	const generate = (extra: IDataObject = {}) =>
		adNode(
			{
				resource: 'report',
				operation: 'generate',
				accountId: rl('={{ $json.account }}'),
				title: '={{ $json.title }}',
				dateStart: '={{ $json.from }}',
				dateEnd: '2026-10-07',
			},
			extra,
		);

	function items() {
		const account = service.fake.accounts()[0].platformAccountId;
		return [
			{ account, title: 'First', from: '2026-10-01' },
			{ account, title: 'Second', from: '2026-10-01' },
			{ account, title: 'Third', from: '2026-13-01' },
		];
	}

	test('3 items, the 3rd invalid: no report is created, the error names item 3', async () => {
		const before = service.fake.reports().length;
		const result = await runAttack(service, [generate()], { items: items() });
		expect(result.error?.message).toMatch(/^Start Date: /);
		expect((result.error?.context as IDataObject | undefined)?.itemIndex).toBe(2);
		expect(apiRequests(service, { method: 'POST' })).toHaveLength(0);
		expect(service.fake.reports().length).toBe(before);
	});

	test('with Continue On Fail the valid items are created and the invalid one reports its error', async () => {
		const before = service.fake.reports().length;
		const result = await runAttack(service, [generate({ continueOnFail: true })], {
			items: items(),
		});
		expect(result.items.map((item) => item.json.title ?? item.json.error)).toEqual([
			'First',
			'Second',
			expect.stringMatching(/^Start Date: /),
		]);
		expect(result.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		expect(service.fake.reports().length).toBe(before + 2);
	});

	test('Diagnostic → Run with a bad 2nd campaign starts no diagnostic', async () => {
		const [campaign] = service.fake.campaigns();
		const result = await runAttack(
			service,
			[
				adNode({
					resource: 'diagnostic',
					operation: 'run',
					campaignId: rl('={{ $json.campaign }}'),
					options: { waitForCompletion: false },
				}),
			],
			{ items: [{ campaign: campaign.id }, { campaign: 'camp_../x' }] },
		);
		expect(result.error?.message).toMatch(/^Campaign: /);
		expect(apiRequests(service, { method: 'POST' })).toHaveLength(0);
	});
});
