import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { given, givenOrRefused, type InputField, type InputSource } from '../inputSource';
import { ArgumentName, type FieldName } from '../errors';
import { InputValidator } from '../validation';

/**
 * An argument of a tool variant (docs/agent-tools.md, Arguments): a parameter shown only in the
 * tool variant whose default is a `$fromAI` call. It stands in for a top-level parameter of the
 * regular node (same name: a saved tool node that set it by hand keeps its value), or is a
 * tool-only `tool…` parameter for what the regular node keeps in a collection. n8n before about
 * 1.90 (no `@tool` display options) shows neither, and the tool works as the regular node does.
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
	/** What an empty argument means where the node's default is an expression (as of `$today`). */
	whenEmpty?: (timeZone: string) => string;
}

/**
 * An optional argument (empty: not given), text unless `more.type` says otherwise. Its parameter
 * is the tool-only `tool<Key>`, unless `more.parameter` names the regular one it stands in for.
 */
export function optionalArgument(
	key: string,
	displayName: string,
	description: string,
	more: Partial<ToolArgument> = {},
): ToolArgument {
	const parameter = `tool${key.charAt(0).toUpperCase()}${key.slice(1)}`;
	return { key, parameter, displayName, type: 'string', description, default: '', ...more };
}

function fromAiExpression(argument: ToolArgument): string {
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
 * The tool-variant parameters of one operation, each shown only in its tool variant: its tool
 * description, one parameter per argument, and its tool-only `settings`.
 */
export function toolProperties(
	show: IDataObject,
	toolDescription: string,
	args: readonly ToolArgument[],
	settings: readonly INodeProperties[] = [],
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
		...settings.map((setting): INodeProperties => ({ ...setting, displayOptions })),
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
 * The input source of a tool call (inputSource.ts). A field with an argument reads it, and an
 * empty optional argument means what the tool documents (`whenEmpty`, `default`); any other field
 * reads the tool node's parameter (or the tool's own setting for it), as the regular node does.
 */
export class ToolArguments implements InputSource {
	readonly check: InputValidator;
	readonly isTool: boolean = true;
	readonly nodeVersion: number;
	/** The names given to the tool node's settings (not arguments): the user's to correct. */
	private readonly settingNames = new Set<string>();

	constructor(
		private readonly ctx: IExecuteFunctions,
		readonly itemIndex: number,
		private readonly args: readonly ToolArgument[],
		private readonly settings: readonly INodeProperties[] = [],
	) {
		this.check = new InputValidator(ctx.getNode(), itemIndex, ctx.getTimezone(), (name) =>
			this.settingNames.has(name),
		);
		this.nodeVersion = ctx.getNode().typeVersion;
	}

	private argumentOf(field: InputField): ToolArgument | undefined {
		return this.args.find((argument) => argument.key === field.argument);
	}

	value(field: InputField): unknown {
		const argument = this.argumentOf(field);
		const parameter = argument?.parameter ?? field.setting ?? field.parameter;
		const setting = argument ? undefined : this.settings.find(({ name }) => name === parameter);
		const fallback = argument ? null : setting ? setting.default : (field.default ?? null);
		const value = givenOrRefused(
			this.check,
			this.ctx.getNode(),
			parameter,
			this.name(field),
			this.ctx.getNodeParameter(parameter, this.itemIndex, fallback, {
				extractValue: (argument ?? field).locator === true,
			}),
		);
		// A model's null or empty argument means it left the argument out ($fromAI gives the
		// default for null); a value the user fixed by hand is read as the node reads it.
		if (value !== undefined || !argument) return value;
		return argument.whenEmpty?.(this.check.timeZone) ?? given(argument.default);
	}

	name(field: InputField): FieldName {
		const argument = this.argumentOf(field);
		if (argument) return new ArgumentName(argument.key);
		const setting = this.settings.find((property) => property.name === field.setting);
		const name = setting?.displayName ?? field.label;
		this.settingNames.add(name);
		return name;
	}
}
