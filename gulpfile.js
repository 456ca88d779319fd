const path = require('path');
const { task, src, dest } = require('gulp');

// tsc compiles the TypeScript; n8n also needs the icons and the codex JSON next to each node.
task('build:icons', copyAssets);

function copyAssets() {
	const nodeAssets = path.resolve('nodes', '**', '*.{png,svg,json}');
	const nodeDestination = path.resolve('dist', 'nodes');
	src(nodeAssets, { encoding: false }).pipe(dest(nodeDestination));

	const credAssets = path.resolve('credentials', '**', '*.{png,svg}');
	const credDestination = path.resolve('dist', 'credentials');
	return src(credAssets, { encoding: false }).pipe(dest(credDestination));
}
