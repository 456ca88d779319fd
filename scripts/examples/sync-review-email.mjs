#!/usr/bin/env node
// The review workflow (examples/weekly-report-review.json) sends an approved client the same
// e-mail as the client-directory example: its node "E-mail the report" is a copy of that
// example's node of the same name. After changing that one, run
//   node scripts/examples/sync-review-email.mjs
// to copy its parameters, options and credentials over (position, id and notes stay).
// `--check` only reports whether the two differ (exit code 1 when they do).
import fs from 'node:fs';
import path from 'node:path';

import { REPO_ROOT } from '../e2e/pack.mjs';

export const EMAIL_NODE = 'E-mail the report';
const SOURCE = path.join(REPO_ROOT, 'examples', 'weekly-client-report-email-directory.json');
const TARGET = path.join(REPO_ROOT, 'examples', 'weekly-report-review.json');

/** The fields of a node that decide what it sends. */
export const sendingFields = (node) => ({
	type: node.type,
	typeVersion: node.typeVersion,
	parameters: node.parameters,
	credentials: node.credentials,
});

export function reviewEmailDiffers() {
	const source = JSON.parse(fs.readFileSync(SOURCE, 'utf8')).nodes.find(
		(n) => n.name === EMAIL_NODE,
	);
	const target = JSON.parse(fs.readFileSync(TARGET, 'utf8')).nodes.find(
		(n) => n.name === EMAIL_NODE,
	);
	return JSON.stringify(sendingFields(source)) !== JSON.stringify(sendingFields(target));
}

function sync() {
	const source = JSON.parse(fs.readFileSync(SOURCE, 'utf8')).nodes.find(
		(n) => n.name === EMAIL_NODE,
	);
	const text = fs.readFileSync(TARGET, 'utf8');
	const review = JSON.parse(text);
	const index = review.nodes.findIndex((n) => n.name === EMAIL_NODE);
	review.nodes[index] = { ...review.nodes[index], ...structuredClone(sendingFields(source)) };
	const out = `${JSON.stringify(review, null, '\t')}\n`;
	if (out !== text) fs.writeFileSync(TARGET, out);
	return out !== text;
}

if (import.meta.url === `file://${process.argv[1]}`) {
	if (process.argv.includes('--check')) {
		const differs = reviewEmailDiffers();
		process.stdout.write(
			differs
				? `${EMAIL_NODE} differs: run node scripts/examples/sync-review-email.mjs\n`
				: `${EMAIL_NODE}: the same\n`,
		);
		process.exit(differs ? 1 : 0);
	}
	process.stdout.write(
		sync()
			? `copied ${EMAIL_NODE} into ${path.relative(REPO_ROOT, TARGET)}\n`
			: 'already the same\n',
	);
}
