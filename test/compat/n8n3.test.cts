/**
 * Ready for n8n 3.0 on paper: neither the package nor an example uses anything n8n 3.0 removes or
 * renames (the rows of ./n8n3.cts), and every row flags a planted use of what it looks for. n8n 3.0
 * itself is not run here: it is in early access and installs only from Docker images.
 */
import {
	check,
	readRepository,
	RULES,
	stringsOf,
	type Finding,
	type SubjectLists,
	type Where,
} from './n8n3.cjs';

const repository = readRepository();
const findings = check(repository);
const key = (f: Pick<Finding, 'rule' | 'at'>) => `${f.rule} @ ${f.at}`;

/**
 * 3.0 problems found and not fixed yet, each with why it is left. A listed finding that is no
 * longer found fails the test below: fixing it means taking it off this list.
 */
const KNOWN: Array<{ rule: string; at: string; why: string }> = [
	{
		rule: 'execute-workflow-each',
		at: 'examples/weekly-client-report-email-directory.json › Send it for review',
		// 3.0 fails the node until it runs in "once" mode behind a Loop Over Items (batch size 1),
		// which changes the review hand-off that test/e2e/review.test.mjs drives (its run data has one
		// run per client then); that needs the e2e run on real n8n, not done with this test.
		why: 'one review execution per held client; the Loop Over Items rewrite needs the e2e review run',
	},
];

const none = (): SubjectLists => ({
	exampleNode: [],
	exampleWorkflow: [],
	manifest: [],
	nodeDescription: [],
	packageSource: [],
	userDoc: [],
});
const only = <W extends Where>(where: W, subject: SubjectLists[W][number]): SubjectLists => ({
	...none(),
	[where]: [subject],
});

describe('n8n 3.0 readiness', () => {
	test('the package and the examples use nothing n8n 3.0 removes or renames (known findings aside)', () => {
		const known = new Set(KNOWN.map(key));
		const unexpected = findings
			.filter((f) => !known.has(key(f)))
			.map((f) => `${f.at}: ${f.detail} (n8n 3.0: ${f.change}) [${f.rule}]`);
		expect(unexpected).toEqual([]);
	});

	test('every known finding is still found (take it off the list once fixed)', () => {
		const found = new Set(findings.map(key));
		expect(KNOWN.map(key).filter((k) => !found.has(k))).toEqual([]);
	});

	// Without this, a walk that read nothing would pass.
	test('it reads the package as it ships and every example, expression and Code node', () => {
		const manifest = repository.manifest[0].manifest;
		expect(repository.nodeDescription.map((d) => d.file)).toHaveLength(
			manifest.n8n?.nodes?.length ?? -1,
		);
		expect(repository.nodeDescription.length).toBeGreaterThanOrEqual(3);
		expect(repository.packageSource.some((s) => s.file.startsWith('credentials/'))).toBe(true);
		expect(repository.exampleWorkflow.length).toBeGreaterThanOrEqual(10);
		const strings = repository.exampleNode.flatMap(({ node }) => stringsOf(node.parameters));
		expect(strings.filter(({ value }) => value.startsWith('=')).length).toBeGreaterThan(100);
		expect(
			repository.exampleNode.filter(
				({ node }) =>
					node.type === 'n8n-nodes-base.code' && String(node.parameters.jsCode).length > 0,
			).length,
		).toBeGreaterThanOrEqual(10);
		expect(repository.exampleNode.some(({ node }) => node.alwaysOutputData)).toBe(true);
		expect(repository.userDoc.some((d) => d.file === 'README.md')).toBe(true);
	});

	// The page says what was checked: a row added here and not there would go unmentioned.
	test('docs/compatibility.md names every row', () => {
		const page = repository.userDoc.find((d) => d.file === 'docs/compatibility.md')?.text ?? '';
		expect(RULES.map((r) => r.id).filter((id) => !page.includes(`\`${id}\``))).toEqual([]);
	});

	describe.each(RULES.map((r) => [r.id, r] as const))('%s', (_id, rule) => {
		test('flags each planted use, and nothing else flags it', () => {
			expect(rule.planted.length).toBeGreaterThan(0);
			for (const subject of rule.planted)
				expect(check(only(rule.where, subject as never)).map((f) => f.rule)).toEqual([rule.id]);
		});

		test('passes what 3.0 keeps', () => {
			expect(rule.passes.length).toBeGreaterThan(0);
			for (const subject of rule.passes)
				expect(check(only(rule.where, subject as never))).toEqual([]);
		});
	});

	test('a synthetic example using every removed thing at once is flagged once per node', () => {
		const planted = RULES.filter((r) => r.where === 'exampleNode').flatMap((r) =>
			(r.planted as SubjectLists['exampleNode']).map((s, i) => ({
				file: 'examples/synthetic.json',
				node: { ...s.node, name: `${r.id} ${i}` },
			})),
		);
		const flagged = check({ ...none(), exampleNode: planted });
		expect(flagged.map((f) => f.at).sort()).toEqual(
			planted.map((p) => `examples/synthetic.json › ${p.node.name}`).sort(),
		);
		expect(new Set(flagged.map((f) => f.rule))).toEqual(
			new Set(RULES.filter((r) => r.where === 'exampleNode').map((r) => r.id)),
		);
	});
});
