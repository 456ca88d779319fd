// @uses text money
// Who gets this account's e-mail, from its row of the client directory ("Look up the client"):
// the name the e-mail greets, To and Cc, the locale of its figures, and why it is skipped, if it is.
// An address that is not exactly one address skips the client with the reason in the Run summary:
// it is never sent to whatever the text would make of it.
function code() {
	const c = $json.client ?? {};
	const to = emailAddress(c.to_email);
	const cc = emailAddress(c.cc_email);
	const skip = !c.account_id
		? 'not in the directory'
		: String(c.send).trim().toLowerCase() !== 'true'
			? 'switched off'
			: to.reason
				? `e-mail address "${oneLine(c.to_email, 80)}" ${to.reason}`
				: !to.address
					? 'no e-mail address'
					: cc.reason
						? `Cc address "${oneLine(c.cc_email, 80)}" ${cc.reason}`
						: '';
	return {
		json: {
			...$json,
			client_name: oneLine(c.client_name) || oneLine($json.account_name) || $json.account_id,
			to: to.address ?? '',
			cc: cc.address ?? '',
			skip_reason: skip,
			locale: localeOf(c.locale),
		},
	};
}
