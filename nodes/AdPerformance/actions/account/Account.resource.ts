import { resourceProperties } from '../common.descriptions';
import * as getAll from './getAll.operation';

export const operations = { getAll };

export const description = resourceProperties(
	'account',
	operations,
	[
		{
			name: 'Get Many',
			value: 'getAll',
			description: 'List the ad accounts connected to the workspace',
			action: 'Get many accounts',
		},
	],
	'getAll',
);
