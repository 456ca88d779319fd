/**
 * Fake Ad Performance Reporting Service: HTTP server (main origin, optional "CDN" origin for
 * downloads, and the /__fake control API).
 *
 * It implements the rules in docs/service-notes.md, the assumed ones included.
 * Where all three are silent, the fake chooses as follows (fake-only assumptions):
 *
 *  - Check order of every /v1 request: injected/random fault ("before"), auth (401/403
 *    plan_insufficient), service-version (400), route lookup (unknown path or method → 404
 *    not_found, not counted), rate limit (429, nothing charged), validation (400), the work
 *    (403 permission_error / 404 / 409 / 422), answer. A request refused with 400/404/409/422
 *    after the rate-limit step HAS been charged; so an invalid POST /v1/reports costs a write and a
 *    generation (the limit check precedes validation).
 *  - Keys: `service_(live|test)_` + 24 or more letters/digits. keys.live and keys.test reach the
 *    same workspace A. keys.revoked is a revoked key of A. keys.nonAgency belongs to a workspace
 *    without API access. keys.noWhiteLabel belongs to a workspace WITH API access whose plan lacks
 *    white label: the only way to observe 403 white_label_not_available with a working key.
 *  - service-version must be exactly `2026-03-01`, also on the main-origin download.
 *  - Requests with a body must say `Content-Type: application/json` (parameters allowed);
 *    otherwise, or for unparsable JSON or a non-object body, 400 invalid_request. An empty POST
 *    body is treated as `{}` (so the first missing field is named).
 *  - Optional request fields sent as null (or an empty campaign_ids array, or an empty whiteLabel
 *    object) are rejected with 400 invalid_request: the nodes must omit what the user did not set.
 *  - whiteLabel: companyName (non-empty string), logoUrl (absolute http(s) URL), primaryColor
 *    (#rrggbb); each optional, at least one required. Unknown body fields are ignored.
 *  - Date range: date_end − date_start must be ≥ 1 day and ≤ 90 days. A campaign id of another
 *    account of the same workspace → 404 not_found. Duplicate campaign ids are collapsed.
 *    Reports may be generated for accounts that are token_expired/disconnected or still syncing
 *    (historical data stays available); only diagnostics need synced data (422).
 *  - Report timing: pending for 0–2 s, completed or failed 10–20 s after creation (× timeScale).
 *    estimatedCompletionSeconds is in SERVICE seconds (like the 429 hint); clients scale nothing.
 *    Failed reports carry `error` and no summary/downloadUrl/expiresAt/completedAt; fields not yet
 *    populated are absent (never null). Downloading a failed report answers 409 report_not_ready.
 *  - Pre-existing (seeded / addReports) completed reports have links valid until start + 7 days ×
 *    timeScale ("links issued when the sandbox started"), so the sandbox always has downloadable
 *    reports.
 *  - GET /v1/reports `from`/`to`: date-only `from` = start of that UTC day, date-only `to` = end of
 *    that UTC day; a date-time without zone is UTC; from > to gives an empty page, not an error.
 *    `accountId` matches the platform id or the service account id; `campaignId` matches reports
 *    covering that campaign. GET /v1/campaigns `accountId` likewise takes either id. Filters with an
 *    unknown account or campaign give empty pages. Enum filters are case-sensitive.
 *  - Download on the main origin: the signature query is ignored (the key authorizes). On the
 *    foreign origin: missing or wrong signature → 401 authentication_error; no key, no version
 *    header, no rate limit; unknown paths → 404 not_found.
 *  - Diagnostics: checks after validation are 404 / 403, then 422 campaign_not_synced, then 409
 *    diagnostic_in_progress. Campaigns of disconnected/token_expired accounts stay diagnosable
 *    (their data was synced). Failed diagnostics carry `error`; completed ones carry summary,
 *    riskScore, issues (sorted by riskScore desc), recommendations (priority 1..n), completedAt.
 *  - Account `lastSyncedAt` is absent until the initial sync of a syncing account is done.
 *  - Faults are drawn before auth (a gateway in front of the service). Injected rules take
 *    precedence over random faults. A latency fault delays before processing.
 *  - Non-/v1 paths answer 404 not_found without auth. Trailing slashes are not normalised.
 *  - The API key is never printed or logged anywhere except LoggedRequest.headers.
 *  - Clock controls (for attacks on time): setClockOffset runs the service's clock ahead of or
 *    behind the host's, for everything it writes and reads; setDateHeader makes the Date header
 *    disagree with that clock (or be garbage, or absent); setCoarseFromFilter makes `from`
 *    compare whole UTC days.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { collectParts, renderReportFile, writeParts, type ReportFile } from './files.cjs';
import { Limiter, type Bucket, type LimitConfig } from './limits.cjs';
import { Rng } from './rng.cjs';
import { isStreaming, sendStreaming, type StreamingOptions } from './streaming.cjs';
import {
	FakeState,
	iso,
	type AccountRec,
	type AccountReportScript,
	type CampaignRec,
	type Keys,
	type NewReportSizes,
	type ReportRec,
	type WorkspaceId,
} from './state.cjs';
import {
	CAMPAIGN_STATUSES,
	CONNECTION_STATUSES,
	REPORT_FORMATS,
	REPORT_STATUSES,
	type Account,
	type Campaign,
	type ConnectionStatus,
	type Diagnostic,
	type ErrorInfo,
	type Report,
	type ReportFormat,
} from './types.cjs';

export interface FakeServiceOptions {
	port?: number;
	host?: string;
	timeScale?: number;
	seed?: number;
	limits?: Partial<LimitConfig>;
	faults?: FaultOptions;
	seedData?: false | { extraCampaigns?: number };
	downloadOrigin?: 'same' | 'foreign';
}

export interface FaultOptions {
	rate429?: number;
	rate500?: number;
	dropRate?: number;
	latencyMs?: number | [number, number];
	phase?: 'before' | 'after' | 'random';
	match?: { method?: string; pathPrefix?: string };
}

export interface InjectRule {
	method?: string;
	pathPrefix?: string;
	kind: '429' | '500' | 'drop' | 'latency';
	phase?: 'before' | 'after';
	latencyMs?: number;
	times?: number;
}

/** A request as an intercept rule sees it. */
export interface InterceptedRequest {
	method: string;
	path: string;
	query: Record<string, string>;
	headers: Record<string, string>;
	body?: unknown;
	origin: 'main' | 'foreign';
}

/** The fake's own answer to a request (JSON, or a report file). */
export interface RealReply {
	status: number;
	json?: unknown;
	file?: ReportFile;
}

/**
 * What a broken or hostile service sends instead. Without `reply`, `body` or `json` the body
 * is empty. `truncateAfterBytes` announces the whole body (Content-Length) and cuts the
 * connection after that many bytes of it. `trickle`, `endless` and `gzip` (streaming.cts) send
 * the body piece by piece: slowly, without end, or gzip-packed (a gzip bomb with both).
 */
export interface ScriptedAnswer extends StreamingOptions {
	status?: number;
	headers?: Record<string, string>;
	/** Sent byte for byte: malformed JSON, an HTML page, ''. */
	body?: string | Buffer;
	json?: unknown;
	/** The fake's own answer (from `real()`), possibly changed. */
	reply?: RealReply;
	truncateAfterBytes?: number;
	/** Real milliseconds to wait before answering. */
	delayMs?: number;
	/**
	 * Raw bytes for the socket, head included, bypassing Node's HTTP writer (every other field
	 * but `delayMs` is ignored): a status line sent slowly, interim (1xx) answers or header lines
	 * without end (see hostile.cts). Each piece is written, then `everyMs` real milliseconds pass;
	 * the connection is closed after the last piece, or as soon as the client leaves.
	 */
	wire?: { pieces: Iterable<string | Buffer>; everyMs: number };
}

/**
 * Scripts the service's answers, for attack tests: redirects, malformed or truncated answers,
 * echoed keys, endless pages, a lagging list. `respond` returns undefined to let the fake
 * answer normally; `real()` runs the fake's own handling (auth, limits, state) and returns
 * its answer without sending it; `real(path)` answers as if the request had asked for `path`
 * (the service serving its API under a moved path, for a redirect within its origin).
 */
export interface InterceptRule {
	method?: string;
	pathPrefix?: string;
	origin?: 'main' | 'foreign';
	/** How many matching requests the rule answers (default: all). */
	times?: number;
	respond(
		request: InterceptedRequest,
		real: (path?: string) => RealReply,
	): ScriptedAnswer | undefined | Promise<ScriptedAnswer | undefined>;
}

export interface LoggedRequest {
	seq: number;
	at: number;
	method: string;
	path: string;
	query: Record<string, string>;
	headers: Record<string, string>;
	body?: unknown;
	status: number | null;
	errorType?: string;
	fault?: '429' | '500' | 'drop' | 'latency';
	bucket?: 'read' | 'write' | 'generation' | 'diagnostic';
	origin: 'main' | 'foreign';
	/** For a streamed scripted answer (trickle, endless, gzip): what it sent, set as it ends. */
	streamed?: {
		/** Bytes of the body before packing. */
		bodyBytes: number;
		/** Bytes that left for the socket (packed, with gzip). */
		sentBytes: number;
		/** The client closed the connection before the body was complete. */
		closedByClient: boolean;
		/** Real milliseconds from the head to the last byte or the client's leaving. */
		durationMs: number;
	};
}

/**
 * What the `Date` header of every answer says: the service's clock (the default), that clock
 * plus `skewMs` (a header that disagrees with the records' own times), a raw text sent as it
 * is, or no header at all.
 */
export type DateHeader = 'clock' | 'omit' | { skewMs: number } | { raw: string };

export interface FakeService {
	url: string;
	foreignUrl?: string;
	keys: Keys;
	log: LoggedRequest[];
	clearLog(): void;
	setFaults(faults: FaultOptions | undefined): void;
	injectOnce(rule: InjectRule): void;
	/** Adds a scripted-answer rule (see InterceptRule); returns a function that removes it. */
	intercept(rule: InterceptRule): () => void;
	clearIntercepts(): void;
	accounts(): Account[];
	campaigns(): Campaign[];
	reports(): Report[];
	diagnostics(): Diagnostic[];
	addAccount(partial?: Partial<Account> & { syncing?: boolean }): Account;
	addCampaigns(accountId: string, count: number, partial?: Partial<Campaign>): Campaign[];
	addReports(count: number, partial?: Partial<Report>): Report[];
	setConnectionStatus(accountId: string, status: 'active' | 'disconnected' | 'token_expired'): void;
	failNextReports(count: number, error?: { type: string; message: string }): void;
	failNextDiagnostics(count: number): void;
	/** A campaign's next diagnostics score this risk (0-100; issues within 20 of it); null: drawn. */
	setCampaignRisk(campaignId: string, riskScore: number | null): void;
	/** An account's last sync, on the service's clock (ISO 8601): stale data on demand. */
	setLastSynced(accountId: string, at: string): void;
	/** Keeps every diagnostic that is running now running for `realMs` more (real time). */
	holdRunningDiagnostics(realMs: number): void;
	/**
	 * The next diagnostic started keeps running for `realMs` (real time), held from the moment
	 * the fake starts it, so a busy machine cannot let it finish first.
	 */
	holdNextDiagnosticRunning(realMs: number): void;
	/**
	 * Nothing listens on the main origin for `realMs` (real time), as when the service is down:
	 * open connections are closed and every new one is refused (ECONNREFUSED). Then it listens
	 * again on the same port. Resolves once connections are refused, with a function that
	 * listens again at once (for a test's cleanup).
	 */
	refuseConnections(realMs: number): Promise<() => Promise<void>>;
	completeReportAt?: never;
	expireReport(reportId: string): void;
	setReportFileSize(reportId: string, bytes: number): void;
	/**
	 * Every report created from now on through POST /v1/reports gets a file of a size drawn
	 * (seeded) from [minBytes, maxBytes], PDFs padded with incompressible noise unless `fill` is
	 * 'spaces'; undefined: natural sizes again. See FakeState.setNewReportSizes.
	 */
	setNewReportSizes(sizes: NewReportSizes | undefined): void;
	/**
	 * Runs the service's clock `offsetMs` ahead of the host's (negative: behind). Record times,
	 * the Date header and the `from`/`to` filters follow it; times given to addReports and
	 * addAccount are read on it.
	 */
	setClockOffset(offsetMs: number): void;
	/** What the Date header of every answer says (see DateHeader). */
	setDateHeader(header: DateHeader): void;
	/**
	 * Makes GET /v1/reports filter `from` by whole days, as a coarse service does: a date-time
	 * `from` counts from the start of its UTC day, so reports created earlier that day come back.
	 */
	setCoarseFromFilter(coarse: boolean): void;
	resetLimits(): void;
	stop(): Promise<void>;
}

export const SERVICE_VERSION = '2026-03-01';
const KEY_RE = /^service_(live|test)_[A-Za-z0-9]{24,}$/;
const DAY = 86400000;

interface Reply {
	status: number;
	json?: unknown;
	file?: ReportFile;
}

interface Ctx {
	ws: WorkspaceId;
	query: URLSearchParams;
	body: Record<string, unknown>;
	params: string[];
	remaining: number;
}

type Handler = (ctx: Ctx) => Reply;

interface Route {
	method: string;
	re: RegExp;
	buckets: Bucket[];
	logBucket: Bucket;
	handler: Handler;
}

interface FaultDecision {
	kind: '429' | '500' | 'drop' | null;
	phase: 'before' | 'after';
	latencyMs: number;
	injectedLatency: boolean;
}

function error(status: number, type: string, message: string): Reply {
	return { status, json: { error: { type, message } } };
}

const notFound = (what: string): Reply => error(404, 'not_found', `${what} not found.`);

function isValidYmd(s: string): boolean {
	const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
	if (!m) return false;
	const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
	return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3];
}

/** ISO 8601 date or date-time → ms; `end` makes a date-only value mean the end of that UTC day. */
function parseIsoBound(s: string, end: boolean): number | null {
	if (isValidYmd(s)) return Date.parse(s + 'T00:00:00.000Z') + (end ? DAY - 1 : 0);
	const m =
		/^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(
			s,
		);
	if (!m || !isValidYmd(m[1])) return null;
	const [h, mi, se] = [+m[2], +m[3], m[4] ? +m[4] : 0];
	if (h > 23 || mi > 59 || se > 59) return null;
	let zone = m[6] ?? 'Z';
	if (zone !== 'Z') {
		zone = zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
		if (+zone.slice(1, 3) > 23 || +zone.slice(4, 6) > 59) return null;
	}
	const frac = (m[5] ?? '0').slice(0, 3).padEnd(3, '0');
	const t = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${String(se).padStart(2, '0')}.${frac}${zone}`);
	return Number.isNaN(t) ? null : t;
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [k, v] of Object.entries(req.headers)) {
		if (v === undefined) continue;
		out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
	}
	return out;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function matches(
	rule: { method?: string; pathPrefix?: string } | undefined,
	method: string,
	path: string,
): boolean {
	if (!rule) return true;
	if (rule.method && rule.method.toUpperCase() !== method) return false;
	if (rule.pathPrefix && !path.startsWith(rule.pathPrefix)) return false;
	return true;
}

export class FakeServer {
	readonly state: FakeState;
	readonly limiter: Limiter;
	readonly log: LoggedRequest[] = [];
	private readonly faultRng: Rng;
	private faults: FaultOptions | undefined;
	private injections: Array<InjectRule & { left: number }> = [];
	private intercepts: Array<InterceptRule & { left: number }> = [];
	private seq = 0;
	private dateHeader: DateHeader = 'clock';
	coarseFromFilter = false;
	private readonly routes: Route[];
	private servers: Server[] = [];
	private readonly originOf = new WeakMap<Server, 'main' | 'foreign'>();
	private sockets = new Set<Socket>();
	url = '';
	foreignUrl: string | undefined;

	constructor(private readonly options: FakeServiceOptions) {
		const seed = options.seed ?? 1;
		const timeScale = options.timeScale ?? 1;
		if (!(timeScale > 0)) throw new Error('timeScale must be > 0');
		this.state = new FakeState({ seed, timeScale });
		this.faultRng = new Rng((seed ^ 0x5eed5eed) >>> 0);
		this.faults = options.faults;
		this.limiter = new Limiter(
			{
				read: 120,
				write: 10,
				diagnosticRuns: 10,
				generations: 5,
				windowSeconds: 60,
				...options.limits,
			},
			timeScale,
		);
		if (options.seedData !== false) this.state.seed(options.seedData?.extraCampaigns ?? 0);
		this.routes = [
			{
				method: 'GET',
				re: /^\/v1\/accounts$/,
				buckets: ['read'],
				logBucket: 'read',
				handler: (c) => this.listAccounts(c),
			},
			{
				method: 'GET',
				re: /^\/v1\/campaigns$/,
				buckets: ['read'],
				logBucket: 'read',
				handler: (c) => this.listCampaigns(c),
			},
			{
				method: 'GET',
				re: /^\/v1\/campaigns\/([^/]+)$/,
				buckets: ['read'],
				logBucket: 'read',
				handler: (c) => this.getCampaign(c),
			},
			{
				method: 'GET',
				re: /^\/v1\/reports$/,
				buckets: ['read'],
				logBucket: 'read',
				handler: (c) => this.listReports(c),
			},
			{
				method: 'POST',
				re: /^\/v1\/reports$/,
				buckets: ['write', 'generation'],
				logBucket: 'generation',
				handler: (c) => this.createReport(c),
			},
			{
				method: 'GET',
				re: /^\/v1\/reports\/([^/]+)\/download$/,
				buckets: ['read'],
				logBucket: 'read',
				handler: (c) => this.download(c),
			},
			{
				method: 'POST',
				re: /^\/v1\/diagnostics$/,
				buckets: ['write', 'diagnostic'],
				logBucket: 'diagnostic',
				handler: (c) => this.createDiagnostic(c),
			},
			{
				method: 'GET',
				re: /^\/v1\/diagnostics\/([^/]+)$/,
				buckets: ['read'],
				logBucket: 'read',
				handler: (c) => this.getDiagnostic(c),
			},
		];
	}

	// ------------------------------------------------------------------ lifecycle

	async listen(): Promise<void> {
		const host = this.options.host ?? '127.0.0.1';
		const main = await this.listenOne(host, this.options.port ?? 0, 'main');
		this.url = main;
		if (this.options.downloadOrigin === 'foreign') {
			this.foreignUrl = await this.listenOne(host, 0, 'foreign');
			this.state.downloadOrigin = this.foreignUrl;
		} else this.state.downloadOrigin = this.url;
	}

	private listenOne(host: string, port: number, origin: 'main' | 'foreign'): Promise<string> {
		const server = createServer((req, res) => {
			this.onRequest(req, res, origin).catch((e: unknown) => {
				if (!res.headersSent && !res.destroyed) {
					this.sendJson(res, error(500, 'api_error', 'An unexpected error occurred.'));
				} else res.destroy();
				if (process.env.FAKE_SERVICE_DEBUG) console.error('[fake-service] handler error', e);
			});
		});
		server.keepAliveTimeout = 5000;
		server.on('connection', (s: Socket) => {
			this.sockets.add(s);
			s.on('close', () => this.sockets.delete(s));
		});
		this.servers.push(server);
		this.originOf.set(server, origin);
		return new Promise((resolve, reject) => {
			server.once('error', reject);
			server.listen(port, host, () => {
				const addr = server.address() as AddressInfo;
				const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
				resolve(`http://${h}:${addr.port}`);
			});
		});
	}

	private reopening:
		| { timer: ReturnType<typeof setTimeout>; reopen: () => Promise<void> }
		| undefined;

	async refuseConnections(realMs: number): Promise<() => Promise<void>> {
		const main = this.servers.find((server) => this.originOf.get(server) === 'main');
		if (!main || this.reopening) return this.reopening?.reopen ?? (async () => {});
		const { port } = main.address() as AddressInfo;
		this.servers = this.servers.filter((server) => server !== main);
		const closed = new Promise<void>((resolve) => main.close(() => resolve()));
		main.closeAllConnections();
		let reopened: Promise<void> | undefined;
		const reopen = async () => {
			clearTimeout(timer);
			if (this.reopening?.reopen === reopen) this.reopening = undefined;
			reopened ??= this.listenOne(this.options.host ?? '127.0.0.1', port, 'main').then(() => {});
			await reopened;
		};
		const timer = setTimeout(() => void reopen(), realMs);
		this.reopening = { timer, reopen };
		await closed;
		return reopen;
	}

	async stop(): Promise<void> {
		if (this.reopening) clearTimeout(this.reopening.timer);
		this.reopening = undefined;
		await Promise.all(
			this.servers.map(
				(s) =>
					new Promise<void>((resolve) => {
						s.close(() => resolve());
						s.closeAllConnections();
					}),
			),
		);
		for (const s of this.sockets) s.destroy();
		this.servers = [];
	}

	setFaults(f: FaultOptions | undefined | null): void {
		this.faults = f ?? undefined;
	}

	inject(rule: InjectRule): void {
		if (!['429', '500', 'drop', 'latency'].includes(rule.kind))
			throw new Error(`unknown fault kind ${String(rule.kind)}`);
		this.injections.push({ ...rule, left: rule.times ?? 1 });
	}

	intercept(rule: InterceptRule): () => void {
		const entry = { ...rule, left: rule.times ?? Infinity };
		this.intercepts.push(entry);
		return () => {
			this.intercepts = this.intercepts.filter((other) => other !== entry);
		};
	}

	clearIntercepts(): void {
		this.intercepts = [];
	}

	setDateHeader(header: DateHeader): void {
		this.dateHeader = header;
	}

	/** Sets (or, for 'omit', suppresses) the Date header of an answer about to be written. */
	private writeDateHeader(res: ServerResponse, headers: Record<string, string>): void {
		if (Object.keys(headers).some((name) => name.toLowerCase() === 'date')) return;
		const mode = this.dateHeader;
		if (mode === 'omit') {
			res.sendDate = false;
			return;
		}
		if (typeof mode === 'object' && 'raw' in mode) {
			headers.Date = mode.raw;
			return;
		}
		const skew = typeof mode === 'object' ? mode.skewMs : 0;
		headers.Date = new Date(Date.now() + this.state.clockOffsetMs + skew).toUTCString();
	}

	private takeIntercept(
		method: string,
		path: string,
		origin: 'main' | 'foreign',
	): InterceptRule | undefined {
		const rule = this.intercepts.find(
			(r) => r.left > 0 && matches(r, method, path) && (!r.origin || r.origin === origin),
		);
		if (rule && --rule.left <= 0) this.intercepts = this.intercepts.filter((r) => r !== rule);
		return rule;
	}

	private async sendScripted(
		res: ServerResponse,
		entry: LoggedRequest,
		answer: ScriptedAnswer,
	): Promise<void> {
		if (answer.delayMs) await sleep(answer.delayMs);
		if (answer.wire) return this.sendWire(res, entry, answer.wire);
		if (
			answer.reply &&
			answer.truncateAfterBytes === undefined &&
			!answer.headers &&
			!isStreaming(answer)
		) {
			return this.send(res, entry, answer.reply);
		}
		let body: Buffer;
		const headers: Record<string, string> = {};
		let status = answer.status ?? 200;
		if (answer.reply) {
			status = answer.status ?? answer.reply.status;
			if (answer.reply.file) {
				const f = answer.reply.file;
				body = await collectParts(f.parts);
				headers['Content-Type'] = f.contentType;
				headers['Content-Disposition'] = `attachment; filename="${f.filename}"`;
			} else {
				body = Buffer.from(JSON.stringify(answer.reply.json ?? {}), 'utf8');
				headers['Content-Type'] = 'application/json; charset=utf-8';
			}
		} else if (answer.json !== undefined) {
			body = Buffer.from(JSON.stringify(answer.json), 'utf8');
			headers['Content-Type'] = 'application/json; charset=utf-8';
		} else {
			body = Buffer.isBuffer(answer.body) ? answer.body : Buffer.from(answer.body ?? '', 'utf8');
		}
		Object.assign(headers, answer.headers);
		headers['Content-Length'] = String(body.length);
		this.writeDateHeader(res, headers);
		entry.status = status;
		if (isStreaming(answer)) {
			const started = Date.now();
			const outcome = await sendStreaming(res, status, headers, body, answer);
			entry.streamed = { ...outcome, durationMs: Date.now() - started };
			return;
		}
		res.writeHead(status, headers);
		if (answer.truncateAfterBytes === undefined) {
			res.end(body);
			return;
		}
		res.write(body.subarray(0, answer.truncateAfterBytes));
		// Let the bytes leave, then cut the connection in the middle of the body.
		await sleep(20);
		res.socket?.destroy();
	}

	// ------------------------------------------------------------------ request pipeline

	private drawFault(method: string, path: string): FaultDecision {
		const d: FaultDecision = { kind: null, phase: 'before', latencyMs: 0, injectedLatency: false };
		const idx = this.injections.findIndex((r) => matches(r, method, path));
		if (idx >= 0) {
			const rule = this.injections[idx];
			if (--rule.left <= 0) this.injections.splice(idx, 1);
			if (rule.kind === 'latency') {
				d.latencyMs = rule.latencyMs ?? 1000;
				d.injectedLatency = true;
			} else {
				d.kind = rule.kind;
				d.phase = rule.phase ?? 'before';
				if (rule.latencyMs) d.latencyMs = rule.latencyMs;
			}
			return d;
		}
		const f = this.faults;
		if (!f || !matches(f.match, method, path)) return d;
		const rng = this.faultRng;
		if (rng.float() < (f.rate429 ?? 0)) d.kind = '429';
		else if (rng.float() < (f.rate500 ?? 0)) d.kind = '500';
		else if (rng.float() < (f.dropRate ?? 0)) d.kind = 'drop';
		if (d.kind === '500' || d.kind === 'drop') {
			const phase = f.phase ?? 'random';
			d.phase = phase === 'random' ? (rng.float() < 0.5 ? 'before' : 'after') : phase;
		}
		if (Array.isArray(f.latencyMs))
			d.latencyMs = Math.round(rng.range(f.latencyMs[0], f.latencyMs[1]));
		else if (f.latencyMs) d.latencyMs = f.latencyMs;
		return d;
	}

	private async onRequest(
		req: IncomingMessage,
		res: ServerResponse,
		origin: 'main' | 'foreign',
	): Promise<void> {
		const url = new URL(req.url ?? '/', 'http://fake.invalid');
		const method = (req.method ?? 'GET').toUpperCase();
		const path = url.pathname;
		const raw = await readBody(req);
		if (origin === 'main' && (path === '/__fake' || path.startsWith('/__fake/'))) {
			this.sendJson(res, this.control(method, path, raw));
			return;
		}
		const entry: LoggedRequest = {
			seq: ++this.seq,
			at: Date.now(),
			method,
			path,
			query: Object.fromEntries(url.searchParams),
			headers: flattenHeaders(req),
			status: null,
			origin,
		};
		if (raw.length) {
			try {
				entry.body = JSON.parse(raw.toString('utf8'));
			} catch {
				entry.body = raw.toString('utf8');
			}
		}
		this.log.push(entry);

		const rule = this.intercepts.length > 0 ? this.takeIntercept(method, path, origin) : undefined;
		if (rule) {
			const request: InterceptedRequest = {
				method,
				path,
				query: entry.query,
				headers: entry.headers,
				body: entry.body,
				origin,
			};
			const real = (asPath = path): RealReply =>
				origin === 'foreign'
					? this.foreign(method, asPath, url.searchParams)
					: this.api(req, method, asPath, url.searchParams, raw, entry);
			const answer = await rule.respond(request, real);
			if (answer) return this.sendScripted(res, entry, answer);
		}

		const isV1 = path === '/v1' || path.startsWith('/v1/');
		const fault: FaultDecision = isV1
			? this.drawFault(method, path)
			: { kind: null, phase: 'before', latencyMs: 0, injectedLatency: false };
		if (fault.latencyMs > 0) {
			entry.fault = 'latency';
			await sleep(fault.latencyMs);
		}
		if (fault.kind === '429') {
			entry.fault = '429';
			const n = this.faultRng.int(1, 30);
			return this.send(
				res,
				entry,
				error(429, 'rate_limit_error', `Rate limit exceeded. Retry after ${n} seconds.`),
			);
		}
		if (fault.kind && fault.phase === 'before') {
			entry.fault = fault.kind;
			if (fault.kind === 'drop') return this.drop(req);
			return this.send(res, entry, error(500, 'api_error', 'An unexpected error occurred.'));
		}
		let reply: Reply;
		if (origin === 'foreign') reply = this.foreign(method, path, url.searchParams);
		else reply = this.api(req, method, path, url.searchParams, raw, entry);
		if (fault.kind) {
			entry.fault = fault.kind;
			if (fault.kind === 'drop') return this.drop(req);
			reply = error(500, 'api_error', 'An unexpected error occurred.');
		}
		return this.send(res, entry, reply);
	}

	/** Writes a ScriptedAnswer's `wire` pieces to the socket as they are (see ScriptedAnswer). */
	private async sendWire(
		res: ServerResponse,
		entry: LoggedRequest,
		wire: NonNullable<ScriptedAnswer['wire']>,
	): Promise<void> {
		const socket = res.socket;
		if (!socket) return;
		const started = Date.now();
		const outcome = { bodyBytes: 0, sentBytes: 0, closedByClient: false };
		let gone = false;
		socket.once('close', () => (gone = true));
		for (const piece of wire.pieces) {
			if (gone || socket.destroyed) {
				outcome.closedByClient = true;
				break;
			}
			const bytes = Buffer.isBuffer(piece) ? piece : Buffer.from(piece, 'latin1');
			outcome.sentBytes += bytes.length;
			socket.write(bytes);
			await sleep(wire.everyMs);
		}
		if (!outcome.closedByClient) socket.end();
		entry.streamed = { ...outcome, durationMs: Date.now() - started };
	}

	private drop(req: IncomingMessage): void {
		req.socket.destroy();
	}

	private async send(res: ServerResponse, entry: LoggedRequest, reply: Reply): Promise<void> {
		entry.status = reply.status;
		const err = (reply.json as { error?: ErrorInfo } | undefined)?.error;
		if (err) entry.errorType = err.type;
		if (reply.file) {
			const f = reply.file;
			const headers: Record<string, string> = {
				'Content-Type': f.contentType,
				'Content-Disposition': `attachment; filename="${f.filename}"`,
				'Content-Length': String(f.length),
			};
			this.writeDateHeader(res, headers);
			res.writeHead(reply.status, headers);
			await writeParts(res, f.parts);
			return;
		}
		this.sendJson(res, reply);
	}

	private sendJson(res: ServerResponse, reply: Reply): void {
		const body = Buffer.from(JSON.stringify(reply.json ?? {}), 'utf8');
		const headers: Record<string, string> = {
			'Content-Type': 'application/json; charset=utf-8',
			'Content-Length': String(body.length),
		};
		this.writeDateHeader(res, headers);
		res.writeHead(reply.status, headers);
		res.end(body);
	}

	private api(
		req: IncomingMessage,
		method: string,
		path: string,
		query: URLSearchParams,
		raw: Buffer,
		entry: LoggedRequest,
	): Reply {
		if (!(path === '/v1' || path.startsWith('/v1/')))
			return error(404, 'not_found', `No such endpoint: ${method} ${path}.`);
		// 1. auth
		const key = req.headers['x-api-key'];
		if (typeof key !== 'string' || key === '') {
			return error(
				401,
				'authentication_error',
				'No API key provided. Send your API key in the x-api-key header.',
			);
		}
		if (!KEY_RE.test(key)) return error(401, 'authentication_error', 'Malformed API key.');
		const info = this.state.keyInfo.get(key);
		if (!info) return error(401, 'authentication_error', 'Invalid API key.');
		if (info.revoked) return error(401, 'key_revoked', 'This API key has been revoked.');
		if (!this.state.workspaces[info.workspace].apiAccess) {
			return error(403, 'plan_insufficient', 'API access requires the Agency plan.');
		}
		// 2. version
		const version = req.headers['service-version'];
		if (version === undefined) {
			return error(
				400,
				'invalid_request',
				`Missing service-version header. Send service-version: ${SERVICE_VERSION}.`,
			);
		}
		if (version !== SERVICE_VERSION) {
			return error(
				400,
				'invalid_request',
				`Unsupported service-version header value. Supported: ${SERVICE_VERSION}.`,
			);
		}
		// 3. route
		let route: Route | undefined;
		let params: string[] = [];
		for (const r of this.routes) {
			const m = r.re.exec(path);
			if (m && r.method === method) {
				route = r;
				try {
					params = m.slice(1).map((p) => decodeURIComponent(p));
				} catch {
					params = m.slice(1);
				}
				break;
			}
		}
		if (!route) return error(404, 'not_found', `No such endpoint: ${method} ${path}.`);
		// 4. rate limit
		entry.bucket = route.logBucket;
		const taken = this.limiter.take(key, route.buckets);
		if (!taken.ok) {
			return error(
				429,
				'rate_limit_error',
				`Rate limit exceeded. Retry after ${taken.retryAfterSeconds} seconds.`,
			);
		}
		// 5. body
		let body: Record<string, unknown> = {};
		if (method === 'POST' && raw.length > 0) {
			const ct = String(req.headers['content-type'] ?? '')
				.split(';')[0]
				.trim()
				.toLowerCase();
			if (ct !== 'application/json')
				return error(400, 'invalid_request', 'Content-Type must be application/json.');
			let parsed: unknown;
			try {
				parsed = JSON.parse(raw.toString('utf8'));
			} catch {
				return error(400, 'invalid_request', 'Request body is not valid JSON.');
			}
			if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
				return error(400, 'invalid_request', 'Request body must be a JSON object.');
			}
			body = parsed as Record<string, unknown>;
		}
		return route.handler({ ws: info.workspace, query, body, params, remaining: taken.remaining });
	}

	// ------------------------------------------------------------------ helpers

	private paging(q: URLSearchParams): { page: number; pageSize: number } | Reply {
		const int = (name: string, def: number, max?: number): number | Reply => {
			const v = q.get(name);
			if (v === null) return def;
			if (!/^-?\d+$/.test(v)) return error(400, 'invalid_request', `${name} must be an integer.`);
			const n = Number(v);
			if (n < 1) return error(400, 'invalid_request', `${name} must be at least 1.`);
			if (max !== undefined && n > max)
				return error(400, 'invalid_request', `${name} must be at most ${max}.`);
			return n;
		};
		const page = int('page', 1);
		if (typeof page !== 'number') return page;
		const pageSize = int('page_size', 20, 100);
		if (typeof pageSize !== 'number') return pageSize;
		return { page, pageSize };
	}

	/** One page of `items`; `view` (when given) renders only the records of that page. */
	private list<T>(ctx: Ctx, items: T[], view?: (item: T) => unknown): Reply {
		const p = this.paging(ctx.query) as { page: number; pageSize: number };
		const start = (p.page - 1) * p.pageSize;
		const page = items.slice(start, start + p.pageSize);
		return {
			status: 200,
			json: {
				data: view ? page.map(view) : page,
				pagination: {
					total: items.length,
					page: p.page,
					page_size: p.pageSize,
					hasMore: start + p.pageSize < items.length,
				},
				meta: { remaining_requests: ctx.remaining },
			},
		};
	}

	private single(ctx: Ctx, data: unknown, status = 200): Reply {
		return { status, json: { data, meta: { remaining_requests: ctx.remaining } } };
	}

	private enumFilter<T extends string>(
		q: URLSearchParams,
		name: string,
		values: readonly T[],
	): T | undefined | Reply {
		const v = q.get(name);
		if (v === null) return undefined;
		if (!(values as readonly string[]).includes(v)) {
			return error(400, 'invalid_request', `${name} must be one of: ${values.join(', ')}.`);
		}
		return v as T;
	}

	private accountsByEitherId(ws: WorkspaceId, id: string): AccountRec[] {
		return this.state.accounts.filter(
			(a) => a.ws === ws && (a.id === id || a.platformAccountId === id),
		);
	}

	sortedAccounts(ws: WorkspaceId): AccountRec[] {
		return this.state.accounts
			.filter((a) => a.ws === ws)
			.sort((x, y) => x.connectedAt - y.connectedAt || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
	}

	/**
	 * Campaigns are only ever added, and their order (creation time, id) never changes, so the
	 * sorted list is kept until the next one is added: a 50,000-campaign listing then costs the
	 * fake a page, not a sort, per request (the bench measures the client, not the fake).
	 */
	private campaignOrder = new Map<WorkspaceId, { count: number; sorted: CampaignRec[] }>();

	sortedCampaigns(ws: WorkspaceId): CampaignRec[] {
		const cached = this.campaignOrder.get(ws);
		if (cached && cached.count === this.state.campaigns.length) return cached.sorted;
		const sorted = this.state.campaigns
			.filter((c) => c.ws === ws)
			.sort((x, y) => x.createdAt - y.createdAt || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
		this.campaignOrder.set(ws, { count: this.state.campaigns.length, sorted });
		return sorted;
	}

	sortedReports(ws: WorkspaceId): ReportRec[] {
		return this.state.reports
			.filter((r) => r.ws === ws)
			.sort((x, y) => y.createdAt - x.createdAt || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
	}

	// ------------------------------------------------------------------ handlers

	private listAccounts(ctx: Ctx): Reply {
		const p = this.paging(ctx.query);
		if ('status' in p) return p;
		const status = this.enumFilter(ctx.query, 'status', CONNECTION_STATUSES);
		if (typeof status === 'object') return status;
		const now = Date.now();
		const items = this.sortedAccounts(ctx.ws)
			.filter((a) => !status || a.connectionStatus === status)
			.map((a) => this.state.accountView(a, now));
		return this.list(ctx, items);
	}

	private listCampaigns(ctx: Ctx): Reply {
		const p = this.paging(ctx.query);
		if ('status' in p) return p;
		const status = this.enumFilter(ctx.query, 'status', CAMPAIGN_STATUSES);
		if (typeof status === 'object') return status;
		const accountId = ctx.query.get('accountId');
		const accountIds =
			accountId === null
				? null
				: new Set(this.accountsByEitherId(ctx.ws, accountId).map((a) => a.id));
		const all = this.sortedCampaigns(ctx.ws);
		const items =
			accountIds || status
				? all.filter(
						(c) => (!accountIds || accountIds.has(c.accountId)) && (!status || c.status === status),
					)
				: all;
		return this.list(ctx, items, (c) => this.state.campaignView(c));
	}

	private getCampaign(ctx: Ctx): Reply {
		const c = this.state.campaigns.find((x) => x.id === ctx.params[0]);
		if (!c) return notFound(`Campaign ${ctx.params[0]}`);
		if (c.ws !== ctx.ws)
			return error(403, 'permission_error', 'This campaign belongs to a different workspace.');
		return this.single(ctx, this.state.campaignView(c));
	}

	private listReports(ctx: Ctx): Reply {
		const q = ctx.query;
		const p = this.paging(q);
		if ('status' in p) return p;
		const status = this.enumFilter(q, 'status', REPORT_STATUSES);
		if (typeof status === 'object') return status;
		const format = this.enumFilter(q, 'format', REPORT_FORMATS);
		if (typeof format === 'object') return format;
		let from: number | null = null;
		let to: number | null = null;
		if (q.get('from') !== null) {
			from = parseIsoBound(q.get('from') as string, false);
			if (from === null)
				return error(400, 'invalid_request', 'from must be an ISO 8601 date or date-time.');
			if (this.coarseFromFilter) from -= from % DAY;
			from = this.state.unstamp(from);
		}
		if (q.get('to') !== null) {
			to = parseIsoBound(q.get('to') as string, true);
			if (to === null)
				return error(400, 'invalid_request', 'to must be an ISO 8601 date or date-time.');
			to = this.state.unstamp(to);
		}
		const accountId = q.get('accountId');
		const campaignId = q.get('campaignId');
		const now = Date.now();
		const items = this.sortedReports(ctx.ws)
			.filter(
				(r) => accountId === null || r.accountId === accountId || r.serviceAccountId === accountId,
			)
			.filter((r) => campaignId === null || r.campaignIds.includes(campaignId))
			.filter((r) => (from === null || r.createdAt >= from) && (to === null || r.createdAt <= to))
			.filter((r) => !status || this.state.reportStatus(r, now) === status)
			.filter((r) => !format || r.format === format)
			.map((r) => this.state.reportView(r, now));
		return this.list(ctx, items);
	}

	private createReport(ctx: Ctx): Reply {
		const b = ctx.body;
		const bad = (msg: string): Reply => error(400, 'invalid_request', msg);
		// rule 1: required and optional fields, in order
		if (b.account_id === undefined) return bad('account_id is required.');
		if (typeof b.account_id !== 'string' || !/^act_\d+$/.test(b.account_id)) {
			return bad('account_id must be an ad platform account id: act_ followed by digits.');
		}
		if (b.title === undefined) return bad('title is required.');
		if (typeof b.title !== 'string' || b.title.trim() === '')
			return bad('title must be a non-empty string.');
		for (const f of ['date_start', 'date_end'] as const) {
			if (b[f] === undefined) return bad(`${f} is required.`);
			if (typeof b[f] !== 'string' || !isValidYmd(b[f] as string))
				return bad(`${f} must be a date in the format YYYY-MM-DD.`);
		}
		let campaignIds: string[] | undefined;
		if (b.campaign_ids !== undefined) {
			const v = b.campaign_ids;
			if (
				!Array.isArray(v) ||
				v.length === 0 ||
				!v.every((x) => typeof x === 'string' && x !== '')
			) {
				return bad('campaign_ids must be a non-empty array of campaign id strings.');
			}
			campaignIds = [...new Set(v as string[])];
		}
		let format: ReportFormat = 'pdf';
		if (b.format !== undefined) {
			if (
				typeof b.format !== 'string' ||
				!(REPORT_FORMATS as readonly string[]).includes(b.format)
			) {
				return bad(`format must be one of: ${REPORT_FORMATS.join(', ')}.`);
			}
			format = b.format as ReportFormat;
		}
		let whiteLabel: { companyName?: string; logoUrl?: string; primaryColor?: string } | undefined;
		if (b.whiteLabel !== undefined) {
			const w = b.whiteLabel as Record<string, unknown>;
			if (typeof w !== 'object' || w === null || Array.isArray(w))
				return bad('whiteLabel must be an object.');
			whiteLabel = {};
			if (w.companyName !== undefined) {
				if (typeof w.companyName !== 'string' || w.companyName.trim() === '')
					return bad('whiteLabel.companyName must be a non-empty string.');
				whiteLabel.companyName = w.companyName;
			}
			if (w.logoUrl !== undefined) {
				let ok = false;
				if (typeof w.logoUrl === 'string') {
					try {
						ok = ['http:', 'https:'].includes(new URL(w.logoUrl).protocol);
					} catch {
						ok = false;
					}
				}
				if (!ok) return bad('whiteLabel.logoUrl must be an absolute http(s) URL.');
				whiteLabel.logoUrl = w.logoUrl as string;
			}
			if (w.primaryColor !== undefined) {
				if (typeof w.primaryColor !== 'string' || !/^#[0-9a-fA-F]{6}$/.test(w.primaryColor)) {
					return bad('whiteLabel.primaryColor must be a hex color #rrggbb.');
				}
				whiteLabel.primaryColor = w.primaryColor;
			}
			if (Object.keys(whiteLabel).length === 0)
				return bad('whiteLabel must set companyName, logoUrl or primaryColor.');
		}
		const dateStart = b.date_start as string;
		const dateEnd = b.date_end as string;
		// rule 2
		const days = (Date.parse(dateEnd) - Date.parse(dateStart)) / DAY;
		if (days <= 0) return error(400, 'invalid_date_range', 'date_start must be before date_end.');
		if (days > 90)
			return error(400, 'invalid_date_range', 'The date range must not exceed 90 days.');
		// rule 3
		if (campaignIds && campaignIds.length > 20) {
			return error(400, 'too_many_campaigns', 'At most 20 campaign ids are allowed in one report.');
		}
		// rule 4
		if (whiteLabel && !this.state.workspaces[ctx.ws].whiteLabel) {
			return error(
				403,
				'white_label_not_available',
				'White-label reports require the Agency plan.',
			);
		}
		// rule 5 and ownership
		const accountId = b.account_id;
		const accounts = this.state.accounts.filter((a) => a.platformAccountId === accountId);
		const account = accounts.find((a) => a.ws === ctx.ws);
		if (!account) {
			if (accounts.length)
				return error(403, 'permission_error', 'This ad account belongs to a different workspace.');
			return notFound(`Ad account ${accountId}`);
		}
		if (campaignIds) {
			for (const id of campaignIds) {
				const c = this.state.campaigns.find((x) => x.id === id);
				if (!c) return notFound(`Campaign ${id}`);
				if (c.ws !== ctx.ws)
					return error(403, 'permission_error', `Campaign ${id} belongs to a different workspace.`);
				if (c.accountId !== account.id)
					return error(404, 'not_found', `Campaign ${id} not found in ad account ${accountId}.`);
			}
		}
		const { rec, estimatedCompletionSeconds } = this.state.generateReport({
			ws: ctx.ws,
			account,
			title: b.title,
			format,
			from: dateStart,
			to: dateEnd,
			campaignIds: campaignIds ?? this.state.campaignsOf(account.id).map((c) => c.id),
			...(whiteLabel ? { whiteLabel } : {}),
		});
		return this.single(
			ctx,
			{
				id: rec.id,
				title: rec.title,
				accountId: rec.accountId,
				status: this.state.reportStatus(rec),
				dateRange: { from: rec.from, to: rec.to },
				createdAt: this.state.stamp(rec.createdAt),
				estimatedCompletionSeconds,
			},
			202,
		);
	}

	private fileReply(r: ReportRec, ws: WorkspaceId | null): Reply {
		if (ws !== null && r.ws !== ws)
			return error(403, 'permission_error', 'This report belongs to a different workspace.');
		const now = Date.now();
		const status = this.state.reportStatus(r, now);
		if (status !== 'completed')
			return error(
				409,
				'report_not_ready',
				`Report ${r.id} is ${status}; it can be downloaded once completed.`,
			);
		if (now >= this.state.reportExpiresAt(r))
			return error(404, 'not_found', `The download link of report ${r.id} has expired.`);
		const account = this.state.accounts.find((a) => a.id === r.serviceAccountId);
		const file = renderReportFile({
			report: this.state.reportView(r, now),
			accountName: account?.name ?? r.accountId,
			currency: account?.currency ?? 'USD',
			analysis: r.analysis,
			...(r.whiteLabel ? { whiteLabel: r.whiteLabel } : {}),
			...(r.padTo ? { padTo: r.padTo } : {}),
			...(r.padNoise !== undefined ? { padNoise: r.padNoise } : {}),
		});
		return { status: 200, file };
	}

	private download(ctx: Ctx): Reply {
		const r = this.state.reports.find((x) => x.id === ctx.params[0]);
		if (!r) return notFound(`Report ${ctx.params[0]}`);
		return this.fileReply(r, ctx.ws);
	}

	private foreign(method: string, path: string, q: URLSearchParams): Reply {
		const m = /^\/v1\/reports\/([^/]+)\/download$/.exec(path);
		if (method !== 'GET' || !m) return error(404, 'not_found', `No such file: ${method} ${path}.`);
		const id = m[1];
		if (
			!this.state.verifySignature(
				id,
				q.get('expires') ?? undefined,
				q.get('signature') ?? undefined,
			)
		) {
			return error(
				401,
				'authentication_error',
				'The download link signature is missing or invalid.',
			);
		}
		const r = this.state.reports.find((x) => x.id === id);
		if (!r) return notFound(`Report ${id}`);
		return this.fileReply(r, null);
	}

	private createDiagnostic(ctx: Ctx): Reply {
		const id = ctx.body.campaign_id;
		if (id === undefined) return error(400, 'invalid_request', 'campaign_id is required.');
		if (typeof id !== 'string' || id === '')
			return error(400, 'invalid_request', 'campaign_id must be a campaign id string.');
		const c = this.state.campaigns.find((x) => x.id === id);
		if (!c) return notFound(`Campaign ${id}`);
		if (c.ws !== ctx.ws)
			return error(403, 'permission_error', 'This campaign belongs to a different workspace.');
		const now = Date.now();
		if (c.syncedAt > now) {
			return error(
				422,
				'campaign_not_synced',
				`The data of campaign ${id} has not been synced yet. Try again in a minute.`,
			);
		}
		if (
			this.state.diagnostics.some(
				(d) => d.campaignId === id && this.state.diagnosticStatus(d, now) === 'running',
			)
		) {
			return error(
				409,
				'diagnostic_in_progress',
				`A diagnostic is already running for campaign ${id}.`,
			);
		}
		const d = this.state.startDiagnostic(ctx.ws, c);
		return this.single(
			ctx,
			{
				id: d.id,
				campaignId: d.campaignId,
				status: 'running',
				createdAt: this.state.stamp(d.createdAt),
			},
			202,
		);
	}

	private getDiagnostic(ctx: Ctx): Reply {
		const d = this.state.diagnostics.find((x) => x.id === ctx.params[0]);
		if (!d) return notFound(`Diagnostic ${ctx.params[0]}`);
		if (d.ws !== ctx.ws)
			return error(403, 'permission_error', 'This diagnostic belongs to a different workspace.');
		return this.single(ctx, this.state.diagnosticView(d));
	}

	// ------------------------------------------------------------------ scenario controls

	addAccount(partial: Partial<Account> & { syncing?: boolean } = {}): Account {
		const {
			id,
			platformAccountId,
			name,
			currency,
			timezone,
			status,
			connectionStatus,
			businessName,
			businessId,
			permissions,
			connectedBy,
		} = partial;
		const rec = this.state.createAccount('A', {
			...(id ? { id } : {}),
			...(platformAccountId ? { platformAccountId } : {}),
			...(name ? { name } : {}),
			...(currency ? { currency } : {}),
			...(timezone ? { timezone } : {}),
			...(status ? { status } : {}),
			...(connectionStatus ? { connectionStatus } : {}),
			...(businessName ? { businessName } : {}),
			...(businessId ? { businessId } : {}),
			...(permissions ? { permissions } : {}),
			...(connectedBy ? { connectedBy } : {}),
			...(partial.connectedAt ? { connectedAt: this.serviceTimeOf(partial.connectedAt) } : {}),
			...(partial.lastSyncedAt ? { lastSyncedAt: this.serviceTimeOf(partial.lastSyncedAt) } : {}),
			...(partial.syncing ? { syncing: true } : {}),
		});
		return this.state.accountView(rec);
	}

	addCampaigns(accountId: string, count: number, partial?: Partial<Campaign>): Campaign[] {
		const a = this.state.findAccount(accountId);
		if (!a) throw new Error(`unknown account ${accountId}`);
		return this.state
			.addCampaigns(a, count, partial ? { partial } : {})
			.map((c) => this.state.campaignView(c));
	}

	addReports(count: number, partial: Partial<Report> = {}): Report[] {
		const a = partial.accountId
			? this.state.findAccount(partial.accountId)
			: this.sortedAccounts('A')[0];
		if (!a) throw new Error('addReports: no account');
		const now = Date.now();
		const status = partial.status ?? 'completed';
		const out: Report[] = [];
		for (let i = 0; i < count; i++) {
			const createdAt = partial.createdAt
				? this.serviceTimeOf(partial.createdAt)
				: now - (count - i) * 60000;
			let completeAt = createdAt + 15000;
			let pendingMs = 0;
			if (status === 'pending' || status === 'generating')
				completeAt = Math.max(now, createdAt) + this.state.scaled(15000);
			if (status === 'pending')
				pendingMs = Math.max(now, createdAt) + this.state.scaled(2000) - createdAt;
			if (status === 'completed' && partial.completedAt)
				completeAt = this.serviceTimeOf(partial.completedAt);
			const rec = this.state.createReport({
				ws: a.ws,
				account: a,
				title: partial.title ?? `${a.name} - Report ${i + 1}`,
				format: partial.format ?? 'pdf',
				createdAt,
				from: partial.dateRange?.from ?? iso(createdAt - 31 * DAY).slice(0, 10),
				to: partial.dateRange?.to ?? iso(createdAt - DAY).slice(0, 10),
				campaignIds: partial.campaignIds ?? this.state.campaignsOf(a.id).map((c) => c.id),
				durationMs: completeAt - createdAt,
				pendingMs,
				failure:
					status === 'failed'
						? (partial.error ?? { type: 'generation_failed', message: 'Report generation failed.' })
						: null,
				expiresAt: partial.expiresAt
					? this.serviceTimeOf(partial.expiresAt)
					: Math.max(now, completeAt) + this.state.scaled(7 * DAY),
			});
			if (partial.summary) rec.summary = { ...partial.summary };
			out.push(this.state.reportView(rec));
		}
		return out;
	}

	/**
	 * What the reports generated for an account (service or platform id) from now on show: given
	 * figures, a failure, or a long generation (see AccountReportScript); `{}` clears it.
	 */
	setReportScript(accountId: string, script: AccountReportScript): void {
		this.state.setReportScript(accountId, script);
	}

	/** A time given on the service's clock (to addReports, addAccount) as host time. */
	private serviceTimeOf(text: string): number {
		return this.state.unstamp(Date.parse(text));
	}

	snapshot(): {
		accounts: Account[];
		campaigns: Campaign[];
		reports: Report[];
		diagnostics: Diagnostic[];
	} {
		const now = Date.now();
		return {
			accounts: this.sortedAccounts('A').map((a) => this.state.accountView(a, now)),
			campaigns: this.sortedCampaigns('A').map((c) => this.state.campaignView(c)),
			reports: this.sortedReports('A').map((r) => this.state.reportView(r, now)),
			diagnostics: this.state.diagnostics
				.filter((d) => d.ws === 'A')
				.sort((x, y) => x.createdAt - y.createdAt)
				.map((d) => this.state.diagnosticView(d, now)),
		};
	}

	// ------------------------------------------------------------------ control API

	private control(method: string, path: string, raw: Buffer): Reply {
		let body: Record<string, unknown> = {};
		if (raw.length) {
			try {
				const parsed: unknown = JSON.parse(raw.toString('utf8'));
				body =
					parsed && typeof parsed === 'object' && !Array.isArray(parsed)
						? (parsed as Record<string, unknown>)
						: { value: parsed };
				if (parsed === null) body = { value: null };
			} catch {
				return error(400, 'invalid_request', 'Control API bodies are JSON.');
			}
		}
		const ok = (data: unknown = { ok: true }): Reply => ({ status: 200, json: { data } });
		const seg = path
			.split('/')
			.filter(Boolean)
			.slice(1)
			.map((s) => decodeURIComponent(s)); // after __fake
		const route = `${method} /${seg.map((s, i) => (i === 1 && seg.length >= 3 ? ':id' : s)).join('/')}`;
		try {
			switch (route) {
				case 'GET /log':
					return ok(this.log);
				case 'DELETE /log':
					this.log.length = 0;
					return ok();
				case 'PUT /faults':
					this.setFaults(
						'value' in body && body.value === null ? undefined : (body as FaultOptions),
					);
					return ok();
				case 'POST /inject':
					this.inject(body as unknown as InjectRule);
					return ok();
				case 'POST /answers': {
					// A scripted answer from outside the process (the bench's child fake): JSON only.
					const { answer, ...match } = body as Omit<InterceptRule, 'respond'> & {
						answer?: ScriptedAnswer;
					};
					if (!answer || typeof answer !== 'object')
						return error(400, 'invalid_request', 'answer must be a scripted answer object.');
					this.intercept({ ...match, respond: () => answer });
					return ok();
				}
				case 'DELETE /answers':
					this.clearIntercepts();
					return ok();
				case 'GET /state':
					return ok({
						url: this.url,
						foreignUrl: this.foreignUrl,
						keys: this.state.keys,
						timeScale: this.state.timeScale,
						...this.snapshot(),
					});
				case 'POST /accounts':
					return ok(this.addAccount(body as Partial<Account> & { syncing?: boolean }));
				case 'POST /accounts/:id/connection': {
					const status = body.status as ConnectionStatus;
					if (!CONNECTION_STATUSES.includes(status))
						return error(
							400,
							'invalid_request',
							'status must be active, disconnected or token_expired.',
						);
					this.state.setConnectionStatus(seg[1], status);
					return ok();
				}
				case 'PUT /accounts/:id/synced':
					// `at`: an ISO time on the service's clock
					this.state.setLastSynced(seg[1], this.state.unstamp(Date.parse(String(body.at))));
					return ok();
				case 'PUT /campaigns/:id/risk':
					this.state.setCampaignRisk(
						seg[1],
						body.riskScore === null ? null : Number(body.riskScore),
					);
					return ok();
				case 'PUT /accounts/:id/reports':
					this.setReportScript(seg[1], body as AccountReportScript);
					return ok();
				case 'POST /reports':
					return ok(this.addReports(Number(body.count ?? 1), body as Partial<Report>));
				case 'POST /reports/fail-next':
					this.state.failNextReports(Number(body.count ?? 1), body.error as ErrorInfo | undefined);
					return ok();
				case 'POST /diagnostics/fail-next':
					this.state.failNextDiagnostics(Number(body.count ?? 1));
					return ok();
				case 'POST /reports/size-next':
					if (!Array.isArray(body.bytes))
						return error(400, 'invalid_request', 'bytes must be a list of numbers.');
					this.state.sizeNextReports(body.bytes as number[]);
					return ok();
				case 'POST /reports/:id/expire':
					this.state.expireReport(seg[1]);
					return ok();
				case 'POST /reports/:id/size':
					if (typeof body.bytes !== 'number' || body.bytes < 0)
						return error(400, 'invalid_request', 'bytes must be a number.');
					this.state.setReportFileSize(seg[1], body.bytes);
					return ok();
				case 'PUT /reports/sizes':
					// {} or null: new reports get their natural size again
					this.state.setNewReportSizes(
						body.minBytes === undefined && body.maxBytes === undefined
							? undefined
							: (body as unknown as NewReportSizes),
					);
					return ok();
				case 'POST /campaigns':
					return ok(this.addCampaigns(String(body.accountId), Number(body.count ?? 1)));
				case 'POST /limits/reset':
					this.limiter.reset();
					return ok();
				case 'PUT /clock': {
					if (body.offsetMs !== undefined) {
						if (typeof body.offsetMs !== 'number' || !Number.isFinite(body.offsetMs))
							return error(400, 'invalid_request', 'offsetMs must be a number.');
						this.state.clockOffsetMs = body.offsetMs;
					}
					if (body.dateHeader !== undefined) this.setDateHeader(body.dateHeader as DateHeader);
					if (body.coarseFromFilter !== undefined)
						this.coarseFromFilter = body.coarseFromFilter === true;
					return ok({
						offsetMs: this.state.clockOffsetMs,
						dateHeader: this.dateHeader,
						coarseFromFilter: this.coarseFromFilter,
					});
				}
				default:
					return error(404, 'not_found', `No control endpoint ${method} ${path}.`);
			}
		} catch (e) {
			return error(400, 'invalid_request', (e as Error).message);
		}
	}
}
