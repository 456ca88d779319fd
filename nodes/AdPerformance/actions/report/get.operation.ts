import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import {
	accountIdOption,
	collection,
	readReportId,
	reportIdProperty,
} from '../../../shared/descriptions';
import { inputField, readOptional, type InputSource } from '../../../shared/inputSource';
import { findReport } from '../../../shared/reportLedger';
import type { AdPerformanceClient } from '../../../shared/transport';
import { simplifyReport } from '../../../shared/tool/toolResults';
import {
	REPORT_ID_ARGUMENT,
	singleRecordTool,
	type OperationTool,
} from '../../../shared/tool/operationTool';

export const properties: INodeProperties[] = [
	reportIdProperty('ID of the report, as returned by Generate'),
	collection(
		'options',
		'Options',
		'Add option',
		[
			accountIdOption('Ad account of the report'),
			{
				displayName: 'Created After',
				name: 'createdAfter',
				type: 'dateTime',
				default: '',
				description: 'A moment before the report was created',
			},
		],
		{
			description: 'The service finds one report by listing; narrowing the search makes it faster',
		},
	),
];

const ACCOUNT = inputField('options.accountId', 'Options → Account ID');
const CREATED_AFTER = inputField('options.createdAfter', 'Options → Created After');

interface ReportLookup {
	reportId: string;
	/** Narrows the listing that finds the report (reportLedger.ts). */
	narrow: { accountId?: string; createdAfter?: string };
}

export function readInput(source: InputSource): ReportLookup {
	const { check } = source;
	return {
		reportId: readReportId(source),
		narrow: {
			accountId: readOptional(source, ACCOUNT, (name, value) => check.id(name, value, 'account')),
			createdAfter: readOptional(source, CREATED_AFTER, (name, value) =>
				check.dateTime(name, value),
			),
		},
	};
}

export async function execute(
	this: IExecuteFunctions,
	client: AdPerformanceClient,
	itemIndex: number,
	{ reportId, narrow }: ReportLookup,
): Promise<INodeExecutionData[]> {
	return [{ json: await findReport(client, reportId, itemIndex, narrow) }];
}

/** A report as text for a model: the Get and Download tools. */
export const reportAsText = singleRecordTool(execute, simplifyReport);

export const tool: OperationTool<ReportLookup> = {
	description:
		'Gets one report by its reportId (rpt_...). Returns id, title, status (pending, generating, completed, failed), format, accountId, dateRange, riskLevel, totalSpend, avgRoas, totalConversions, avgCpa and, once completed, downloadUrl and expiresAt; a failed report has error. A report takes 10 to 20 seconds to generate: to wait for one, use the wait-for-report tool rather than calling this repeatedly.',
	args: [REPORT_ID_ARGUMENT],
	execute: reportAsText,
};
