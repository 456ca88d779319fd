#!/usr/bin/env node
// What n8n and npm will see of this package, checked before it is published.
//
//   node scripts/release/check-package.mjs           pack a fresh copy and scan it (CI)
//   node scripts/release/check-package.mjs --guard   refuse a publish that did not build (prepublishOnly)
//   node scripts/release/check-package.mjs --cloud-support   fail unless n8n-node says "eligible"
//
// Default mode: copies the tracked files (as a fresh clone has them: no dist/, `.npmrc` with
// `ignore-scripts=true`) into a temporary folder, links this checkout's node_modules, then
//   1. asserts that an unbuilt copy cannot be packed or published: `npm run pack -- --no-build`
//      and the `prepublishOnly` guard must both fail and leave no tarball;
//   2. packs it the two ways a tarball is made: the README's route, `npm run pack` (builds, then
//      packs, with lifecycle scripts off as on a fresh clone), and the publish route, `npm pack`
//      with lifecycle scripts on (so `prepack` builds, as on publish), each from an unbuilt copy;
//   3. asserts each tarball's file list: every file named in package.json's `n8n` section, the
//      icons and codex files beside the nodes, README, LICENSE, CHANGELOG; nothing from sandbox/,
//      test/, scripts/, examples/ and no TypeScript sources; both routes ship the same files;
//   4. runs n8n's community-package scanner (@n8n/scan-community-package, the analysis its CLI
//      runs after the provenance check) on the unpacked tarball (`**/*.js`, package.json) and on
//      the source (package.json, nodes/ and credentials/), and requires 0 findings.
// The provenance check itself needs a package published from GitHub Actions (see README,
// Releasing); it cannot run before the first publish.

import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { isForeign, requiredFiles } from './package-files.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function fail(lines) {
	process.stderr.write(`\n${[].concat(lines).join('\n')}\n\n`);
	process.exit(1);
}

function guard() {
	const missing = requiredFiles(ROOT).filter(
		(file) => file.startsWith('dist/') && !fs.existsSync(path.join(ROOT, file)),
	);
	if (missing.length > 0) {
		fail([
			'Refusing to publish: the package has not been built.',
			...missing.map((file) => `  missing ${file}`),
			'Run `npm run build` first (the release workflow does: `npm run release`).',
		]);
	}
	const stale = [];
	for (const dir of ['nodes', 'credentials']) {
		for (const file of fs.readdirSync(path.join(ROOT, dir), { recursive: true })) {
			if (!String(file).endsWith('.ts')) continue;
			const compiled = path.join(ROOT, 'dist', dir, String(file).replace(/\.ts$/, '.js'));
			const source = path.join(ROOT, dir, String(file));
			if (!fs.existsSync(compiled) || fs.statSync(compiled).mtimeMs < fs.statSync(source).mtimeMs)
				stale.push(`${dir}/${file}`);
		}
	}
	if (stale.length > 0) {
		fail([
			'Refusing to publish: dist/ is older than these sources.',
			...stale.map((file) => `  ${file}`),
			'Run `npm run build` first.',
		]);
	}
	process.stdout.write('dist/ is built and up to date.\n');
}

function freshCopy() {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adperf-pack-'));
	const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
		.split('\0')
		.filter(Boolean);
	for (const file of tracked) {
		const from = path.join(ROOT, file);
		if (!fs.existsSync(from)) continue; // deleted in the working tree
		fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
		fs.copyFileSync(from, path.join(dir, file));
	}
	// The toolchain of this checkout, as `npm ci` would have installed it.
	fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
	return dir;
}

async function scan(dir, patterns) {
	const { analyzePackage } = await import('@n8n/scan-community-package/scanner/scanner.mjs');
	return await analyzePackage(dir, patterns);
}

/** `n8n-node cloud-support` only prints the status (and exits 0 either way): read it. */
function cloudSupport() {
	const output = execFileSync(
		path.join(ROOT, 'node_modules/.bin/n8n-node'),
		['cloud-support'],
		{ cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } },
	).replace(/\x1b\[[0-9;]*m/g, '');
	const status = /Status:\s*(NOT eligible|eligible)/.exec(output)?.[1];
	process.stdout.write(`n8n-node cloud-support: ${status ?? 'no status printed'}\n`);
	if (status !== 'eligible') fail(output);
}

/** Runs a command in the copy; returns {status, stdout, stderr} (never throws on exit status). */
function run(command, args, cwd) {
	const r = spawnSync(command, args, {
		cwd,
		encoding: 'utf8',
		env: { ...process.env, npm_config_update_notifier: 'false' },
		maxBuffer: 64 * 1024 * 1024,
	});
	return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

const tarballsIn = (dir) => fs.readdirSync(dir).filter((file) => file.endsWith('.tgz'));

/** The file list of a tarball, without its `package/` prefix. */
function tarballFiles(tarball) {
	return execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
		.split('\n')
		.filter((line) => line && !line.endsWith('/'))
		.map((line) => line.replace(/^package\//, ''))
		.sort();
}

async function main() {
	if (process.argv.includes('--guard')) return guard();
	if (process.argv.includes('--cloud-support')) return cloudSupport();

	const copy = freshCopy();
	const out = fs.mkdtempSync(path.join(os.tmpdir(), 'adperf-tarball-'));
	const problems = [];
	try {
		process.stdout.write(`A fresh copy of the tracked files, unbuilt (${copy}):\n`);

		// 1. An unbuilt copy is refused, loudly, by the pack route and by the publish guard.
		const unbuiltOut = path.join(out, 'unbuilt');
		fs.mkdirSync(unbuiltOut);
		const noBuild = run('npm', ['run', 'pack', '--', unbuiltOut, '--no-build'], copy);
		const refusedPack = noBuild.status !== 0 && tarballsIn(unbuiltOut).length === 0;
		process.stdout.write(
			`  npm run pack -- --no-build: ${refusedPack ? `refused (exit ${noBuild.status}: ${/^Refusing .*$/m.exec(noBuild.stderr)?.[0] ?? 'no message'})` : 'NOT REFUSED'}\n`,
		);
		if (!refusedPack) problems.push(`an unbuilt copy was packed by \`npm run pack -- --no-build\`: ${tarballsIn(unbuiltOut).join(', ')}`);
		const guardRun = run('node', ['scripts/release/check-package.mjs', '--guard'], copy);
		process.stdout.write(`  prepublishOnly guard: ${guardRun.status !== 0 ? `refused (exit ${guardRun.status})` : 'NOT REFUSED'}\n`);
		if (guardRun.status === 0) problems.push('the prepublishOnly guard let an unbuilt copy through');

		// 2. The two routes that make a tarball, each from an unbuilt copy.
		const routes = [];
		const readmeOut = path.join(out, 'readme-route');
		fs.mkdirSync(readmeOut);
		const packRun = run('npm', ['run', 'pack', '--', readmeOut], copy);
		if (packRun.status !== 0) {
			problems.push(`\`npm run pack\` failed (exit ${packRun.status}):\n${packRun.stdout}\n${packRun.stderr}`);
		} else {
			routes.push(['npm run pack (README route, lifecycle scripts off)', path.join(readmeOut, tarballsIn(readmeOut)[0])]);
		}
		fs.rmSync(path.join(copy, 'dist'), { recursive: true, force: true });
		const publishOut = path.join(out, 'publish-route');
		fs.mkdirSync(publishOut);
		const publishRun = run('npm', ['pack', '--json', '--ignore-scripts=false', '--pack-destination', publishOut], copy);
		if (publishRun.status !== 0) {
			problems.push(`\`npm pack\` with prepack failed (exit ${publishRun.status}):\n${publishRun.stdout}\n${publishRun.stderr}`);
		} else {
			routes.push(['npm pack with prepack (publish route)', path.join(publishOut, tarballsIn(publishOut)[0])]);
		}

		// 3. Each tarball's file list.
		const lists = [];
		for (const [route, tarball] of routes) {
			const files = tarballFiles(tarball);
			lists.push(files.join('\n'));
			const compiled = files.filter((file) => file.startsWith('dist/')).length;
			process.stdout.write(
				`  ${route}: ${path.basename(tarball)}, ${files.length} files (${compiled} in dist/), ${(fs.statSync(tarball).size / 1024).toFixed(1)} kB\n`,
			);
			for (const file of requiredFiles(copy)) {
				if (!files.includes(file)) problems.push(`${route}: missing from the tarball: ${file}`);
			}
			for (const file of files) {
				if (isForeign(file)) problems.push(`${route}: must not be in the tarball: ${file}`);
			}
		}
		if (lists.length === 2 && lists[0] !== lists[1]) problems.push('the two routes ship different files');

		// 4. n8n's scanner on the README route's tarball and on the source.
		if (routes.length > 0) {
			const [, tarball] = routes[0];
			execFileSync('tar', ['-xzf', tarball, '-C', out]);
			const unpacked = path.join(out, 'package');
			const { SOURCE_FILE_PATTERNS } = await import(
				'@n8n/scan-community-package/scanner/scanner.mjs'
			);
			const results = [
				['tarball (**/*.js, package.json)', await scan(unpacked, ['**/*.js', 'package.json'])],
				[`source (${SOURCE_FILE_PATTERNS.join(', ')})`, await scan(copy, SOURCE_FILE_PATTERNS)],
			];
			for (const [what, result] of results) {
				process.stdout.write(
					`  scanner, ${what}: ${result.passed ? '0 findings' : `FAILED: ${result.message}`}\n`,
				);
				if (!result.passed) problems.push(`scanner, ${what}: ${result.message}\n${result.details ?? ''}`);
			}
		}
		if (problems.length > 0) fail(problems);
		process.stdout.write(
			'An unbuilt copy is refused; `npm run pack` on a fresh clone and the publish route ship the same files, every file n8n loads, and pass n8n\'s scanner.\n',
		);
	} finally {
		fs.rmSync(copy, { recursive: true, force: true });
		fs.rmSync(out, { recursive: true, force: true });
	}
}

main().catch((error) => fail(error?.stack ?? String(error)));
