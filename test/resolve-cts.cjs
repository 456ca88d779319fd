// Jest resolver: a test file imports another as `./helpers.cjs` or the fake service as
// `../../sandbox/index.cjs` (what TypeScript requires in .cts files), and a node as
// `AdPerformance.node.js`; when no such .cjs or .js file exists, the .cts or .ts source is meant.
module.exports = (request, options) => {
	try {
		return options.defaultResolver(request, options);
	} catch (error) {
		if (!/^\.{1,2}\/.*\.c?js$/.test(request)) throw error;
		return options.defaultResolver(request.replace(/\.(c?)js$/, '.$1ts'), options);
	}
};
