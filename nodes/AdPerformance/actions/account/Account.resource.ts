import { resourceProperties } from '../common.descriptions';
import * as getAll from './getAll.operation';

export const operations = { getAll };

export const description = resourceProperties(
	'account',
	operations,
	{
		getAll: {
			name: 'Get Many',
			description: 'List the ad accounts connected to the workspace',
			action: 'Get many accounts',
		},
	},
	'getAll',
);
