/**
 * Attack (#30, a shared request whose owner goes away): two identical Generates of one n8n share
 * one POST (single-flight). When the execution that sent it is stopped before the answer, the one
 * that joined carries on by itself by the rule of a lost answer: it looks for the report the POST
 * created, and takes it; nothing is sent twice and it does not fail as "could not be reached".
 */
import { runWorkflow } from '../harness/run-workflow.cjs';
import { adNode, apiRequests, generateParameters, rl } from '../nodes/helpers.cjs';
import { useHostileService } from './helpers.cjs';

const service = useHostileService();

test('the owner is stopped after sending: the joiner finds the report its POST created', async () => {
	const account = service.fake.accounts().find((record) => record.name === 'Acme Outdoor')!;
	const title = `Shared, owner stopped ${Date.now()}`;
	let reached!: () => void;
	const postReached = new Promise<void>((resolve) => (reached = resolve));
	service.fake.intercept({
		method: 'POST',
		pathPrefix: '/v1/reports',
		times: 1,
		// The service creates the report at once and answers 3 s later.
		respond: (_request, real) => {
			const reply = real();
			reached();
			return { reply, delayMs: 3_000 };
		},
	});
	service.fake.clearLog();
	const generate = () =>
		runWorkflow({
			credentials: service.credentials(),
			nodes: [adNode(generateParameters({ accountId: rl(account.platformAccountId), title }))],
		});
	let stopOwner!: () => void;
	const ownerStopped = new Promise<void>((resolve) => (stopOwner = resolve));
	const owner = runWorkflow({
		credentials: service.credentials(),
		nodes: [adNode(generateParameters({ accountId: rl(account.platformAccountId), title }))],
		cancelWhen: ownerStopped,
	});
	await postReached;
	const joiner = generate();
	// Give the joiner time to join the POST in flight, then stop its owner.
	await new Promise((resolve) => setTimeout(resolve, 500));
	stopOwner();
	const [ownerResult, joinerResult] = await Promise.all([owner, joiner]);

	expect(ownerResult.run.status).toBe('canceled');
	expect(joinerResult.error?.message).toBeUndefined();
	const made = service.fake.reports().filter((report) => report.title === title);
	expect(made).toHaveLength(1);
	expect(joinerResult.items[0].json.id).toBe(made[0].id);
	expect(apiRequests(service, { method: 'POST', pathPrefix: '/v1/reports' })).toHaveLength(1);
}, 30_000);
