// Starts the fake service in a child process (its CLI), as a user's sandbox runs, for tests
// that drive a real n8n process against it.
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';

import { REPO_ROOT } from './pack.mjs';

export async function startFakeProcess({ timeScale = 0.02, extraArgs = [] } = {}) {
	const tsx = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
	const child = spawn(
		tsx,
		['sandbox/cli.cts', '--json', '--port', '0', '--time-scale', String(timeScale), ...extraArgs],
		{
			cwd: REPO_ROOT,
			stdio: ['ignore', 'pipe', 'inherit'],
		},
	);
	const info = await new Promise((resolve, reject) => {
		const lines = readline.createInterface({ input: child.stdout });
		lines.once('line', (line) => resolve(JSON.parse(line)));
		child.once('exit', (code) => reject(new Error(`fake service exited early (${code})`)));
	});
	const control = async (method, urlPath, body) => {
		const res = await fetch(`${info.url}${urlPath}`, {
			method,
			headers: body ? { 'content-type': 'application/json' } : {},
			body: body ? JSON.stringify(body) : undefined,
		});
		return res.headers.get('content-type')?.includes('json') ? res.json() : res.text();
	};
	return {
		...info,
		control,
		state: () => control('GET', '/__fake/state'),
		/**
		 * Adds an account to workspace A (the one the live key reaches) with `campaigns` campaigns
		 * (and its `timezone`, `currency` when given); resolves with the account's record.
		 */
		async addAccount({ name, connectionStatus = 'active', campaigns = 3, timezone, currency }) {
			const res = await control('POST', '/__fake/accounts', {
				name,
				connectionStatus,
				...(timezone ? { timezone } : {}),
				...(currency ? { currency } : {}),
			});
			if (campaigns > 0)
				await control('POST', '/__fake/campaigns', { accountId: res.data.id, count: campaigns });
			return res.data;
		},
		log: () => control('GET', '/__fake/log'),
		/**
		 * What the account's next reports show until changed: `{ summary }` (figures that replace
		 * the drawn ones), `{ error }` (they fail), `{ generatingMs }` (they take that long); `{}`
		 * clears it.
		 */
		async setNextReports(accountId, script) {
			const res = await control(
				'PUT',
				`/__fake/accounts/${encodeURIComponent(accountId)}/reports`,
				script,
			);
			if (!res?.data?.ok) throw new Error(`setNextReports: ${JSON.stringify(res)}`);
		},
		/**
		 * Every report created from now on through POST /v1/reports gets a file of a size drawn
		 * from [minBytes, maxBytes] with `seed` (PDFs padded with incompressible noise unless
		 * `fill: 'spaces'`); `undefined`: natural sizes again. PUT /__fake/reports/sizes.
		 */
		async setNewReportSizes(sizes) {
			const res = await control('PUT', '/__fake/reports/sizes', sizes ?? {});
			if (!res?.data?.ok) throw new Error(`setNewReportSizes: ${JSON.stringify(res)}`);
		},
		/** The data of an Ad Performance API credential for this sandbox (live key, its Time Scale). */
		credentialData: () => ({
			apiKey: info.keys.live,
			baseUrl: info.url,
			apiVersion: '2026-03-01',
			timeScale,
		}),
		/**
		 * A report's file as the service sends it. Read with the workspace's second key (keys.test),
		 * whose rate-limit window is its own, so that checking 60 files after a round neither steals
		 * the workflows' reads nor meets a 429 left by them; a 429 or 500 is waited out and retried.
		 */
		async download(reportId, { attempts = 30 } = {}) {
			for (let attempt = 1; ; attempt++) {
				const res = await fetch(`${info.url}/v1/reports/${reportId}/download`, {
					headers: { 'x-api-key': info.keys.test, 'service-version': '2026-03-01' },
				});
				const bytes = Buffer.from(await res.arrayBuffer());
				if (res.status === 200)
					return {
						bytes,
						disposition: res.headers.get('content-disposition'),
						type: res.headers.get('content-type'),
					};
				if ((res.status !== 429 && res.status !== 500) || attempt >= attempts)
					throw new Error(
						`download of report ${reportId}: ${res.status} ${bytes.toString('utf8').slice(0, 300)}`,
					);
				await new Promise((resolve) => setTimeout(resolve, Math.min(2000, 100 * 2 ** attempt)));
			}
		},
		stop: () =>
			new Promise((resolve) => {
				if (child.exitCode !== null) return resolve();
				child.once('exit', resolve);
				child.kill('SIGTERM');
			}),
	};
}
