// Builds the package and makes the tarball a user would install (`npm pack`).
//
//   import { packPackage } from './pack.mjs';
//   const { tarball } = await packPackage({ outDir: '/tmp/x' });
//
// CLI: node scripts/e2e/pack.mjs [outDir] [--no-build]   (prints the tarball path)

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function npm(args, cwd) {
	const r = spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' }, maxBuffer: 64 * 1024 * 1024 });
	if (r.status !== 0) throw new Error(`npm ${args.join(' ')} failed in ${cwd} (exit ${r.status})\n${r.stdout}\n${r.stderr}`);
	return r.stdout;
}

/**
 * @param {{repoDir?: string, outDir?: string, build?: boolean}} [options]
 * @returns {Promise<{tarball: string, name: string, version: string, files: string[], buildMs: number, packMs: number}>}
 */
export async function packPackage({ repoDir = REPO_ROOT, outDir, build = true } = {}) {
	const dest = outDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-pack-'));
	fs.mkdirSync(dest, { recursive: true });
	let t = Date.now();
	if (build) npm(['run', 'build'], repoDir);
	const buildMs = Date.now() - t;
	t = Date.now();
	// the build ran above; --ignore-scripts keeps a `prepack` from building a second time
	const out = npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dest], repoDir);
	const info = JSON.parse(out.slice(out.indexOf('[')))[0];
	const tarball = path.join(dest, info.filename);
	if (!fs.existsSync(tarball)) throw new Error(`npm pack reported ${info.filename} but ${tarball} is missing`);
	return { tarball, name: info.name, version: info.version, files: info.files.map((f) => f.path), buildMs, packMs: Date.now() - t };
}

if (process.argv[1] && import.meta.url === pathToFileURL(fs.realpathSync(process.argv[1])).href) {
	const args = process.argv.slice(2);
	const r = await packPackage({ outDir: args.find((a) => !a.startsWith('--')), build: !args.includes('--no-build') });
	process.stderr.write(`packed ${r.name}@${r.version}: ${r.files.length} files (build ${r.buildMs} ms, pack ${r.packMs} ms)\n`);
	process.stdout.write(`${r.tarball}\n`);
}
