import { config } from '@n8n/node-cli/eslint';

// n8n's own community-node lint (the rules of its community-package scanner), unchanged.
// Tests, the fake service and scripts run only on developer machines and in CI, never inside n8n.
export default [{ ignores: ['test/**', 'scripts/**', 'examples/**', 'coverage/**', '*.js', '*.mjs'] }, ...config];
