import type { IDataObject } from 'n8n-workflow';

/** Records of the Ad Performance service (spec §2, open-points A2/A9). Unknown fields pass through. */
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

/** The rate-limit buckets of spec §8; a request counts against one or more of them. */
export type Bucket = 'read' | 'write' | 'generation' | 'diagnostic';

export type HttpMethod = 'GET' | 'POST';

export const REPORT_STATUSES = ['pending', 'generating', 'completed', 'failed'] as const;
export const REPORT_FORMATS = ['json', 'pdf', 'markdown'] as const;
export const CONNECTION_STATUSES = ['active', 'disconnected', 'token_expired'] as const;
export const CAMPAIGN_STATUSES = ['ACTIVE', 'PAUSED', 'ARCHIVED', 'DELETED'] as const;
