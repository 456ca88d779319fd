#!/usr/bin/env node
// Installs real n8n builds for the end-to-end tests into a cache folder outside the clone.
//
//   node scripts/e2e/install-n8n.mjs [latest|1.x|oldest|all] [--offline] [--json] [--version=<x.y.z>]
//
// Lines:
//   latest  newest installable n8n 2.x, run under Node 24 taken from the npm registry package `node`
//   1.x     newest n8n 1.x (the 1.123 line), run under the system Node.js (20)
//   oldest  the oldest n8n the package supports (README, Compatibility), under the system Node.js
//
// Layout of the cache (default ${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-ad-performance/e2e,
// override with N8N_E2E_CACHE):
//   node-<v>/                     npm host folder for node@<v> (Node 24 binary + headers)
//   n8n-<v>-node<major>/          npm host folder for n8n@<v>; `.e2e-complete.json` marks it done
//   n8n-<v>-node<major>.partial/  the same while it is being installed (a later run resumes it)
//   unresolvable.json             versions whose dependency tree the registry cannot satisfy
//   lines.json                    line -> {version, nodeBin, n8nBin, ...} of the last completed installs
//   logs/                         full npm output of every step
//
// Everything is idempotent: a completed install is skipped; a half-finished one is resumed.
// Also usable as a module: `import { ensureLine, installedLine } from './install-n8n.mjs'`.

import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const NODE24_RANGE = '24';
export const LINES = {
	latest: { major: 2, runtime: 'node24', description: 'newest installable n8n 2.x under Node 24' },
	'1.x': { major: 1, runtime: 'system', description: 'newest n8n 1.x under the system Node.js' },
	// The first n8n whose n8n-workflow (1.83.0) exports NodeConnectionTypes, which the compiled
	// nodes use at run time; 1.85.3 is its oldest release on the registry (measured: README).
	oldest: {
		major: 1,
		runtime: 'system',
		version: '1.85.3',
		description: 'oldest n8n the package supports, under the system Node.js',
	},
};
/** Packages whose install scripts must run (sqlite3 is n8n's default database driver). */
const REQUIRED_BUILDS = ['sqlite3'];
/** Built when present; a failure is reported but does not abort the install. */
const OPTIONAL_BUILDS = ['isolated-vm'];
/** Known not to build here (native part fetched/compiled from outside); never rebuilt. */
const SKIP_BUILDS = ['@confluentinc/kafka-javascript'];
const OVERRIDES = { xlsx: '0.18.5', linkedom: '0.18.14' };
const MAX_CANDIDATES = 6; // how many releases (newest first) to try before giving up

export function cacheRoot() {
	if (process.env.N8N_E2E_CACHE) return path.resolve(process.env.N8N_E2E_CACHE);
	const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
	return path.join(base, 'n8n-nodes-ad-performance', 'e2e');
}

const t0 = Date.now();
let quiet = false;
function log(msg) {
	if (quiet) return;
	const s = ((Date.now() - t0) / 1000).toFixed(1).padStart(6);
	process.stderr.write(`[install-n8n ${s}s] ${msg}\n`);
}

// ---------------------------------------------------------------- helpers

function semverCmp(a, b) {
	const pa = a.split('.').map(Number);
	const pb = b.split('.').map(Number);
	for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
	return 0;
}

function readJson(file, fallback) {
	try {
		return JSON.parse(fs.readFileSync(file, 'utf8'));
	} catch {
		return fallback;
	}
}

function writeJson(file, value) {
	const tmp = `${file}.${process.pid}.tmp`;
	fs.writeFileSync(tmp, JSON.stringify(value, null, 2) + '\n');
	fs.renameSync(tmp, file);
}

/** npm's own CLI script, so that it runs under whatever `node` is first on PATH. */
function npmCli() {
	const fromExec = process.env.npm_execpath;
	if (fromExec && fromExec.endsWith('npm-cli.js') && fs.existsSync(fromExec)) return fromExec;
	const npmBin = execFileSync('bash', ['-lc', 'command -v npm'], { encoding: 'utf8' }).trim();
	const real = fs.realpathSync(npmBin);
	// .../lib/node_modules/npm/bin/npm-cli.js
	if (real.endsWith('npm-cli.js')) return real;
	const guess = path.join(path.dirname(real), 'npm-cli.js');
	if (fs.existsSync(guess)) return guess;
	throw new Error(`cannot find npm-cli.js (npm at ${npmBin})`);
}

/**
 * Removes a (large) folder without waiting: renames it into <cache>/.trash and deletes it in a
 * detached `rm -rf` (deleting 1–3 GB of small files takes minutes on a busy disk).
 */
function discard(dir) {
	if (!fs.existsSync(dir)) return;
	const trash = path.join(cacheRoot(), '.trash');
	fs.mkdirSync(trash, { recursive: true });
	const target = path.join(trash, `${path.basename(dir)}-${process.pid}-${Date.now()}`);
	try {
		fs.renameSync(dir, target);
	} catch {
		fs.rmSync(dir, { recursive: true, force: true });
		return;
	}
	emptyTrash();
}

function emptyTrash() {
	const trash = path.join(cacheRoot(), '.trash');
	if (!fs.existsSync(trash) || !fs.readdirSync(trash).length) return;
	const child = spawn('rm', ['-rf', ...fs.readdirSync(trash).map((d) => path.join(trash, d))], { detached: true, stdio: 'ignore' });
	child.unref();
}

/** Children (process-group leaders) of this process that are still running. */
const activeChildren = new Set();

/**
 * While an install step runs, Ctrl-C kills its npm/node-gyp group (npm ignores SIGTERM for a
 * long while) and says the install will be resumed. The handlers exist only while a child
 * does, so a later Ctrl-C (say, of `npm start` hours after the install) is not taken for an
 * interrupted install, and the program's own handlers stop what it started.
 */
function onInstallSignal(sig) {
	for (const pid of activeChildren) {
		try {
			process.kill(-pid, 'SIGKILL');
		} catch {}
	}
	log(`${sig}: stopped; a later run resumes the half-finished install`);
	process.exit(128 + (sig === 'SIGINT' ? 2 : sig === 'SIGTERM' ? 15 : 1));
}
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
function addActiveChild(pid) {
	if (activeChildren.size === 0) for (const sig of SIGNALS) process.on(sig, onInstallSignal);
	activeChildren.add(pid);
}
function removeActiveChild(pid) {
	activeChildren.delete(pid);
	if (activeChildren.size === 0) for (const sig of SIGNALS) process.off(sig, onInstallSignal);
}

/**
 * Kills processes left behind by a run that died without cleaning up (SIGKILL, crash): every
 * process whose working directory is inside `dir`. Linux only (/proc); elsewhere a no-op.
 */
function killProcessesIn(dir) {
	if (!fs.existsSync('/proc')) return 0;
	let killed = 0;
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
		let cwd;
		try {
			cwd = fs.readlinkSync(`/proc/${entry}/cwd`);
		} catch {
			continue;
		}
		if (cwd === dir || cwd.startsWith(dir + path.sep)) {
			try {
				process.kill(Number(entry), 'SIGKILL');
				killed++;
			} catch {}
		}
	}
	return killed;
}

/**
 * Runs a command, sending its output to a log file. Resolves {code, tail}.
 */
function run(cmd, args, { cwd, env, logFile, timeoutMs = 30 * 60_000 }) {
	return new Promise((resolve) => {
		fs.mkdirSync(path.dirname(logFile), { recursive: true });
		const out = fs.openSync(logFile, 'a');
		fs.writeSync(out, `\n$ (cd ${cwd} && ${cmd} ${args.join(' ')})  # ${new Date().toISOString()}\n`);
		const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', out, out], detached: true });
		addActiveChild(child.pid);
		const timer = setTimeout(() => {
			fs.writeSync(out, `\n!! timeout after ${timeoutMs} ms, killing\n`);
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch {}
		}, timeoutMs);
		child.on('close', (code, signal) => {
			removeActiveChild(child.pid);
			clearTimeout(timer);
			fs.closeSync(out);
			const text = fs.readFileSync(logFile, 'utf8');
			resolve({ code: code ?? (signal ? 1 : 0), tail: text.split('\n').slice(-40).join('\n') });
		});
	});
}

function baseEnv(extra = {}) {
	const env = { ...process.env };
	// The repository's .npmrc sets ignore-scripts=true; none of that must leak into the cache installs.
	for (const k of Object.keys(env)) if (k.toLowerCase().startsWith('npm_config_')) delete env[k];
	delete env.npm_execpath;
	delete env.npm_lifecycle_event;
	delete env.npm_package_json;
	return {
		...env,
		npm_config_audit: 'false',
		npm_config_fund: 'false',
		npm_config_update_notifier: 'false',
		npm_config_loglevel: 'warn',
		...extra,
	};
}

/** Simple inter-process lock (mkdir), stale when its owner pid is gone. */
async function withLock(lockDir, fn) {
	for (let i = 0; ; i++) {
		try {
			fs.mkdirSync(lockDir);
			fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
			break;
		} catch (e) {
			if (e.code !== 'EEXIST') throw e;
			let pid = NaN;
			try {
				pid = Number(fs.readFileSync(path.join(lockDir, 'pid'), 'utf8').trim());
			} catch {}
			let alive = false;
			try {
				if (pid) {
					process.kill(pid, 0);
					alive = true;
				} else alive = Date.now() - fs.statSync(lockDir).mtimeMs < 10_000; // being created right now
			} catch {}
			if (!alive) {
				const base = lockDir.replace(/\.lock$/, '');
				const orphans = killProcessesIn(`${base}.partial`) + killProcessesIn(base);
				log(`removing stale lock ${lockDir} (pid ${pid || '?'} gone${orphans ? `; killed ${orphans} orphaned process(es) still working in its folder` : ''})`);
				fs.rmSync(lockDir, { recursive: true, force: true });
				continue;
			}
			if (i % 30 === 0) log(`waiting for another install (pid ${pid}) holding ${path.basename(lockDir)}`);
			await new Promise((r) => setTimeout(r, 2000));
		}
	}
	try {
		return await fn();
	} finally {
		fs.rmSync(lockDir, { recursive: true, force: true });
	}
}

/** Long steps (native builds take minutes) say every 15 s that they are still at work. */
const HEARTBEAT_MS = 15_000;

async function step(label, fn) {
	const s = Date.now();
	log(`${label} ...`);
	const heartbeat = setInterval(
		() => log(`${label}: still running (${Math.round((Date.now() - s) / 1000)}s)`),
		HEARTBEAT_MS,
	);
	try {
		const r = await fn();
		log(`${label} done in ${((Date.now() - s) / 1000).toFixed(1)}s`);
		return r;
	} finally {
		clearInterval(heartbeat);
	}
}

// ---------------------------------------------------------------- registry

async function npmView(spec, field, root) {
	const logFile = path.join(root, 'logs', 'npm-view.log');
	const tmpOut = path.join(root, 'logs', `view-${process.pid}.json`);
	fs.mkdirSync(path.dirname(logFile), { recursive: true });
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [npmCli(), 'view', spec, field, '--json'], {
			cwd: root,
			env: baseEnv(),
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let out = '';
		let err = '';
		child.stdout.on('data', (d) => (out += d));
		child.stderr.on('data', (d) => (err += d));
		child.on('close', (code) => {
			if (code !== 0) return reject(new Error(`npm view ${spec} ${field} failed: ${err.trim().slice(-500)}`));
			try {
				resolve(JSON.parse(out));
			} catch (e) {
				reject(e);
			}
			void tmpOut;
		});
	});
}

async function stableVersions(pkg, major, root) {
	let versions = await npmView(pkg, 'versions', root);
	if (!Array.isArray(versions)) versions = [versions];
	return versions.filter((v) => new RegExp(`^${major}\\.\\d+\\.\\d+$`).test(v)).sort(semverCmp).reverse();
}

// ---------------------------------------------------------------- Node 24 runtime

function node24Paths(dir) {
	const platformPkg = path.join(dir, 'node_modules', 'node', 'node_modules', `node-${process.platform}-${process.arch === 'x64' ? 'x64' : process.arch}`);
	return {
		dir,
		nodedir: platformPkg,
		binDir: path.join(platformPkg, 'bin'),
		nodeBin: path.join(platformPkg, 'bin', 'node'),
	};
}

async function ensureNode24(root, { offline }) {
	const existing = fs
		.readdirSync(root)
		.filter((d) => /^node-24\.\d+\.\d+$/.test(d) && fs.existsSync(path.join(root, d, '.e2e-complete.json')))
		.map((d) => d.slice(5))
		.sort(semverCmp)
		.reverse();
	let version;
	if (offline) {
		if (!existing.length) throw new Error('--offline: no Node 24 in the cache');
		version = existing[0];
	} else {
		try {
			const v = await npmView(`node@${NODE24_RANGE}`, 'version', root);
			version = (Array.isArray(v) ? v : [v]).sort(semverCmp).reverse()[0];
		} catch (e) {
			if (!existing.length) throw e;
			log(`registry not answering (${e.message.split('\n')[0]}); using cached Node ${existing[0]}`);
			version = existing[0];
		}
	}
	const dir = path.join(root, `node-${version}`);
	const paths = node24Paths(dir);
	if (fs.existsSync(path.join(dir, '.e2e-complete.json'))) {
		log(`node ${version}: cached (${paths.nodeBin})`);
		return { version, ...paths };
	}
	await withLock(`${dir}.lock`, async () => {
		if (fs.existsSync(path.join(dir, '.e2e-complete.json'))) return;
		fs.mkdirSync(dir, { recursive: true });
		writeJson(path.join(dir, 'package.json'), { private: true, name: 'e2e-node-host', dependencies: { node: version } });
		await step(`node ${version}: npm install node@${version}`, async () => {
			// the `node` package needs its own install script (it installs node-<platform>-<arch>)
			const r = await run(process.execPath, [npmCli(), 'install', '--no-audit', '--no-fund', '--ignore-scripts=false'], {
				cwd: dir,
				env: baseEnv(),
				logFile: path.join(root, 'logs', `node-${version}.log`),
			});
			if (r.code !== 0) throw new Error(`npm install node@${version} failed:\n${r.tail}`);
		});
		const v = execFileSync(paths.nodeBin, ['--version'], { encoding: 'utf8' }).trim();
		if (v !== `v${version}`) throw new Error(`${paths.nodeBin} reports ${v}, expected v${version}`);
		if (!fs.existsSync(path.join(paths.nodedir, 'include', 'node', 'node.h'))) throw new Error(`no headers in ${paths.nodedir}/include/node`);
		writeJson(path.join(dir, '.e2e-complete.json'), { version, completedAt: new Date().toISOString() });
	});
	log(`node ${version}: ${paths.nodeBin}`);
	return { version, ...paths };
}

// ---------------------------------------------------------------- n8n

function runtimeFor(line, node24) {
	if (LINES[line].runtime === 'node24') {
		return {
			nodeBin: node24.nodeBin,
			nodeVersion: `v${node24.version}`,
			env: baseEnv({
				PATH: `${node24.binDir}${path.delimiter}${process.env.PATH}`,
				npm_config_nodedir: node24.nodedir,
			}),
			key: 'node24',
		};
	}
	const nodeBin = process.execPath;
	return {
		nodeBin,
		nodeVersion: process.version,
		env: baseEnv({ PATH: `${path.dirname(nodeBin)}${path.delimiter}${process.env.PATH}` }),
		key: `node${process.versions.node.split('.')[0]}`,
	};
}

function hostPackageJson(version) {
	return { private: true, name: 'e2e-n8n-host', dependencies: { n8n: version }, overrides: { ...OVERRIDES } };
}

/** Packages in node_modules whose install scripts npm would run (including an implicit node-gyp build). */
function packagesWithInstallScripts(nodeModules) {
	const found = new Map();
	const visit = (dir) => {
		let entries;
		try {
			entries = fs.readdirSync(dir, { withFileTypes: true });
		} catch {
			return;
		}
		for (const e of entries) {
			if (!e.isDirectory() || e.name.startsWith('.')) continue;
			if (e.name.startsWith('@')) {
				visit(path.join(dir, e.name));
				continue;
			}
			const pkgDir = path.join(dir, e.name);
			const pj = readJson(path.join(pkgDir, 'package.json'), null);
			if (pj?.name) {
				const s = pj.scripts || {};
				const hasGyp = fs.existsSync(path.join(pkgDir, 'binding.gyp'));
				if (s.preinstall || s.install || s.postinstall || (hasGyp && !s.install)) {
					if (!found.has(pj.name)) found.set(pj.name, { name: pj.name, version: pj.version, dir: pkgDir, gyp: hasGyp, scripts: { preinstall: s.preinstall, install: s.install, postinstall: s.postinstall } });
				}
			}
			visit(path.join(pkgDir, 'node_modules'));
		}
	};
	visit(nodeModules);
	return [...found.values()];
}

export function installDirName(version, runtimeKey) {
	return `n8n-${version}-${runtimeKey}`;
}

function n8nBinIn(dir) {
	return path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n');
}

async function tryResolve(version, partial, rt, root) {
	fs.mkdirSync(partial, { recursive: true });
	const pjFile = path.join(partial, 'package.json');
	const lockFile = path.join(partial, 'package-lock.json');
	const want = hostPackageJson(version);
	const have = readJson(pjFile, null);
	if (JSON.stringify(have) !== JSON.stringify(want)) {
		writeJson(pjFile, want);
		fs.rmSync(lockFile, { force: true });
	}
	const lock = readJson(lockFile, null);
	if (lock?.packages?.['node_modules/n8n']?.version === version) {
		log(`n8n ${version}: dependency tree already resolved (${Object.keys(lock.packages).length} packages)`);
		return { ok: true };
	}
	return step(`n8n ${version}: resolve dependency tree (npm install --package-lock-only)`, async () => {
		const r = await run(rt.nodeBin, [npmCli(), 'install', '--package-lock-only', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], {
			cwd: partial,
			env: rt.env,
			logFile: path.join(root, 'logs', `${path.basename(partial)}-resolve.log`),
		});
		if (r.code !== 0) {
			fs.rmSync(lockFile, { force: true });
			const reason = (r.tail.match(/npm error (?:code|404|notarget).*$/gm) || []).slice(0, 4).join(' | ') || r.tail.split('\n').slice(-5).join(' ');
			return { ok: false, reason };
		}
		return { ok: true };
	});
}

async function installN8n(version, partial, rt, root) {
	const logBase = path.join(root, 'logs', path.basename(partial));
	const markerDone = (name) => path.join(partial, `.step-${name}`);
	if (!fs.existsSync(markerDone('install'))) {
		const nmDir = path.join(partial, 'node_modules');
		if (fs.existsSync(nmDir)) {
			// an npm install that was killed leaves half-extracted packages that a second
			// `npm install` takes as present (seen: empty `wrappy`, missing `util-deprecate/node.js`);
			// keep the resolved lockfile, extract everything again (from npm's cache)
			log(`n8n ${version}: discarding node_modules of an interrupted npm install`);
			discard(nmDir);
		}
		await step(`n8n ${version}: npm install --omit=dev --ignore-scripts`, async () => {
			const r = await run(rt.nodeBin, [npmCli(), 'install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], {
				cwd: partial,
				env: rt.env,
				logFile: `${logBase}-install.log`,
			});
			if (r.code !== 0) throw new Error(`npm install n8n@${version} failed (log ${logBase}-install.log):\n${r.tail}`);
		});
		fs.writeFileSync(markerDone('install'), new Date().toISOString());
	} else log(`n8n ${version}: packages already installed (resuming)`);

	const nm = path.join(partial, 'node_modules');
	const scripted = packagesWithInstallScripts(nm);
	const builds = { built: [], failed: [], skipped: [] };
	const names = new Set(scripted.map((p) => p.name));
	for (const name of [...REQUIRED_BUILDS, ...OPTIONAL_BUILDS]) {
		if (!names.has(name)) {
			if (REQUIRED_BUILDS.includes(name)) throw new Error(`${name} not in the installed tree`);
			continue;
		}
		const marker = markerDone(`build-${name.replace(/[^a-z0-9]+/gi, '_')}`);
		const pkg = scripted.find((p) => p.name === name);
		const minNode = /^>=\s*(\d+)/.exec(readJson(path.join(pkg.dir, 'package.json'), {}).engines?.node ?? '')?.[1];
		if (!REQUIRED_BUILDS.includes(name) && minNode && Number(rt.nodeVersion.slice(1).split('.')[0]) < Number(minNode)) {
			log(`n8n ${version}: not building ${name}@${pkg.version}: it needs Node >= ${minNode}, runtime is ${rt.nodeVersion}`);
			builds.skipped.push(`${name}@${pkg.version} (needs Node >= ${minNode})`);
			continue;
		}
		if (fs.existsSync(marker)) {
			builds.built.push(name);
			continue;
		}
		const r = await step(`n8n ${version}: npm rebuild ${name} (from source, against ${rt.nodeVersion})`, () =>
			run(rt.nodeBin, [npmCli(), 'rebuild', name, '--ignore-scripts=false', '--build-from-source', '--foreground-scripts'], {
				cwd: partial,
				env: rt.env,
				logFile: `${logBase}-rebuild-${name.replace(/[^a-z0-9]+/gi, '_')}.log`,
				timeoutMs: 15 * 60_000,
			}),
		);
		if (r.code !== 0) {
			if (REQUIRED_BUILDS.includes(name)) throw new Error(`npm rebuild ${name} failed:\n${r.tail}`);
			log(`n8n ${version}: WARNING: ${name} did not build (see ${logBase}-rebuild-*.log)`);
			builds.failed.push(name);
		} else {
			fs.writeFileSync(marker, new Date().toISOString());
			builds.built.push(name);
		}
	}
	for (const p of scripted) {
		if (REQUIRED_BUILDS.includes(p.name) || OPTIONAL_BUILDS.includes(p.name)) continue;
		builds.skipped.push(`${p.name}@${p.version}${SKIP_BUILDS.includes(p.name) ? ' (cannot build here)' : ''}`);
	}
	return builds;
}

async function verify(version, dir, rt) {
	return step(`n8n ${version}: check \`n8n --version\` and sqlite3 under ${rt.nodeVersion}`, async () => {
		const env = { ...rt.env, N8N_DIAGNOSTICS_ENABLED: 'false' };
		const out = execFileSync(rt.nodeBin, [n8nBinIn(dir), '--version'], { cwd: dir, env, encoding: 'utf8', timeout: 120_000 }).trim();
		if (!out.split('\n').some((l) => l.trim() === version)) throw new Error(`n8n --version printed ${JSON.stringify(out)}`);
		execFileSync(rt.nodeBin, ['-e', `const s=require(require.resolve('sqlite3',{paths:[${JSON.stringify(path.join(dir, 'node_modules', 'n8n'))}]}));new s.Database(':memory:').close()`], {
			cwd: dir,
			env,
			timeout: 60_000,
		});
	});
}

function recordLine(root, line, info) {
	const file = path.join(root, 'lines.json');
	withFileLockSync(`${file}.lock`, () => {
		const all = readJson(file, {});
		all[line] = info;
		writeJson(file, all);
	});
}

function withFileLockSync(lock, fn) {
	for (let i = 0; i < 200; i++) {
		try {
			fs.mkdirSync(lock);
			try {
				return fn();
			} finally {
				fs.rmSync(lock, { recursive: true, force: true });
			}
		} catch (e) {
			if (e.code !== 'EEXIST') throw e;
			try {
				if (Date.now() - fs.statSync(lock).mtimeMs > 30_000) fs.rmSync(lock, { recursive: true, force: true });
			} catch {}
			execFileSync('sleep', ['0.1']);
		}
	}
	throw new Error(`could not lock ${lock}`);
}

function lineInfo(line, version, dir, rt, extra = {}) {
	return {
		line,
		version,
		dir,
		nodeBin: rt.nodeBin,
		nodeVersion: rt.nodeVersion,
		n8nBin: n8nBinIn(dir),
		pathPrefix: path.dirname(rt.nodeBin),
		...extra,
	};
}

/**
 * Makes sure the n8n of one line is installed; returns its paths.
 * @param {'latest'|'1.x'|'oldest'} line
 * @param {{offline?: boolean, version?: string}} [opts]
 */
export async function ensureLine(line, opts = {}) {
	if (!LINES[line]) throw new Error(`unknown line ${line} (use ${Object.keys(LINES).join(', ')})`);
	const root = cacheRoot();
	fs.mkdirSync(path.join(root, 'logs'), { recursive: true });
	emptyTrash(); // what an earlier run could not finish deleting
	const { major } = LINES[line];
	const started = Date.now();

	let node24;
	if (LINES[line].runtime === 'node24') node24 = await ensureNode24(root, opts);
	const rt = runtimeFor(line, node24);
	log(`${line}: runtime ${rt.nodeVersion} (${rt.nodeBin})`);

	const completed = () =>
		fs
			.readdirSync(root)
			.filter((d) => d.startsWith('n8n-') && d.endsWith(`-${rt.key}`) && fs.existsSync(path.join(root, d, '.e2e-complete.json')))
			.map((d) => readJson(path.join(root, d, '.e2e-complete.json'), null))
			.filter((s) => s && s.version.startsWith(`${major}.`))
			.sort((a, b) => semverCmp(b.version, a.version));

	let candidates;
	if (opts.version) candidates = [opts.version];
	else if (LINES[line].version) candidates = [LINES[line].version];
	else if (opts.offline) {
		const c = completed();
		if (!c.length) throw new Error(`--offline: no completed n8n ${major}.x install in ${root}`);
		candidates = [c[0].version];
	} else {
		try {
			candidates = await step(`${line}: list n8n ${major}.x releases`, () => stableVersions('n8n', major, root));
			log(`${line}: newest releases: ${candidates.slice(0, MAX_CANDIDATES).join(', ')}`);
		} catch (e) {
			const c = completed();
			if (!c.length) throw e;
			log(`${line}: registry not answering (${e.message.split('\n')[0]}); using cached n8n ${c[0].version}`);
			candidates = [c[0].version];
		}
	}

	const unresolvableFile = path.join(root, 'unresolvable.json');
	const unresolvable = readJson(unresolvableFile, {});
	const RETRY_UNRESOLVABLE_MS = 24 * 3600_000;
	let tried = 0;
	for (const version of candidates) {
		const dir = path.join(root, installDirName(version, rt.key));
		const stampFile = path.join(dir, '.e2e-complete.json');
		if (fs.existsSync(stampFile)) {
			const stamp = readJson(stampFile, {});
			log(`${line}: n8n ${version} already installed (stamp ${stamp.completedAt}); skipping install`);
			const info = lineInfo(line, version, dir, rt, { coldInstallSeconds: stamp.installSeconds, builds: stamp.builds });
			recordLine(root, line, info);
			return info;
		}
		const bad = unresolvable[`${version}/${rt.key}`];
		if (bad && !opts.version && Date.now() - Date.parse(bad.at) < RETRY_UNRESOLVABLE_MS) {
			log(`${line}: n8n ${version} skipped: not installable from this registry (checked ${bad.at})`);
			continue;
		}
		if (++tried > MAX_CANDIDATES) break;

		const partial = `${dir}.partial`;
		const result = await withLock(`${dir}.lock`, async () => {
			if (fs.existsSync(stampFile)) return 'done-by-other';
			if (fs.existsSync(partial)) log(`${line}: resuming half-finished install in ${partial}`);
			const res = await tryResolve(version, partial, rt, root);
			if (!res.ok) {
				// The registry lacks one of its dependencies (e.g. 2.41.3 needs a missing @n8n/agents):
				// one quiet line, the full npm output is in the log folder.
				log(`${line}: n8n ${version} is not installable from this registry; trying the release before it`);
				unresolvable[`${version}/${rt.key}`] = { at: new Date().toISOString(), reason: res.reason };
				writeJson(unresolvableFile, unresolvable);
				discard(partial);
				return 'unresolvable';
			}
			const builds = await installN8n(version, partial, rt, root);
			await verify(version, partial, rt);
			const installSeconds = Math.round((Date.now() - started) / 100) / 10;
			discard(dir);
			fs.renameSync(partial, dir);
			writeJson(stampFile, {
				version,
				line,
				nodeVersion: rt.nodeVersion,
				nodeBin: rt.nodeBin,
				n8nBin: n8nBinIn(dir),
				overrides: OVERRIDES,
				builds,
				installSeconds,
				completedAt: new Date().toISOString(),
			});
			log(`${line}: n8n ${version} installed in ${installSeconds}s (cold)`);
			return 'installed';
		});
		if (result === 'unresolvable') continue;
		const stamp = readJson(stampFile, {});
		const info = lineInfo(line, version, dir, rt, { coldInstallSeconds: stamp.installSeconds, builds: stamp.builds });
		recordLine(root, line, info);
		return info;
	}
	throw new Error(`${line}: none of the newest n8n ${major}.x releases can be installed (see ${unresolvableFile})`);
}

/** Paths of an installed line without touching the network (throws if absent). */
export function installedLine(line) {
	const all = readJson(path.join(cacheRoot(), 'lines.json'), {});
	const info = all[line];
	if (!info || !fs.existsSync(path.join(info.dir, '.e2e-complete.json'))) {
		throw new Error(`n8n line ${line} is not installed; run: node scripts/e2e/install-n8n.mjs ${line}`);
	}
	return info;
}

// ---------------------------------------------------------------- CLI

async function main(argv) {
	const flags = new Set(argv.filter((a) => a.startsWith('--')));
	const version = argv.find((a) => a.startsWith('--version='))?.slice(10);
	const positional = argv.filter((a) => !a.startsWith('--'));
	const which = positional[0] || 'all';
	const lines = which === 'all' ? Object.keys(LINES) : [which];
	if (flags.has('--help')) {
		process.stdout.write(fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1, 21).join('\n') + '\n');
		return;
	}
	log(`cache: ${cacheRoot()}`);
	const results = {};
	if (flags.has('--sequential') || lines.length === 1) {
		for (const l of lines) results[l] = await ensureLine(l, { offline: flags.has('--offline'), version });
	} else {
		// both lines at once: the downloads overlap with the other line's native build
		const settled = await Promise.allSettled(lines.map((l) => ensureLine(l, { offline: flags.has('--offline'), version })));
		settled.forEach((s, i) => {
			if (s.status === 'rejected') {
				log(`${lines[i]}: FAILED: ${s.reason?.stack || s.reason}`);
				process.exitCode = 1;
			} else results[lines[i]] = s.value;
		});
	}
	if (flags.has('--json')) {
		process.stdout.write(JSON.stringify(results, null, 2) + '\n');
		return;
	}
	for (const [l, info] of Object.entries(results)) {
		const tag = { latest: 'LATEST', '1.x': 'V1', oldest: 'OLDEST' }[l];
		process.stdout.write(
			[
				`N8N_E2E_${tag}_VERSION=${info.version}`,
				`N8N_E2E_${tag}_NODE=${info.nodeBin}`,
				`N8N_E2E_${tag}_NODE_VERSION=${info.nodeVersion}`,
				`N8N_E2E_${tag}_N8N_BIN=${info.n8nBin}`,
				`N8N_E2E_${tag}_COLD_INSTALL_SECONDS=${info.coldInstallSeconds ?? ''}`,
			].join('\n') + '\n',
		);
	}
	log(`finished in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(fs.realpathSync(process.argv[1])).href) {
	main(process.argv.slice(2)).catch((e) => {
		log(`FAILED: ${e.stack || e}`);
		process.exit(1);
	});
} else {
	quiet = process.env.N8N_E2E_INSTALL_QUIET === '1';
}
