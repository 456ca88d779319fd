import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { InputValidator } from '../validation';

/**
 * The arguments of a tool variant (docs/agent-tools.md). n8n builds a tool's input schema only
 * from the `$fromAI()` calls in its parameters, and fills every visible parameter with its
 * default; so each argument is a parameter shown only in the tool variant (`@tool`) whose
 * default is a `$fromAI` call. Such a node offers a full schema with no setup, and a parameter
 * the user sets by hand leaves the schema, as everywhere in n8n.
 *
 * An argument either stands in for a top-level parameter of the regular node (same name, so a
 * saved tool node that set it by hand keeps its value; the regular one is hidden in the tool
 * variant) or is a tool-only parameter (`tool…`) for what the regular node keeps in a
 * collection. n8n versions without `@tool` display options (before about 1.90) show neither
 * kind, and the tool variant works as the regular node does.
 */
export interface ToolArgument {
	/** The `$fromAI` key: stable, documented in docs/agent-tools.md. */
	key: string;
	/** The parameter that carries it. */
	parameter: string;
	displayName: string;
	type: 'string' | 'number';
	/** Written for a model: what to pass, in which form. No quotes or backslashes. */
	description: string;
	/** Makes the argument optional (an empty string: not given). */
	default?: string | number;
	/** The regular node's parameter is a resource locator of this name: keep that shape. */
	locator?: boolean;
	/** Allowed values, checked in code (the error lists them). */
	allowed?: readonly string[];
}

/** The `$fromAI` expression of an argument. */
export function fromAiExpression(argument: ToolArgument): string {
	const quote = (text: string) => `'${text.replace(/[\\']/g, '')}'`;
	const parts = [quote(argument.key), quote(argument.description), quote(argument.type)];
	if (argument.default !== undefined) {
		parts.push(
			typeof argument.default === 'number' ? String(argument.default) : quote(argument.default),
		);
	}
	return `={{ $fromAI(${parts.join(', ')}) }}`;
}

/**
 * The tool-variant parameters of one operation: its tool description and one parameter per
 * argument, each shown only in the tool variant of that operation.
 */
export function toolProperties(
	show: IDataObject,
	toolDescription: string,
	args: readonly ToolArgument[],
): INodeProperties[] {
	const displayOptions = {
		show: { '@tool': [true], ...show },
	} as INodeProperties['displayOptions'];
	return [
		{
			displayName: 'Tool Description',
			name: 'toolDescription',
			type: 'string',
			typeOptions: { rows: 4 },
			default: toolDescription,
			description:
				'What the AI agent reads about this tool. The default says what it returns and what to pass.',
			displayOptions,
		},
		...args.map((argument): INodeProperties => {
			const expression = fromAiExpression(argument);
			const common = {
				displayName: argument.displayName,
				name: argument.parameter,
				description: `${argument.description}. By default the AI agent fills it in; set a value to fix it.`,
				displayOptions,
			};
			if (argument.locator) {
				return {
					...common,
					type: 'resourceLocator',
					default: { __rl: true, mode: 'id', value: expression },
					modes: [{ displayName: 'ID', name: 'id', type: 'string' }],
				};
			}
			return {
				...common,
				type: argument.type === 'number' ? 'number' : 'string',
				default: expression as never,
			};
		}),
	];
}

/** Hides regular parameters in the tool variant, where an argument of the same name stands in. */
export function hiddenInTool(
	properties: INodeProperties[],
	names: readonly string[],
): INodeProperties[] {
	return properties.map((property) =>
		names.includes(property.name)
			? {
					...property,
					displayOptions: {
						...property.displayOptions,
						hide: { ...(property.displayOptions?.hide ?? {}), '@tool': [true] },
					},
				}
			: property,
	);
}

/** Whether this execution is the node's tool variant (`…Tool`), as n8n names it. */
export function isToolVariant(ctx: Pick<IExecuteFunctions, 'getNode'>): boolean {
	return ctx.getNode().type.endsWith('Tool');
}

/**
 * Reads the arguments of a tool call, checked before any request. Empty optional arguments come
 * back as undefined; a value outside `allowed` is an error that names the argument and lists
 * the allowed values.
 */
export class ToolArguments {
	private readonly check: InputValidator;

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly itemIndex: number,
		private readonly args: readonly ToolArgument[],
	) {
		this.check = new InputValidator(ctx.getNode(), itemIndex);
	}

	private spec(key: string): ToolArgument {
		const spec = this.args.find((argument) => argument.key === key);
		if (!spec) throw new Error(`No tool argument ${key}`);
		return spec;
	}

	/** Whether this operation offers the argument. */
	has(key: string): boolean {
		return this.args.some((argument) => argument.key === key);
	}

	/** The raw value, or undefined when an optional argument was not given. */
	raw(key: string): unknown {
		const spec = this.spec(key);
		const value = this.ctx.getNodeParameter(spec.parameter, this.itemIndex, undefined, {
			extractValue: spec.locator === true,
		});
		if (value === undefined || value === null) return undefined;
		if (typeof value === 'string' && value.trim() === '') return undefined;
		return value;
	}

	/** A text argument; a required one that is missing is an error naming it. */
	text(key: string, options: { required?: boolean } = {}): string | undefined {
		const value = this.raw(key);
		if (value === undefined) {
			if (options.required) this.missing(key);
			return undefined;
		}
		const text = this.check.text(`argument ${key}`, value, { maxLength: 500 });
		const allowed = this.spec(key).allowed;
		if (allowed) {
			const match = allowed.find((option) => option.toLowerCase() === text.toLowerCase());
			if (!match) {
				this.check.fail(
					`argument ${key}`,
					`"${text.slice(0, 40)}" is not one of the allowed values`,
					`Pass one of: ${allowed.join(', ')}${this.spec(key).default !== undefined ? ', or leave it out' : ''}.`,
				);
			}
			return match;
		}
		return text;
	}

	/** A whole number within bounds, the argument's default when not given. */
	integer(key: string, min: number, max: number): number {
		const value = this.raw(key) ?? this.spec(key).default;
		return this.check.integer(`argument ${key}`, value, min, max);
	}

	private missing(key: string): never {
		return this.check.fail(
			`argument ${key}`,
			'is missing',
			`Pass ${key}: ${this.spec(key).description}.`,
		);
	}
}
