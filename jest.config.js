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
	// The end-to-end suite runs a real n8n and is started by `npm run test:e2e`.
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/'],
	transform: {
		'^.+\\.c?ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
	},
	testTimeout: 30000,
	// Two workers whatever the machine: most of a run is waiting (on the fake's time-scaled
	// clock, on timeouts and Stop that the tests prove, on n8n's engine), so a second file runs
	// while the first one waits. Jest's own default on 2 cores is one worker, in band. Every
	// file starts its own fake service on an ephemeral port of 127.0.0.1 and gets its own n8n
	// user folder (test/harness/env.cts), so files share nothing but the CPU.
	maxWorkers: 2,
	// n8n-core keeps process-wide handles (its DI services) open after a workflow has run.
	forceExit: true,
};
