import { resourceProperties } from '../common.descriptions';
import * as get from './get.operation';
import * as run from './run.operation';

export const operations = { get, run };

export const description = resourceProperties(
	'diagnostic',
	operations,
	{
		get: {
			name: 'Get',
			description: 'Get a diagnostic with its summary, issues and recommendations',
			action: 'Get a diagnostic',
		},
		run: {
			name: 'Run',
			description:
				'Run an AI diagnostic of one campaign: summary, risk-scored issues and up to 3 recommendations',
			action: 'Run a diagnostic',
		},
	},
	'run',
);
