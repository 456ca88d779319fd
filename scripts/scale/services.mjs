// Postgres and Redis from Debian's packages, started on 127.0.0.1 for one run and stopped after
// it: the database and the job queue of n8n's queue mode (see queue-mode.mjs).
//
//   import { ensureDebianPackages, startPostgres, startRedis } from './services.mjs';
//   ensureDebianPackages();                        // apt-get install what is missing
//   const pg = await startPostgres();              // { host, port, user, password, database, env(), dump(), stop() }
//   const redis = await startRedis();              // { host, port, env(), snapshot(), stop() }
//
// Postgres refuses to run as root, so as root the throwaway cluster belongs to the `postgres`
// system user the package creates. Both servers live in a temporary folder that stop() removes.

import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { freePort } from '../e2e/n8n-instance.mjs';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function has(command) {
	return spawnSync('bash', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** The bin folder of the newest installed Postgres major (Debian keeps them under /usr/lib/postgresql). */
function postgresBinDir() {
	const root = '/usr/lib/postgresql';
	if (!fs.existsSync(root)) return undefined;
	const majors = fs
		.readdirSync(root)
		.filter((d) => fs.existsSync(path.join(root, d, 'bin', 'initdb')))
		.sort((a, b) => Number(b) - Number(a));
	return majors.length ? path.join(root, majors[0], 'bin') : undefined;
}

/**
 * Installs Debian's `postgresql` and `redis-server` when they are missing (a fresh CI machine).
 * Only the packages are installed; their system services are not used (and on a machine without
 * systemd not started).
 */
export function ensureDebianPackages({ log = (m) => process.stderr.write(`${m}\n`) } = {}) {
	const missing = [];
	if (!postgresBinDir()) missing.push('postgresql');
	if (!has('redis-server')) missing.push('redis-server');
	if (!missing.length) return [];
	if (!isRoot)
		throw new Error(
			`missing Debian packages: ${missing.join(' ')} (install them with apt-get as root)`,
		);
	log(`installing Debian packages: ${missing.join(' ')}`);
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	const install = () =>
		spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...missing], {
			env,
			encoding: 'utf8',
		});
	let r = install();
	if (r.status !== 0) {
		// a fresh machine may not have package lists yet
		execFileSync('apt-get', ['update'], { env, stdio: 'ignore' });
		r = install();
	}
	if (r.status !== 0)
		throw new Error(`apt-get install ${missing.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
	return missing;
}

/** Runs a command as the postgres system user when we are root (Postgres refuses root). */
function asPostgres(bin, args, options = {}) {
	const [cmd, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
	return execFileSync(cmd, argv, { encoding: 'utf8', ...options });
}

/**
 * asPostgres without blocking: a round's progress is read while the mail catcher, in this same
 * process, answers n8n's SMTP dialogue (a blocking psql held each of its replies up).
 */
function asPostgresAsync(bin, args, options = {}) {
	const [cmd, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
	return new Promise((resolve, reject) =>
		execFile(cmd, argv, { encoding: 'utf8', ...options }, (error, stdout) =>
			error ? reject(error) : resolve(stdout),
		),
	);
}

/** Asks a server's process group to stop, and kills it if it has not after `graceMs`. */
async function stopServer(server, hasExited, signal, graceMs) {
	const kill = (sig) => {
		try {
			process.kill(-server.pid, sig);
		} catch {}
	};
	if (hasExited()) return;
	kill(signal);
	await waitUntil(hasExited, { timeoutMs: graceMs, what: `${signal} to stop the server` }).catch(
		() => kill('SIGKILL'),
	);
}

/** Resolves with the first truthy value of `check`, asked every `intervalMs`, or fails after `timeoutMs`. */
export async function waitUntil(check, { timeoutMs, what, intervalMs = 200 }) {
	const started = Date.now();
	for (;;) {
		const value = await check();
		if (value) return value;
		if (Date.now() - started > timeoutMs)
			throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
		await new Promise((r) => setTimeout(r, intervalMs));
	}
}

/**
 * A throwaway Postgres cluster on 127.0.0.1 with one database for n8n. Local (socket) access is
 * trusted for our own tools; TCP needs the generated password, as n8n would use it.
 */
export async function startPostgres({ database = 'n8n', user = 'n8n' } = {}) {
	const bin = postgresBinDir();
	if (!bin) throw new Error('Postgres is not installed (ensureDebianPackages() installs it)');
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'scale-pg-'));
	fs.chmodSync(root, 0o755);
	const dataDir = path.join(root, 'data');
	const socketDir = path.join(root, 'socket');
	const logFile = path.join(root, 'postgres.log');
	const password = crypto.randomBytes(12).toString('hex');
	const pwFile = path.join(root, 'pw');
	fs.writeFileSync(pwFile, `${password}\n`);
	fs.mkdirSync(dataDir);
	fs.mkdirSync(socketDir);
	if (isRoot) execFileSync('chown', ['-R', 'postgres:postgres', root]);
	asPostgres(
		path.join(bin, 'initdb'),
		[
			'-D',
			dataDir,
			'-U',
			'postgres',
			'--pwfile',
			pwFile,
			'--auth-local=trust',
			'--auth-host=scram-sha-256',
			'-E',
			'UTF8',
			'--no-sync',
		],
		{ stdio: 'ignore' },
	);
	fs.rmSync(pwFile);
	const port = await freePort();
	const server = spawn(
		isRoot ? 'runuser' : path.join(bin, 'postgres'),
		[
			...(isRoot ? ['-u', 'postgres', '--', path.join(bin, 'postgres')] : []),
			'-D',
			dataDir,
			'-p',
			String(port),
			'-c',
			'listen_addresses=127.0.0.1',
			'-c',
			`unix_socket_directories=${socketDir}`,
			'-c',
			'fsync=off',
			'-c',
			'max_connections=200',
		],
		{ stdio: ['ignore', 'ignore', fs.openSync(logFile, 'a')], detached: true },
	);
	let exited = false;
	server.on('exit', () => (exited = true));
	const psqlArgs = (sql, db) => [
		'-h',
		socketDir,
		'-p',
		String(port),
		'-U',
		'postgres',
		'-d',
		db,
		'-v',
		'ON_ERROR_STOP=1',
		'-qAtc',
		sql,
	];
	const psql = (sql, db = 'postgres', options = {}) =>
		asPostgres(path.join(bin, 'psql'), psqlArgs(sql, db), options);
	await waitUntil(
		() => {
			if (exited)
				throw new Error(`postgres exited early:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`);
			return (
				spawnSync(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port)], {
					stdio: 'ignore',
				}).status === 0
			);
		},
		{ timeoutMs: 30_000, what: 'postgres' },
	);
	psql(`CREATE ROLE ${user} LOGIN PASSWORD '${password}'`);
	psql(`CREATE DATABASE ${database} OWNER ${user}`);
	return {
		host: '127.0.0.1',
		port,
		user,
		password,
		database,
		logFile,
		/** n8n's environment for this database */
		env: () => ({
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(port),
			DB_POSTGRESDB_DATABASE: database,
			DB_POSTGRESDB_USER: user,
			DB_POSTGRESDB_PASSWORD: password,
		}),
		/** One SQL statement's rows as text (psql -At); options for execFileSync (maxBuffer). */
		query: (sql, options) => psql(sql, database, options),
		/** query without blocking this process (a Promise of the same text). */
		queryAsync: (sql, options) =>
			asPostgresAsync(path.join(bin, 'psql'), psqlArgs(sql, database), options),
		/** The whole database as `pg_dump` writes it (plain SQL, data included). */
		dump: () =>
			asPostgres(
				path.join(bin, 'pg_dump'),
				['-h', socketDir, '-p', String(port), '-U', 'postgres', '-d', database],
				{ maxBuffer: 1024 * 1024 * 1024 },
			),
		async stop() {
			// SIGINT: Postgres's "fast" shutdown
			await stopServer(server, () => exited, 'SIGINT', 20_000);
			fs.rmSync(root, { recursive: true, force: true });
		},
	};
}

/**
 * A throwaway Redis on 127.0.0.1 that persists nothing by itself. snapshot() asks it to SAVE its
 * whole keyspace to an uncompressed RDB file and returns those bytes (every stored string is in
 * them verbatim), for checks that a secret never reached the queue.
 */
export async function startRedis() {
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'scale-redis-'));
	const logFile = path.join(root, 'redis.log');
	const port = await freePort();
	const server = spawn(
		'redis-server',
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--dir',
			root,
			'--dbfilename',
			'dump.rdb',
			'--rdbcompression',
			'no',
			'--logfile',
			logFile,
			'--daemonize',
			'no',
		],
		{ stdio: 'ignore', detached: true },
	);
	let exited = false;
	server.on('exit', () => (exited = true));
	const cli = (...args) =>
		execFileSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], {
			encoding: 'utf8',
		});
	await waitUntil(
		() => {
			if (exited)
				throw new Error(
					`redis-server exited early:\n${fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''}`,
				);
			return (
				spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'ping'], {
					encoding: 'utf8',
				}).stdout?.trim() === 'PONG'
			);
		},
		{ timeoutMs: 15_000, what: 'redis' },
	);
	return {
		host: '127.0.0.1',
		port,
		logFile,
		env: () => ({ QUEUE_BULL_REDIS_HOST: '127.0.0.1', QUEUE_BULL_REDIS_PORT: String(port) }),
		cli,
		/** The keyspace as an uncompressed RDB file, and how many keys it held. */
		snapshot() {
			cli('SAVE');
			return {
				bytes: fs.readFileSync(path.join(root, 'dump.rdb')),
				keys: Number(cli('DBSIZE').trim()),
			};
		},
		async stop() {
			await stopServer(server, () => exited, 'SIGTERM', 10_000);
			fs.rmSync(root, { recursive: true, force: true });
		},
	};
}
