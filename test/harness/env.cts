/**
 * n8n-core reads its settings (user folder, binary-data mode) from the environment when its
 * DI container first builds a service. Point them at a throwaway folder before anything from
 * n8n-core is loaded, so tests never touch ~/.n8n and binary data goes through n8n's
 * filesystem store the way a default n8n 2.x install keeps it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const userFolder = process.env.N8N_USER_FOLDER ?? mkdtempSync(path.join(tmpdir(), 'adperf-n8n-'));
process.env.N8N_USER_FOLDER = userFolder;
process.env.N8N_DEFAULT_BINARY_DATA_MODE ??= 'filesystem';
process.env.N8N_ENCRYPTION_KEY ??= 'test-encryption-key-not-secret';
process.env.N8N_DIAGNOSTICS_ENABLED = 'false';

export const harnessUserFolder = userFolder;
