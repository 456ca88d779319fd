import type { IDataObject } from 'n8n-workflow';

/** An error the service reports: the body of an error answer, or a failed report or diagnostic. */
export interface ServiceErrorBody {
	error?: { type?: string; message?: string };
}

/** Records of the service (docs/service-notes.md, Records). Unknown fields pass through. */
export interface ServiceReport extends IDataObject, ServiceErrorBody {
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

export interface ServiceDiagnostic extends IDataObject, ServiceErrorBody {
	id: string;
	campaignId?: string;
	status?: string;
}

export interface Pagination {
	total?: number;
	page?: number;
	page_size?: number;
	hasMore?: boolean;
}

export interface SingleEnvelope<T> {
	data: T;
	meta?: { remaining_requests?: number };
}

export interface ListEnvelope<T> extends SingleEnvelope<T[]> {
	pagination?: Pagination;
}

export type HttpMethod = 'GET' | 'POST';

/** Whether a report or diagnostic is done (completed or failed): any other status may change. */
export function isFinished(job: { status?: string }): boolean {
	return job.status === 'completed' || job.status === 'failed';
}

/** A choice's values, and its options for the editor (each value with the name shown for it). */
function choice<V extends string>(names: Record<V, string>) {
	const values = Object.keys(names) as V[];
	return { values, options: values.map((value) => ({ name: names[value], value })) };
}

export const { values: REPORT_STATUSES, options: REPORT_STATUS_OPTIONS } = choice({
	completed: 'Completed',
	failed: 'Failed',
	generating: 'Generating',
	pending: 'Pending',
});
export const { values: REPORT_FORMATS, options: REPORT_FORMAT_OPTIONS } = choice({
	json: 'JSON',
	markdown: 'Markdown',
	pdf: 'PDF',
});
export const CONNECTION_STATUSES = ['active', 'disconnected', 'token_expired'] as const;
export const CAMPAIGN_STATUSES = ['ACTIVE', 'PAUSED', 'ARCHIVED', 'DELETED'] as const;
