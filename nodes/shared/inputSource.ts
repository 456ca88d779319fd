import type { IExecuteFunctions } from 'n8n-workflow';

import type { FieldName } from './errors';
import { InputValidator } from './validation';

/**
 * One input of an operation, as both places it can come from know it: the regular node's
 * parameter and, in the tool variant, the `$fromAI` argument that stands in for it. An
 * operation's `readInput` reads and checks each field once, from whichever source runs.
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
 * Where an operation's input comes from: the node's parameters (NodeParameters) or a tool
 * call's arguments (ToolArguments). A source only reads and names; the checks are the
 * operation's, through `check`, so one invalid value gets one error whichever source gave it.
 */
export interface InputSource {
	readonly itemIndex: number;
	/** Checks input of this item (validation.ts). */
	readonly check: InputValidator;
	/**
	 * A tool call. Readers ask only where a tool differs by design, not in its checks: a tool
	 * returns one bounded page, takes either account ID, outputs no file, waits briefly.
	 */
	readonly isTool: boolean;
	/** The field's value as given; undefined when it is empty or not given. */
	value(field: InputField): unknown;
	/** How an error names the field: by its label, or in a tool call by its argument key. */
	name(field: InputField): FieldName;
}

/** Nothing, an empty text or only spaces: not given. */
export function given(value: unknown): unknown {
	if (value === undefined || value === null) return undefined;
	if (typeof value === 'string' && value.trim() === '') return undefined;
	return value;
}

/** The regular node's parameters of one item. */
export class NodeParameters implements InputSource {
	readonly check: InputValidator;
	readonly isTool: boolean = false;

	constructor(
		private readonly ctx: IExecuteFunctions,
		readonly itemIndex: number,
	) {
		this.check = new InputValidator(ctx.getNode(), itemIndex);
	}

	value(field: InputField): unknown {
		return given(
			this.ctx.getNodeParameter(field.parameter, this.itemIndex, field.default ?? null, {
				extractValue: field.locator === true,
			}),
		);
	}

	name(field: InputField): FieldName {
		return field.label;
	}
}

/** The field's value; a field that is not given is an error naming it, before any request. */
export function required(source: InputSource, field: InputField): unknown {
	const value = source.value(field);
	if (value === undefined) {
		const name = source.name(field);
		source.check.fail(name, 'is missing', `Enter a value for ${name}.`);
	}
	return value;
}

/** A required field checked by `rule` (an InputValidator method), named as the source names it. */
export function read<T>(
	source: InputSource,
	field: InputField,
	rule: (name: FieldName, value: unknown) => T,
): T {
	return rule(source.name(field), required(source, field));
}

/** An optional field checked by `rule` when it is given; undefined when it is not. */
export function readOptional<T>(
	source: InputSource,
	field: InputField,
	rule: (name: FieldName, value: unknown) => T,
): T | undefined {
	const value = source.value(field);
	return value === undefined ? undefined : rule(source.name(field), value);
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
