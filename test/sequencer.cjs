// Jest starts the longest test files first, by the times of its own last run (its cache); where
// it has none (a fresh CI machine) it would go by file size, and a short file that waits long (a
// fault matrix of a few lines) could start last and run on alone. There the seconds each file took
// in a measured run (test/durations.json, written by scripts/test/durations.mjs) stand in.
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const durations = require('./durations.json');

class LongestFirst extends Sequencer {
	time(test) {
		const cached = super.time(test);
		if (cached !== undefined) return cached;
		const relative = path
			.relative(test.context.config.rootDir, test.path)
			.split(path.sep)
			.join('/');
		const seconds = durations[relative];
		return seconds === undefined ? undefined : seconds * 1000;
	}
}

module.exports = LongestFirst;
