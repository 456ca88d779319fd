/**
 * Fake Ad Performance Reporting Service: a stateful test double and offline sandbox.
 * See server.cts for its behaviour; docs/service-notes.md states the rules it implements.
 */
import { FakeServer, type FakeService, type FakeServiceOptions } from './server.cjs';

export type {
	DateHeader,
	FakeService,
	FakeServiceOptions,
	FaultOptions,
	InjectRule,
	InterceptRule,
	InterceptedRequest,
	LoggedRequest,
	RealReply,
	ScriptedAnswer,
} from './server.cjs';
export { SERVICE_VERSION } from './server.cjs';
export { startOtherOrigin, type OtherOrigin } from './other-origin.cjs';
export {
	endlessEmptyCoding,
	endlessFileAnswer,
	endlessHeaderLines,
	endlessInterimAnswers,
	endlessJsonAnswer,
	gzipBombAnswer,
	slowHeadAnswer,
	trickling,
} from './hostile.cjs';
export type { StreamingOptions } from './streaming.cjs';
export type { Account, Campaign, Report, Diagnostic } from './types.cjs';

export async function startFakeService(options: FakeServiceOptions = {}): Promise<FakeService> {
	const server = new FakeServer(options);
	await server.listen();
	const state = server.state;
	const service: FakeService = {
		url: server.url,
		...(server.foreignUrl ? { foreignUrl: server.foreignUrl } : {}),
		keys: { ...state.keys },
		log: server.log,
		clearLog: () => {
			server.log.length = 0;
		},
		setFaults: (faults) => server.setFaults(faults),
		injectOnce: (rule) => server.inject(rule),
		intercept: (rule) => server.intercept(rule),
		clearIntercepts: () => server.clearIntercepts(),
		accounts: () => server.snapshot().accounts,
		campaigns: () => server.snapshot().campaigns,
		reports: () => server.snapshot().reports,
		diagnostics: () => server.snapshot().diagnostics,
		addAccount: (partial) => server.addAccount(partial),
		addCampaigns: (accountId, count, partial) => server.addCampaigns(accountId, count, partial),
		addReports: (count, partial) => server.addReports(count, partial),
		setConnectionStatus: (accountId, status) => state.setConnectionStatus(accountId, status),
		failNextReports: (count, error) => state.failNextReports(count, error),
		failNextDiagnostics: (count) => state.failNextDiagnostics(count),
		setCampaignRisk: (campaignId, riskScore) => state.setCampaignRisk(campaignId, riskScore),
		setLastSynced: (accountId, at) => state.setLastSynced(accountId, state.unstamp(Date.parse(at))),
		holdRunningDiagnostics: (realMs) => state.holdRunningDiagnostics(realMs),
		holdNextDiagnosticRunning: (realMs) => {
			server.intercept({
				method: 'POST',
				pathPrefix: '/v1/diagnostics',
				times: 1,
				respond: (_request, real) => {
					const reply = real();
					state.holdRunningDiagnostics(realMs);
					return { reply };
				},
			});
		},
		refuseConnections: (realMs) => server.refuseConnections(realMs),
		expireReport: (reportId) => state.expireReport(reportId),
		setReportFileSize: (reportId, bytes) => state.setReportFileSize(reportId, bytes),
		setNewReportSizes: (sizes) => state.setNewReportSizes(sizes),
		setClockOffset: (offsetMs) => {
			state.clockOffsetMs = offsetMs;
		},
		setDateHeader: (header) => server.setDateHeader(header),
		setCoarseFromFilter: (coarse) => {
			server.coarseFromFilter = coarse;
		},
		resetLimits: () => server.limiter.reset(),
		stop: () => server.stop(),
	};
	return service;
}
