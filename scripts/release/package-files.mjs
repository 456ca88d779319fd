// Which files the packed package must hold and which it must not: shared by every route that
// packs it (`npm run pack`, `npm start`, the e2e and queue-mode suites: scripts/e2e/pack.mjs)
// and by `npm run check:package` (scripts/release/check-package.mjs).

import fs from 'node:fs';
import path from 'node:path';

/**
 * Files the package must ship: package.json, README, LICENSE, CHANGELOG, every file named in
 * package.json's `n8n` section, the nodes' codex files and the icons their sources name.
 * @param {string} root the package folder (its package.json and sources are read)
 */
export function requiredFiles(root) {
	const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
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

/** Whether a file must not be in the tarball: sources, tests, the sandbox, scripts, examples. */
export function isForeign(file) {
	return (
		/^(sandbox|test|scripts|examples|nodes|credentials|\.github|\.ci)\//.test(file) ||
		(/\.ts$/.test(file) && !/\.d\.ts$/.test(file))
	);
}
