// Builds the package and makes the tarball a user would install, and refuses a tarball that
// lacks the compiled nodes. `npm run pack` (the README's tarball route), `npm start`, the e2e and
// queue-mode suites and the bench all pack through here.
//
// Plain `npm pack` on a fresh clone ships no code: `.npmrc` sets `ignore-scripts=true` (no
// dependency runs install scripts), which also turns `prepack` (the build) off, and `dist/` is not
// tracked. So this builds first, then packs, then checks the tarball's file list.
//
//   import { packPackage } from './pack.mjs';
//   const { tarball } = await packPackage({ outDir: '/tmp/x' });
//
// CLI (`npm run pack`): node scripts/e2e/pack.mjs [outDir] [--no-build]
//   outDir defaults to the current folder (where `npm pack` puts it); prints the tarball path.
//   --no-build packs dist/ as it is, and fails when it is missing.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { isForeign, requiredFiles } from '../release/package-files.mjs';

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
	const files = info.files.map((f) => f.path);
	const missing = requiredFiles(repoDir).filter((file) => !files.includes(file));
	const foreign = files.filter(isForeign);
	if (missing.length > 0 || foreign.length > 0) {
		fs.rmSync(tarball, { force: true });
		throw new Error(
			[
				`Refusing ${info.filename}: the tarball is not the package n8n loads (removed).`,
				...missing.map((file) => `  missing ${file}`),
				...foreign.map((file) => `  must not be in it: ${file}`),
				...(missing.some((file) => file.startsWith('dist/'))
					? [build ? 'The build did not produce dist/.' : 'dist/ is not built: run `npm run pack` (it builds first).']
					: []),
			].join('\n'),
		);
	}
	return { tarball, name: info.name, version: info.version, files, buildMs, packMs: Date.now() - t };
}

if (process.argv[1] && import.meta.url === pathToFileURL(fs.realpathSync(process.argv[1])).href) {
	const args = process.argv.slice(2);
	try {
		const r = await packPackage({ outDir: path.resolve(args.find((a) => !a.startsWith('--')) ?? '.'), build: !args.includes('--no-build') });
		const compiled = r.files.filter((file) => file.startsWith('dist/')).length;
		process.stderr.write(`packed ${r.name}@${r.version}: ${r.files.length} files, ${compiled} of them in dist/ (build ${r.buildMs} ms, pack ${r.packMs} ms)\n`);
		process.stdout.write(`${r.tarball}\n`);
	} catch (error) {
		process.stderr.write(`\n${error.message}\n\n`);
		process.exitCode = 1;
	}
}
