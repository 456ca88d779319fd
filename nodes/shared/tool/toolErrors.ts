/**
 * Errors a model can act on. Agent 3.x passes a tool's error to the model as its message only
 * (the description, where the fix lives, is dropped), so in the tool variants the message
 * itself says what went wrong, the error type, the fix, and whether retrying helps, in at most
 * MAX_TOOL_ERROR_CHARS. The error's other fields are kept for the execution log. The type and
 * its retry advice come from the error's builder (errors.ts); the texts were scrubbed there.
 */
import { errorTypeOf, retryAdviceOf } from '../errors';

export const MAX_TOOL_ERROR_CHARS = 400;

interface ErrorLike {
	message?: unknown;
	description?: unknown;
	context?: { errorType?: unknown };
}

/** The error type a model is told: the one its builder recorded (errors.ts), never guessed. */
export function toolErrorType(error: ErrorLike): string {
	return errorTypeOf(error);
}

function sentence(text: string): string {
	const trimmed = text.trim().replace(/\s+/g, ' ');
	return trimmed === '' || /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** The message a model reads, at most MAX_TOOL_ERROR_CHARS: what, type, fix, retry. */
export function toolErrorMessage(error: ErrorLike): string {
	const type = toolErrorType(error);
	const what = sentence(String(error.message ?? 'The tool failed')).replace(/\.$/, '');
	const fix = typeof error.description === 'string' ? sentence(error.description) : '';
	const retry = `Retry: ${retryAdviceOf(type)}.`;
	const head = `${what} (${type}).`;
	let fixPart = fix ? ` Fix: ${fix}` : '';
	const room = MAX_TOOL_ERROR_CHARS - head.length - retry.length - 1;
	if (fixPart.length > room) fixPart = room > 10 ? `${fixPart.slice(0, room - 1)}…` : '';
	const message = `${head}${fixPart} ${retry}`;
	return message.length > MAX_TOOL_ERROR_CHARS
		? `${message.slice(0, MAX_TOOL_ERROR_CHARS - 1)}…`
		: message;
}

/** Rewrites an error's message for a model, in place; keeps everything else. */
export function asToolError<E>(error: E): E {
	if (error && typeof error === 'object') {
		const target = error as unknown as ErrorLike & { message: string };
		target.message = toolErrorMessage(target);
	}
	return error;
}
