import { resourceProperties } from '../common.descriptions';
import * as get from './get.operation';
import * as getAll from './getAll.operation';

export const operations = { get, getAll };

export const description = resourceProperties(
	'campaign',
	operations,
	{
		get: {
			name: 'Get',
			description: 'Get one campaign by ID',
			action: 'Get a campaign',
		},
		getAll: {
			name: 'Get Many',
			description: 'List the campaigns of the workspace',
			action: 'Get many campaigns',
		},
	},
	'getAll',
);
