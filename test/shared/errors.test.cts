/**
 * Errors as data (#25): every builder of errors.ts records the error's type in its context, and
 * the model-facing message reads that type, whatever the message says.
 */
import { fc, test as fcTest } from '@fast-check/jest';

import {
	ArgumentName,
	cancelledError,
	credentialError,
	fieldError,
	fileTooLargeError,
	TransportErrors,
	unexpectedError,
	unsupportedOperationError,
} from '../../nodes/shared/errors';
import { errorTypeOf, retryAdviceOf } from '../../nodes/shared/errorTypes';
import { Redactor } from '../../nodes/shared/redaction';
import { secretsOf } from '../../nodes/shared/credentialRules';
import { toolErrorMessage } from '../../nodes/shared/tool/presenter';
import { InputValidator } from '../../nodes/shared/validation';

const NODE = { name: 'Ad Performance' } as never;
const KEY = 'service_live_abcdefghijklmnopqrstuvwxyz012345';

const errors = () =>
	new TransportErrors(
		() => NODE,
		new Redactor(secretsOf({ apiKey: KEY })),
		'https://api.example.com',
		3,
	);

describe('every builder records the type as data', () => {
	test.each([
		[
			'a tool argument',
			() => fieldError(NODE, new ArgumentName('reportId'), 'is empty', 'Enter it.', 0, true),
			'invalid_argument',
		],
		[
			'a node field',
			() => fieldError(NODE, 'Report ID', 'is empty', 'Enter it.', 0, false),
			'invalid_input',
		],
		[
			'an operation the node lacks',
			() => unsupportedOperationError(NODE, 'report', 'x'),
			'invalid_input',
		],
		[
			'a credential',
			() => credentialError(NODE, 'The key is odd', 'Fix it.'),
			'invalid_credential',
		],
		['a cancel', () => cancelledError(NODE), 'cancelled'],
		['something else', () => unexpectedError(NODE, 'boom'), 'error'],
		[
			'a file too large',
			() => fileTooLargeError(NODE, { reportId: 'rpt_1', maxFileSizeMb: 1, itemIndex: 0 }),
			'file_too_large',
		],
		[
			'an error answer',
			() => errors().service({ status: 401, type: 'key_revoked' }),
			'key_revoked',
		],
		['an error answer without a type', () => errors().service({ status: 418 }), 'error'],
		[
			'a garbled answer',
			() => errors().protocol('not JSON', { method: 'GET', path: '/x' }),
			'protocol_error',
		],
		['a pagination loop', () => errors().pagination('/x', 'same page twice'), 'protocol_error'],
		[
			'a refused redirect',
			() => errors().refused('Redirected away', 'Not followed.'),
			'request_refused',
		],
		[
			'no connection',
			() => errors().network(new Error('x'), 'ECONNREFUSED', 'the connection was refused', {}),
			'service_unreachable',
		],
		[
			'a wait that ran out',
			() => errors().timedOut('Still going after 3 seconds', 'Wait longer.', 0),
			'timeout',
		],
		[
			'a failed report',
			() =>
				errors().workFailed({
					what: 'Report rpt_1',
					error: { message: 'gave up after 3 seconds' },
					itemIndex: 0,
					description: 'Generate it again.',
				}),
			'generation_failed',
		],
	])('%s', (_what, build, type) => {
		const error = build();
		expect(error.context.errorType).toBe(type);
		expect(errorTypeOf(error)).toBe(type);
		expect(toolErrorMessage(error)).toContain(`(${type}).`);
		expect(toolErrorMessage(error)).toContain(`Retry: ${retryAdviceOf(type)}.`);
	});
});

describe('a 429 is typed by its status', () => {
	// The trigger yields to a rate limit by this type alone (pollRound.ts): a 429 of the service
	// must carry it whatever its body names, and a file host's 429 is never the key's.
	fcTest.prop([fc.option(fc.string({ maxLength: 40 }), { nil: undefined }), fc.boolean()])(
		"a 429 of the service is rate_limit_error whatever its type; another origin's never",
		(type, fromFileHost) => {
			const origin = fromFileHost ? 'https://files.example.net' : undefined;
			const error = errors().service({ status: 429, type, origin });
			expect(errorTypeOf(error)).toBe(fromFileHost ? 'error' : 'rate_limit_error');
		},
	);
});

describe('the type is never read back from the message', () => {
	test('a message reworded to look like another type keeps its own', () => {
		const error = fieldError(NODE, 'Report ID', 'is empty', 'Enter it.', 0, false);
		error.message = 'argument reportId: Report rpt_1 failed: gave up after 30 seconds';
		expect(toolErrorMessage(error)).toMatch(/\(invalid_input\)\./);
	});

	test('whose value is wrong is told by where it came from, not by how its name reads', () => {
		const failure = (check: InputValidator, name: string | ArgumentName) => {
			try {
				return check.fail(name, 'is empty', 'Enter it.');
			} catch (error) {
				return error as Error;
			}
		};
		const node = new InputValidator(NODE, 0);
		const tool = new InputValidator(NODE, 0, undefined, (name) => name === 'Tool Timeout');
		// A name derived from an argument's (a template string) is no ArgumentName any more.
		const derived = `${new ArgumentName('campaignIds')} (entry 2)`;
		expect(failure(node, 'argument reportId').message).toBe('argument reportId: is empty');
		expect(errorTypeOf(failure(node, 'argument reportId'))).toBe('invalid_input');
		expect(errorTypeOf(failure(node, new ArgumentName('reportId')))).toBe('invalid_argument');
		expect(errorTypeOf(failure(tool, derived))).toBe('invalid_argument');
		expect(errorTypeOf(failure(tool, 'Tool Timeout'))).toBe('invalid_input');
	});

	test('an error we did not build is "error", whatever it says', () => {
		expect(toolErrorMessage(new Error('Report rpt_1 failed: after 3 seconds'))).toMatch(
			/\(error\)\. Retry: only once the cause above has changed\.$/,
		);
	});
});

describe('a wait that never got an answer is named for what its own last look met', () => {
	const subject = { subject: 'report rpt_1', timeoutSeconds: 2 };

	test('nothing failed, nothing answered: timeout', () => {
		const error = errors().unanswered(subject, 0);
		expect(error.context.errorType).toBe('timeout');
		expect(error.message).toBe(
			'The service did not answer within the timeout (2 seconds), so report rpt_1 could not be looked for',
		);
	});

	test('connections refused: service_unreachable, saying how', () => {
		const transport = errors();
		const failure = transport.network(
			new Error('x'),
			'ECONNREFUSED',
			'the connection was refused',
			{},
		);
		const error = transport.unanswered({ ...subject, failure }, 0);
		expect(error.context.errorType).toBe('service_unreachable');
		expect(error.message).toMatch(/could not be reached .*: the connection was refused$/);
	});

	test('a wait that saw the item before falling silent tells what it last saw, not "may well exist"', () => {
		const error = errors().unanswered({ ...subject, lastSeen: 'as generating' }, 0);
		expect(error.context.errorType).toBe('timeout');
		expect(error.description).toMatch(/^The service last showed report rpt_1 as generating;/);
		expect(error.description).not.toMatch(/may well exist/);
	});

	test('error answers: their own type', () => {
		const transport = errors();
		const failure = transport.service({ status: 503, type: 'api_error' });
		expect(transport.unanswered({ ...subject, failure }, 0).context.errorType).toBe('api_error');
	});
});

describe('what an item saw travels with that item (#39): no failure is kept beside it', () => {
	test("one item's failure never colours another item's message, whatever was built or met before", () => {
		const transport = errors();
		const subject = { subject: 'report rpt_1', timeoutSeconds: 2 };
		const refused = transport.network(new Error('refused'), 'ECONNREFUSED', 'refused', {});
		const answered = transport.service({ status: 500, type: 'api_error' });
		const garbled = transport.protocol('broken', { method: 'GET', path: '/accounts' });
		expect(transport.unanswered({ ...subject, failure: refused }, 0).context.errorType).toBe(
			'service_unreachable',
		);
		expect(transport.unanswered({ ...subject, failure: garbled }, 1).context.errorType).toBe(
			'protocol_error',
		);
		expect(transport.unanswered({ ...subject, failure: answered }, 2).context.errorType).toBe(
			'api_error',
		);
		// An item whose own look met nothing is a plain timeout, after all of the above.
		expect(transport.unanswered(subject, 3).context.errorType).toBe('timeout');
		// An error this builder did not make says nothing about what was seen.
		const elsewhere = transport.unanswered({ ...subject, failure: new Error('elsewhere') }, 4);
		expect(elsewhere.context.errorType).toBe('timeout');
	});
});
