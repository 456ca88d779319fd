/**
 * Public record types of the fake Ad Performance Reporting Service, as the service answers them
 * (docs/service-notes.md, Records). Optional fields are ABSENT (never null) until
 * the record reaches the state that populates them.
 */

export type ConnectionStatus = 'active' | 'disconnected' | 'token_expired';
export type PlatformAccountStatus = 'active' | 'disabled' | 'closed';
export type CampaignStatus = 'ACTIVE' | 'PAUSED' | 'ARCHIVED' | 'DELETED';
export type CampaignObjective =
	| 'OUTCOME_SALES'
	| 'OUTCOME_LEADS'
	| 'OUTCOME_TRAFFIC'
	| 'OUTCOME_AWARENESS'
	| 'OUTCOME_ENGAGEMENT'
	| 'OUTCOME_APP_PROMOTION';
export type ReportStatus = 'pending' | 'generating' | 'completed' | 'failed';
export type ReportFormat = 'json' | 'pdf' | 'markdown';
export type RiskLevel = 'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL';
export type DiagnosticStatus = 'running' | 'completed' | 'failed';

export const CONNECTION_STATUSES: readonly ConnectionStatus[] = [
	'active',
	'disconnected',
	'token_expired',
];
export const CAMPAIGN_STATUSES: readonly CampaignStatus[] = [
	'ACTIVE',
	'PAUSED',
	'ARCHIVED',
	'DELETED',
];
export const CAMPAIGN_OBJECTIVES: readonly CampaignObjective[] = [
	'OUTCOME_SALES',
	'OUTCOME_LEADS',
	'OUTCOME_TRAFFIC',
	'OUTCOME_AWARENESS',
	'OUTCOME_ENGAGEMENT',
	'OUTCOME_APP_PROMOTION',
];
export const REPORT_STATUSES: readonly ReportStatus[] = [
	'pending',
	'generating',
	'completed',
	'failed',
];
export const REPORT_FORMATS: readonly ReportFormat[] = ['json', 'pdf', 'markdown'];
export const RISK_LEVELS: readonly RiskLevel[] = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'];

export interface ErrorInfo {
	type: string;
	message: string;
}

/** An ad account. */
export interface Account {
	id: string; // act_ + 10 lowercase letters/digits (at least one letter)
	platformAccountId: string; // act_ + 15 digits
	name: string;
	currency: string;
	timezone: string;
	status: PlatformAccountStatus;
	connectionStatus: ConnectionStatus;
	businessName: string;
	businessId: string;
	permissions: string[];
	lastSyncedAt?: string; // absent while the initial sync is still running
	campaignCount: number;
	activeCampaignCount: number;
	totalSpendLast30d: number;
	connectedAt: string;
	connectedBy: string;
}

/** A campaign. */
export interface Campaign {
	id: string; // camp_ + 12
	platformCampaignId: string;
	name: string;
	status: CampaignStatus;
	objective: CampaignObjective;
	dailyBudget: number;
	currency: string;
	createdAt: string;
	accountId: string; // the SERVICE account id (act_ + 10 alnum)
}

export interface ReportSummary {
	totalSpend: number;
	totalConversions: number;
	avgCpa: number;
	avgRoas: number;
	overallRiskLevel: RiskLevel;
}

/** A report, with the error of a failed one. */
export interface Report {
	id: string; // rpt_ + 16
	title: string;
	campaignIds: string[];
	accountId: string; // the AD PLATFORM account id (act_ + digits) sent as account_id
	status: ReportStatus;
	format: ReportFormat;
	dateRange: { from: string; to: string };
	summary?: ReportSummary; // completed only
	downloadUrl?: string; // completed only
	expiresAt?: string; // completed only
	createdAt: string;
	completedAt?: string; // completed only
	error?: ErrorInfo; // failed only
}

export interface DiagnosticIssue {
	title: string;
	description: string;
	riskScore: number;
	severity: RiskLevel;
}

export interface DiagnosticRecommendation {
	priority: number;
	title: string;
	description: string;
}

/** A diagnostic (assumed shape). */
export interface Diagnostic {
	id: string; // diag_ + 12
	campaignId: string;
	status: DiagnosticStatus;
	summary?: string; // completed only
	riskScore?: number; // completed only
	issues?: DiagnosticIssue[]; // completed only
	recommendations?: DiagnosticRecommendation[]; // completed only
	createdAt: string;
	completedAt?: string; // completed only
	error?: ErrorInfo; // failed only
}
