import type { IExecuteFunctions, INode, IPollFunctions } from 'n8n-workflow';

import type { FieldName } from './errors';
import { InputValidator } from './validation';

/**
 * One input of an operation, as the regular node's parameter and, in the tool variant, the
 * `$fromAI` argument that stands in for it: `read` reads it once, from either source.
 */
export interface InputField {
	/** The regular node's parameter: a name, or `collection.option` (n8n reads the path). */
	parameter: string;
	/** How an error of the regular node names it: its display name, after its collection's. */
	label: string;
	/** The tool argument's key that stands in for it (toolArguments.ts), if the tool has one. */
	argument?: string;
	/** The tool-only setting (not an argument) that stands in for it in the tool variant. */
	setting?: string;
	/** A resource locator: its value is read. */
	locator?: boolean;
	/** The parameter's value when it is not in the saved node at all. */
	default?: unknown;
}

/**
 * Where an operation's input comes from: the node's parameters or a tool call's arguments. A
 * source only reads and names; the checks are the operation's, through `check`.
 */
export interface InputSource {
	readonly itemIndex: number;
	readonly check: InputValidator;
	/**
	 * A tool call. Readers ask only where a tool differs by design, not in its checks: a tool
	 * returns one bounded page, takes either account ID, outputs no file, waits briefly.
	 */
	readonly isTool: boolean;
	/** The node's version: readers ask only where a version moved a field or changed its default. */
	readonly nodeVersion: number;
	/** The field's value; undefined when not given. A user's expression giving nothing is refused. */
	value(field: InputField): unknown;
	/** How an error names the field: by its label, or in a tool call by its argument key. */
	name(field: InputField): FieldName;
}

/** Nothing, an empty text or only spaces: not given. */
export function given(value: unknown): unknown {
	const blank = typeof value === 'string' && value.trim() === '';
	return value === null || blank ? undefined : value;
}

/** A parameter as saved in the workflow (`collection.option` paths), before expressions run. */
function savedValue(node: INode, path: string): unknown {
	let value: unknown = node.parameters;
	for (const key of path.split('.')) {
		if (value === null || typeof value !== 'object') return undefined;
		value = (value as Record<string, unknown>)[key];
	}
	// A resource locator's expression is its value.
	if (value && typeof value === 'object' && '__rl' in value) {
		return (value as { value?: unknown }).value;
	}
	return value;
}

/** An expression of the user's: a `$fromAI` stand-in is the model's (its null: "left out"). */
function isUserExpression(saved: unknown): boolean {
	return typeof saved === 'string' && saved.startsWith('=') && !/\$fromAI\(/i.test(saved);
}

/**
 * A field's value as read: nothing and blanks are "not given", but a user's expression that gives
 * null or undefined is an error naming the field (why: docs/input-values.md, Empty and missing).
 */
export function givenOrRefused(
	check: InputValidator,
	node: INode,
	path: string,
	name: FieldName,
	value: unknown,
): unknown {
	if ((value === null || value === undefined) && isUserExpression(savedValue(node, path))) {
		refuseNothing(check, name, value);
	}
	return given(value);
}

/** The error of a field the user set to an expression that gave nothing. */
function refuseNothing(check: InputValidator, name: FieldName, value: unknown): never {
	return check.fail(
		name,
		`its expression gave ${value === null ? 'null' : 'undefined'} (no value)`,
		`Check the expression of ${name}: the value it reads may be missing or renamed. To leave ${name} out, remove it or make the expression give an empty text.`,
	);
}

/**
 * An option of a collection as given: `undefined` when it is not there or empty (its default).
 * One there with null or undefined was added by the user with an expression that gave nothing.
 */
export function collectionOption(
	check: InputValidator,
	collection: unknown,
	option: string,
	name: FieldName,
): unknown {
	if (!collection || typeof collection !== 'object' || !(option in collection)) return undefined;
	const value = (collection as Record<string, unknown>)[option];
	if (value === null || value === undefined) refuseNothing(check, name, value);
	return given(value);
}

/** How a source reads one parameter (the execute and poll contexts differ). */
type ParameterGetter = (
	parameter: string,
	fallback: unknown,
	options: { extractValue: boolean },
) => unknown;

/** The regular node's parameters of one item, or of a poll of the trigger (`ofPoll`). */
export class NodeParameters implements InputSource {
	readonly check: InputValidator;
	readonly isTool: boolean = false;
	readonly nodeVersion: number;
	private readonly node: INode;

	constructor(ctx: IExecuteFunctions, itemIndex: number);
	constructor(ctx: IPollFunctions, itemIndex: 0, get: ParameterGetter);
	constructor(
		ctx: IExecuteFunctions | IPollFunctions,
		readonly itemIndex: number,
		private readonly get: ParameterGetter = (parameter, fallback, options) =>
			(ctx as IExecuteFunctions).getNodeParameter(parameter, itemIndex, fallback, options),
	) {
		this.node = ctx.getNode();
		this.nodeVersion = this.node.typeVersion;
		this.check = new InputValidator(this.node, itemIndex, ctx.getTimezone());
	}

	/** The trigger's parameters: a poll has no items. */
	static ofPoll(ctx: IPollFunctions): NodeParameters {
		return new NodeParameters(ctx, 0, (parameter, fallback, options) =>
			ctx.getNodeParameter(parameter, fallback, options),
		);
	}

	value(field: InputField): unknown {
		const value = this.get(field.parameter, field.default ?? null, {
			extractValue: field.locator === true,
		});
		return givenOrRefused(this.check, this.node, field.parameter, field.label, value);
	}

	name(field: InputField): FieldName {
		return field.label;
	}
}

/** A required field checked by `rule` (an InputValidator method); not given, it is an error. */
export function read<T>(
	source: InputSource,
	field: InputField,
	rule: (name: FieldName, value: unknown) => T,
): T {
	const value = source.value(field);
	const name = source.name(field);
	if (value === undefined) source.check.fail(name, 'is missing', `Enter a value for ${name}.`);
	return rule(name, value);
}

/** A field with a default: checked by `rule` when it is given, else `fallback` as it is. */
export function readOr<T>(
	source: InputSource,
	field: InputField,
	rule: (name: FieldName, value: unknown) => T,
	fallback: T,
): T {
	const value = source.value(field);
	return value === undefined ? fallback : rule(source.name(field), value);
}

/** An optional field checked by `rule` when it is given; undefined when it is not. */
export function readOptional<T>(
	source: InputSource,
	field: InputField,
	rule: (name: FieldName, value: unknown) => T,
): T | undefined {
	return readOr<T | undefined>(source, field, rule, undefined);
}

/** The entries that are set: a request sends optional fields only when they were given. */
export function defined<T extends object>(record: T): T {
	return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T;
}

/** A field: the node's parameter, how the node names it, and the tool argument for it if any. */
export function inputField(
	parameter: string,
	label: string,
	argument?: string,
	more: Omit<InputField, 'parameter' | 'label' | 'argument'> = {},
): InputField {
	return { parameter, label, argument, ...more };
}
