#!/usr/bin/env node
// What n8n and npm will see of this package, checked before it is published.
//
//   node scripts/release/check-package.mjs           pack a fresh copy and scan it (CI)
//   node scripts/release/check-package.mjs --guard   refuse a publish that did not build (prepublishOnly)
//   node scripts/release/check-package.mjs --cloud-support   fail unless n8n-node says "eligible"
//
// Default mode: copies the tracked files (as a fresh clone has them: no dist/) into a temporary
// folder, runs `npm pack` there with lifecycle scripts on (so `prepack` builds, as it does on
// publish), then
//   1. asserts the tarball's file list: every file named in package.json's `n8n` section, the
//      icons and codex files beside the nodes, README, LICENSE, CHANGELOG; nothing from sandbox/, test/,
//      scripts/, examples/ and no TypeScript sources;
//   2. runs n8n's community-package scanner (@n8n/scan-community-package, the analysis its CLI
//      runs after the provenance check) on the unpacked tarball (`**/*.js`, package.json) and on
//      the source (package.json, nodes/ and credentials/), and requires 0 findings.
// The provenance check itself needs a package published from GitHub Actions (see README,
// Releasing); it cannot run before the first publish.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

function fail(lines) {
	process.stderr.write(`\n${[].concat(lines).join('\n')}\n\n`);
	process.exit(1);
}

/** Files the package must ship: the n8n entries, and the icons and codex files they refer to. */
function requiredFiles(root) {
	const entries = [...pkg.n8n.credentials, ...pkg.n8n.nodes];
	const required = new Set(['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', ...entries]);
	for (const entry of pkg.n8n.nodes) required.add(entry.replace(/\.js$/, '.json'));
	// Icons named as `file:` in the sources, resolved next to the compiled file that names them.
	for (const entry of entries) {
		const source = path.join(root, entry.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
		if (!fs.existsSync(source)) continue;
		for (const match of fs.readFileSync(source, 'utf8').matchAll(/file:([^'"]+\.svg)/g)) {
			required.add(path.posix.normalize(path.posix.join(path.posix.dirname(entry), match[1])));
		}
	}
	return [...required].sort();
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

async function main() {
	if (process.argv.includes('--guard')) return guard();
	if (process.argv.includes('--cloud-support')) return cloudSupport();

	const copy = freshCopy();
	const out = fs.mkdtempSync(path.join(os.tmpdir(), 'adperf-tarball-'));
	try {
		process.stdout.write(`Packing a fresh copy of the tracked files (${copy})…\n`);
		const output = execFileSync(
			'npm',
			['pack', '--json', '--ignore-scripts=false', '--pack-destination', out],
			{ cwd: copy, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
		);
		// The build's own output (prepack) comes first; npm's JSON is the last thing printed.
		const packed = JSON.parse(output.slice(output.search(/^\[\s*$/m)))[0];
		const files = packed.files.map((file) => file.path).sort();
		process.stdout.write(
			`${packed.filename}: ${files.length} files, ${(packed.size / 1024).toFixed(1)} kB packed\n`,
		);

		const problems = [];
		for (const file of requiredFiles(copy)) {
			if (!files.includes(file)) problems.push(`missing from the tarball: ${file}`);
		}
		for (const file of files) {
			const foreign =
				/^(sandbox|test|scripts|examples|nodes|credentials|\.github|\.ci)\//.test(file) ||
				(/\.ts$/.test(file) && !/\.d\.ts$/.test(file));
			if (foreign) problems.push(`must not be in the tarball: ${file}`);
		}

		const unpacked = path.join(out, 'package');
		execFileSync('tar', ['-xzf', path.join(out, packed.filename), '-C', out]);
		const { SOURCE_FILE_PATTERNS } = await import(
			'@n8n/scan-community-package/scanner/scanner.mjs'
		);
		const results = [
			['tarball (**/*.js, package.json)', await scan(unpacked, ['**/*.js', 'package.json'])],
			[`source (${SOURCE_FILE_PATTERNS.join(', ')})`, await scan(copy, SOURCE_FILE_PATTERNS)],
		];
		for (const [what, result] of results) {
			process.stdout.write(
				`scanner, ${what}: ${result.passed ? '0 findings' : `FAILED: ${result.message}`}\n`,
			);
			if (!result.passed) problems.push(`scanner, ${what}: ${result.message}\n${result.details ?? ''}`);
		}
		if (problems.length > 0) fail(problems);
		process.stdout.write(`The tarball holds every file n8n loads and passes n8n's scanner.\n`);
	} finally {
		fs.rmSync(copy, { recursive: true, force: true });
		fs.rmSync(out, { recursive: true, force: true });
	}
}

main().catch((error) => fail(error?.stack ?? String(error)));
