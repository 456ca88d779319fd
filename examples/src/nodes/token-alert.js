// @uses text
// The team's alert when an account's ad platform token expired: the subject names the account on
// one line (no line break from the account's name can add a header), the text says what to do.
function code() {
	const account = $json.account ?? {};
	const name = oneLine(account.name) || oneLine(account.platformAccountId) || 'an ad account';
	return {
		json: {
			...$json,
			email: {
				subject: oneLine(`Reconnect ${name}: its ad platform token expired`, 250),
				text: [
					`The ad account ${name} (${oneLine(account.platformAccountId, 40)}) changed from ${oneLine($json.previousStatus, 40)} to ${oneLine($json.currentStatus, 40)}.`,
					'Its data no longer syncs. Re-authenticate it in the service dashboard before the next reports run.',
				].join('\n'),
			},
		},
	};
}
