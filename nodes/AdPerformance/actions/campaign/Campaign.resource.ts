import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';
import * as getAll from './getAll.operation';

export { get, getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['campaign'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description: 'Get one campaign by ID',
				action: 'Get a campaign',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List the campaigns of the workspace',
				action: 'Get many campaigns',
			},
		],
		default: 'getAll',
	},
	...get.description,
	...getAll.description,
];
