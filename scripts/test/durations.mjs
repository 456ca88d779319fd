// Writes test/durations.json, the seconds each jest test file took, from a `jest --json` report:
//   npx jest --json --outputFile=/tmp/jest.json && node scripts/test/durations.mjs /tmp/jest.json
// test/sequencer.cjs starts the longest files first by it on a machine whose jest has no timing
// cache of its own (a fresh CI machine), so that no long file starts last and runs on alone.
import fs from 'node:fs';
import path from 'node:path';

const [report] = process.argv.slice(2);
if (!report) {
	console.error('usage: node scripts/test/durations.mjs <jest --json report>');
	process.exit(2);
}
const root = path.resolve(import.meta.dirname, '../..');
const { testResults } = JSON.parse(fs.readFileSync(report, 'utf8'));
const seconds = Object.fromEntries(
	testResults
		.map((result) => [
			path.relative(root, result.name).split(path.sep).join('/'),
			Math.round((result.endTime - result.startTime) / 100) / 10,
		])
		.sort(([a], [b]) => (a < b ? -1 : 1)),
);
fs.writeFileSync(
	path.join(root, 'test/durations.json'),
	`${JSON.stringify(seconds, null, '\t')}\n`,
);
console.log(`test/durations.json: ${Object.keys(seconds).length} files`);
