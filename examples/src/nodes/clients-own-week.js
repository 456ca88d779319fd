// @uses text
// Each client's own Monday. The send day and hour (columns `send_day`, `send_hour` of the client
// directory; Monday, 8 when empty) are read in the client's time zone: the directory's `timezone`
// when it is an IANA zone, else the account's `timezone` from the service. The report covers the
// client's last full local week (Monday to Sunday there) before its latest send time.
// A scheduled run (hourly) takes the clients whose send time is within the last hour; a run by
// hand, by the recovery or by a webhook takes every client (catch up): "Not e-mailed yet this
// week" then keeps those whose week has no e-mail recorded, so nobody gets a week twice.
function code() {
	const when = $('What time is it').first().json;
	const now = DateTime.fromISO(String(when.now ?? ''), { setZone: true });
	if (!now.isValid) throw new Error(`"now" is not an ISO 8601 instant: ${when.now}`);
	const isZone = (zone) =>
		typeof zone === 'string' && zone !== '' && DateTime.now().setZone(zone).isValid;
	const agencyZone = isZone(when.agency_zone) ? when.agency_zone : 'UTC';
	const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
	const accounts = new Map(
		$('Active client accounts')
			.all()
			.map((item) => [item.json.platformAccountId, item.json]),
	);
	// A later send time today (in the agency's zone) means this run is not the day's last: the
	// team digest waits for it ("The day's digest").
	const agencyDayEnd = now.setZone(agencyZone).endOf('day');

	return $input.all().map((item, index) => {
		const c = item.json;
		const row = c.client ?? {};
		const notes = [];
		const accountZone = accounts.get(c.account_id)?.timezone;
		let zone = isZone(accountZone) ? accountZone : agencyZone;
		const wanted = String(row.timezone ?? '').trim();
		if (wanted && isZone(wanted)) zone = wanted;
		else if (wanted)
			notes.push(
				`time zone "${oneLine(wanted, 80)}" in the client directory is not an IANA time zone: used ${zone} (the ${isZone(accountZone) ? "account's" : "agency's"})`,
			);
		let sendDay = 1;
		const dayText = String(row.send_day ?? '').trim();
		if (dayText) {
			const byName = DAYS.findIndex(
				(d) => d.slice(0, 3).toLowerCase() === dayText.slice(0, 3).toLowerCase(),
			);
			const n = /^[1-7]$/.test(dayText) ? Number(dayText) : byName + 1;
			if (n >= 1) sendDay = n;
			else notes.push(`send_day "${oneLine(dayText, 80)}" is not a day of the week: used Monday`);
		}
		let sendHour = 8;
		const hourText = String(row.send_hour ?? '').trim();
		if (hourText) {
			const n = /^\d{1,2}(:00)?$/.test(hourText) ? parseInt(hourText, 10) : NaN;
			if (n >= 0 && n <= 23) sendHour = n;
			else notes.push(`send_hour "${oneLine(hourText, 80)}" is not an hour from 0 to 23: used 8`);
		}
		const local = now.setZone(zone);
		// the latest send time at or before now (wall-clock arithmetic, so DST changes keep 08:00)
		let sendAt = local
			.startOf('week')
			.plus({ days: sendDay - 1 })
			.set({ hour: sendHour });
		if (sendAt > local) sendAt = sendAt.minus({ weeks: 1 });
		const weekFrom = sendAt.startOf('week').minus({ weeks: 1 });
		const nextSendAt = sendAt.plus({ weeks: 1 });
		return {
			json: {
				...c,
				timezone: zone,
				timezone_note: notes.join('; '),
				send_day: DAYS[sendDay - 1],
				send_hour: sendHour,
				send_at: sendAt.toISO(),
				next_send_at: nextSendAt.toISO(),
				week_from: weekFrom.toFormat('yyyy-MM-dd'),
				week_to: weekFrom.plus({ days: 6 }).toFormat('yyyy-MM-dd'),
				client_week: `${c.account_id}:${weekFrom.toFormat('yyyy-MM-dd')}`,
				due: when.catch_up === true || now.toMillis() - sendAt.toMillis() < 3_600_000,
				later_today: nextSendAt > now && nextSendAt <= agencyDayEnd,
			},
			pairedItem: { item: index },
		};
	});
}
