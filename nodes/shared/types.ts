import type { IDataObject } from 'n8n-workflow';

/** Records of the Ad Performance service (docs/service-notes.md, Records). Unknown fields pass through. */
export interface ServiceReport extends IDataObject {
	id: string;
	title?: string;
	accountId?: string;
	campaignIds?: string[];
	status?: string;
	format?: string;
	dateRange?: { from: string; to: string };
	summary?: IDataObject;
	downloadUrl?: string;
	expiresAt?: string;
	createdAt?: string;
	completedAt?: string;
	estimatedCompletionSeconds?: number;
	error?: { type?: string; message?: string };
}

export interface ServiceAccount extends IDataObject {
	id: string;
	platformAccountId?: string;
	name?: string;
	connectionStatus?: string;
}

export interface ServiceCampaign extends IDataObject {
	id: string;
	name?: string;
	accountId?: string;
	status?: string;
}

export interface ServiceDiagnostic extends IDataObject {
	id: string;
	campaignId?: string;
	status?: string;
	error?: { type?: string; message?: string };
}

export interface Pagination {
	total?: number;
	page?: number;
	page_size?: number;
	hasMore?: boolean;
}

export interface ListEnvelope<T> {
	data: T[];
	pagination?: Pagination;
	meta?: { remaining_requests?: number };
}

export interface SingleEnvelope<T> {
	data: T;
	meta?: { remaining_requests?: number };
}

export interface ServiceErrorBody {
	error?: { type?: string; message?: string };
}

export type HttpMethod = 'GET' | 'POST';

/** Report statuses, with the names the editor shows for them. */
const REPORT_STATUS_NAMES = {
	completed: 'Completed',
	failed: 'Failed',
	generating: 'Generating',
	pending: 'Pending',
} as const;
export const REPORT_STATUSES = Object.keys(REPORT_STATUS_NAMES) as Array<
	keyof typeof REPORT_STATUS_NAMES
>;
export const REPORT_STATUS_OPTIONS = optionsOf(REPORT_STATUS_NAMES);

/** Whether a report or diagnostic is done (completed or failed): any other status may change. */
export function isFinished(job: { status?: string }): boolean {
	return job.status === 'completed' || job.status === 'failed';
}
/** Report file formats, with the names the editor shows for them. */
const REPORT_FORMAT_NAMES = { json: 'JSON', markdown: 'Markdown', pdf: 'PDF' } as const;
export const REPORT_FORMATS = Object.keys(REPORT_FORMAT_NAMES) as Array<
	keyof typeof REPORT_FORMAT_NAMES
>;
export const REPORT_FORMAT_OPTIONS = optionsOf(REPORT_FORMAT_NAMES);

/** The options of a node property, in the order of the names given. */
function optionsOf(names: Record<string, string>): Array<{ name: string; value: string }> {
	return Object.entries(names).map(([value, name]) => ({ name, value }));
}
export const CONNECTION_STATUSES = ['active', 'disconnected', 'token_expired'] as const;
export const CAMPAIGN_STATUSES = ['ACTIVE', 'PAUSED', 'ARCHIVED', 'DELETED'] as const;
