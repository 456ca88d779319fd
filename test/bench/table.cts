export interface Row {
	metric: string;
	ours: string;
	baseline: string;
	/** ours / baseline; undefined for counts compared with zero. */
	ratio: number | undefined;
	goal: string;
	/** undefined: informational, no goal. */
	pass: boolean | undefined;
}

/** One aligned text table: metric | ours | baseline/bound | ratio | goal | pass?. */
export function renderTable(rows: Row[]): string {
	const head = ['metric', 'ours', 'baseline/bound', 'ratio', 'goal', 'pass?'];
	const cells = rows.map((r) => [
		r.metric,
		r.ours,
		r.baseline,
		r.ratio === undefined || Number.isNaN(r.ratio) ? '-' : `${r.ratio.toFixed(2)}x`,
		r.goal,
		r.pass === undefined ? 'info' : r.pass ? 'PASS' : 'FAIL',
	]);
	const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
	const line = (c: string[]) =>
		c
			.map((v, i) => v.padEnd(widths[i]))
			.join(' | ')
			.trimEnd();
	const rule = widths.map((w) => '-'.repeat(w)).join('-+-');
	return [line(head), rule, ...cells.map(line)].join('\n');
}
