const path = require('path');
const { task, src, dest, parallel } = require('gulp');

// tsc compiles the TypeScript; n8n also needs the codex JSON next to each node and the icons,
// which the nodes and the credential share from the top-level icons/ folder (as the
// n8n-nodes-starter lays them out): dist/icons beside dist/nodes and dist/credentials.
function copyIcons() {
	return src(path.resolve('icons', '*.svg'), { encoding: false }).pipe(dest(path.resolve('dist', 'icons')));
}

function copyCodex() {
	return src(path.resolve('nodes', '**', '*.node.json')).pipe(dest(path.resolve('dist', 'nodes')));
}

task('build:icons', parallel(copyIcons, copyCodex));
