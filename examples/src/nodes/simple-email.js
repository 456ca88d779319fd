// @uses text money email
// The weekly e-mail of one client account: the report's period and figures, in the account's
// currency ("Active client accounts"), with the report's title as the service gives it, escaped.
// Set LOCALE to how your clients read figures (de-DE: "1.540,00 €").
function code() {
	const LOCALE = 'en-US';
	const currency = $('Active client accounts').item.json.currency;
	const s = $json.summary ?? {};
	const title = oneLine($json.title);
	const from = oneLine($json.dateRange?.from, 20);
	const to = oneLine($json.dateRange?.to, 20);
	const risk = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'].includes(s.overallRiskLevel)
		? s.overallRiskLevel
		: '';
	const inLocale = (n, show) => (figure(n) === null ? '' : show(n));
	return {
		json: {
			...$json,
			email: weeklyEmail({
				name: '',
				title,
				from,
				to,
				compared: '',
				rows: [
					['Spend', inLocale(s.totalSpend, (n) => money(n, { locale: LOCALE, currency }))],
					['Conversions', inLocale(s.totalConversions, (n) => count(n, LOCALE))],
					['ROAS', inLocale(s.avgRoas, (n) => `${ratio(n, LOCALE)}×`)],
				],
				risk,
				summarised: Boolean($json.summary),
			}),
		},
		binary: $input.item.binary,
	};
}
