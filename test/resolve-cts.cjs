// Jest resolver: a test file imports another as `./helpers.cjs` or the fake service as
// `../../sandbox/index.cjs` (what TypeScript requires in .cts files); when no such .cjs file
// exists, the .cts source is meant.
module.exports = (request, options) => {
	try {
		return options.defaultResolver(request, options);
	} catch (error) {
		if (!/^\.{1,2}\/.*\.cjs$/.test(request)) throw error;
		return options.defaultResolver(request.replace(/\.cjs$/, '.cts'), options);
	}
};
