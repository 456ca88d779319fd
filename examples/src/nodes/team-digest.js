// @uses text money digest
// One message to the agency team about this run: what was sent, skipped, failed or late, who is
// at high risk, which accounts to reconnect, and each client's ROAS over the last weeks. Its output is the input of "E-mail the team" and
// "Post the digest to Slack". Set WHERE_TO_RECONNECT to your own instructions.
function code() {
	const WHERE_TO_RECONNECT =
		"in the service's dashboard, by someone with Admin or Advertiser access on the ad account";
	const SENT = 'What was sent'; // @constant: the node with one item per e-mail sent
	const items = (name) =>
		$(name).isExecuted
			? $(name)
					.all()
					.map((item) => item.json)
			: [];
	// Every run of a node (a loop runs it once per item), oldest first.
	const everyRun = (name) => {
		const out = [];
		for (let run = 0; $(name).isExecuted && run < 100000; run++) {
			try {
				out.push(
					...$(name)
						.all(0, run)
						.map((item) => item.json),
				);
			} catch {
				break;
			}
		}
		return out;
	};
	const summary = $('Run summary').first().json;
	const names = new Map(items('Who gets what').map((c) => [c.account_id, c.client_name]));
	for (const row of items('Client directory'))
		if (row.account_id && !names.has(row.account_id)) names.set(row.account_id, row.client_name);
	// Every name is one line of plain text here; each medium escapes it where it is written.
	const nameOf = (id, fallback) => oneLine(names.get(id) || fallback || id);

	const sentItems = everyRun(SENT);
	const sent = sentItems.map((s) => nameOf(s.account_id, s.client_name));
	const skipped = (summary.skipped ?? []).map((s) => ({
		...s,
		client_name: nameOf(s.account_id, s.client_name),
		reason: oneLine(s.reason),
	}));
	const failed = [...items('Could not generate'), ...items('Report failed or timed out')].map(
		(f) => ({
			...f,
			client_name: nameOf(f.account_id, f.client_name),
			reason: oneLine(f.reason),
		}),
	);
	const reports = items('Compare with last week');
	// The week of each report e-mailed this run (client_week: <act_ id>:<first day>), so the reviews
	// added below give each client and week one state.
	const weekOfReport = new Map(reports.map((r) => [r.id, `${r.accountId}:${r.dateRange?.from}`]));
	const sentWeeks = sentItems.map((s) => ({
		client_week: s.client_week || weekOfReport.get(s.report_id) || '',
		account_id: s.account_id,
		client_name: nameOf(s.account_id, s.client_name),
	}));
	const atRisk = reports
		.filter((r) => ['HIGH', 'CRITICAL'].includes(r.summary?.overallRiskLevel))
		.map((r) => ({
			client_name: nameOf(r.accountId, r.client_name),
			account_id: r.accountId,
			risk: r.summary.overallRiskLevel,
			// formatted by "Compare with last week" for the team: money with its currency's code
			risk_change: r.team?.risk_change ?? '',
			spend: r.team?.spend || '–',
			spend_change: r.team?.spend_change ?? '',
			roas: r.team?.roas || '–',
			roas_change: r.team?.roas_change ?? '',
		}));
	const toReconnect = items('All ad accounts')
		.filter((a) => ['disconnected', 'token_expired'].includes(a.connectionStatus))
		.map((a) => ({
			client_name: nameOf(a.platformAccountId, a.name),
			account_id: oneLine(a.platformAccountId),
			status: a.connectionStatus,
			what:
				a.connectionStatus === 'token_expired'
					? 'token expired: re-authenticate it'
					: 'disconnected: reconnect it',
		}));

	// The client watch's open findings (its table, when the agency runs the watch): one line per
	// client, each finding's sentence as the watch wrote it, escaped where the digest is written.
	const watch = new Map();
	for (const row of items('Open findings of the watch')) {
		if (row.status !== 'open' || !row.finding_key || !row.account_id) continue;
		const id = String(row.account_id);
		watch.set(id, [...(watch.get(id) ?? []), oneLine(row.sentence || row.kind, 300)]);
	}
	const watchLines = [...watch].map(
		([id, sentences]) => `${nameOf(id)} (${oneLine(id, 40)}): ${sentences.join(' · ')}`,
	);

	// The portfolio: one line per client reported this run, its ROAS week by week (the trend of
	// "Compare with last week", oldest first), the change from the week before, and its risk.
	const portfolio = reports.map((r) => {
		const weeks = (r.trend?.weeks ?? []).filter((w) => w.roas !== null && w.roas !== undefined);
		const [before, now] = weeks.slice(-2);
		const arrow =
			weeks.length < 2 ? '' : now.roas > before.roas ? '▲' : now.roas < before.roas ? '▼' : '=';
		return {
			client_name: nameOf(r.accountId, r.client_name),
			account_id: r.accountId,
			risk: r.team?.risk ?? '',
			spend: r.team?.spend ?? '',
			roas: r.team?.roas ?? '',
			arrow,
			// the team's figures: one locale for every client (the trend's texts are the client's)
			roas_weeks: weeks.map((w) => ({
				from: w.from,
				roas: w.roas,
				text: `${ratio(w.roas, TEAM_LOCALE)}×`,
			})),
		};
	});
	const portfolioLine = (p) =>
		`${p.client_name}: ROAS ${p.roas_weeks.length > 1 ? `${p.roas_weeks.map((w) => w.text).join(' → ')} ${p.arrow}` : `${p.roas || '–'} (first report)`} · spend ${p.spend || '–'} · risk ${p.risk || '–'}`;

	const range = reports[0]?.dateRange;
	const week = range ? ` ${oneLine(range.from, 20)} – ${oneLine(range.to, 20)}` : '';
	const quiet = ['switched off', 'already e-mailed this week'];
	const allWell =
		failed.length === 0 &&
		atRisk.length === 0 &&
		toReconnect.length === 0 &&
		watchLines.length === 0 &&
		skipped.every((s) => quiet.includes(s.reason));
	const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

	const byReason = new Map();
	for (const s of skipped)
		byReason.set(s.reason, [...(byReason.get(s.reason) ?? []), s.client_name]);
	const sections = [];
	if (failed.length)
		sections.push({
			key: 'failed',
			title: `Not sent: the report failed or timed out (${failed.length})`,
			lines: failed.map((f) => `${f.client_name} (${f.account_id}): ${f.reason}`),
		});
	if (atRisk.length)
		sections.push({
			key: 'risk',
			title: `High or critical risk this week (${atRisk.length})`,
			lines: atRisk.map(
				(r) =>
					`${r.client_name}: ${r.risk} ${r.risk_change} · spend ${r.spend} ${r.spend_change} · ROAS ${r.roas} ${r.roas_change}`,
			),
		});
	if (portfolio.length)
		sections.push({
			key: 'portfolio',
			title: `Portfolio: ROAS week by week (${portfolio.length})`,
			lines: portfolio.map(portfolioLine),
			portfolio,
		});

	if (watchLines.length)
		sections.push({
			key: 'watch',
			title: `Open findings of the client watch (${watchLines.length} client${watchLines.length === 1 ? '' : 's'})`,
			lines: watchLines,
		});
	if (toReconnect.length)
		sections.push({
			key: 'reconnect',
			title: `Accounts to reconnect (${toReconnect.length}), ${WHERE_TO_RECONNECT}`,
			lines: toReconnect.map((a) => `${a.client_name} (${a.account_id}): ${a.what}`),
		});
	if (skipped.length)
		sections.push({
			key: 'skipped',
			title: `Skipped (${skipped.length})`,
			lines: [...byReason].map(([reason, clients]) => `${reason}: ${clients.join(', ')}`),
		});
	sections.push(sentSection(sentWeeks.map((s) => s.client_name)));

	const headline = allWell
		? `All well: ${plural(sent.length, 'weekly report')} sent${week}, none failed, no client at high risk, no account to reconnect.`
		: `Weekly client reports${week}: ${sent.length} sent, ${skipped.length} skipped, ${failed.length} failed or timed out, ${atRisk.length} at high or critical risk, ${toReconnect.length} to reconnect${watchLines.length ? `, ${watchLines.length} with open findings of the client watch` : ''}.`;
	const subject = allWell
		? `Weekly client reports${week}: all well, ${sent.length} sent`
		: `Weekly client reports${week}: ${[
				failed.length && `${failed.length} failed`,
				atRisk.length && `${atRisk.length} at high risk`,
				toReconnect.length && `${toReconnect.length} to reconnect`,
				watchLines.length && `${watchLines.length} with open findings`,
				`${sent.length} sent`,
			]
				.filter(Boolean)
				.join(', ')}`;
	return [
		{
			json: {
				subject,
				...renderDigest({ headline, sections, allWell }),
				headline,
				sections,
				all_well: allWell,
				sent,
				sent_weeks: sentWeeks,
				skipped,
				failed,
				at_risk: atRisk,
				to_reconnect: toReconnect,
				portfolio,
			},
		},
	];
}
