// Figures as a reader reads them: money in the account's currency, counts and ratios in the
// client's locale. What a client reads uses the client's locale and the currency's own symbol
// (one currency per e-mail); what the team reads can mix clients' currencies, so it names the
// currency by its code ("AUD 1,665.74" beside "USD 3,934.59").

/** How what the team reads (the digest, review requests, Slack) writes figures: one locale for every client. */
const TEAM_LOCALE = 'en-US';

/** The colour a risk level is written in, wherever a message shows one. */
const RISK_COLOURS = { LOW: '#2f855a', MEDIUM: '#b7791f', HIGH: '#c53030', CRITICAL: '#c53030' };

/** The locale the directory asks for when Intl knows it, else en-US. */
function localeOf(asked) {
	const text = String(asked ?? '').trim();
	try {
		return (text && Intl.NumberFormat.supportedLocalesOf([text])[0]) || 'en-US';
	} catch {
		return 'en-US';
	}
}

/** An ISO 4217 code as the service gives it, or '' when the value is not one. */
function currencyCode(value) {
	const code = String(value ?? '')
		.trim()
		.toUpperCase();
	if (!/^[A-Z]{3}$/.test(code)) return '';
	try {
		new Intl.NumberFormat('en-US', { style: 'currency', currency: code });
		return code;
	} catch {
		return '';
	}
}

/** A finite number from a figure (a number or numeric text), else null. */
function figure(value) {
	if (value === null || value === undefined || value === '' || typeof value === 'boolean')
		return null;
	const n = Number(value);
	return Number.isFinite(n) ? n : null;
}

/**
 * An amount of money: `{ locale, currency, byCode }`; byCode names the currency by its code
 * (for the team, where clients' currencies mix). Without a known currency the amount says so,
 * never passing as another currency's. '–' when the amount is not a number.
 */
function money(amount, { locale = 'en-US', currency, byCode = false } = {}) {
	const n = figure(amount);
	if (n === null) return '–';
	const code = currencyCode(currency);
	if (!code)
		return `${new Intl.NumberFormat(localeOf(locale), { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(n)} (currency not given)`;
	return new Intl.NumberFormat(localeOf(locale), {
		style: 'currency',
		currency: code,
		currencyDisplay: byCode ? 'code' : 'symbol',
	}).format(n);
}

/** A whole count (conversions) in the locale. */
function count(value, locale = 'en-US') {
	const n = figure(value);
	return n === null
		? '–'
		: new Intl.NumberFormat(localeOf(locale), { maximumFractionDigits: 0 }).format(n);
}

/** A ratio (ROAS, or its change) with two decimals in the locale. */
function ratio(value, locale = 'en-US') {
	const n = figure(value);
	return n === null
		? '–'
		: new Intl.NumberFormat(localeOf(locale), {
				minimumFractionDigits: 2,
				maximumFractionDigits: 2,
			}).format(n);
}

/** A day (YYYY-MM-DD) as "3 Nov" in the locale; the text itself when it is not a day. */
function day(ymd, locale = 'en-US') {
	const text = String(ymd ?? '');
	if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return text;
	const date = new Date(`${text}T00:00:00Z`);
	if (Number.isNaN(date.getTime())) return text;
	return new Intl.DateTimeFormat(localeOf(locale), {
		day: 'numeric',
		month: 'short',
		timeZone: 'UTC',
	}).format(date);
}
