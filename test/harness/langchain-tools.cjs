// What the tests load for `@langchain/core/tools` (jest.config.js maps it here). n8n-core
// imports it only to connect AI sub-nodes (a node taken as an agent's tool, a toolkit), and it
// brings @langchain/core and langsmith with it: about 380 of the 1,700 modules of n8n-core that
// every test file loads into its own registry (measured: 2.5 -> 1.8 s of CPU for one file to
// load the helpers, 50 -> 41 s for 16 short files; in a whole `npm test` a few seconds, as V8
// compiles each module once per worker). No test connects a sub-node (the tool variants run
// on `main`, test/nodes/helpers.cts `toolVariant`; the real AI Agent is `npm run test:agent`'s),
// so these classes only have to exist; one built would be a harness that no longer holds, and
// it says so.
class NotInTheTestHarness {
	constructor() {
		throw new Error(
			'@langchain/core/tools is not loaded in the jest harness (jest.config.js moduleNameMapper): connect AI sub-nodes in npm run test:agent',
		);
	}
}
class Tool extends NotInTheTestHarness {}
class StructuredTool extends NotInTheTestHarness {}
class DynamicStructuredTool extends NotInTheTestHarness {}
class BaseToolkit extends NotInTheTestHarness {}

module.exports = { Tool, StructuredTool, DynamicStructuredTool, BaseToolkit };
