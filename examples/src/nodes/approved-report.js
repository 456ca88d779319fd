// The report as the weekly workflow had it (figures, change from last week, client), with the
// PDF just downloaded: what "E-mail the report" reads, as in the weekly workflow.
function code() {
	return [{ json: $('Who gets what').first().json, binary: $input.first().binary }];
}
