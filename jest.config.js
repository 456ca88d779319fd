const { availableParallelism } = require('node:os');

/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	// Test code is TypeScript in .cts files: n8n's community-node lint (which applies its rules
	// for code that runs inside n8n to every *.ts file) does not reach them, and
	// eslint.tests.config.mjs lints them with rules of their own. Imports between them name
	// the compiled extension (`./helpers.cjs`), as TypeScript requires for .cts files.
	testMatch: ['**/*.test.cts'],
	moduleFileExtensions: ['ts', 'cts', 'js', 'cjs', 'json'],
	resolver: '<rootDir>/test/resolve-cts.cjs',
	// n8n-core's AI sub-node connections, which no test makes: see the file.
	moduleNameMapper: { '^@langchain/core/tools$': '<rootDir>/test/harness/langchain-tools.cjs' },
	// The end-to-end suite runs a real n8n and is started by `npm run test:e2e`.
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/'],
	// The longest files first, also on a machine without jest's timing cache: see the file.
	testSequencer: '<rootDir>/test/sequencer.cjs',
	transform: {
		'^.+\\.c?ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
	},
	testTimeout: 30000,
	// Three workers a core (6 on 2 cores; jest's own default there is 1, in band): a test file waits
	// much of its time (on the fake's time-scaled clock, on the timeouts and Stops the tests
	// prove, on n8n's engine), so other files run meanwhile; the CPU of the whole run is about
	// 155 s, so 2 cores are not saturated before 6 workers. Measured on 2 quiet cores with warm
	// caches, 2026-11-29: 101 s with 4 workers, 88 and 91 s with 6, 88 s with 8 (no failure).
	// Every file starts its own fake service on an ephemeral port of 127.0.0.1 and gets its own
	// n8n user folder (test/harness/env.cts), so files share nothing but the CPU; tests that
	// depend on timing wait for what they mean (a request reaching the fake) and leave a busy
	// machine a margin.
	maxWorkers: availableParallelism() * 3,
	// n8n-core keeps process-wide handles (its DI services) open after a workflow has run.
	forceExit: true,
};
