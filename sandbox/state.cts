/**
 * In-memory state of the fake service: workspaces, keys, records and their lazily evaluated
 * statuses. Every duration of service time is multiplied by timeScale; statuses are computed from
 * stored timestamps and the clock, so no timers exist per report or diagnostic.
 */
import { createHmac } from 'node:crypto';
import type { ReportAnalysis } from './files.cjs';
import { Rng, round2 } from './rng.cjs';
import {
	CAMPAIGN_OBJECTIVES,
	type Account,
	type Campaign,
	type CampaignObjective,
	type CampaignStatus,
	type ConnectionStatus,
	type Diagnostic,
	type DiagnosticIssue,
	type DiagnosticRecommendation,
	type ErrorInfo,
	type PlatformAccountStatus,
	type Report,
	type ReportFormat,
	type ReportStatus,
	type ReportSummary,
	type RiskLevel,
} from './types.cjs';

export type WorkspaceId = 'A' | 'B' | 'C' | 'D';

export interface Workspace {
	id: WorkspaceId;
	apiAccess: boolean; // Agency plan
	whiteLabel: boolean;
}

export interface Keys {
	live: string;
	test: string;
	revoked: string;
	nonAgency: string;
	otherWorkspace: string;
	noWhiteLabel: string;
}

export interface KeyInfo {
	workspace: WorkspaceId;
	revoked: boolean;
}

export interface WhiteLabel {
	companyName?: string;
	logoUrl?: string;
	primaryColor?: string;
}

export interface AccountRec {
	ws: WorkspaceId;
	id: string;
	platformAccountId: string;
	name: string;
	currency: string;
	timezone: string;
	status: PlatformAccountStatus;
	connectionStatus: ConnectionStatus;
	businessName: string;
	businessId: string;
	permissions: string[];
	lastSyncedAt: number; // shown only once <= now (initial sync done)
	connectedAt: number;
	connectedBy: string;
}

export interface CampaignRec {
	ws: WorkspaceId;
	id: string;
	platformCampaignId: string;
	name: string;
	status: CampaignStatus;
	objective: CampaignObjective;
	dailyBudget: number;
	currency: string;
	createdAt: number;
	accountId: string; // service account id
	syncedAt: number; // data synced once <= now
	spend30d: number;
}

export interface ReportRec {
	ws: WorkspaceId;
	id: string;
	title: string;
	accountId: string; // platform account id
	serviceAccountId: string;
	campaignIds: string[];
	format: ReportFormat;
	from: string;
	to: string;
	createdAt: number;
	pendingUntil: number;
	completeAt: number;
	failure: ErrorInfo | null;
	summary: ReportSummary;
	analysis: ReportAnalysis;
	expiresAtOverride: number | null;
	whiteLabel?: WhiteLabel;
	padTo?: number;
	/** With padTo: the file is padded with noise from this offset (files.cts, FileContext). */
	padNoise?: number;
}

/** What size the file of each new report (POST /v1/reports) gets: see FakeState.setNewReportSizes. */
export interface NewReportSizes {
	/** Smallest file, bytes. */
	minBytes: number;
	/** Largest file, bytes (drawn uniformly in [minBytes, maxBytes]). */
	maxBytes: number;
	/** Seed of the draws (their own generator: the service's other draws stay as they were). */
	seed?: number;
	/** PDFs padded with 'noise' (incompressible, default) or 'spaces'. */
	fill?: 'noise' | 'spaces';
}

export interface DiagnosticRec {
	ws: WorkspaceId;
	id: string;
	campaignId: string;
	createdAt: number;
	completeAt: number;
	failure: ErrorInfo | null;
	summary: string;
	riskScore: number;
	issues: DiagnosticIssue[];
	recommendations: DiagnosticRecommendation[];
}

const SEC = 1000;
const DAY = 86400 * SEC;

const CAMPAIGN_TEMPLATES: Array<[string, CampaignObjective]> = [
	['Spring Sale', 'OUTCOME_SALES'],
	['Prospecting - Lookalike 1%', 'OUTCOME_SALES'],
	['Retargeting - Cart Abandoners', 'OUTCOME_SALES'],
	['Brand Awareness', 'OUTCOME_AWARENESS'],
	['Lead Gen - Free Consultation', 'OUTCOME_LEADS'],
	['App Installs', 'OUTCOME_APP_PROMOTION'],
	['Holiday Promo', 'OUTCOME_SALES'],
	['Video Views', 'OUTCOME_ENGAGEMENT'],
	['Engagement Boost', 'OUTCOME_ENGAGEMENT'],
	['Catalog Sales', 'OUTCOME_SALES'],
	['Always-On Traffic', 'OUTCOME_TRAFFIC'],
	['New Collection Launch', 'OUTCOME_AWARENESS'],
	['Local Reach', 'OUTCOME_AWARENESS'],
	['Webinar Signups', 'OUTCOME_LEADS'],
	['Black Friday', 'OUTCOME_SALES'],
	['Summer Clearance', 'OUTCOME_SALES'],
	['Blog Traffic', 'OUTCOME_TRAFFIC'],
	['Newsletter Leads', 'OUTCOME_LEADS'],
];

const ISSUE_TEMPLATES: Array<[string, string]> = [
	[
		'Creative fatigue',
		'Frequency has risen above 4 while click-through rate fell by a third over the last 14 days.',
	],
	[
		'Rising cost per acquisition',
		'Cost per acquisition grew faster than spend; the audience is saturating.',
	],
	[
		'Budget pacing',
		'The campaign spends most of its daily budget before noon and misses evening demand.',
	],
	['Narrow audience', 'The audience is small for the budget, which drives up CPM.'],
	[
		'Learning phase resets',
		'Frequent edits have restarted the learning phase several times this month.',
	],
	[
		'Weak landing page conversion',
		'Clicks are healthy but few visitors convert on the landing page.',
	],
];

const RECOMMENDATION_TEMPLATES: Array<[string, string]> = [
	[
		'Refresh creatives',
		'Introduce two or three new ad variations and pause the weakest performers.',
	],
	[
		'Broaden the audience',
		'Widen the lookalike percentage or add interest expansions to lower CPM.',
	],
	[
		'Adjust the bid strategy',
		'Switch to a cost cap near the target CPA to stabilise acquisition cost.',
	],
	['Reallocate budget', 'Move budget from low-ROAS ad sets to the best performers.'],
	['Reduce edits', 'Batch changes weekly so the campaign can exit the learning phase.'],
];

function riskFromScore(score: number): RiskLevel {
	if (score >= 75) return 'CRITICAL';
	if (score >= 50) return 'HIGH';
	if (score >= 25) return 'MEDIUM';
	return 'LOW';
}

function riskFromRoas(roas: number): RiskLevel {
	if (roas >= 3) return 'LOW';
	if (roas >= 2) return 'MEDIUM';
	if (roas >= 1) return 'HIGH';
	return 'CRITICAL';
}

export function iso(ms: number): string {
	return new Date(ms).toISOString();
}

function ymd(ms: number): string {
	return iso(ms).slice(0, 10);
}

/**
 * What the reports generated for one account from now on show (PUT /__fake/accounts/:id/reports):
 * figures that replace the drawn ones (a ROAS without a risk level gets the level of that ROAS),
 * a failure, or a generation that takes `generatingMs` (real ms) instead of 10–20 s × timeScale.
 * It holds until it is replaced; an empty object clears it.
 */
export interface AccountReportScript {
	summary?: Partial<ReportSummary>;
	error?: ErrorInfo;
	generatingMs?: number;
}

export interface StateOptions {
	seed: number;
	timeScale: number;
}

export class FakeState {
	readonly rng: Rng;
	readonly timeScale: number;
	readonly startedAt = Date.now();
	readonly workspaces: Record<WorkspaceId, Workspace> = {
		A: { id: 'A', apiAccess: true, whiteLabel: true },
		B: { id: 'B', apiAccess: true, whiteLabel: true },
		C: { id: 'C', apiAccess: false, whiteLabel: false },
		D: { id: 'D', apiAccess: true, whiteLabel: false },
	};
	readonly keys: Keys;
	readonly keyInfo = new Map<string, KeyInfo>();
	private readonly secret: string;
	accounts: AccountRec[] = [];
	campaigns: CampaignRec[] = [];
	reports: ReportRec[] = [];
	diagnostics: DiagnosticRec[] = [];
	private readonly ids = new Set<string>();
	private failReportQueue: ErrorInfo[] = [];
	/** File sizes (bytes) of the next generated reports, in order (POST /__fake/reports/size-next). */
	private nextFileSizes: number[] = [];
	private failDiagnosticCount = 0;
	/** A campaign's next diagnostics score this risk (0-100) instead of a drawn one. */
	private campaignRisk = new Map<string, number>();
	/** By service account id: see AccountReportScript. */
	private readonly reportScripts = new Map<string, AccountReportScript>();
	/** See setNewReportSizes. */
	private newReportSizes:
		| { minBytes: number; maxBytes: number; fill: 'noise' | 'spaces'; rng: Rng }
		| undefined;
	/** Origin that downloadUrl points at; set by the server once it listens. */
	downloadOrigin = 'http://127.0.0.1';

	constructor(opts: StateOptions) {
		this.rng = new Rng(opts.seed);
		this.timeScale = opts.timeScale;
		this.keys = {
			live: 'service_live_' + this.rng.mixedAlnum(32),
			test: 'service_test_' + this.rng.mixedAlnum(32),
			revoked: 'service_live_' + this.rng.mixedAlnum(32),
			nonAgency: 'service_live_' + this.rng.mixedAlnum(32),
			otherWorkspace: 'service_live_' + this.rng.mixedAlnum(32),
			noWhiteLabel: 'service_live_' + this.rng.mixedAlnum(32),
		};
		this.keyInfo.set(this.keys.live, { workspace: 'A', revoked: false });
		this.keyInfo.set(this.keys.test, { workspace: 'A', revoked: false });
		this.keyInfo.set(this.keys.revoked, { workspace: 'A', revoked: true });
		this.keyInfo.set(this.keys.nonAgency, { workspace: 'C', revoked: false });
		this.keyInfo.set(this.keys.otherWorkspace, { workspace: 'B', revoked: false });
		this.keyInfo.set(this.keys.noWhiteLabel, { workspace: 'D', revoked: false });
		this.secret = this.rng.mixedAlnum(40);
	}

	/**
	 * How far the service's clock runs ahead of the host's (negative: behind). Records keep host
	 * times; every time the service shows goes through stamp(), every time it reads through
	 * unstamp().
	 */
	clockOffsetMs = 0;

	/** A host time as the service's clock writes it. */
	stamp(ms: number): string {
		return iso(ms + this.clockOffsetMs);
	}

	/** A time on the service's clock (one it wrote, or a filter a client sent) as host time. */
	unstamp(serviceMs: number): number {
		return serviceMs - this.clockOffsetMs;
	}

	/** A duration of service time in real ms. */
	scaled(serviceMs: number): number {
		return serviceMs * this.timeScale;
	}

	private newId(prefix: string, make: () => string): string {
		for (;;) {
			const id = prefix + make();
			if (!this.ids.has(id)) {
				this.ids.add(id);
				return id;
			}
		}
	}

	private serviceAccountId(): string {
		return this.newId('act_', () => {
			let s = this.rng.alnum(10);
			if (!/[a-z]/.test(s)) s = this.rng.pick([...'abcdefghijklmnopqrstuvwxyz']) + s.slice(1);
			return s;
		});
	}

	// ---------------------------------------------------------------- seed data

	seed(extraCampaigns = 0): void {
		const now = this.startedAt;
		const acme = this.createAccount('A', {
			name: 'Acme Outdoor',
			currency: 'USD',
			timezone: 'America/Denver',
			businessName: 'Acme Outdoor Group LLC',
			connectionStatus: 'active',
			connectedAt: now - 142 * DAY,
			lastSyncedAt: now - 7 * 60 * SEC,
		});
		const bloom = this.createAccount('A', {
			name: 'Bloom Cosmetics',
			currency: 'EUR',
			timezone: 'Europe/Paris',
			businessName: 'Bloom Beauty SAS',
			connectionStatus: 'token_expired',
			connectedAt: now - 96 * DAY,
			lastSyncedAt: now - 3 * DAY,
			permissions: ['read_insights', 'read_campaigns'],
		});
		const cedar = this.createAccount('A', {
			name: 'Cedar Dental',
			currency: 'GBP',
			timezone: 'Europe/London',
			businessName: 'Cedar Dental Partners Ltd',
			connectionStatus: 'disconnected',
			connectedAt: now - 61 * DAY,
			lastSyncedAt: now - 12 * DAY,
		});
		this.addCampaigns(acme, 12 + extraCampaigns, { past: true });
		this.addCampaigns(bloom, 5, { past: true });
		this.addCampaigns(cedar, 3, { past: true });
		const delta = this.createAccount('A', {
			name: 'Delta Fitness',
			currency: 'AUD',
			timezone: 'Australia/Sydney',
			businessName: 'Delta Fitness Pty Ltd',
			connectionStatus: 'active',
			connectedAt: now,
			syncing: true,
		});
		this.addCampaigns(delta, 4, { past: true });

		const mk = (
			acc: AccountRec,
			title: string,
			format: ReportFormat,
			daysAgo: number,
			failed = false,
		): void => {
			const createdAt = now - daysAgo * DAY - this.rng.int(0, 8 * 3600) * SEC;
			this.createReport({
				ws: 'A',
				account: acc,
				title,
				format,
				createdAt,
				from: ymd(createdAt - 31 * DAY),
				to: ymd(createdAt - DAY),
				campaignIds: this.campaignsOf(acc.id).map((c) => c.id),
				durationMs: this.rng.int(10, 20) * SEC,
				pendingMs: 0,
				failure: failed
					? {
							type: 'generation_failed',
							message:
								'Report generation failed: insights data was unavailable for the selected range.',
						}
					: null,
				expiresAt: now + this.scaled(7 * DAY),
			});
		};
		mk(acme, 'Acme Outdoor - Weekly Performance', 'pdf', 2);
		mk(bloom, 'Bloom Cosmetics - Monthly Review', 'pdf', 5);
		mk(acme, 'Acme Outdoor - Retargeting Deep Dive', 'markdown', 9);
		mk(acme, 'Acme Outdoor - Budget Efficiency', 'json', 16);
		mk(bloom, 'Bloom Cosmetics - Q2 Launch Recap', 'markdown', 22, true);
		mk(acme, 'Acme Outdoor - Monthly Client Report', 'pdf', 28);

		const north = this.createAccount('B', {
			name: 'Northwind Apparel',
			currency: 'CAD',
			timezone: 'America/Toronto',
			businessName: 'Northwind Apparel Inc.',
			connectionStatus: 'active',
			connectedAt: now - 80 * DAY,
			lastSyncedAt: now - 15 * 60 * SEC,
		});
		this.addCampaigns(north, 2, { past: true });
		const bCreated = now - 4 * DAY;
		this.createReport({
			ws: 'B',
			account: north,
			title: 'Northwind Apparel - Weekly Performance',
			format: 'pdf',
			createdAt: bCreated,
			from: ymd(bCreated - 31 * DAY),
			to: ymd(bCreated - DAY),
			campaignIds: this.campaignsOf(north.id).map((c) => c.id),
			durationMs: 14 * SEC,
			pendingMs: 0,
			failure: null,
			expiresAt: now + this.scaled(7 * DAY),
		});

		const harbor = this.createAccount('D', {
			name: 'Harbor Coffee Roasters',
			currency: 'USD',
			timezone: 'America/Chicago',
			businessName: 'Harbor Coffee Co.',
			connectionStatus: 'active',
			connectedAt: now - 40 * DAY,
			lastSyncedAt: now - 20 * 60 * SEC,
		});
		this.addCampaigns(harbor, 2, { past: true });
	}

	createAccount(
		ws: WorkspaceId,
		p: Partial<Omit<AccountRec, 'ws'>> & { syncing?: boolean },
	): AccountRec {
		const now = Date.now();
		const connectedAt = p.connectedAt ?? now;
		const syncDone = p.syncing ? now + this.scaled(this.rng.int(30, 60) * SEC) : null;
		const rec: AccountRec = {
			ws,
			id: p.id ?? this.serviceAccountId(),
			platformAccountId: p.platformAccountId ?? this.newId('act_', () => this.rng.digits(15)),
			name:
				p.name ??
				this.rng.pick(['Evergreen Realty', 'Fjord Travel', 'Granite Gym', 'Helio Solar']) +
					' ' +
					this.rng.int(2, 99),
			currency: p.currency ?? 'USD',
			timezone: p.timezone ?? 'America/New_York',
			status: p.status ?? 'active',
			connectionStatus: p.connectionStatus ?? 'active',
			businessName: p.businessName ?? (p.name ? `${p.name} Holdings` : 'Sandbox Business LLC'),
			businessId: p.businessId ?? this.rng.digits(16),
			permissions: p.permissions ?? ['read_insights', 'read_campaigns', 'read_ads'],
			lastSyncedAt: syncDone ?? p.lastSyncedAt ?? now,
			connectedAt,
			connectedBy: p.connectedBy ?? 'user_' + this.rng.alnum(8),
		};
		this.accounts.push(rec);
		return rec;
	}

	addCampaigns(
		account: AccountRec,
		count: number,
		opts: { past?: boolean; partial?: Partial<Campaign> } = {},
	): CampaignRec[] {
		const now = Date.now();
		const existing = this.campaignsOf(account.id).length;
		const templates = this.rng.shuffle(CAMPAIGN_TEMPLATES);
		const out: CampaignRec[] = [];
		for (let i = 0; i < count; i++) {
			const [tName, tObjective] = templates[(existing + i) % templates.length];
			const round = Math.floor((existing + i) / templates.length);
			const r = this.rng.float();
			let status: CampaignStatus =
				r < 0.55 ? 'ACTIVE' : r < 0.8 ? 'PAUSED' : r < 0.92 ? 'ARCHIVED' : 'DELETED';
			if (existing + i === 0) status = 'ACTIVE';
			const objective = this.rng.float() < 0.8 ? tObjective : this.rng.pick(CAMPAIGN_OBJECTIVES);
			const dailyBudget = p2(this.rng.pick([15, 20, 25, 40, 50, 75, 100, 120, 150, 200, 250, 400]));
			const createdAt = opts.past
				? Math.min(account.connectedAt, now) -
					this.rng.int(1, 365) * DAY +
					this.rng.int(0, 86399) * SEC
				: now + i;
			const spendFactor =
				status === 'ACTIVE'
					? this.rng.range(0.6, 1)
					: status === 'PAUSED'
						? this.rng.range(0, 0.4)
						: 0;
			const p = opts.partial ?? {};
			const rec: CampaignRec = {
				ws: account.ws,
				id: p.id ?? this.newId('camp_', () => this.rng.alnum(12)),
				platformCampaignId:
					p.platformCampaignId ?? this.newId('', () => '1202' + this.rng.digits(14)),
				name: p.name ?? `${account.name} | ${tName}${round ? ` ${round + 1}` : ''}`,
				status: p.status ?? status,
				objective: p.objective ?? objective,
				dailyBudget: p.dailyBudget ?? dailyBudget,
				currency: p.currency ?? account.currency,
				createdAt: p.createdAt ? Date.parse(p.createdAt) : createdAt,
				accountId: account.id,
				syncedAt: Math.max(account.lastSyncedAt <= now ? 0 : account.lastSyncedAt, 0) || now - 1,
				spend30d: round2(dailyBudget * 30 * spendFactor),
			};
			out.push(rec);
			this.campaigns.push(rec);
		}
		return out;
	}

	createReport(a: {
		ws: WorkspaceId;
		account: AccountRec;
		title: string;
		format: ReportFormat;
		createdAt: number;
		from: string;
		to: string;
		campaignIds: string[];
		durationMs: number; // real ms
		pendingMs: number; // real ms
		failure: ErrorInfo | null;
		expiresAt?: number;
		whiteLabel?: WhiteLabel;
	}): ReportRec {
		const camps = a.campaignIds
			.map((id) => this.campaigns.find((c) => c.id === id))
			.filter((c): c is CampaignRec => !!c);
		const days = Math.max(1, (Date.parse(a.to) - Date.parse(a.from)) / DAY);
		const rows = camps.map((c) => {
			const spend = round2(
				(c.spend30d || c.dailyBudget * 3) * (days / 30) * this.rng.range(0.8, 1.2),
			);
			const roas = round2(this.rng.range(0.6, 6));
			const conversions = Math.max(0, Math.round(spend / this.rng.range(8, 60)));
			return {
				campaignId: c.id,
				name: c.name,
				spend,
				conversions,
				cpa: conversions ? round2(spend / conversions) : 0,
				roas,
				riskLevel: riskFromRoas(roas),
			};
		});
		const totalSpend = round2(rows.reduce((n, r) => n + r.spend, 0));
		const totalConversions = rows.reduce((n, r) => n + r.conversions, 0);
		const avgRoas =
			rows.length && totalSpend
				? round2(rows.reduce((n, r) => n + r.roas * r.spend, 0) / totalSpend)
				: 0;
		const summary: ReportSummary = {
			totalSpend,
			totalConversions,
			avgCpa: totalConversions ? round2(totalSpend / totalConversions) : 0,
			avgRoas,
			overallRiskLevel: rows.length ? riskFromRoas(avgRoas) : 'LOW',
		};
		const recs = this.rng.shuffle(RECOMMENDATION_TEMPLATES).slice(0, this.rng.int(2, 3));
		const rec: ReportRec = {
			ws: a.ws,
			id: this.newId('rpt_', () => this.rng.alnum(16)),
			title: a.title,
			accountId: a.account.platformAccountId,
			serviceAccountId: a.account.id,
			campaignIds: [...a.campaignIds],
			format: a.format,
			from: a.from,
			to: a.to,
			createdAt: a.createdAt,
			pendingUntil: a.createdAt + a.pendingMs,
			completeAt: a.createdAt + a.durationMs,
			failure: a.failure,
			summary,
			analysis: {
				campaigns: rows,
				insights: [
					`Total spend of ${totalSpend.toFixed(2)} ${a.account.currency} produced ${totalConversions} conversions.`,
					rows.length
						? `Best return: ${[...rows].sort((x, y) => y.roas - x.roas)[0].name}.`
						: 'No campaigns had delivery in the range.',
				],
				recommendations: recs.map(([title, description], i) => ({
					priority: i + 1,
					title,
					description,
				})),
			},
			expiresAtOverride: a.expiresAt ?? null,
			...(a.whiteLabel ? { whiteLabel: a.whiteLabel } : {}),
		};
		this.reports.push(rec);
		return rec;
	}

	/** A report generated through POST /v1/reports: durations drawn from the seeded PRNG. */
	generateReport(a: {
		ws: WorkspaceId;
		account: AccountRec;
		title: string;
		format: ReportFormat;
		from: string;
		to: string;
		campaignIds: string[];
		whiteLabel?: WhiteLabel;
	}): { rec: ReportRec; estimatedCompletionSeconds: number } {
		const durationService = this.rng.int(10000, 20000);
		const pendingService = this.rng.int(0, 2000);
		const script = this.reportScripts.get(a.account.id);
		const failure = script?.error ?? this.failReportQueue.shift() ?? null;
		const rec = this.createReport({
			...a,
			createdAt: Date.now(),
			durationMs: script?.generatingMs ?? this.scaled(durationService),
			pendingMs: this.scaled(pendingService),
			failure,
		});
		// A size given for this very report (size-next) comes first, then the drawn range (sizes).
		const padTo = this.nextFileSizes.shift();
		const sizes = this.newReportSizes;
		if (padTo !== undefined) rec.padTo = padTo;
		else if (sizes) {
			rec.padTo = sizes.rng.int(sizes.minBytes, sizes.maxBytes);
			if (sizes.fill === 'noise') rec.padNoise = sizes.rng.int(0, 0x3fffffff);
		}
		if (script?.summary) {
			const summary = { ...rec.summary, ...script.summary };
			if (script.summary.avgRoas !== undefined && script.summary.overallRiskLevel === undefined)
				summary.overallRiskLevel = riskFromRoas(summary.avgRoas);
			summary.avgCpa = summary.totalConversions
				? round2(summary.totalSpend / summary.totalConversions)
				: 0;
			rec.summary = summary;
		}
		return { rec, estimatedCompletionSeconds: Math.ceil(durationService / 1000) };
	}

	startDiagnostic(ws: WorkspaceId, campaign: CampaignRec): DiagnosticRec {
		const now = Date.now();
		const durationService = this.rng.int(5000, 10000);
		const failed = this.failDiagnosticCount > 0;
		if (failed) this.failDiagnosticCount--;
		const riskScore = this.campaignRisk.get(campaign.id) ?? this.rng.int(5, 95);
		const issueCount = this.rng.int(1, 4);
		const issues = this.rng
			.shuffle(ISSUE_TEMPLATES)
			.slice(0, issueCount)
			.map(([title, description]) => {
				const score = Math.max(0, Math.min(100, riskScore + this.rng.int(-20, 20)));
				return { title, description, riskScore: score, severity: riskFromScore(score) };
			});
		issues.sort((x, y) => y.riskScore - x.riskScore);
		const recommendations = this.rng
			.shuffle(RECOMMENDATION_TEMPLATES)
			.slice(0, this.rng.int(1, 3))
			.map(([title, description], i) => ({ priority: i + 1, title, description }));
		const rec: DiagnosticRec = {
			ws,
			id: this.newId('diag_', () => this.rng.alnum(12)),
			campaignId: campaign.id,
			createdAt: now,
			completeAt: now + this.scaled(durationService),
			failure: failed
				? {
						type: 'diagnostic_failed',
						message: 'The diagnostic could not be completed: campaign insights were unavailable.',
					}
				: null,
			summary: `${campaign.name} has a ${riskFromScore(riskScore).toLowerCase()} overall risk. ${issues[0].title} is the main concern; ${recommendations[0].title.toLowerCase()} first.`,
			riskScore,
			issues,
			recommendations,
		};
		this.diagnostics.push(rec);
		return rec;
	}

	/** Sets (or, with an empty script, clears) what an account's next reports show. */
	setReportScript(accountId: string, script: AccountReportScript): void {
		const account = this.findAccount(accountId);
		if (!account) throw new Error(`unknown account ${accountId}`);
		const { summary, error, generatingMs } = script;
		if (generatingMs !== undefined && !(typeof generatingMs === 'number' && generatingMs >= 0))
			throw new Error('generatingMs must be a number of milliseconds.');
		if (!summary && !error && generatingMs === undefined) this.reportScripts.delete(account.id);
		else
			this.reportScripts.set(account.id, {
				...(summary ? { summary: { ...summary } } : {}),
				...(error ? { error: { ...error } } : {}),
				...(generatingMs !== undefined ? { generatingMs } : {}),
			});
	}

	failNextReports(count: number, error?: ErrorInfo): void {
		for (let i = 0; i < count; i++) {
			this.failReportQueue.push(
				error ?? {
					type: 'generation_failed',
					message: 'Report generation failed: the analysis model did not return a result.',
				},
			);
		}
	}

	/** Keeps every running diagnostic running for `realMs` more (tests that must meet one). */
	holdRunningDiagnostics(realMs: number, now = Date.now()): void {
		for (const diagnostic of this.diagnostics) {
			if (diagnostic.completeAt > now) diagnostic.completeAt = now + realMs;
		}
	}

	failNextDiagnostics(count: number): void {
		this.failDiagnosticCount += count;
	}

	// ---------------------------------------------------------------- lookups and views

	campaignsOf(serviceAccountId: string): CampaignRec[] {
		return this.campaigns.filter((c) => c.accountId === serviceAccountId);
	}

	/** By service id or platform id. */
	findAccount(id: string): AccountRec | undefined {
		return (
			this.accounts.find((a) => a.id === id) ??
			this.accounts.find((a) => a.platformAccountId === id)
		);
	}

	reportStatus(r: ReportRec, now = Date.now()): ReportStatus {
		if (now < r.pendingUntil) return 'pending';
		if (now < r.completeAt) return 'generating';
		return r.failure ? 'failed' : 'completed';
	}

	reportExpiresAt(r: ReportRec): number {
		return r.expiresAtOverride ?? r.completeAt + this.scaled(7 * DAY);
	}

	signature(id: string, expires: number): string {
		return createHmac('sha256', this.secret).update(`${id}:${expires}`).digest('hex');
	}

	verifySignature(id: string, expires: string | undefined, signature: string | undefined): boolean {
		if (!expires || !signature || !/^\d+$/.test(expires)) return false;
		return this.signature(id, Number(expires)) === signature;
	}

	reportView(r: ReportRec, now = Date.now()): Report {
		const status = this.reportStatus(r, now);
		const out: Report = {
			id: r.id,
			title: r.title,
			campaignIds: [...r.campaignIds],
			accountId: r.accountId,
			status,
			format: r.format,
			dateRange: { from: r.from, to: r.to },
			createdAt: this.stamp(r.createdAt),
		};
		if (status === 'completed') {
			const expiresAt = this.reportExpiresAt(r);
			const expires = Math.ceil(expiresAt / 1000);
			out.summary = { ...r.summary };
			out.downloadUrl = `${this.downloadOrigin}/v1/reports/${r.id}/download?expires=${expires}&signature=${this.signature(r.id, expires)}`;
			out.expiresAt = this.stamp(expiresAt);
			out.completedAt = this.stamp(r.completeAt);
		}
		if (status === 'failed' && r.failure) out.error = { ...r.failure };
		// keep the documented field order: summary..completedAt around createdAt
		return {
			id: out.id,
			title: out.title,
			campaignIds: out.campaignIds,
			accountId: out.accountId,
			status: out.status,
			format: out.format,
			dateRange: out.dateRange,
			...(out.summary
				? { summary: out.summary, downloadUrl: out.downloadUrl, expiresAt: out.expiresAt }
				: {}),
			createdAt: out.createdAt,
			...(out.completedAt ? { completedAt: out.completedAt } : {}),
			...(out.error ? { error: out.error } : {}),
		};
	}

	diagnosticStatus(d: DiagnosticRec, now = Date.now()): 'running' | 'completed' | 'failed' {
		if (now < d.completeAt) return 'running';
		return d.failure ? 'failed' : 'completed';
	}

	diagnosticView(d: DiagnosticRec, now = Date.now()): Diagnostic {
		const status = this.diagnosticStatus(d, now);
		if (status === 'running')
			return { id: d.id, campaignId: d.campaignId, status, createdAt: this.stamp(d.createdAt) };
		if (status === 'failed') {
			return {
				id: d.id,
				campaignId: d.campaignId,
				status,
				createdAt: this.stamp(d.createdAt),
				error: { ...(d.failure as ErrorInfo) },
			};
		}
		return {
			id: d.id,
			campaignId: d.campaignId,
			status,
			summary: d.summary,
			riskScore: d.riskScore,
			issues: d.issues.map((i) => ({ ...i })),
			recommendations: d.recommendations.map((r) => ({ ...r })),
			createdAt: this.stamp(d.createdAt),
			completedAt: this.stamp(d.completeAt),
		};
	}

	campaignView(c: CampaignRec): Campaign {
		return {
			id: c.id,
			platformCampaignId: c.platformCampaignId,
			name: c.name,
			status: c.status,
			objective: c.objective,
			dailyBudget: c.dailyBudget,
			currency: c.currency,
			createdAt: this.stamp(c.createdAt),
			accountId: c.accountId,
		};
	}

	accountView(a: AccountRec, now = Date.now()): Account {
		const camps = this.campaignsOf(a.id);
		return {
			id: a.id,
			platformAccountId: a.platformAccountId,
			name: a.name,
			currency: a.currency,
			timezone: a.timezone,
			status: a.status,
			connectionStatus: a.connectionStatus,
			businessName: a.businessName,
			businessId: a.businessId,
			permissions: [...a.permissions],
			...(a.lastSyncedAt <= now ? { lastSyncedAt: this.stamp(a.lastSyncedAt) } : {}),
			campaignCount: camps.length,
			activeCampaignCount: camps.filter((c) => c.status === 'ACTIVE').length,
			totalSpendLast30d: round2(camps.reduce((n, c) => n + c.spend30d, 0)),
			connectedAt: this.stamp(a.connectedAt),
			connectedBy: a.connectedBy,
		};
	}

	setConnectionStatus(accountId: string, status: ConnectionStatus): void {
		const a = this.findAccount(accountId);
		if (!a) throw new Error(`unknown account ${accountId}`);
		const now = Date.now();
		if (status === 'active' && a.connectionStatus !== 'active' && a.lastSyncedAt <= now)
			a.lastSyncedAt = now;
		a.connectionStatus = status;
	}

	/** The risk a campaign's next diagnostics score (its issues within 20 of it); null: drawn again. */
	setCampaignRisk(campaignId: string, riskScore: number | null): void {
		if (!this.campaigns.some((c) => c.id === campaignId))
			throw new Error(`unknown campaign ${campaignId}`);
		if (riskScore === null) this.campaignRisk.delete(campaignId);
		else if (Number.isFinite(riskScore) && riskScore >= 0 && riskScore <= 100)
			this.campaignRisk.set(campaignId, Math.round(riskScore));
		else throw new Error('riskScore must be a number from 0 to 100, or null.');
	}

	/** When an account last synced (host ms), as if its sync had stopped then or just ran. */
	setLastSynced(accountId: string, at: number): void {
		const a = this.findAccount(accountId);
		if (!a) throw new Error(`unknown account ${accountId}`);
		if (!Number.isFinite(at)) throw new Error('at must be an ISO 8601 time.');
		a.lastSyncedAt = at;
	}

	expireReport(reportId: string): void {
		const r = this.reports.find((x) => x.id === reportId);
		if (!r) throw new Error(`unknown report ${reportId}`);
		// keep expiresAt after completedAt when the report completed just now
		r.expiresAtOverride = Math.min(Date.now() - 1000, Math.max(r.completeAt, Date.now() - 1000));
		if (r.completeAt > r.expiresAtOverride) r.completeAt = r.expiresAtOverride - 1;
		if (r.pendingUntil > r.completeAt) r.pendingUntil = r.completeAt;
	}

	/** The next generated reports' files are padded to these sizes, one each, in order. */
	sizeNextReports(bytes: number[]): void {
		if (!bytes.every((b) => typeof b === 'number' && Number.isFinite(b) && b >= 0))
			throw new Error('bytes must be a list of numbers.');
		this.nextFileSizes.push(...bytes);
	}

	/**
	 * From now on, every report created through POST /v1/reports gets a file of a size drawn from
	 * [minBytes, maxBytes] (what setReportFileSize sets for one report), from a generator of its
	 * own seeded with `seed` (default 1): the same sequence of sizes for the same sequence of
	 * reports, and the service's other draws unchanged. undefined: new reports get their natural
	 * size again. Existing reports keep theirs.
	 */
	setNewReportSizes(sizes: NewReportSizes | undefined): void {
		if (sizes === undefined) {
			this.newReportSizes = undefined;
			return;
		}
		const { minBytes, maxBytes, seed = 1, fill = 'noise' } = sizes;
		if (
			!Number.isInteger(minBytes) ||
			!Number.isInteger(maxBytes) ||
			minBytes < 0 ||
			maxBytes < minBytes
		)
			throw new Error('minBytes and maxBytes must be whole numbers, 0 <= minBytes <= maxBytes.');
		if (!Number.isInteger(seed)) throw new Error('seed must be a whole number.');
		if (fill !== 'noise' && fill !== 'spaces') throw new Error("fill must be 'noise' or 'spaces'.");
		this.newReportSizes = { minBytes, maxBytes, fill, rng: new Rng(seed) };
	}

	setReportFileSize(reportId: string, bytes: number): void {
		const r = this.reports.find((x) => x.id === reportId);
		if (!r) throw new Error(`unknown report ${reportId}`);
		r.padTo = bytes;
	}
}

function p2(n: number): number {
	return round2(n);
}
