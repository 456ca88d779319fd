import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../common.descriptions';
import * as getAll from './getAll.operation';

export const operations = { getAll };

export const description: INodeProperties[] = [
	operationSelector(
		'account',
		[
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List the ad accounts connected to the workspace',
				action: 'Get many accounts',
			},
		],
		'getAll',
	),
	...getAll.description,
];
