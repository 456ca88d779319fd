/**
 * Errors a model can act on. Agent 3.x passes a tool's error to the model as its message only
 * (the description, where the fix lives, is dropped), so in the tool variants the message itself
 * says what went wrong, the error type, the fix, and whether retrying helps. The type and its
 * retry advice are the ones the error's builder recorded (errors.ts), never guessed.
 */
import { errorTypeOf, retryAdviceOf } from '../errors';
import { cut } from '../redaction';

export const MAX_TOOL_ERROR_CHARS = 400;

interface ErrorLike {
	message?: unknown;
	description?: unknown;
	context?: { errorType?: unknown };
}

function sentence(text: string): string {
	const trimmed = text.trim().replace(/\s+/g, ' ');
	return trimmed === '' || /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** Room kept for the fix when what went wrong is long: a model needs the type, fix and retry. */
const MIN_FIX_CHARS = 80;

/**
 * The message a model reads, at most MAX_TOOL_ERROR_CHARS: what, type, fix, retry. The type and
 * the retry advice are always whole; a long "what" and then the fix are shortened. The texts
 * were scrubbed when the error was built (errors.ts), so no cut here can split a secret.
 */
export function toolErrorMessage(error: ErrorLike): string {
	const type = errorTypeOf(error);
	const fix = typeof error.description === 'string' ? sentence(error.description) : '';
	const retry = ` Retry: ${retryAdviceOf(type)}.`;
	const typePart = ` (${type}).`;
	const whatRoom =
		MAX_TOOL_ERROR_CHARS - typePart.length - retry.length - (fix ? MIN_FIX_CHARS : 0);
	const what = cut(
		sentence(String(error.message ?? 'The tool failed')).replace(/\.$/, ''),
		whatRoom,
	);
	const head = `${what}${typePart}`;
	const room = MAX_TOOL_ERROR_CHARS - head.length - retry.length;
	const fixPart = fix && room > 10 ? cut(` Fix: ${fix}`, room) : '';
	return cut(`${head}${fixPart}${retry}`, MAX_TOOL_ERROR_CHARS);
}

/** Rewrites an error's message for a model, in place; keeps everything else. */
export function asToolError<E>(error: E): E {
	if (error && typeof error === 'object') {
		const target = error as unknown as ErrorLike & { message: string };
		target.message = toolErrorMessage(target);
	}
	return error;
}
