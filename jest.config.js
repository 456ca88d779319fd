/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// The end-to-end suite runs a real n8n and is started by `npm run test:e2e`.
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json', isolatedModules: true }],
	},
	testTimeout: 30000,
	// n8n-core keeps process-wide handles (its DI services) open after a workflow has run.
	forceExit: true,
};
