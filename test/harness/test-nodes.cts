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
