/**
 * Attack: an API call redirected, drawn by fast-check for every API call the nodes make: each
 * operation of the node and Wait for Ad Report (the fault matrix's rows, test/faults/matrix.cts),
 * the tool variants, the trigger's polls, the editor's list search (test/faults/paths.cts) and
 * the credential's Test button. One of the path's requests (the first, or a later one: a second
 * page, a poll's second list, a Wait sweep) is answered 301, 302, 303, 307 or 308 towards a
 * drawn target:
 *   - another origin: another server (another port), another name of the same machine (where
 *     the fake would answer its real records), the same name in capitals or full-width letters
 *     (the same other host), https for http, a user name and password (on the service's origin
 *     too), a user name that looks like the service's host, a non-http scheme;
 *   - the same origin: the address spelled another way (capitals, a hexadecimal, decimal or
 *     full-width IP, a trailing dot, a port with a leading zero), or a moved path;
 * and then:
 *   - another origin: the path fails as `request_refused`, saying the service redirected it; no
 *     connection is opened to the target (so neither the key nor the request goes there), and no
 *     record of it is read;
 *   - the same origin: the path works (its own checks, test/faults) and the hop carries the key;
 *   - a file (a download link) may be redirected to another origin: it is fetched there without
 *     the key, whole;
 *   - the credential test follows no redirect (n8n's tester would keep the key on every hop):
 *     any redirect fails it, and nothing reaches the target.
 * No spelling of the key in outputs, errors or logs.
 *
 * Budget: FC_REDIRECT_RUNS cases (`npm test` runs 16). A failure prints the seed and path;
 * `FC_SEED=… FC_PATH=…` replays it, `FC_ROWS=trigger,tool` draws only those rows.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { startOtherOrigin, type OtherOrigin } from '../../sandbox/index.cjs';
import type { RunWorkflowResult } from '../harness/run-workflow.cjs';
import { run, testCredential } from '../nodes/helpers.cjs';
import {
	captureLogs,
	expectNoKey,
	freshService,
	OPERATIONS,
	visibleText,
	type OperationRow,
} from '../faults/matrix.cjs';
import { asResult, PATH_ROWS } from '../faults/paths.cjs';
import { errorText, watchConnections } from './helpers.cjs';

const RUNS = Number(process.env.FC_REDIRECT_RUNS ?? 16);
const replay = process.env.FC_SEED
	? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH }
	: {};

/** What the other server answers if anything reaches it: records no workspace has. */
const INTRUDER = 'acc_intruder_7q';

let other: OtherOrigin;
beforeAll(async () => {
	other = await startOtherOrigin();
	other.answer(() => ({
		status: 200,
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify({
			data: [{ id: INTRUDER, name: 'Not your account', status: 'completed' }],
			pagination: { total: 1, page: 1, page_size: 100, hasMore: false },
		}),
	}));
});
afterAll(async () => {
	await other?.stop();
});

/** The credential's Test button as a path: one GET /v1/accounts, by n8n's tester. */
const CREDENTIAL_TEST: OperationRow = {
	name: 'credential test',
	prepare: (service) => ({
		nodes: [],
		injectAt: { method: 'GET', pathPrefix: '/v1/accounts' },
		execute: () =>
			asResult(async () => {
				const tested = await testCredential(service.credentials().adPerformanceApi);
				if (tested.status !== 'OK') throw new Error(tested.message);
				return [{ json: { ...tested } }];
			}),
		verify: (result) => expect(result.items[0]?.json.status).toBe('OK'),
	}),
};

/**
 * Where a redirect points, made from the request it answers (`pathAndQuery`), the address the
 * request went to (`self`: the service's Base URL, or a download host) and the other server.
 */
type Target = (at: { self: URL; pathAndQuery: string; other: URL }) => string;

const ELSEWHERE: Record<string, Target> = {
	'another server': ({ other: o, pathAndQuery }) => `${o.origin}${pathAndQuery}`,
	'another name of the same machine': ({ self, pathAndQuery }) =>
		`http://localhost:${self.port}${pathAndQuery}`,
	'that name in capitals': ({ self, pathAndQuery }) =>
		`HTTP://LocalHost:${self.port}${pathAndQuery}`,
	// A header travels in ASCII: the full-width name percent-encoded, as the URL parser reads it.
	'that name in full-width letters': ({ self, pathAndQuery }) =>
		`http://${encodeURIComponent('ｌｏｃａｌｈｏｓｔ')}:${self.port}${pathAndQuery}`,
	'https for http': ({ self, pathAndQuery }) => `https://${self.host}${pathAndQuery}`,
	'a user name and password on the same origin': ({ self, pathAndQuery }) =>
		`http://user:secret@${self.host}${pathAndQuery}`,
	'a user name that looks like the service': ({ self, other: o, pathAndQuery }) =>
		`http://${self.host}@${o.host}${pathAndQuery}`,
	'a scheme that is not http': ({ self, pathAndQuery }) => `ftp://${self.hostname}${pathAndQuery}`,
};

const SAME_ORIGIN: Record<string, Target> = {
	'the same address': ({ self, pathAndQuery }) => `${self.origin}${pathAndQuery}`,
	'a relative address': ({ pathAndQuery }) => pathAndQuery,
	'the scheme in capitals': ({ self, pathAndQuery }) => `HTTP://${self.host}${pathAndQuery}`,
	'a hexadecimal IP': ({ self, pathAndQuery }) => `http://0x7f.0.0.1:${self.port}${pathAndQuery}`,
	'a decimal IP': ({ self, pathAndQuery }) => `http://2130706433:${self.port}${pathAndQuery}`,
	'a full-width IP': ({ self, pathAndQuery }) =>
		`http://${encodeURIComponent('１２７.０.０.１')}:${self.port}${pathAndQuery}`,
	'a trailing dot': ({ self, pathAndQuery }) => `http://127.0.0.1.:${self.port}${pathAndQuery}`,
	'a port with a leading zero': ({ self, pathAndQuery }) =>
		`http://127.0.0.1:0${self.port}${pathAndQuery}`,
	'a moved path': ({ self, pathAndQuery }) => `${self.origin}/moved${pathAndQuery}`,
};

/** The prefix of a moved path, which the service answers as the path without it. */
const MOVED = '/moved';

const rowFilter = (process.env.FC_ROWS ?? '').split(',').filter(Boolean);
const rows = [...OPERATIONS, ...PATH_ROWS, CREDENTIAL_TEST].filter(
	(row) => rowFilter.length === 0 || rowFilter.some((word) => row.name.includes(word)),
);

type Case = [
	row: string,
	target: { name: string; elsewhere: boolean },
	nth: number,
	everyLater: boolean,
	status: 301 | 302 | 303 | 307 | 308,
	seed: number,
];

/**
 * The measured breaks (issue 49): the account list redirected elsewhere was read as the
 * workspace's own accounts, and the credential test sent the key there and said it worked.
 */
const EXAMPLES: Case[] = [
	[OPERATIONS[0].name, { name: 'another server', elsewhere: true }, 0, false, 302, 1],
	[CREDENTIAL_TEST.name, { name: 'another server', elsewhere: true }, 0, false, 302, 1],
];

test(
	`an API call redirected to another origin is refused, to its own origin followed: ${RUNS} cases`,
	async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.constantFrom(...rows.map((row) => row.name)),
				fc.oneof(
					fc.constantFrom(...Object.keys(ELSEWHERE)).map((name) => ({ name, elsewhere: true })),
					fc.constantFrom(...Object.keys(SAME_ORIGIN)).map((name) => ({ name, elsewhere: false })),
				),
				// Which of the path's requests is redirected (0: its first), and whether every later one is too.
				fc.nat({ max: 3 }),
				fc.boolean(),
				fc.constantFrom(301, 302, 303, 307, 308),
				fc.integer({ min: 1, max: 1_000_000 }),
				async (rowName, target, nth, everyLater, drawnStatus, seed) => {
					const row = rows.find((candidate) => candidate.name === rowName)!;
					const service = await freshService(seed, {
						timeScale: row.timeScale,
						downloadOrigin: 'foreign',
					});
					other.log.length = 0;
					try {
						const key = service.fake.keys.live;
						const prepared = await row.prepare(service, undefined);
						const base = new URL(service.fake.url);
						const foreign = new URL(service.fake.foreignUrl!);
						// Requests this rule sent elsewhere on its own origin (method and path): answered.
						const hops: string[] = [];
						const redirected: Array<{ file: boolean; location: string }> = [];
						let seen = 0;
						service.fake.intercept({
							respond: (request, real) => {
								const hop = hops.indexOf(`${request.method} ${request.path}`);
								if (hop >= 0) {
									hops.splice(hop, 1);
									if (request.path.startsWith(`${MOVED}/`))
										return { reply: real(request.path.slice(MOVED.length)) };
									return undefined;
								}
								const file = request.path.endsWith('/download');
								if (!file && (request.origin !== 'main' || !request.path.startsWith('/v1/')))
									return undefined;
								if (seen++ < nth || (redirected.length > 0 && !everyLater)) return undefined;
								const self = request.origin === 'main' ? base : foreign;
								const query = new URLSearchParams(request.query).toString();
								const pathAndQuery = `${request.path}${query ? `?${query}` : ''}`;
								const at = { self, pathAndQuery, other: new URL(other.url) };
								// A file may be on any host: a download on the service goes to its signed link on
								// the file host (a CDN), one on the file host to that host's other name.
								const id = /^\/v1\/reports\/([^/]+)\/download$/.exec(request.path)?.[1];
								const link = service.fake.reports().find((report) => report.id === id)?.downloadUrl;
								const location = !file
									? (target.elsewhere ? ELSEWHERE : SAME_ORIGIN)[target.name](at)
									: request.origin === 'main' && link
										? link
										: ELSEWHERE['another name of the same machine'](at);
								// A write keeps its method only through 307 and 308.
								const status =
									request.method === 'GET' ? drawnStatus : drawnStatus < 307 ? 307 : drawnStatus;
								const next = URL.canParse(location, self) ? new URL(location, self) : undefined;
								if (next && (file || !target.elsewhere))
									hops.push(`${request.method} ${next.pathname}`);
								redirected.push({ file, location });
								return { status, headers: { Location: location } };
							},
						});

						const watch = watchConnections();
						let result: RunWorkflowResult;
						let logs: string[];
						try {
							({ value: result, logs } = await captureLogs(
								() =>
									prepared.execute?.() ?? run(service, prepared.nodes, { items: prepared.items }),
							));
						} finally {
							watch.restore();
						}
						const context = { row: row.name, target, nth, everyLater, redirected };
						// Every redirect was sent as drawn: a header is ASCII.
						for (const { location } of redirected) expect(location).toMatch(/^[\x21-\x7e]+$/);
						expectNoKey(key, result, logs);
						expect(visibleText(result)).not.toContain(INTRUDER);
						// Connections went to the service's address, or for a file to its host's other name.
						// A port counts when a drawn redirect named it: the watch sees the whole jest worker,
						// where another file's leftovers (a keep-alive, a late retry) may connect meanwhile.
						const allowed = new Set([base.port, foreign.port]);
						const named = new Set(
							redirected.flatMap(({ location }) => {
								if (!URL.canParse(location, base)) return [];
								const url = new URL(location, base);
								return [url.port || (url.protocol === 'https:' ? '443' : '80')];
							}),
						);
						const stray = watch.attempts.filter(
							(attempt) =>
								(!allowed.has(String(attempt.port)) && named.has(String(attempt.port))) ||
								(attempt.host !== '127.0.0.1' && !redirected.some((r) => r.file)),
						);
						expect({ context, stray }).toEqual({ context, stray: [] });
						expect({ context, other: other.log.length }).toEqual({ context, other: 0 });
						// Whatever reached the fake under another name came without the key, for a file.
						for (const entry of service.fake.log) {
							if (entry.headers.host === base.host || entry.headers.host === foreign.host) continue;
							expect({ context, file: entry.path.endsWith('/download') }).toEqual({
								context,
								file: true,
							});
							expect(entry.headers['x-api-key']).toBeUndefined();
						}

						const refused = redirected.some(
							(r) => !r.file && (target.elsewhere || row === CREDENTIAL_TEST),
						);
						if (!refused) {
							expect({ context, error: result.error?.message }).toEqual({
								context,
								error: undefined,
							});
							await prepared.verify(result, service.fake);
							// Every hop arrived, and those within the origin carried the key.
							expect({ context, unanswered: hops }).toEqual({ context, unanswered: [] });
							for (const entry of service.fake.log) {
								if (entry.origin === 'main' && /^(\/moved)?\/v1\//.test(entry.path))
									expect(entry.headers['x-api-key']).toBe(key);
							}
							return;
						}
						expect({ context, items: result.items.length }).toEqual({ context, items: 0 });
						if (row === CREDENTIAL_TEST) {
							expect(result.error?.message).toMatch(
								/redirected the test request \(HTTP 30\d\)|status code 30\d/,
							);
							return;
						}
						expect({
							context,
							type: (result.error?.context as IDataObject | undefined)?.errorType,
						}).toEqual({
							context,
							type: 'request_refused',
						});
						expect(errorText(result)).toMatch(/The service redirected .+ to an address that/);
						const plain = !/user name|scheme/.test(target.name);
						if (plain) expect(errorText(result)).toMatch(/is on another origin \(/);
					} finally {
						service.fake.clearIntercepts();
						await service.fake.stop();
					}
				},
			),
			{
				numRuns: RUNS,
				examples: EXAMPLES.filter(([name]) => rows.some((row) => row.name === name)),
				...replay,
			},
		);
	},
	60_000 + RUNS * 5_000,
);
