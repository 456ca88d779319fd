import vm from 'node:vm';

import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
} from 'n8n-workflow';

/** The start node of every harness workflow; behaves like n8n's Manual Trigger. */
export class ManualTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'When clicking ‘Execute workflow’',
		name: 'manualTrigger',
		group: ['trigger'],
		version: 1,
		description: 'Runs the flow on clicking a button in n8n',
		defaults: { name: 'Manual Trigger' },
		inputs: [],
		outputs: ['main'],
		properties: [],
	};

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		const manualTriggerFunction = async () => {
			this.emit([this.helpers.returnJsonArray([{}])]);
		};
		return { manualTriggerFunction };
	}
}

/** Emits the items given in its `items` parameter (JSON), to feed ids into our nodes. */
export class SetItems implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Set Items',
		name: 'setItems',
		group: ['transform'],
		version: 1,
		description: 'Outputs fixed items',
		defaults: { name: 'Set Items' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [{ displayName: 'Items', name: 'items', type: 'json', default: '[]' }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const raw = this.getNodeParameter('items', 0) as string | object[];
		const items = typeof raw === 'string' ? (JSON.parse(raw) as object[]) : raw;
		return [items.map((json) => ({ json: json as never, pairedItem: { item: 0 } }))];
	}
}

/**
 * A downstream consumer of binary data, reading it the way n8n's own nodes do
 * (Read/Write Files from Disk, Extract From File, Send Email): through
 * `helpers.getBinaryDataBuffer`, never from `binary.data` directly.
 */
export class BinaryInspector implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Binary Inspector',
		name: 'binaryInspector',
		group: ['transform'],
		version: 1,
		description: 'Reads binary data like a following n8n node',
		defaults: { name: 'Binary Inspector' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [
			{ displayName: 'Property', name: 'binaryPropertyName', type: 'string', default: 'data' },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			const property = this.getNodeParameter('binaryPropertyName', i) as string;
			const meta = this.helpers.assertBinaryData(i, property);
			const buffer = await this.helpers.getBinaryDataBuffer(i, property);
			out.push({
				json: {
					fileName: meta.fileName,
					mimeType: meta.mimeType,
					fileExtension: meta.fileExtension,
					byteLength: buffer.length,
					base64: buffer.toString('base64'),
				},
				pairedItem: { item: i },
			});
		}
		return [out];
	}
}

/**
 * The assignments of n8n's Set node (Edit Fields, "Manual Mapping"), each value read through
 * n8n's expression engine for its item as the Set node reads it; with `includeOtherFields` the
 * input's fields are kept. Lets a test evaluate an example's expressions (its Set nodes, an
 * e-mail body) with the engine n8n runs them with.
 */
export class Assignments implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Assignments',
		name: 'assignments',
		group: ['transform'],
		version: 1,
		description: "Sets fields as n8n's Set node does",
		defaults: { name: 'Assignments' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [
			{ displayName: 'Assignments', name: 'assignments', type: 'json', default: {} },
			{
				displayName: 'Include Other Fields',
				name: 'includeOtherFields',
				type: 'boolean',
				default: false,
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		return [
			items.map((item, i) => {
				const { assignments } = this.getNodeParameter('assignments', i) as {
					assignments: Array<{ name: string; value: unknown }>;
				};
				const keep = this.getNodeParameter('includeOtherFields', i) as boolean;
				const json = keep ? { ...item.json } : {};
				for (const a of assignments) json[a.name] = a.value as never;
				return { json, pairedItem: { item: i } };
			}),
		];
	}
}

/**
 * n8n's Code node (JavaScript), as its task runner runs it: the code is the body of an async
 * function evaluated in a fresh `vm` context holding the node's workflow data proxy (`$`, `$input`,
 * `$json`, `DateTime`, …, what n8n puts there), once for all items or once per item, and what it
 * returns is read back as items the way n8n does (an object with `json`, or a plain object).
 */
export class Code implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Code',
		name: 'code',
		group: ['transform'],
		version: 2,
		description: "Runs JavaScript as n8n's Code node does",
		defaults: { name: 'Code' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [
			{ displayName: 'Mode', name: 'mode', type: 'string', default: 'runOnceForAllItems' },
			{ displayName: 'JavaScript', name: 'jsCode', type: 'string', default: '' },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const code = this.getNodeParameter('jsCode', 0) as string;
		const mode = this.getNodeParameter('mode', 0) as string;
		const run = async (index: number, extra: Record<string, unknown>) => {
			const proxy = this.getWorkflowDataProxy(index) as unknown as Record<string, unknown>;
			const context: Record<string, unknown> = { module: {}, console, ...extra };
			for (const key of Object.keys(proxy)) context[key] = proxy[key];
			vm.createContext(context);
			vm.runInContext(
				`globalThis.global = globalThis; module.exports = async function VmCodeWrapper() {${code}\n}()`,
				context,
			);
			return await (context.module as { exports: Promise<unknown> }).exports;
		};
		const asItem = (value: unknown, item: number): INodeExecutionData => {
			if (value === null || typeof value !== 'object' || Array.isArray(value))
				throw new Error(`Code doesn't return an object (item ${item})`);
			const out = value as INodeExecutionData;
			return 'json' in out
				? { json: out.json, binary: out.binary, pairedItem: out.pairedItem ?? { item } }
				: { json: out as never, pairedItem: { item } };
		};
		const items = this.getInputData();
		if (mode === 'runOnceForEachItem') {
			const out: INodeExecutionData[] = [];
			for (let i = 0; i < items.length; i++) {
				const value = await run(i, { item: items[i] });
				if (value !== undefined && value !== null) out.push(asItem(value, i));
			}
			return [out];
		}
		const value = await run(0, { items });
		if (value === undefined || value === null) return [[]];
		if (!Array.isArray(value)) return [[asItem(value, 0)]];
		return [value.map((v, i) => asItem(v, Math.min(i, Math.max(0, items.length - 1))))];
	}
}
