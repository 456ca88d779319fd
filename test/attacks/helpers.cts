/**
 * Shared pieces of the attack suite: the fake service with a second origin beside it, and the
 * checks every attack ends with (no secret anywhere the user or a log can see).
 */
import type { IDataObject } from 'n8n-workflow';
import dns from 'node:dns';
import net from 'node:net';
import tls from 'node:tls';

import { startOtherOrigin, type LoggedRequest, type OtherOrigin } from '../../sandbox/index.cjs';
import { captureLogs, expectNoKey } from '../faults/matrix.cjs';
import type { RunWorkflowResult, WorkflowNodeInput } from '../harness/run-workflow.cjs';
import {
	adNode,
	apiRequests,
	run,
	useFakeService,
	type RunOptions,
	type TestService,
} from '../nodes/helpers.cjs';

export interface HostileService extends TestService {
	/** A second local server on another origin (where hostile redirects and links lead). */
	other: OtherOrigin;
}

/**
 * The fake service and another origin for a describe block. Scripted answers and the other
 * origin's log are cleared after every test, so each attack starts from a well-behaved service.
 */
export function useHostileService(
	options: Parameters<typeof useFakeService>[0] = {},
): HostileService {
	const service = useFakeService(options) as HostileService;
	beforeAll(async () => {
		service.other = await startOtherOrigin();
	});
	afterEach(() => {
		service.fake.clearIntercepts();
		service.fake.resetLimits();
		service.other.log.length = 0;
		service.other.answer(() => ({
			status: 200,
			headers: { 'Content-Type': 'application/json' },
			body: '{"data":[],"pagination":{"total":0,"page":1,"page_size":100,"hasMore":false}}',
		}));
	});
	afterAll(async () => {
		await service.other?.stop();
	});
	return service;
}

/** Runs the nodes with the console captured; fails the test if the key shows anywhere. */
export async function runAttack(
	service: TestService,
	nodes: WorkflowNodeInput[],
	options: RunOptions = {},
): Promise<RunWorkflowResult> {
	const { value: result, logs } = await captureLogs(() => run(service, nodes, options));
	const key = String(service.credentials(options.credentials).adPerformanceApi.apiKey);
	expectNoKey(key, result, logs);
	return result;
}

/** The texts of a failed run that the user reads: message and description. */
export function errorText(result: RunWorkflowResult): string {
	return `${result.error?.message ?? ''}\n${result.error?.description ?? ''}`;
}

/**
 * Trusts one extra certificate while `fn` runs, for connections that name no CA of their own.
 * (Jest gives tests a copy of the environment, so NODE_TLS_REJECT_UNAUTHORIZED set here would
 * not reach Node's TLS; n8n's request helper connects through `tls.connect`, patched here.)
 */
export async function trustCertificate<T>(certificate: string, fn: () => Promise<T>): Promise<T> {
	const original = tls.connect;
	const patched = (...args: unknown[]) => {
		const options = args.find((arg) => arg && typeof arg === 'object') as
			| { ca?: unknown }
			| undefined;
		if (options && options.ca === undefined) options.ca = [...tls.rootCertificates, certificate];
		return (original as (...a: unknown[]) => ReturnType<typeof tls.connect>)(...args);
	};
	(tls as { connect: unknown }).connect = patched;
	try {
		return await fn();
	} finally {
		(tls as { connect: unknown }).connect = original;
	}
}

/** Every request of the fake's log whose x-api-key header is set. */
export function keyedRequests(service: TestService) {
	return service.fake.log.filter((entry) => entry.headers['x-api-key'] !== undefined);
}

type LookupCallback = (
	error: NodeJS.ErrnoException | null,
	address: string | dns.LookupAddress[],
	family?: number,
) => void;

/**
 * Makes host names resolve to the given addresses (a public-looking name to 127.0.0.1, say)
 * until the returned function is called. Node's `net` looks a name up through the `dns`
 * module object when it connects, and Jest hands tests the real core modules, so every
 * connection n8n's request helpers open (axios → http → net) follows the table. Literal
 * addresses are never looked up; names not in the table resolve as usual.
 */
export function resolveHostNames(names: Record<string, string>): () => void {
	const table = new Map(
		Object.entries(names).map(([name, address]) => [name.toLowerCase(), address]),
	);
	const original = dns.lookup;
	const patched = function (this: unknown, hostname: string, ...rest: unknown[]) {
		const address = table.get(String(hostname).toLowerCase().replace(/\.$/, ''));
		if (address === undefined)
			return (original as (...args: unknown[]) => void).call(dns, hostname, ...rest);
		const callback = rest[rest.length - 1] as LookupCallback;
		const options = rest.length > 1 ? rest[0] : undefined;
		const family = net.isIP(address);
		const all =
			typeof options === 'object' && options !== null && (options as dns.LookupOptions).all;
		process.nextTick(() =>
			all ? callback(null, [{ address, family }]) : callback(null, address, family),
		);
	};
	(dns as { lookup: unknown }).lookup = patched;
	return () => {
		(dns as { lookup: unknown }).lookup = original;
	};
}

export interface ConnectionWatch {
	/** Every TCP connection opened while the watch ran: host (name or address, as asked) and port. */
	attempts: Array<{ host: string; port: number }>;
	restore(): void;
}

/**
 * Records every TCP connection opened until `restore()`, and sends connections for the hosts
 * in `divert` (literal addresses such as 10.1.2.3 or ::1, any port) to a local server instead,
 * so that a request which should never have left is seen arriving there (in a test, the other
 * origin's log) instead of hanging on an unreachable network.
 */
export function watchConnections(
	divert: Record<string, { host: string; port: number }> = {},
): ConnectionWatch {
	const attempts: ConnectionWatch['attempts'] = [];
	const prototype = net.Socket.prototype as unknown as { connect: (...args: unknown[]) => unknown };
	const original = prototype.connect;
	prototype.connect = function (this: net.Socket, ...args: unknown[]) {
		// net.createConnection passes its normalised [options, callback] array as one argument.
		const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
		if (first && typeof first === 'object' && 'port' in first) {
			const options = first as { host?: string; port?: number | string };
			const host = String(options.host ?? 'localhost').replace(/^\[|\]$/g, '');
			attempts.push({ host, port: Number(options.port) });
			const to = divert[host.toLowerCase()];
			if (to) {
				options.host = to.host;
				options.port = to.port;
			}
		}
		return original.apply(this, args);
	};
	return {
		attempts,
		restore: () => {
			prototype.connect = original;
		},
	};
}

/** Lets the fake answer its report list with each listed record changed by `edit`. */
export function editListedReports(service: TestService, edit: (record: IDataObject) => void) {
	service.fake.intercept({
		method: 'GET',
		pathPrefix: '/v1/reports',
		respond: (request, real) => {
			if (request.path !== '/v1/reports') return undefined;
			const reply = real();
			for (const record of (reply.json as { data: IDataObject[] }).data) edit(record);
			return { reply };
		},
	});
}

/**
 * The longest a hostile answer may stay open, as the fake times it, when an item's 2 s Timeout
 * cuts it: the Timeout, plus a second for a busy machine to act on it and for the fake to see the
 * connection go (the answers these tests send would otherwise last many seconds or never end).
 */
export const ANSWER_CUT_BY_2_S_TIMEOUT_MS = 3_000;

/**
 * The fake's record of how its streamed answers to `pathPrefix` ended, once every one of them
 * has ended (the fake notes it just after the client hangs up), or after 3 s.
 */
export async function streamedAnswers(
	service: TestService,
	pathPrefix: string,
): Promise<NonNullable<LoggedRequest['streamed']>[]> {
	for (let waited = 0; ; waited += 20) {
		const entries = apiRequests(service, { pathPrefix });
		const ended = entries.filter((entry) => entry.streamed !== undefined);
		if (ended.length === entries.length || waited >= 3_000) {
			return ended.map((entry) => entry.streamed!);
		}
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

/** Account → Get Many with Return All and one attempt: what a read does with one answer. */
export function allAccountsOnce() {
	return adNode({
		resource: 'account',
		operation: 'getAll',
		returnAll: true,
		requestOptions: { maxAttempts: 1 },
	});
}

/**
 * A completed report titled `title` for `dates`, of an active account's first two campaigns,
 * made 5 minutes ago, and 100 newer reports of another request before it, so that it stands on
 * page 2 of a Reuse search's window (newest first, 100 a page). For the Reuse attacks.
 */
export function reportPastTheFirstPage(
	service: TestService,
	title: string,
	dates: { from: string; to: string },
) {
	const account = service.fake.accounts().find((a) => a.connectionStatus === 'active')!;
	const campaigns = service.fake
		.campaigns()
		.filter((campaign) => campaign.accountId === account.id)
		.map((campaign) => campaign.id)
		.slice(0, 2);
	const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
	const request = {
		accountId: account.platformAccountId,
		dateRange: dates,
		format: 'pdf' as const,
		campaignIds: campaigns,
		status: 'completed' as const,
	};
	const [report] = service.fake.addReports(1, { ...request, title, createdAt: minutesAgo(5) });
	service.fake.addReports(100, { ...request, title: 'Another request', createdAt: minutesAgo(4) });
	return { account, campaigns, report };
}
