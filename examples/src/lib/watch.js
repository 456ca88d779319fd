// The client watch between Mondays: what is wrong with a client's account today (its findings),
// which of them the account manager has not been told of yet, and the alert that tells them.
// A finding is keyed by client, kind and subject; the table `client_watch_findings` keeps each
// key's status, so a finding alerts once, and again only after it cleared and came back.

/** What the watch looks at, and the directory's defaults where a client's row leaves it empty. */
const WATCH_DEFAULTS = {
	pacing_over_pct: 10,
	pacing_under_pct: 25,
	stale_after_hours: 30,
	diagnostics_per_run: 2,
};
/** Diagnostic severities that make a campaign a finding, worst first. */
const ALERT_SEVERITIES = ['CRITICAL', 'HIGH'];
const HOUR_MS = 3_600_000;

/** A directory number (a column may hold text), else the default; never negative. */
function setting(row, name) {
	const n = figure(row?.[name]);
	return n === null || n < 0 ? WATCH_DEFAULTS[name] : n;
}

/** Today's date parts in a time zone (UTC when the zone is unknown). */
function calendarDay(at, timeZone) {
	let parts;
	try {
		parts = new Intl.DateTimeFormat('en-US', {
			timeZone: String(timeZone || 'UTC'),
			year: 'numeric',
			month: 'numeric',
			day: 'numeric',
		}).formatToParts(at);
	} catch {
		return calendarDay(at, 'UTC');
	}
	const part = (type) => Number(parts.find((p) => p.type === type).value);
	const year = part('year');
	const month = part('month');
	const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
	return { year, month, day: part('day'), daysInMonth };
}

/**
 * The check a finding belongs to: a stored finding clears only when its check ran this time
 * (a campaign not diagnosed today keeps its risk finding open).
 */
function checkOf(kind, subject) {
	if (kind === 'budget_over' || kind === 'budget_under') return 'budget';
	if (kind === 'campaign_risk') return `risk:${subject}`;
	return 'sync';
}

const findingKey = (accountId, kind, subject = '') => `${accountId}|${kind}|${subject}`;

/**
 * Budget pacing: the last 30 days' spend at its daily rate over this calendar month (in the
 * account's time zone), against `monthly_budget` or, without one, the active campaigns' daily
 * budgets for the month. `{ checked, finding? }`: not checked without a spend or a budget.
 */
function pacingFinding({ client, account, dailyBudgets, at }) {
	const spend = figure(account?.totalSpendLast30d);
	const { month, day, daysInMonth, year } = calendarDay(at, account?.timezone);
	const ownBudget = figure(client?.monthly_budget);
	const budget =
		ownBudget !== null && ownBudget > 0
			? ownBudget
			: dailyBudgets.length
				? dailyBudgets.reduce((sum, b) => sum + b, 0) * daysInMonth
				: null;
	if (spend === null || budget === null || budget <= 0) return { checked: false };
	const projected = (spend / 30) * daysInMonth;
	const pace = projected / budget;
	const over = pace > 1 + setting(client, 'pacing_over_pct') / 100;
	const under = pace < 1 - setting(client, 'pacing_under_pct') / 100;
	if (!over && !under) return { checked: true };
	return {
		checked: true,
		finding: {
			kind: over ? 'budget_over' : 'budget_under',
			subject: '',
			severity: over ? 'HIGH' : 'MEDIUM',
			figures: {
				spend_30d: spend,
				projected,
				budget,
				budget_from: ownBudget !== null && ownBudget > 0 ? 'monthly_budget' : 'daily budgets',
				pace_pct: Math.round(pace * 100),
				days_left: daysInMonth - day,
				month: `${year}-${String(month).padStart(2, '0')}`,
				currency: account?.currency,
			},
		},
	};
}

/** Stale data: an account not connected, missing from the workspace, or not synced lately. */
function syncFinding({ client, account, at }) {
	if (!account) return { kind: 'account_missing', subject: '', severity: 'HIGH', figures: {} };
	if (account.connectionStatus !== 'active')
		return {
			kind: 'not_connected',
			subject: '',
			severity: 'HIGH',
			figures: { connection: account.connectionStatus, last_synced_at: account.lastSyncedAt },
		};
	const synced = Date.parse(account.lastSyncedAt);
	const hours = Number.isFinite(synced) ? (at - synced) / HOUR_MS : Infinity;
	if (hours <= setting(client, 'stale_after_hours')) return undefined;
	return {
		kind: 'stale_data',
		subject: '',
		severity: 'MEDIUM',
		figures: {
			hours_since_sync: Number.isFinite(hours) ? Math.floor(hours) : null,
			last_synced_at: account.lastSyncedAt,
			threshold_hours: setting(client, 'stale_after_hours'),
		},
	};
}

/** Campaign risk: a completed diagnostic with a HIGH or CRITICAL issue, and its top recommendation. */
function riskFinding({ campaign, diagnostic }) {
	const issues = (Array.isArray(diagnostic?.issues) ? diagnostic.issues : []).filter((issue) =>
		ALERT_SEVERITIES.includes(issue?.severity),
	);
	if (!issues.length) return undefined;
	const worst = ALERT_SEVERITIES.find((s) => issues.some((issue) => issue.severity === s));
	const recommendations = Array.isArray(diagnostic.recommendations)
		? [...diagnostic.recommendations].sort((a, b) => (a?.priority ?? 9) - (b?.priority ?? 9))
		: [];
	return {
		kind: 'campaign_risk',
		subject: String(campaign?.id ?? diagnostic.campaignId ?? ''),
		severity: worst,
		figures: {
			campaign: campaign?.name ?? diagnostic.campaignId,
			risk_score: diagnostic.riskScore,
			issues: issues.map((issue) => `${issue.title} (${issue.severity.toLowerCase()})`).slice(0, 3),
			recommendation: recommendations[0]
				? `${recommendations[0].title}: ${recommendations[0].description}`
				: '',
		},
	};
}

/**
 * What to do with today's findings against the stored ones: `alert` (new, or back after it
 * cleared), `still` (open and alerted already), `cleared` (open before, its check ran, gone now).
 * `present`: [{ key, check, … }]; `checked`: the checks that ran; `stored`: the table's rows.
 */
function findingChanges(present, checked, stored) {
	const open = new Map(
		stored.filter((row) => row?.status === 'open').map((row) => [String(row.finding_key), row]),
	);
	const now = new Set(present.map((f) => f.key));
	const changes = present.map((f) =>
		open.has(f.key)
			? { ...f, action: 'still', opened_at: open.get(f.key).opened_at ?? '' }
			: { ...f, action: 'alert', opened_at: '' },
	);
	for (const row of stored) {
		const key = String(row?.finding_key ?? '');
		if (row?.status !== 'open' || now.has(key)) continue;
		const accountId = String(row.account_id ?? '');
		if (!checked.has(`${accountId}|${checkOf(row.kind, String(row.subject ?? ''))}`)) continue;
		changes.push({
			key,
			account_id: accountId,
			kind: row.kind,
			subject: row.subject,
			client_name: row.client_name,
			severity: row.severity,
			opened_at: row.opened_at ?? '',
			action: 'cleared',
		});
	}
	return changes;
}

/** One finding as a sentence for the account manager (plain text; escape where it is written). */
function findingSentence(finding) {
	const f = finding.figures ?? {};
	const team = (amount) =>
		money(amount, { locale: TEAM_LOCALE, currency: f.currency, byCode: true });
	switch (finding.kind) {
		case 'budget_over':
		case 'budget_under':
			return `${finding.kind === 'budget_over' ? 'Over-pacing' : 'Under-pacing'}: at the last 30 days' rate (${team(f.spend_30d)}) the month comes to ${team(f.projected)} against a budget of ${team(f.budget)} (from ${f.budget_from}), ${f.pace_pct}% of it; ${f.days_left} day(s) left in ${f.month}.`;
		case 'stale_data':
			return `Stale data: last synced ${f.hours_since_sync === null ? 'never' : `${f.hours_since_sync} hours ago`} (${f.last_synced_at ?? 'no time given'}), over the ${f.threshold_hours}-hour threshold; the next report would be built on old figures.`;
		case 'not_connected':
			return `Not connected: the account's connection is ${f.connection}; its data no longer syncs. Re-authenticate it in the service dashboard.`;
		case 'account_missing':
			return 'Account missing: the directory names an ad account the service does not list for this workspace.';
		case 'campaign_risk':
			return `Campaign "${f.campaign}" at ${String(finding.severity).toLowerCase()} risk (score ${f.risk_score}): ${(f.issues ?? []).join('; ')}.${f.recommendation ? ` First: ${f.recommendation}` : ''}`;
		default:
			return `${finding.kind}`;
	}
}

/**
 * The alert for one client's new findings: `{ subject, text, html, slack }`; `others` is how many
 * of the client's findings are still open from before.
 */
function watchAlert({ clientName, accountId, findings, others }) {
	const name = oneLine(clientName) || oneLine(accountId);
	const sentences = findings.map(findingSentence);
	const before = others ? `${others} earlier finding(s) are still open.` : '';
	return {
		subject: oneLine(`Client watch: ${findings.length} new finding(s) for ${name}`, 250),
		text: [
			`New for ${name} (${oneLine(accountId, 40)}):`,
			'',
			...sentences.map((s) => `- ${plainText(s, 1000)}`),
			...(before ? ['', before] : []),
		].join('\n'),
		html: [
			'<div style="font-family:Arial,Helvetica,sans-serif;max-width:600px;color:#1f2933;line-height:1.5">',
			`<h2 style="margin:0 0 4px">Client watch: ${html(name)}</h2>`,
			`<p style="margin:0 0 16px;color:#52606d">${html(accountId, 40)}</p>`,
			'<ul style="padding-left:20px">',
			...findings.map(
				(f, i) =>
					`<li style="margin:0 0 8px"><span style="font-weight:bold;color:${RISK_COLOURS[f.severity] ?? '#52606d'}">${html(f.severity)}</span> ${html(sentences[i], 1000)}</li>`,
			),
			'</ul>',
			before ? `<p style="color:#52606d">${html(before)}</p>` : '',
			'<p>Each finding is sent once; it is sent again only after it cleared and came back.</p>',
			'</div>',
		].join(''),
		slack: [
			`*Client watch: ${slack(name)}* (${slack(accountId, 40)})`,
			...findings.map((f, i) => `• *${slack(f.severity)}* ${slack(sentences[i], 1000)}`),
			...(before ? [slack(before)] : []),
		].join('\n'),
	};
}
