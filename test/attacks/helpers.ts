/**
 * Shared pieces of the attack suite: the fake service with a second origin beside it, and the
 * checks every attack ends with (no secret anywhere the user or a log can see).
 */
import type { IDataObject } from 'n8n-workflow';
import tls from 'node:tls';

import { startOtherOrigin, type OtherOrigin } from '../fake-service';
import { captureLogs, expectNoKey } from '../faults/matrix';
import type { RunWorkflowResult, WorkflowNodeInput } from '../harness/run-workflow';
import { run, useFakeService, type TestService } from '../nodes/helpers';

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
	options: { items?: IDataObject[]; credentials?: IDataObject; cancelAfterMs?: number } = {},
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
