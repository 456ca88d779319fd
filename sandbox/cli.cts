/**
 * Offline sandbox: `npm run sandbox [-- --port 4010 --time-scale 1 --seed 1 --json --foreign-downloads --host 127.0.0.1]`.
 * With --json, stdout carries exactly one line of JSON {url, foreignUrl, keys, timeScale}.
 */
import { startFakeService, type FakeServiceOptions } from './index.cjs';

interface CliArgs {
	port: number;
	host: string;
	timeScale: number;
	seed: number;
	json: boolean;
	foreign: boolean;
}

function usage(message?: string): never {
	if (message) process.stderr.write(`${message}\n`);
	process.stderr.write(
		'Usage: tsx sandbox/cli.cts [--port N] [--host H] [--time-scale X] [--seed N] [--json] [--foreign-downloads]\n',
	);
	process.exit(2);
}

function parseArgs(argv: string[]): CliArgs {
	const args: CliArgs = {
		port: 4010,
		host: '127.0.0.1',
		timeScale: 1,
		seed: 1,
		json: false,
		foreign: false,
	};
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		const [flag, inline] =
			a.startsWith('--') && a.includes('=')
				? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]
				: [a, undefined];
		const value = (): string => {
			const v = inline ?? argv[++i];
			if (v === undefined) usage(`${flag} needs a value`);
			return v;
		};
		const num = (name: string, v: string, min: number): number => {
			const n = Number(v);
			if (!Number.isFinite(n) || n < min) usage(`${name} must be a number >= ${min}`);
			return n;
		};
		switch (flag) {
			case '--port':
				args.port = num('--port', value(), 0);
				break;
			case '--host':
				args.host = value();
				break;
			case '--time-scale':
				args.timeScale = num('--time-scale', value(), Number.MIN_VALUE);
				break;
			case '--seed':
				args.seed = num('--seed', value(), 0);
				break;
			case '--json':
				args.json = true;
				break;
			case '--foreign-downloads':
				args.foreign = true;
				break;
			case '--help':
			case '-h':
				usage();
				break;
			default:
				usage(`Unknown option ${a}`);
		}
	}
	return args;
}

async function main(): Promise<void> {
	const args = parseArgs(process.argv.slice(2));
	const options: FakeServiceOptions = {
		port: args.port,
		host: args.host,
		timeScale: args.timeScale,
		seed: args.seed,
		...(args.foreign ? { downloadOrigin: 'foreign' as const } : {}),
	};
	const service = await startFakeService(options);
	if (args.json) {
		process.stdout.write(
			JSON.stringify({
				url: service.url,
				foreignUrl: service.foreignUrl,
				keys: service.keys,
				timeScale: args.timeScale,
			}) + '\n',
		);
	} else {
		const k = service.keys;
		const lines = [
			'',
			'  Ad Performance Reporting Service: offline sandbox (fake)',
			'',
			`  Base URL:        ${service.url}`,
			...(service.foreignUrl
				? [`  Download origin: ${service.foreignUrl}  (signed links, no API key)`]
				: []),
			`  Time scale:      ${args.timeScale}  (durations: reports 10-20 s, diagnostics 5-10 s, sync 30-60 s, limit window 60 s, all x ${args.timeScale})`,
			`  Seed:            ${args.seed}`,
			'',
			'  API keys:',
			`    ${k.live}   live key, workspace with 4 ad accounts, campaigns and reports  <- use this`,
			`    ${k.test}   test key, same sandbox workspace`,
			`    ${k.otherWorkspace}   another workspace (its resources give 403 permission_error to the keys above)`,
			`    ${k.noWhiteLabel}   workspace whose plan lacks white label (403 white_label_not_available)`,
			`    ${k.revoked}   revoked key (401 key_revoked)`,
			`    ${k.nonAgency}   workspace not on the Agency plan (403 plan_insufficient)`,
			'',
			'  In n8n: Credentials > New > Ad Performance API, then set',
			`    Base URL = ${service.url}`,
			`    API Key  = ${k.live}`,
			'',
			`  Control API: ${service.url}/__fake/state, /__fake/log, PUT /__fake/faults, POST /__fake/inject ...`,
			'  Press Ctrl+C to stop.',
			'',
		];
		process.stdout.write(lines.join('\n') + '\n');
	}
	let stopping = false;
	const shutdown = (): void => {
		if (stopping) return;
		stopping = true;
		service.stop().then(
			() => process.exit(0),
			() => process.exit(1),
		);
	};
	process.on('SIGINT', shutdown);
	process.on('SIGTERM', shutdown);
}

main().catch((e: unknown) => {
	process.stderr.write(`fake service failed to start: ${(e as Error).message}\n`);
	process.exit(1);
});
