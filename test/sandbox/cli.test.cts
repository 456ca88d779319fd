import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = path.resolve(__dirname, '../..');

describe('fake service: CLI (npm run sandbox)', () => {
	test('--json prints one JSON line {url, foreignUrl, keys, timeScale}; the service answers; SIGTERM stops it cleanly', async () => {
		// The script `npm run sandbox` runs, in node with tsx's loader: tsx's own command runs it in a
		// second process and relays a SIGTERM only if that process confirms it within 30 ms, else
		// exits 143 itself, which a busy machine made this test see.
		const child = spawn(
			process.execPath,
			[
				'--import',
				'tsx',
				'sandbox/cli.cts',
				'--json',
				'--port',
				'0',
				'--time-scale',
				'0.5',
				'--seed',
				'3',
				'--foreign-downloads',
			],
			{
				cwd: ROOT,
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		try {
			const lines: string[] = [];
			const rl = createInterface({ input: child.stdout });
			let timer: NodeJS.Timeout | undefined;
			const first = await new Promise<string>((resolve, reject) => {
				rl.on('line', (l) => {
					lines.push(l);
					if (lines.length === 1) resolve(l);
				});
				child.once('exit', (code) => reject(new Error(`cli exited early with ${code}`)));
				timer = setTimeout(() => reject(new Error('cli did not print')), 20000);
			}).finally(() => clearTimeout(timer));
			const info = JSON.parse(first) as {
				url: string;
				foreignUrl: string;
				keys: Record<string, string>;
				timeScale: number;
			};
			expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
			expect(info.foreignUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
			expect(info.timeScale).toBe(0.5);
			expect(Object.keys(info.keys).sort()).toEqual([
				'live',
				'noWhiteLabel',
				'nonAgency',
				'otherWorkspace',
				'revoked',
				'test',
			]);
			const res = await fetch(`${info.url}/v1/accounts`, {
				headers: { 'x-api-key': info.keys.live, 'service-version': '2026-03-01' },
			});
			expect(res.status).toBe(200);
			expect(((await res.json()) as { data: unknown[] }).data).toHaveLength(4);
			const exited = new Promise<number | null>((resolve) =>
				child.once('exit', (code) => resolve(code)),
			);
			child.kill('SIGTERM');
			expect(await exited).toBe(0);
			expect(lines).toHaveLength(1);
		} finally {
			if (child.exitCode === null) child.kill('SIGKILL');
		}
	}, 30000);
});
