import { deflateSync } from 'node:zlib';

import { startFakeService, type FakeService } from '../../sandbox/index.cjs';
import { call, expectError, get, post, reportBody, VERSION, waitFor } from './helpers.cjs';
import type { Report } from '../../sandbox/types.cjs';

function checkPdf(buf: Buffer): void {
	const text = buf.toString('latin1');
	expect(text.startsWith('%PDF-1.4')).toBe(true);
	expect(text.endsWith('%%EOF')).toBe(true);
	const startxref = Number(/startxref\n(\d+)\n%%EOF$/.exec(text)?.[1]);
	expect(text.slice(startxref, startxref + 4)).toBe('xref');
	const xref = /xref\n0 (\d+)\n([\s\S]*?)trailer/.exec(text.slice(startxref));
	expect(xref).not.toBeNull();
	const count = Number(xref?.[1]);
	const entries = (xref?.[2] ?? '').split('\n').filter(Boolean);
	expect(entries).toHaveLength(count);
	for (let n = 1; n < count; n++) {
		const off = Number(entries[n].slice(0, 10));
		expect(text.slice(off, off + `${n} 0 obj`.length)).toBe(`${n} 0 obj`);
	}
	expect(text).toMatch(/\/Type \/Catalog/);
	expect(text).toMatch(/\/BaseFont \/Helvetica/);
	expect(text).toMatch(new RegExp(`trailer\\n<< /Size ${count} /Root 1 0 R >>`));
	// stream lengths are right
	for (const m of text.matchAll(/<< \/Length (\d+) >>\nstream\n/g)) {
		const start = (m.index ?? 0) + m[0].length;
		expect(
			text
				.slice(start + Number(m[1]), start + Number(m[1]) + 'endstream'.length)
				.replace(/^\n/, ''),
		).toMatch(/^endstrea/);
	}
}

async function completedReport(svc: FakeService, extra: Record<string, unknown>): Promise<Report> {
	const res = await post(svc, '/v1/reports', reportBody(svc, extra));
	expect(res.status).toBe(202);
	return waitFor(
		() => svc.reports().find((r) => r.id === res.body.data.id && r.status === 'completed'),
		3000,
	);
}

const authHeaders = (svc: FakeService): Record<string, string> => ({
	'x-api-key': svc.keys.live,
	'service-version': VERSION,
});

describe('fake service: GET /v1/reports/{id}/download', () => {
	let svc: FakeService;
	beforeAll(async () => {
		svc = await startFakeService({ timeScale: 0.005, limits: { write: 1000, generations: 1000 } });
	});
	afterAll(() => svc.stop());

	test('pdf: a valid PDF 1.4 with correct xref offsets, headers', async () => {
		const r = await completedReport(svc, { title: 'Q1 Review: (Acme) Outdoor', format: 'pdf' });
		const res = await fetch(r.downloadUrl as string, { headers: authHeaders(svc) });
		expect(res.status).toBe(200);
		expect(res.headers.get('content-type')).toBe('application/pdf');
		expect(res.headers.get('content-disposition')).toBe(
			'attachment; filename="q1-review-acme-outdoor.pdf"',
		);
		const buf = Buffer.from(await res.arrayBuffer());
		expect(Number(res.headers.get('content-length'))).toBe(buf.length);
		checkPdf(buf);
		const text = buf.toString('latin1');
		expect(text).toContain('(Q1 Review: \\(Acme\\) Outdoor) Tj');
		expect(text).toContain(`Total spend: ${r.summary?.totalSpend.toFixed(2)}`);
		expect(text).toContain('2026-01-01 to 2026-01-31');
	});

	test('markdown and json bodies and headers', async () => {
		const md = await completedReport(svc, { title: 'Weekly MD', format: 'markdown' });
		const mdRes = await call(svc, 'GET', `/v1/reports/${md.id}/download`);
		expect(mdRes.status).toBe(200);
		expect(mdRes.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
		expect(mdRes.headers.get('content-disposition')).toBe('attachment; filename="weekly-md.md"');
		expect(mdRes.body).toMatch(/^# Weekly MD\n/);
		expect(mdRes.body).toContain(String(md.summary?.totalConversions));
		const js = await completedReport(svc, { title: 'Data export', format: 'json' });
		const jsRes = await call(svc, 'GET', `/v1/reports/${js.id}/download`);
		expect(jsRes.headers.get('content-type')).toBe('application/json');
		expect(jsRes.headers.get('content-disposition')).toBe(
			'attachment; filename="data-export.json"',
		);
		expect(typeof jsRes.body).toBe('object');
		expect(jsRes.body.id).toBe(js.id);
		expect(jsRes.body.summary).toEqual(js.summary);
		expect(Array.isArray(jsRes.body.analysis.campaigns)).toBe(true);
		expect(jsRes.body.analysis.campaigns).toHaveLength(js.campaignIds.length);
	});

	test('seeded reports of every format download', async () => {
		for (const r of svc.reports().filter((x) => x.status === 'completed')) {
			const res = await fetch(`${svc.url}/v1/reports/${r.id}/download`, {
				headers: authHeaders(svc),
			});
			expect(res.status).toBe(200);
			const buf = Buffer.from(await res.arrayBuffer());
			if (r.format === 'pdf') checkPdf(buf);
			if (r.format === 'json') expect(JSON.parse(buf.toString('utf8')).id).toBe(r.id);
			if (r.format === 'markdown') expect(buf.toString('utf8').startsWith('# ')).toBe(true);
		}
	});

	test('not completed → 409 report_not_ready (also failed); unknown → 404; needs a key; counts as a read', async () => {
		// In real time the reports added as generating and pending stay so while the test asks (at
		// the suite's 0.005 they finish 75 ms after being added, which a busy machine can let pass).
		const realTime = await startFakeService({ timeScale: 1 });
		try {
			await notReady(realTime);
		} finally {
			await realTime.stop();
		}
	});

	async function notReady(svc: FakeService) {
		const [generating] = svc.addReports(1, { status: 'generating' });
		expectError(await get(svc, `/v1/reports/${generating.id}/download`), 409, 'report_not_ready');
		const [pending] = svc.addReports(1, { status: 'pending' });
		expectError(await get(svc, `/v1/reports/${pending.id}/download`), 409, 'report_not_ready');
		const failed = svc.reports().find((r) => r.status === 'failed') as Report;
		expectError(await get(svc, `/v1/reports/${failed.id}/download`), 409, 'report_not_ready');
		expectError(await get(svc, '/v1/reports/rpt_0000000000000000/download'), 404, 'not_found');
		const done = svc.reports().find((r) => r.status === 'completed') as Report;
		expectError(
			await get(svc, `/v1/reports/${done.id}/download`, { key: null }),
			401,
			'authentication_error',
		);
		svc.clearLog();
		await get(svc, `/v1/reports/${done.id}/download`);
		expect(svc.log[0].bucket).toBe('read');
	}

	test('expireReport → link and download answer 404 not_found, expiresAt in the past', async () => {
		const r = await completedReport(svc, { format: 'markdown' });
		expect((await get(svc, `/v1/reports/${r.id}/download`)).status).toBe(200);
		svc.expireReport(r.id);
		const now = svc.reports().find((x) => x.id === r.id) as Report;
		expect(Date.parse(now.expiresAt as string)).toBeLessThan(Date.now());
		expectError(await get(svc, `/v1/reports/${r.id}/download`), 404, 'not_found');
		const viaUrl = await fetch(now.downloadUrl as string, { headers: authHeaders(svc) });
		expect(viaUrl.status).toBe(404);
	});

	test('the link expires by itself 7 days × timeScale after completion', async () => {
		const tiny = await startFakeService({ timeScale: 0.000002 }); // 7 days → ~1.2 s, a report → 20–40 ms
		try {
			const res = await post(tiny, '/v1/reports', reportBody(tiny));
			const r = await waitFor(
				() => tiny.reports().find((x) => x.id === res.body.data.id && x.status === 'completed'),
				2000,
				5,
			);
			expect((await get(tiny, `/v1/reports/${r.id}/download`)).status).toBe(200);
			await waitFor(() => Date.now() > Date.parse(r.expiresAt as string) + 5, 3000);
			expectError(await get(tiny, `/v1/reports/${r.id}/download`), 404, 'not_found');
		} finally {
			await tiny.stop();
		}
	});

	test('setReportFileSize: a 50 MB padded PDF is streamed with the right length and structure', async () => {
		const r = await completedReport(svc, { format: 'pdf', title: 'Big one' });
		const target = 50 * 1024 * 1024;
		svc.setReportFileSize(r.id, target);
		const res = await fetch(`${svc.url}/v1/reports/${r.id}/download`, {
			headers: authHeaders(svc),
		});
		expect(res.status).toBe(200);
		const length = Number(res.headers.get('content-length'));
		expect(Math.abs(length - target)).toBeLessThan(64);
		const reader = (res.body as ReadableStream<Uint8Array>).getReader();
		let total = 0;
		let chunks = 0;
		let head = Buffer.alloc(0);
		let tail = Buffer.alloc(0);
		for (;;) {
			const { done, value } = await reader.read();
			if (done) break;
			chunks++;
			total += value.length;
			if (head.length < 4096) head = Buffer.concat([head, Buffer.from(value)]).subarray(0, 4096);
			tail = Buffer.concat([tail, Buffer.from(value)]);
			if (tail.length > 8192) tail = tail.subarray(tail.length - 4096);
		}
		expect(total).toBe(length);
		expect(chunks).toBeGreaterThan(10);
		const headText = head.toString('latin1');
		const tailText = tail.toString('latin1');
		expect(headText.startsWith('%PDF-1.4')).toBe(true);
		expect(tailText.endsWith('%%EOF')).toBe(true);
		const startxref = Number(/startxref\n(\d+)\n%%EOF$/.exec(tailText)?.[1]);
		const xrefAt = startxref - (total - tail.length);
		expect(tailText.slice(xrefAt, xrefAt + 4)).toBe('xref');
		const entries = tailText.slice(xrefAt).split('\n').slice(2, 9);
		expect(entries[0]).toBe('0000000000 65535 f ');
		for (let n = 1; n <= 6; n++) {
			const off = Number(entries[n].slice(0, 10));
			expect(headText.slice(off, off + 7)).toBe(`${n} 0 obj`);
		}
	});

	test('new report sizes (PUT /__fake/reports/sizes): drawn, seeded, noise that does not compress, the same bytes on every download', async () => {
		const sizes = async (seed: number): Promise<number[]> => {
			const set = await call(svc, 'PUT', '/__fake/reports/sizes', {
				body: { minBytes: 200_000, maxBytes: 400_000, seed },
			});
			expect(set.status).toBe(200);
			const out: number[] = [];
			for (let i = 0; i < 4; i++) {
				const r = await completedReport(svc, { format: 'pdf', title: `Sized ${seed} ${i}` });
				const res = await fetch(`${svc.url}/v1/reports/${r.id}/download`, {
					headers: authHeaders(svc),
				});
				const buf = Buffer.from(await res.arrayBuffer());
				expect(Number(res.headers.get('content-length'))).toBe(buf.length);
				checkPdf(buf);
				// what a real PDF's compressed streams are: deflate cannot shrink it
				expect(deflateSync(buf).length).toBeGreaterThan(0.95 * buf.length);
				const again = await fetch(`${svc.url}/v1/reports/${r.id}/download`, {
					headers: authHeaders(svc),
				});
				expect(Buffer.from(await again.arrayBuffer()).equals(buf)).toBe(true);
				out.push(buf.length);
			}
			return out;
		};
		const first = await sizes(7);
		for (const n of first) {
			expect(n).toBeGreaterThanOrEqual(200_000 - 64);
			expect(n).toBeLessThanOrEqual(400_000 + 64);
		}
		expect(new Set(first).size).toBeGreaterThan(1);
		expect(await sizes(7)).toEqual(first);
		expect(await sizes(8)).not.toEqual(first);

		// spaces instead of noise; an existing report keeps its size; {} gives natural sizes again
		await call(svc, 'PUT', '/__fake/reports/sizes', {
			body: { minBytes: 300_000, maxBytes: 300_000, fill: 'spaces' },
		});
		const spaced = await completedReport(svc, { format: 'pdf', title: 'Spaces' });
		const spacedBuf = Buffer.from(
			await (
				await fetch(`${svc.url}/v1/reports/${spaced.id}/download`, { headers: authHeaders(svc) })
			).arrayBuffer(),
		);
		expect(Math.abs(spacedBuf.length - 300_000)).toBeLessThan(64);
		expect(deflateSync(spacedBuf).length).toBeLessThan(0.05 * spacedBuf.length);
		expect((await call(svc, 'PUT', '/__fake/reports/sizes', { body: {} })).status).toBe(200);
		const natural = await completedReport(svc, { format: 'pdf', title: 'Natural' });
		const naturalRes = await fetch(`${svc.url}/v1/reports/${natural.id}/download`, {
			headers: authHeaders(svc),
		});
		expect(Number(naturalRes.headers.get('content-length'))).toBeLessThan(20_000);
		await naturalRes.arrayBuffer();
		expect(
			Number(
				(
					await fetch(`${svc.url}/v1/reports/${spaced.id}/download`, { headers: authHeaders(svc) })
				).headers.get('content-length'),
			),
		).toBe(spacedBuf.length);

		for (const body of [
			{ minBytes: 10, maxBytes: 5 },
			{ minBytes: -1, maxBytes: 5 },
			{ minBytes: 1, maxBytes: 5, fill: 'zeros' },
		])
			expectError(
				await call(svc, 'PUT', '/__fake/reports/sizes', { body }),
				400,
				'invalid_request',
			);
	});

	test('padding works for markdown and json too', async () => {
		for (const format of ['markdown', 'json']) {
			const r = await completedReport(svc, { format });
			svc.setReportFileSize(r.id, 300000);
			const res = await call(svc, 'GET', `/v1/reports/${r.id}/download`);
			expect(Number(res.headers.get('content-length'))).toBe(300000);
			if (format === 'json') expect(res.body.id).toBe(r.id);
			else expect(String(res.body).startsWith('# ')).toBe(true);
		}
	});
});

describe('fake service: foreign download origin', () => {
	let svc: FakeService;
	beforeAll(async () => {
		svc = await startFakeService({
			timeScale: 0.005,
			downloadOrigin: 'foreign',
			limits: { write: 1000, generations: 1000 },
		});
	});
	afterAll(() => svc.stop());

	test('downloadUrl points at the second origin; a valid signature is enough, no key needed', async () => {
		expect(svc.foreignUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		expect(svc.foreignUrl).not.toBe(svc.url);
		const r = await completedReport(svc, { format: 'pdf' });
		expect(
			(r.downloadUrl as string).startsWith(
				`${svc.foreignUrl}/v1/reports/${r.id}/download?expires=`,
			),
		).toBe(true);
		svc.clearLog();
		const res = await fetch(r.downloadUrl as string);
		expect(res.status).toBe(200);
		expect(res.headers.get('content-type')).toBe('application/pdf');
		checkPdf(Buffer.from(await res.arrayBuffer()));
		expect(svc.log).toHaveLength(1);
		expect(svc.log[0].origin).toBe('foreign');
		expect(svc.log[0].headers['x-api-key']).toBeUndefined();
	});

	test('a key sent to the foreign origin is ignored but logged', async () => {
		const r = svc.reports().find((x) => x.status === 'completed') as Report;
		svc.clearLog();
		const res = await fetch(r.downloadUrl as string, { headers: { 'x-api-key': svc.keys.live } });
		expect(res.status).toBe(200);
		expect(svc.log[0].headers['x-api-key']).toBe(svc.keys.live);
	});

	test('the signature is required there: missing or wrong → 401 authentication_error', async () => {
		const r = svc.reports().find((x) => x.status === 'completed') as Report;
		const url = new URL(r.downloadUrl as string);
		const bare = await call(svc, 'GET', url.pathname, { base: svc.foreignUrl, key: svc.keys.live });
		expectError(bare, 401, 'authentication_error');
		url.searchParams.set('signature', '0'.repeat(64));
		const wrong = await call(svc, 'GET', url.pathname + url.search, {
			base: svc.foreignUrl,
			key: null,
			version: null,
		});
		expectError(wrong, 401, 'authentication_error');
		const u2 = new URL(r.downloadUrl as string);
		u2.searchParams.set('expires', String(Number(u2.searchParams.get('expires')) + 1));
		expectError(
			await call(svc, 'GET', u2.pathname + u2.search, { base: svc.foreignUrl, key: null }),
			401,
			'authentication_error',
		);
	});

	test('the main origin still serves the file with a key, no signature needed; expiry → 404 on both', async () => {
		const r = svc.reports().find((x) => x.status === 'completed' && x.format === 'json') as Report;
		const main = await get(svc, `/v1/reports/${r.id}/download`);
		expect(main.status).toBe(200);
		expect(main.body.id).toBe(r.id);
		svc.expireReport(r.id);
		expectError(
			await call(
				svc,
				'GET',
				new URL(r.downloadUrl as string).pathname + new URL(r.downloadUrl as string).search,
				{ base: svc.foreignUrl, key: null },
			),
			404,
			'not_found',
		);
		expectError(await get(svc, `/v1/reports/${r.id}/download`), 404, 'not_found');
	});
});
