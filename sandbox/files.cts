/**
 * Report files served by GET /v1/reports/{id}/download: a real minimal PDF 1.4, Markdown, or JSON.
 * A body is a list of parts (buffers and runs of filler) so that a padded 50 MB file is streamed in
 * chunks from one shared 64 KiB filler buffer instead of being built in memory.
 */
import type { ServerResponse } from 'node:http';
import type { Report, ReportFormat } from './types.cjs';

export interface CampaignRow {
	campaignId: string;
	name: string;
	spend: number;
	conversions: number;
	cpa: number;
	roas: number;
	riskLevel: string;
}

export interface ReportAnalysis {
	campaigns: CampaignRow[];
	insights: string[];
	recommendations: Array<{ priority: number; title: string; description: string }>;
}

export interface FileContext {
	report: Report;
	accountName: string;
	currency: string;
	analysis: ReportAnalysis;
	whiteLabel?: { companyName?: string; logoUrl?: string; primaryColor?: string };
	padTo?: number;
	/**
	 * What pads a PDF to padTo: lines of spaces (default), or noise, drawn bytes starting at this
	 * offset of one shared seeded noise buffer: as incompressible as a real PDF's compressed
	 * streams, and the same bytes on every download. Markdown and JSON are always padded with
	 * spaces (noise is not valid text).
	 */
	padNoise?: number;
}

/** A run of filler: spaces, or (with `noise`) bytes of NOISE from that offset on, wrapping. */
export type Part = Buffer | { filler: number; noise?: number };

export interface ReportFile {
	contentType: string;
	filename: string;
	parts: Part[];
	length: number;
}

/** 64 KiB of lines of spaces: whitespace is valid trailing content in JSON, Markdown and a PDF stream. */
const FILLER = Buffer.from(
	'                                                               \n'.repeat(1024),
	'latin1',
);

/**
 * 4 MiB of seeded noise (mulberry32), built on first use. Longer than every window a compressor
 * looks back over (Postgres's pglz 4 KiB, lz4 64 KiB, deflate 32 KiB), so that a padded file
 * stored in a database takes its full size there, as a real PDF does.
 */
const NOISE_BYTES = 4 * 1024 * 1024;
let noise: Buffer | undefined;
function noiseBuffer(): Buffer {
	if (noise) return noise;
	const buf = Buffer.alloc(NOISE_BYTES);
	let state = 0x9e3779b9;
	for (let i = 0; i < NOISE_BYTES; i += 4) {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		buf.writeUInt32LE((t ^ (t >>> 14)) >>> 0, i);
	}
	noise = buf;
	return buf;
}

/** The chunks of one filler part, each at most 64 KiB. */
function* fillerChunks(part: { filler: number; noise?: number }): Generator<Buffer> {
	if (part.noise === undefined) {
		for (let left = part.filler; left > 0; left -= FILLER.length)
			yield left >= FILLER.length ? FILLER : FILLER.subarray(0, left);
		return;
	}
	const buf = noiseBuffer();
	let at = part.noise % NOISE_BYTES;
	for (let left = part.filler; left > 0; ) {
		const n = Math.min(left, FILLER.length, NOISE_BYTES - at);
		yield buf.subarray(at, at + n);
		left -= n;
		at = (at + n) % NOISE_BYTES;
	}
}

export function slugify(title: string): string {
	const slug = title
		.normalize('NFKD')
		.replace(/[\u0300-\u036f]/g, '')
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, '-')
		.replace(/^-+|-+$/g, '')
		.slice(0, 80)
		.replace(/-+$/g, '');
	return slug || 'report';
}

const EXT: Record<ReportFormat, string> = { pdf: 'pdf', markdown: 'md', json: 'json' };
const TYPES: Record<ReportFormat, string> = {
	pdf: 'application/pdf',
	markdown: 'text/markdown; charset=utf-8',
	json: 'application/json',
};

function partsLength(parts: Part[]): number {
	return parts.reduce((n, p) => n + (Buffer.isBuffer(p) ? p.length : p.filler), 0);
}

function money(n: number, currency: string): string {
	return `${n.toFixed(2)} ${currency}`;
}

export function renderReportFile(ctx: FileContext): ReportFile {
	const format = ctx.report.format;
	let parts: Part[];
	if (format === 'pdf') parts = renderPdf(ctx);
	else {
		const text = format === 'json' ? renderJson(ctx) : renderMarkdown(ctx);
		const buf = Buffer.from(text, 'utf8');
		parts = [buf];
		if (ctx.padTo && ctx.padTo > buf.length) parts.push({ filler: ctx.padTo - buf.length });
	}
	return {
		contentType: TYPES[format],
		filename: `${slugify(ctx.report.title)}.${EXT[format]}`,
		parts,
		length: partsLength(parts),
	};
}

function renderJson(ctx: FileContext): string {
	const body: Record<string, unknown> = {
		...ctx.report,
		analysis: {
			account: { accountId: ctx.report.accountId, name: ctx.accountName, currency: ctx.currency },
			...(ctx.whiteLabel ? { whiteLabel: ctx.whiteLabel } : {}),
			campaigns: ctx.analysis.campaigns,
			insights: ctx.analysis.insights,
			recommendations: ctx.analysis.recommendations,
		},
	};
	return JSON.stringify(body, null, 2) + '\n';
}

function renderMarkdown(ctx: FileContext): string {
	const r = ctx.report;
	const s = r.summary;
	const lines: string[] = [];
	if (ctx.whiteLabel?.companyName) lines.push(`_Prepared by ${ctx.whiteLabel.companyName}_`, '');
	lines.push(`# ${r.title}`, '');
	lines.push(`- **Account:** ${ctx.accountName} (${r.accountId})`);
	lines.push(`- **Date range:** ${r.dateRange.from} to ${r.dateRange.to}`);
	lines.push(`- **Report id:** ${r.id}`);
	if (r.completedAt) lines.push(`- **Generated:** ${r.completedAt}`);
	lines.push('');
	if (s) {
		lines.push('## Summary', '', '| Metric | Value |', '| --- | --- |');
		lines.push(`| Total spend | ${money(s.totalSpend, ctx.currency)} |`);
		lines.push(`| Total conversions | ${s.totalConversions} |`);
		lines.push(`| Average CPA | ${money(s.avgCpa, ctx.currency)} |`);
		lines.push(`| Average ROAS | ${s.avgRoas.toFixed(2)} |`);
		lines.push(`| Overall risk level | ${s.overallRiskLevel} |`, '');
	}
	lines.push(
		'## Campaigns',
		'',
		'| Campaign | Spend | Conversions | CPA | ROAS | Risk |',
		'| --- | ---: | ---: | ---: | ---: | --- |',
	);
	for (const c of ctx.analysis.campaigns) {
		lines.push(
			`| ${c.name.replace(/\|/g, '\\|')} | ${c.spend.toFixed(2)} | ${c.conversions} | ${c.cpa.toFixed(2)} | ${c.roas.toFixed(2)} | ${c.riskLevel} |`,
		);
	}
	lines.push('', '## Insights', '');
	for (const i of ctx.analysis.insights) lines.push(`- ${i}`);
	lines.push('', '## Recommendations', '');
	for (const rec of ctx.analysis.recommendations)
		lines.push(`${rec.priority}. **${rec.title}**: ${rec.description}`);
	return lines.join('\n') + '\n';
}

/** Text for a PDF literal string in WinAnsi: ASCII only, with \ ( ) escaped. */
function pdfText(s: string): string {
	return s
		.normalize('NFKD')
		.replace(/[\u0300-\u036f]/g, '')
		.replace(/[\u2013\u2014]/g, '-')
		.replace(/[^\x20-\x7e]/g, '?')
		.replace(/[\\()]/g, (c) => '\\' + c);
}

function wrap(s: string, width: number): string[] {
	const out: string[] = [];
	let line = '';
	for (const word of s.split(/\s+/)) {
		if (line && (line + ' ' + word).length > width) {
			out.push(line);
			line = word;
		} else line = line ? line + ' ' + word : word;
	}
	if (line) out.push(line);
	return out;
}

function renderPdf(ctx: FileContext): Part[] {
	const r = ctx.report;
	const s = r.summary;
	const body: string[] = [];
	if (ctx.whiteLabel?.companyName) body.push(`Prepared by ${ctx.whiteLabel.companyName}`);
	body.push(`Account: ${ctx.accountName} (${r.accountId})`);
	body.push(`Date range: ${r.dateRange.from} to ${r.dateRange.to}`);
	body.push(`Report id: ${r.id}`);
	body.push('');
	if (s) {
		body.push('Summary');
		body.push(`Total spend: ${money(s.totalSpend, ctx.currency)}`);
		body.push(`Total conversions: ${s.totalConversions}`);
		body.push(`Average CPA: ${money(s.avgCpa, ctx.currency)}`);
		body.push(`Average ROAS: ${s.avgRoas.toFixed(2)}`);
		body.push(`Overall risk level: ${s.overallRiskLevel}`);
		body.push('');
	}
	body.push('Campaigns');
	for (const c of ctx.analysis.campaigns.slice(0, 20)) {
		body.push(
			`${c.name.slice(0, 50)}: spend ${c.spend.toFixed(2)}, conv ${c.conversions}, ROAS ${c.roas.toFixed(2)}, risk ${c.riskLevel}`,
		);
	}
	body.push('');
	body.push('Recommendations');
	for (const rec of ctx.analysis.recommendations)
		body.push(...wrap(`${rec.priority}. ${rec.title}: ${rec.description}`, 95));

	const titleLines = wrap(r.title, 50).slice(0, 3);
	let content = 'BT\n/F1 18 Tf\n22 TL\n72 740 Td\n';
	for (const t of titleLines) content += `(${pdfText(t)}) Tj T*\n`;
	content += '/F1 10 Tf\n13 TL\nT*\n';
	for (const line of body.slice(0, 48)) content += `(${pdfText(line)}) Tj T*\n`;
	content += 'ET\n';

	const objects: string[] = [
		'<< /Type /Catalog /Pages 2 0 R >>',
		'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
		'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
		'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
		`<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}endstream`,
	];
	const head = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
	const offsets: number[] = [];
	let text = head;
	objects.forEach((o, i) => {
		offsets.push(Buffer.byteLength(text, 'latin1'));
		text += `${i + 1} 0 obj\n${o}\nendobj\n`;
	});
	const main = Buffer.from(text, 'latin1');

	// trailerSpaces: blanks inside the trailer dictionary, which no offset counts (it follows
	// the xref that startxref points at), so they top a file up by a byte or two exactly.
	const tail = (
		fillerObj: { offset: number; length: number } | null,
		trailerSpaces = 0,
	): { head: Buffer; foot: Buffer } => {
		const all = [...offsets];
		let fillerHead = '';
		let fillerFoot = '';
		let pos = main.length;
		if (fillerObj) {
			fillerHead = `${objects.length + 1} 0 obj\n<< /Length ${fillerObj.length} >>\nstream\n`;
			fillerFoot = '\nendstream\nendobj\n';
			all.push(pos);
			pos +=
				Buffer.byteLength(fillerHead, 'latin1') +
				fillerObj.length +
				Buffer.byteLength(fillerFoot, 'latin1');
		}
		let xref = `xref\n0 ${all.length + 1}\n0000000000 65535 f \n`;
		for (const off of all) xref += `${String(off).padStart(10, '0')} 00000 n \n`;
		xref += `trailer\n<< /Size ${all.length + 1} /Root 1 0 R ${' '.repeat(trailerSpaces)}>>\nstartxref\n${pos}\n%%EOF`;
		return {
			head: Buffer.from(fillerHead, 'latin1'),
			foot: Buffer.from(fillerFoot + xref, 'latin1'),
		};
	};

	const plain = tail(null);
	const plainLength = main.length + plain.foot.length;
	if (!ctx.padTo || ctx.padTo <= plainLength) return [main, plain.foot];
	// The overhead (the filler's /Length, startxref) grows with the number of digits, so the one
	// measured at padTo is at least the real one: the filler it leaves never overshoots, and it
	// falls short by a byte or two only where a digit count drops (a length just under 10^k).
	// Those bytes go into the trailer.
	const sized = (length: number, spaces = 0) => {
		const t = tail({ offset: main.length, length }, spaces);
		return { ...t, total: main.length + t.head.length + length + t.foot.length };
	};
	// A size too small for even an empty filler object is made up in the trailer alone.
	if (sized(0).total > ctx.padTo) return [main, tail(null, ctx.padTo - plainLength).foot];
	const fillerLength = Math.max(0, ctx.padTo - (sized(ctx.padTo).total - ctx.padTo));
	const short = ctx.padTo - sized(fillerLength).total;
	const padded = sized(fillerLength, Math.max(0, short));
	return [
		main,
		padded.head,
		{ filler: fillerLength, ...(ctx.padNoise !== undefined ? { noise: ctx.padNoise } : {}) },
		padded.foot,
	];
}

/** Stream the parts with back-pressure; resolves when done or when the client went away. */
/** The whole body in memory (for scripted answers; files there are small). */
export async function collectParts(parts: Part[]): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for (const part of parts) {
		if (Buffer.isBuffer(part)) chunks.push(part);
		else chunks.push(...fillerChunks(part));
	}
	return Buffer.concat(chunks);
}

export async function writeParts(res: ServerResponse, parts: Part[]): Promise<void> {
	const write = (chunk: Buffer): Promise<boolean> =>
		new Promise((resolve) => {
			if (res.destroyed) return resolve(false);
			if (res.write(chunk)) return resolve(true);
			const onDrain = (): void => {
				res.off('close', onClose);
				resolve(true);
			};
			const onClose = (): void => {
				res.off('drain', onDrain);
				resolve(false);
			};
			res.once('drain', onDrain);
			res.once('close', onClose);
		});
	for (const part of parts) {
		if (Buffer.isBuffer(part)) {
			if (!(await write(part))) return;
			continue;
		}
		for (const chunk of fillerChunks(part)) if (!(await write(chunk))) return;
	}
	res.end();
}
