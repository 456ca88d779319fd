import type { INodeProperties } from 'n8n-workflow';

import { read, inputField, type InputSource } from '../../../shared/inputSource';
import { getRecordById } from '../listRecords';
import { simplifyDiagnostic } from '../../../shared/tool/toolResults';
import { singleRecordTool, type OperationTool } from '../../../shared/tool/operationTool';

export const properties: INodeProperties[] = [
	{
		displayName: 'Diagnostic ID',
		name: 'diagnosticId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'diag_…',
		description: 'ID of the diagnostic, as returned by Run',
	},
];

const DIAGNOSTIC_ID = inputField('diagnosticId', 'Diagnostic ID', 'diagnosticId');

export function readInput(source: InputSource): string {
	return read(source, DIAGNOSTIC_ID, (name, value) => source.check.id(name, value, 'diagnostic'));
}

export const execute = getRecordById('diagnostic');

export const tool: OperationTool<string> = {
	description:
		'Gets a campaign diagnostic by its diagnosticId (diag_..., as the run-diagnostic tool returned it). Returns id, campaignId, status (running, completed, failed) and, once completed, summary (plain language), riskScore, up to 5 issues (title, severity) and up to 3 recommendations (priority, title, description); issuesOmitted and recommendationsOmitted count the rest. A diagnostic takes about 5 to 10 seconds; read-only, safe to call again.',
	args: [
		{
			key: 'diagnosticId',
			parameter: 'diagnosticId',
			displayName: 'Diagnostic ID',
			type: 'string',
			description: 'The diagnostic id, diag_ followed by letters and digits',
		},
	],
	execute: singleRecordTool(execute, simplifyDiagnostic),
};
