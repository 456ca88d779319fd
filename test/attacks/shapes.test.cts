/**
 * Attack: records of shapes our code does not expect. Keys and ids from the service are data,
 * never prototype keys: an own `__proto__` key in a record stays an own key, the item keeps
 * the plain prototype, and the next node sees nothing inherited. A record nested deeper than
 * the documented limit is a protocol error naming the endpoint, never a run n8n cannot save.
 * A field of another type than documented never crashes a lookup or narrows a search to
 * nothing.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { MAX_ANSWER_DEPTH } from '../../nodes/shared/transport/envelope';
import { registerNodeType } from '../harness/run-workflow.cjs';
import { ActiveTrigger, ids } from '../nodes/AdPerformanceTrigger/poll-harness.cjs';
import { adNode, apiRequests, WAIT_NODE } from '../nodes/helpers.cjs';
import { editListedReports, runAttack, useHostileService } from './helpers.cjs';
import { nestedJson, spliceIntoFirstRecord } from './raw-answers.cjs';

/**
 * The next node of a workflow, reading its input the way a Code node's `$json` does: it
 * reports what it sees through the prototype chain of each item and of one nested object.
 */
class PrototypeProbe implements INodeType {
	description = {
		displayName: 'Prototype Probe',
		name: 'prototypeProbe',
		group: ['transform'],
		version: 1,
		description: 'Reports what the input items inherit',
		defaults: { name: 'Prototype Probe' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [],
	} as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const seen = (value: unknown) => {
			const object = (value ?? {}) as IDataObject;
			return {
				plainPrototype: Object.getPrototypeOf(object) === Object.prototype,
				polluted: (object as { polluted?: unknown }).polluted ?? null,
				hasOwnProtoKey: Object.prototype.hasOwnProperty.call(object, '__proto__'),
			};
		};
		return [
			this.getInputData().map((item, index) => ({
				json: { item: seen(item.json), nested: seen(item.json.nested) },
				pairedItem: { item: index },
			})),
		];
	}
}
const PROBE = 'test.prototypeProbe';
registerNodeType(PROBE, () => new PrototypeProbe());
const probe = { name: 'Probe', type: PROBE, parameters: {} };

const service = useHostileService();

const SAFE = { plainPrototype: true, polluted: null, hasOwnProtoKey: true };
const PROTO_FIELDS =
	'"__proto__":{"polluted":"from the service","connectionStatus":"inherited"},' +
	'"nested":{"__proto__":{"polluted":"from the service"},"kept":1}';

const listAccounts = (maxAttempts = 1) =>
	adNode({
		resource: 'account',
		operation: 'getAll',
		returnAll: true,
		requestOptions: { maxAttempts },
	});
const waitNode = (parameters: IDataObject = {}) => ({
	name: 'Wait for Ad Report',
	type: WAIT_NODE,
	parameters: { pollIntervalSeconds: 0.1, timeoutSeconds: 10, download: false, ...parameters },
});

/** Gives the listed report an own `__proto__` field, as JSON.parse makes one. */
function ownProto(record: IDataObject, value: IDataObject) {
	Object.defineProperty(record, '__proto__', { value, enumerable: true, writable: true });
}

describe('a __proto__ key in a record', () => {
	test('Account → Get Many: the item keeps the plain prototype; the next node inherits nothing', async () => {
		spliceIntoFirstRecord(service, '/v1/accounts', PROTO_FIELDS);
		const result = await runAttack(service, [listAccounts(), probe]);
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toEqual({ item: SAFE, nested: SAFE });

		const account = result.nodes['Ad Performance'].items[0].json;
		expect(account.connectionStatus).not.toBe('inherited');
		expect((account.nested as IDataObject).kept).toBe(1);
		// Saved as it came: a field named __proto__, not a prototype.
		expect(JSON.stringify(account)).toContain(
			'"__proto__":{"polluted":"from the service","connectionStatus":"inherited"}',
		);
		expect(({} as IDataObject).polluted).toBeUndefined();
	});

	test('Wait for Ad Report: the item keeps the plain prototype', async () => {
		const [report] = service.fake.addReports(1, { status: 'completed' });
		editListedReports(service, (record) => {
			if (record.id !== report.id) return;
			ownProto(record, { polluted: 'from the service', status: 'inherited' });
			record.nested = { kept: 1 };
			ownProto(record.nested as IDataObject, { polluted: 'from the service' });
		});
		const result = await runAttack(service, [waitNode(), probe], { items: [{ id: report.id }] });
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toEqual({ item: SAFE, nested: SAFE });
		expect(result.nodes['Wait for Ad Report'].items[0].json.status).toBe('completed');
	});

	test('the trigger: the emitted item keeps the plain prototype', async () => {
		const trigger = new ActiveTrigger(
			{ event: 'reportCompleted' },
			service.credentials().adPerformanceApi,
		);
		await trigger.poll();
		const [report] = service.fake.addReports(1, { status: 'completed' });
		editListedReports(service, (record) => {
			if (record.id === report.id) ownProto(record, { polluted: 'from the service' });
		});
		const polled = await trigger.poll();
		expect(ids(polled.items)).toEqual([report.id]);
		const json = polled.items![0].json;
		expect(Object.getPrototypeOf(json)).toBe(Object.prototype);
		expect((json as { polluted?: unknown }).polluted).toBeUndefined();
	});
});

describe('a record nested deeper than the documented limit', () => {
	test.each([
		['Wait for Ad Report', () => waitNode({ requestOptions: { maxAttempts: 2 } })],
		[
			'Report → Get Many',
			() =>
				adNode({
					resource: 'report',
					operation: 'getAll',
					returnAll: true,
					requestOptions: { maxAttempts: 2 },
				}),
		],
	])(
		'%s: a protocol error naming GET /v1/reports, after the reads are retried',
		async (_name, node) => {
			const [report] = service.fake.addReports(1, { status: 'completed' });
			spliceIntoFirstRecord(service, '/v1/reports', `"deep":${nestedJson(100_000, 1)}`);
			const result = await runAttack(service, [node()], { items: [{ id: report.id }] });
			expect(result.error?.message).toBe(
				`The service sent an answer that is not in its documented format (GET /v1/reports): the answer was nested deeper than ${MAX_ANSWER_DEPTH} levels`,
			);
			expect(
				apiRequests(service, { pathPrefix: '/v1/reports' }).filter((r) => r.path === '/v1/reports'),
			).toHaveLength(2);
			expect(() => JSON.stringify(result.run.data)).not.toThrow();
		},
	);

	test('the trigger: the poll fails naming the endpoint, its stored state unchanged', async () => {
		const trigger = new ActiveTrigger(
			{ event: 'reportCompleted', requestOptions: { maxAttempts: 1 } },
			service.credentials().adPerformanceApi,
		);
		await trigger.poll();
		const before = trigger.staticData;
		service.fake.addReports(1, { status: 'completed' });
		spliceIntoFirstRecord(service, '/v1/reports', `"deep":${nestedJson(10_000, 1)}`);
		await expect(trigger.poll()).rejects.toThrow(/GET \/v1\/reports.*nested deeper than 64 levels/);
		expect(trigger.staticData).toEqual(before);
	});
});

describe('fields of other types than documented', () => {
	test('Wait for Ad Report: a report whose accountId and createdAt are no texts is still found', async () => {
		// A generating report first, so the node looks again with what it learnt from the list.
		const [report] = service.fake.addReports(1, { status: 'generating' });
		let listings = 0;
		editListedReports(service, (record) => {
			if (record.id !== report.id) return;
			record.accountId = { nested: 'act_1' };
			record.createdAt = 12345;
			if (++listings < 3) record.status = 'generating';
			else record.status = 'completed';
		});
		const result = await runAttack(service, [waitNode()], { items: [{ id: report.id }] });
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({ id: report.id, status: 'completed' });
		const lists = apiRequests(service, { pathPrefix: '/v1/reports' });
		expect(lists.length).toBeGreaterThanOrEqual(3);
		for (const list of lists) {
			// Narrowed by nothing it could not have meant: no year-12345 `from`, no object.
			expect(list.query.from).toBeUndefined();
			expect(Object.keys(list.query).filter((name) => name.startsWith('accountId'))).toEqual([]);
		}
	});
});
