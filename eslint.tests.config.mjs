// Lint rules for the code that never runs inside n8n: the tests, the fake service and the
// scripts (TypeScript in .cts, plain Node in .mjs). The package's own code is linted by n8n's
// unmodified config (eslint.config.mjs, `npm run lint`), which does not reach these files.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
	{ ignores: ['dist/**', 'node_modules/**', '.e2e-out/**', '.bench-out/**'] },
	{
		files: ['**/*.cts'],
		extends: [js.configs.recommended, ...tseslint.configs.recommended],
		rules: {
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
		},
	},
	{
		files: ['**/*.mjs', '**/*.cjs'],
		extends: [js.configs.recommended],
		languageOptions: { globals: { ...globals.node } },
		rules: {
			// Best-effort clean-up (kill a process, remove a folder) ignores its failure on purpose.
			'no-empty': ['error', { allowEmptyCatch: true }],
			// Parsers of terminal output and mail headers match control characters on purpose.
			'no-control-regex': 'off',
		},
	},
	{
		// The examples' logic (examples/src), written into n8n's Code nodes: a library is plain
		// declarations (the ones before it in a node's `// @uses` line are in scope), a node's
		// source is the body of the Code node inside `function code() { … }` (n8n's globals).
		files: ['examples/src/**/*.js'],
		extends: [js.configs.recommended],
		languageOptions: {
			sourceType: 'script',
			ecmaVersion: 2022,
			globals: {
				...globals.es2021,
				$: 'readonly',
				$input: 'readonly',
				$json: 'readonly',
				DateTime: 'readonly',
				...Object.fromEntries(
					[
						'plainText',
						'html',
						'slack',
						'slackLines',
						'forSendAndWait',
						'oneLine',
						'emailAddress',
						'MAX_VALUE',
						'localeOf',
						'currencyCode',
						'figure',
						'money',
						'count',
						'ratio',
						'day',
						'DIGEST_LINE',
						'sentSection',
						'renderDigest',
						'storedDigest',
						'portfolioHtml',
						'sparkline',
						'RISK_COLOURS',
						'TEAM_LOCALE',
						'weeklyEmail',
						'WATCH_DEFAULTS',
						'ALERT_SEVERITIES',
						'setting',
						'calendarDay',
						'checkOf',
						'findingKey',
						'pacingFinding',
						'syncFinding',
						'riskFinding',
						'findingChanges',
						'findingSentence',
						'watchAlert',
					].map((name) => [name, 'readonly']),
				),
			},
		},
		rules: {
			'no-control-regex': 'off',
			'no-redeclare': 'off',
			// a library's declarations and a node's `code` are used where the generator puts them
			'no-unused-vars': ['error', { vars: 'local' }],
		},
	},
	{
		// a library's declarations are what it offers the nodes after it
		files: ['examples/src/lib/*.js'],
		rules: { 'no-unused-vars': 'off' },
	},
	{
		// Functions that Playwright runs inside the page.
		files: ['scripts/e2e/browser.mjs'],
		languageOptions: { globals: { ...globals.browser } },
	},
);
