/**
 * n8n-core reads its settings (user folder, binary-data mode) from the environment when its
 * DI container first builds a service. Point them at a throwaway folder before anything from
 * n8n-core is loaded, so tests never touch ~/.n8n and binary data goes through n8n's
 * filesystem store the way a default n8n 2.x install keeps it.
 *
 * Under jest each test file has its own copy of `process.env` and of this module, so each file
 * (whichever worker runs it) gets a folder of its own, removed when the file is done: the
 * binary store of one file is never another's, and runs leave nothing behind in the temp folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const given = process.env.N8N_USER_FOLDER;
const userFolder = given ?? mkdtempSync(path.join(tmpdir(), 'adperf-n8n-'));
process.env.N8N_USER_FOLDER = userFolder;
process.env.N8N_DEFAULT_BINARY_DATA_MODE ??= 'filesystem';
process.env.N8N_ENCRYPTION_KEY ??= 'test-encryption-key-not-secret';
process.env.N8N_DIAGNOSTICS_ENABLED = 'false';

// The bench loads the harness outside jest, where there is no afterAll.
if (given === undefined && typeof afterAll === 'function') {
	afterAll(() => rmSync(userFolder, { recursive: true, force: true }));
}

export const harnessUserFolder = userFolder;
