/**
 * Attack (#30, outcomes named for what was seen): an answer that arrives packed and cannot be
 * unpacked (a damaged gzip trailer, a gzip header over plain JSON, brotli cut short) is a garbled
 * answer, not an unreachable service. A read is asked again; a Generate whose answer was
 * garbled is looked for (the service did the work) and never sent twice. A report file is asked
 * for unpacked: one packed anyway (n8n's helper would unpack a cut-short packing without an
 * error) is asked again, never stored in part.
 */
import type { IDataObject } from 'n8n-workflow';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';

import { generateParameters, rl } from '../nodes/helpers.cjs';
import { adNode, apiRequests } from '../nodes/helpers.cjs';
import { fileOf, INSPECTOR } from '../faults/matrix.cjs';
import { runAttack, useHostileService } from './helpers.cjs';

const service = useHostileService();

/** Ways to garble a JSON body while announcing it as packed. */
const GARBLINGS: Record<string, (json: string) => { coding: string; body: Buffer }> = {
	'a damaged gzip trailer': (json) => {
		const packed = gzipSync(Buffer.from(json));
		// The CRC and the length of the last 8 bytes no longer match what unpacks.
		for (let index = packed.length - 8; index < packed.length; index++) packed[index] ^= 0xff;
		return { coding: 'gzip', body: packed };
	},
	'a gzip header over plain JSON': (json) => ({ coding: 'gzip', body: Buffer.from(json) }),
	'a deflate header over plain JSON': (json) => ({ coding: 'deflate', body: Buffer.from(json) }),
	'brotli cut short': (json) => {
		const packed = brotliCompressSync(Buffer.from(json.repeat(20)));
		return { coding: 'br', body: packed.subarray(0, Math.floor(packed.length / 2)) };
	},
};

/** The fake's own answer to the first matching request, garbled as `garble` does it. */
function garbleOnce(
	method: string,
	pathPrefix: string,
	garble: (json: string) => { coding: string; body: Buffer },
) {
	service.fake.intercept({
		method,
		pathPrefix,
		times: 1,
		respond: (_request, real) => {
			const reply = real();
			const { coding, body } = garble(JSON.stringify(reply.json));
			return {
				status: reply.status,
				headers: { 'Content-Type': 'application/json', 'Content-Encoding': coding },
				body,
			};
		},
	});
}

describe.each(Object.entries(GARBLINGS))('%s', (_name, garble) => {
	test('a read is asked again and succeeds', async () => {
		garbleOnce('GET', '/v1/accounts', garble);
		const result = await runAttack(service, [
			adNode({ resource: 'account', operation: 'getAll', returnAll: true }),
		]);
		expect(result.error?.message).toBeUndefined();
		expect(result.items.length).toBeGreaterThan(0);
		expect(apiRequests(service, { pathPrefix: '/v1/accounts' })).toHaveLength(2);
	});

	test('with one attempt, the error says garbled, not unreachable', async () => {
		garbleOnce('GET', '/v1/accounts', garble);
		const result = await runAttack(service, [
			adNode({
				resource: 'account',
				operation: 'getAll',
				returnAll: true,
				requestOptions: { maxAttempts: 1 },
			}),
		]);
		expect(result.error?.message).toMatch(
			/^The service sent an answer that is not in its documented format/,
		);
		expect((result.error?.context as IDataObject | undefined)?.errorType).toBe('protocol_error');
	});

	test('a Generate whose answer was garbled finds its report and creates no second one', async () => {
		const account = service.fake.accounts().find((record) => record.name === 'Acme Outdoor')!;
		const title = `Garbled ${_name} ${Date.now()}`;
		garbleOnce('POST', '/v1/reports', garble);
		const result = await runAttack(service, [
			adNode(generateParameters({ accountId: rl(account.platformAccountId), title })),
		]);
		expect(result.error?.message).toBeUndefined();
		const made = service.fake.reports().filter((report) => report.title === title);
		expect(made).toHaveLength(1);
		expect(result.items[0].json.id).toBe(made[0].id);
		expect(apiRequests(service, { method: 'POST', pathPrefix: '/v1/reports' })).toHaveLength(1);
	});
});

describe('a report file cut short inside its packing, with whole HTTP framing', () => {
	// n8n's helper unpacks leniently (gzip, deflate and brotli alike): such a file would unpack
	// without an error into a part of itself. Files are asked for unpacked; one packed anyway is
	// garbled, asked again, and never stored.
	test.each([
		['gzip', (bytes: Buffer) => gzipSync(bytes)],
		['deflate', (bytes: Buffer) => deflateSync(bytes)],
		['br', (bytes: Buffer) => brotliCompressSync(bytes)],
	] as const)('%s: asked again, and the file stored is the whole one', async (coding, pack) => {
		const report = service.fake.reports().find((record) => record.status === 'completed')!;
		const whole = await fileOf(service.fake, report.id);
		service.fake.intercept({
			method: 'GET',
			pathPrefix: `/v1/reports/${report.id}/download`,
			times: 1,
			respond: (_request, real) => {
				const reply = real();
				const packed = pack(whole);
				return {
					status: 200,
					headers: { 'Content-Type': reply.file!.contentType, 'Content-Encoding': coding },
					body: packed.subarray(0, packed.length - 3),
				};
			},
		});
		const result = await runAttack(service, [
			adNode({ resource: 'report', operation: 'download', reportId: report.id }),
			INSPECTOR,
		]);
		expect(result.error?.message).toBeUndefined();
		const downloads = apiRequests(service, { pathPrefix: `/v1/reports/${report.id}/download` });
		expect(downloads).toHaveLength(2);
		expect(downloads[0].headers['accept-encoding']).toBe('identity');
		const stored = Buffer.from(result.items[0].json.base64 as string, 'base64');
		expect(stored.equals(whole)).toBe(true);
	});
});
