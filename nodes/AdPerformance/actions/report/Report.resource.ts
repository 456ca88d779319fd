import { resourceProperties } from '../common.descriptions';
import * as download from './download.operation';
import * as generate from './generate.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';

export const operations = { download, generate, get, getAll };

export const description = resourceProperties(
	'report',
	operations,
	{
		download: {
			name: 'Download',
			description: 'Download the file of a completed report',
			action: 'Download a report',
		},
		generate: {
			name: 'Generate',
			description:
				'Generate an AI performance report (takes 10–20 seconds): turn on Wait for Completion to output the finished report and its file, or follow with Wait for Ad Report',
			action: 'Generate a report',
		},
		get: {
			name: 'Get',
			description: 'Get one report with its status and summary',
			action: 'Get a report',
		},
		getAll: {
			name: 'Get Many',
			description: 'List reports',
			action: 'Get many reports',
		},
	},
	'generate',
);
