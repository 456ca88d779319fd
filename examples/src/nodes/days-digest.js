// @uses text money digest
// The team digest goes out once per agency day (the workflow's time zone): from the last run of
// the day that e-mails clients, with every run's digest since the last one ("Keep for the day's
// digest" keeps each run's in the data table `weekly_report_digests`). A run by hand (Execute
// workflow) sends its own digest at once, as before.
function code() {
	const when = $('What time is it').first().json;
	const mine = $('Compose the team digest').first().json;
	if (when.by_hand) return [{ json: { ...mine, mark: 'none', digest_day: '' } }];

	const agencyDay = DateTime.fromISO(when.now, { setZone: true })
		.setZone(when.agency_zone)
		.toFormat('yyyy-MM-dd');
	const rows = $input
		.all()
		.map((item) => item.json)
		.filter((row) => row.digest_execution);
	// Held: today's digest has gone out (what comes later goes into the next one), or a client's
	// send time comes later today (its run sends the digest).
	if (rows.some((row) => row.digest_day === agencyDay && row.digest_execution !== 'pending'))
		return [];
	if (
		$("Client's own week")
			.all()
			.some((item) => item.json.later_today)
	)
		return [];

	const parts = rows
		.filter((row) => row.digest_execution === 'pending')
		.sort((a, b) => String(a.run_at).localeCompare(String(b.run_at)))
		// Each stored part is data (a digest's headline, sections and lists), read at this door and
		// written out here as any digest is; one that does not read back as a digest is left out.
		.flatMap((row) => {
			let stored;
			try {
				stored = JSON.parse(row.digest);
			} catch {
				return [];
			}
			const digest = storedDigest(stored);
			if (!digest) return [];
			const list = (key) => (Array.isArray(stored[key]) ? stored[key] : []);
			return [
				{
					at: String(row.run_at ?? ''),
					...renderDigest(digest),
					subject: oneLine(stored.subject, 250),
					headline: digest.headline,
					sections: digest.sections,
					all_well: digest.allWell,
					sent: list('sent').map((name) => oneLine(name)),
					skipped: list('skipped'),
					failed: list('failed'),
					at_risk: list('at_risk'),
					to_reconnect: list('to_reconnect'),
				},
			];
		});
	if (parts.length === 0) return [];
	if (parts.length === 1)
		return [{ json: { ...parts[0], mark: 'pending', digest_day: agencyDay, runs: 1 } }];

	// Several runs since the last digest (clients in other time zones): one message with each run's.
	const all = (key) => parts.flatMap((p) => p[key] ?? []);
	const sent = all('sent');
	const failed = all('failed');
	const atRisk = all('at_risk');
	const toReconnect = parts[parts.length - 1].to_reconnect ?? [];
	const skipped = [
		...new Map(all('skipped').map((s) => [`${s.account_id}|${s.reason}`, s])).values(),
	];
	const allWell = parts.every((p) => p.all_well);
	const at = (iso) =>
		oneLine(
			DateTime.fromISO(iso, { setZone: true })
				.setZone(when.agency_zone)
				.toFormat('ccc d LLL, HH:mm'),
			40,
		);
	const subject = `Weekly client reports, ${agencyDay}: ${[
		failed.length && `${failed.length} failed`,
		atRisk.length && `${atRisk.length} at high risk`,
		toReconnect.length && `${toReconnect.length} to reconnect`,
		`${sent.length} sent`,
	]
		.filter(Boolean)
		.join(', ')}${allWell ? ', all well' : ''}`;
	// Each part was written out above; the names joined here are escaped here.
	const LINE = DIGEST_LINE;
	const headline = `${sent.length} sent in ${parts.length} runs since the last digest (clients in their own time zones): ${sent.join(', ') || 'none'}.`;
	const text = [headline, ...parts.map((p) => `\n=== Run of ${at(p.at)} ===\n${p.text}`)].join(
		'\n',
	);
	const body = [
		'<div style="font-family:Arial,Helvetica,sans-serif;max-width:640px;color:#1f2933;line-height:1.5">',
		`<p style="font-weight:bold">${html(headline, LINE)}</p>`,
		...parts.map(
			(p) =>
				`<h2 style="margin:24px 0 4px;font-size:16px;color:#52606d">Run of ${html(at(p.at))}</h2>\n${p.html}`,
		),
		'</div>',
	].join('\n');
	const slack_text = [
		`*${slack(headline, LINE)}*`,
		...parts.map((p) => `\n_Run of ${slack(at(p.at))}_\n${p.slack_text}`),
	].join('\n');
	return [
		{
			json: {
				subject,
				text,
				html: body,
				slack_text,
				all_well: allWell,
				sent,
				skipped,
				failed,
				at_risk: atRisk,
				to_reconnect: toReconnect,
				mark: 'pending',
				digest_day: agencyDay,
				runs: parts.length,
			},
		},
	];
}
