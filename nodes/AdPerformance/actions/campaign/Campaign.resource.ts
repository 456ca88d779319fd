import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../common.descriptions';
import * as get from './get.operation';
import * as getAll from './getAll.operation';

export const operations = { get, getAll };

export const description: INodeProperties[] = [
	operationSelector(
		'campaign',
		[
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
		'getAll',
	),
	...get.description,
	...getAll.description,
];
