#!/usr/bin/env node
// Makes sure Debian's Chromium is installed (for browser.mjs): `apt-get install -y chromium`
// when /usr/bin/chromium is missing. Needs root (as on the project's machines). Prints the path.
//
//   node scripts/e2e/ensure-chromium.mjs
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const BIN = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

function run(cmd, args) {
	const t = Date.now();
	process.stderr.write(`[ensure-chromium] ${cmd} ${args.join(' ')} ...\n`);
	const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
	process.stderr.write(`[ensure-chromium] ${cmd} ${args[0]} exited ${r.status} after ${((Date.now() - t) / 1000).toFixed(1)}s\n`);
	return r.status === 0;
}

if (!fs.existsSync(BIN)) {
	if (process.getuid?.() !== 0) {
		process.stderr.write(`[ensure-chromium] ${BIN} is missing and this is not root: run apt-get install -y chromium\n`);
		process.exit(1);
	}
	// install first from the lists already there; refresh them only when that fails
	if (!run('apt-get', ['install', '-y', 'chromium'])) {
		run('apt-get', ['update']);
		if (!run('apt-get', ['install', '-y', 'chromium'])) process.exit(1);
	}
}
const v = spawnSync(BIN, ['--version'], { encoding: 'utf8' });
process.stderr.write(`[ensure-chromium] ${(v.stdout || v.stderr).trim()}\n`);
process.stdout.write(`${BIN}\n`);
