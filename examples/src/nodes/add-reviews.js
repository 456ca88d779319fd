// @uses text money digest
// The reviews of the last 7 days (data table weekly_report_reviews, one row per client and week),
// added to the digest composed above. Each client and week is in one state, whatever the order of
// runs and reviews: a week this run e-mailed is "sent" (listed under Sent above), and a review
// still open for it is "superseded" (the e-mail went without it); else the review's own state:
// waiting, held (declined, or no answer in time), approved (not sent yet), approved and sent.
// Without any review, the digest is unchanged.
function code() {
	const digest = { ...$('Compose the team digest').first().json };
	const since = new Date(Date.now() - 7 * 24 * 3600 * 1000).toISOString();
	const rows = $input
		.all()
		.map((item) => item.json)
		.filter((row) => row.client_week && String(row.asked_at ?? '') >= since);
	if (rows.length === 0) return [{ json: digest }];

	const sentThisRun = new Set((digest.sent_weeks ?? []).map((s) => s.client_week));
	// The newest row of a client and week decides (an upsert keeps one, but a table may hold more).
	const latest = new Map();
	for (const row of rows) {
		const seen = latest.get(row.client_week);
		if (!seen || String(row.decided_at || row.asked_at) > String(seen.decided_at || seen.asked_at))
			latest.set(row.client_week, row);
	}
	const stateOf = (row) =>
		row.status === 'approved and sent'
			? 'approved and sent'
			: sentThisRun.has(row.client_week)
				? 'superseded'
				: row.status === 'declined' || row.status === 'no answer'
					? `held: ${row.status}`
					: ['waiting', 'approved'].includes(row.status)
						? row.status
						: 'waiting';
	const GROUPS = [
		['waiting', 'Waiting for review, not sent yet'],
		['held: declined', 'Held: declined in review'],
		['held: no answer', 'Held: no answer in time'],
		['approved', 'Approved in review, not sent yet'],
		['approved and sent', 'Approved in review and sent'],
		['superseded', 'Review superseded: e-mailed by this run'],
	];
	const weekOf = (row) => oneLine(String(row.client_week).split(':').slice(1).join(':'), 20);
	const reviews = [...latest.values()].map((row) => ({ row, state: stateOf(row) }));
	const sections = GROUPS.map(([state, title]) => {
		const these = reviews.filter((r) => r.state === state);
		return {
			title: `${title} (${these.length})`,
			lines: these.map(
				({ row }) =>
					`${oneLine(row.client_name || row.account_id)}: ${oneLine(row.reason)}; week of ${weekOf(row)}; asked ${oneLine(row.reviewer, 254)}`,
			),
		};
	}).filter((s) => s.lines.length);
	const countOf = (...states) => reviews.filter((r) => states.includes(r.state)).length;
	const waiting = countOf('waiting');
	const held = countOf('held: declined', 'held: no answer');

	const superseded = new Set(
		reviews.filter((r) => r.state === 'superseded').map((r) => r.row.client_week),
	);
	digest.sections = [
		...(digest.sections ?? []).map((section) =>
			section.key === 'sent'
				? sentSection(
						(digest.sent_weeks ?? [])
							.filter((s) => !superseded.has(s.client_week))
							.map((s) => s.client_name),
					)
				: section,
		),
		...sections.map((s) => ({
			...s,
			key: 'review',
			title: `Review before it goes: ${s.title}`,
			always: true,
		})),
	];
	digest.subject = [
		digest.subject,
		waiting && `${waiting} waiting for review`,
		held && `${held} held`,
	]
		.filter(Boolean)
		.join(', ');
	digest.all_well = Boolean(digest.all_well) && waiting === 0 && held === 0;
	Object.assign(
		digest,
		renderDigest({
			headline: digest.headline,
			sections: digest.sections,
			allWell: digest.all_well,
		}),
	);
	digest.reviews = reviews.map(({ row, state }) => ({
		client_name: row.client_name,
		account_id: row.account_id,
		week: weekOf(row),
		status: row.status,
		state,
		reason: row.reason,
		reviewer: row.reviewer,
		asked_at: row.asked_at,
		decided_at: row.decided_at,
	}));
	return [{ json: digest }];
}
