// The README is the user's page (issue 27): n8n's community-node template in at most 350 lines;
// every picture it shows is a PNG in docs/images/, by its absolute address in the repository that
// package.json names (so GitHub and npm's package page both show it; npm does not resolve a
// relative image path), and every relative link it makes leads to a file of the repository.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { REPO_ROOT } from '../../scripts/e2e/pack.mjs';

const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');

test("the README has at most 350 lines and the sections of n8n's community-node template", () => {
	const lines = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0);
	assert.ok(lines <= 350, `${lines} lines`);
	for (const section of [
		'Installation',
		'Credentials',
		'Operations',
		'Usage',
		'Compatibility',
		'Resources',
		'Version history',
	])
		assert.match(readme, new RegExp(`^## ${section}$`, 'm'), `no "## ${section}"`);
});

test('every picture in the README is a PNG in docs/images/, by its address in the repository package.json names', () => {
	const packageJson = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
	const [, ownerAndName] =
		/github\.com\/([^/]+\/[^/.]+)(\.git)?$/.exec(packageJson.repository.url) ?? [];
	assert.ok(
		ownerAndName,
		`repository.url ${packageJson.repository.url} is not a GitHub repository`,
	);
	const base = `https://raw.githubusercontent.com/${ownerAndName}/main/`;
	const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1]);
	assert.ok(images.length >= 3, `only ${images.length} pictures`);
	for (const image of images) {
		assert.ok(image.startsWith(base), `${image} is not an address below ${base}`);
		const file = image.slice(base.length);
		assert.match(file, /^docs\/images\/[\w.-]+\.png$/, image);
		const bytes = fs.readFileSync(path.join(REPO_ROOT, file));
		assert.equal(bytes.subarray(1, 4).toString(), 'PNG', `${file} is not a PNG`);
	}
});

test('every relative link of the README leads to a file of the repository', () => {
	const links = [...readme.matchAll(/(?<!!)\[[^\]]*\]\(([^)#]+)(#[^)]*)?\)/g)]
		.map((m) => m[1])
		.filter((target) => !/^[a-z]+:/.test(target));
	assert.ok(links.length > 0);
	for (const target of links)
		assert.ok(fs.existsSync(path.join(REPO_ROOT, target)), `${target} does not exist`);
});
