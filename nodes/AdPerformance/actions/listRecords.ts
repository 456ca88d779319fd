import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { FieldName } from '../../shared/errors';
import { defined, read, readOr, inputField, type InputSource } from '../../shared/inputSource';
import type { ExecuteItem, OperationTool } from '../../shared/tool/operationTool';
import type { Bounds } from '../../shared/tool/presenter';
import { optionalArgument, type ToolArgument } from '../../shared/tool/toolArguments';
import {
	listResult,
	TOOL_DEFAULT_LIMIT,
	TOOL_MAX_LIMIT,
	type Simplifier,
} from '../../shared/tool/toolResults';
import { onePage, type AdPerformanceClient } from '../../shared/transport';
import type { SingleEnvelope } from '../../shared/types';

export type ListInput = ReturnType<typeof readListInput>;

const LIMIT_ARGUMENT = optionalArgument(
	'limit',
	'Limit',
	`How many records to return, 1 to ${TOOL_MAX_LIMIT}`,
	{ parameter: 'limit', type: 'number', default: TOOL_DEFAULT_LIMIT },
);

const PAGE_ARGUMENT = optionalArgument(
	'page',
	'Page',
	'Which page of results, starting at 1; use the next page when hasMore is true',
	{ type: 'number', default: 1 },
);

const RETURN_ALL = inputField('returnAll', 'Return All');
const LIMIT = inputField('limit', 'Limit', 'limit');
const PAGE = inputField('toolPage', 'Page', 'page');

/**
 * A Get Many's input: its checked filters as the query, and Return All / Limit, or in a tool Limit
 * and Page (a tool returns one page).
 */
export function readListInput(source: InputSource, qs: IDataObject) {
	const { check } = source;
	const filters = defined(qs);
	const integer = (min: number, max: number) => (name: FieldName, value: unknown) =>
		check.integer(name, value, min, max);
	if (source.isTool) {
		return {
			qs: filters,
			returnAll: false,
			limit: read(source, LIMIT, integer(1, TOOL_MAX_LIMIT)),
			page: read(source, PAGE, integer(1, 100_000)),
		};
	}
	const returnAll = readOr(source, RETURN_ALL, check.boolean, false);
	const limit = returnAll ? 0 : readOr(source, LIMIT, integer(1, 1_000_000), 50);
	return { qs: filters, returnAll, limit, page: 1 };
}

/**
 * A Get Many of `path`: the records matching the filters, all or up to Limit, one item each. Its
 * tool takes the filter arguments, `limit` and `page`, and returns one simplified page a call.
 */
export function listOperation(
	toolDescription: string,
	filters: readonly ToolArgument[],
	{ path, what, simplify }: { path: string; what: string; simplify: Simplifier },
): { execute: ExecuteItem<ListInput, INodeExecutionData[]>; tool: OperationTool<ListInput> } {
	return {
		async execute(client, itemIndex, { qs, returnAll, limit }) {
			const records = await client.list<IDataObject>(path, qs, {
				returnAll,
				limit,
				itemIndex,
				deadline: client.deadline(),
			});
			return records.map((record) => ({ json: record }));
		},
		tool: {
			description: toolDescription,
			args: [...filters, LIMIT_ARGUMENT, PAGE_ARGUMENT],
			async execute(client, itemIndex, { qs, limit, page }) {
				const envelope = await client.listPage<IDataObject>(path, qs, page, limit, {
					itemIndex,
					deadline: client.deadline(),
				});
				// A contradictory page is never "these are all": more may follow, and the hint says why.
				const listed = onePage(envelope, { page, pageSize: limit });
				const show = (record: IDataObject, bounds?: Bounds) =>
					simplify(record, client.redactor, bounds);
				const shape = { show, what, page, limit };
				return listed.kind === 'consistent'
					? listResult(listed.records, { ...shape, hasMore: listed.hasMore })
					: listResult(listed.records, { ...shape, hasMore: true, incomplete: listed.reason });
			},
		},
	};
}

/** One record by its id (GET /campaigns/{id} or /diagnostics/{id}), within `deadline`. */
export async function getRecord<T>(
	client: AdPerformanceClient,
	kind: 'campaign' | 'diagnostic',
	id: string,
	itemIndex: number,
	deadline: number,
): Promise<T> {
	const envelope = await client.request<SingleEnvelope<T>>({
		method: 'GET',
		path: `/${kind}s/${encodeURIComponent(id)}`,
		itemIndex,
		subject: `${kind} ${id}`,
		expect: 'record',
		deadline,
	});
	return envelope.data;
}

/** The execute of a Get by id: the record as the one output item. */
export function getRecordById(
	kind: 'campaign' | 'diagnostic',
): ExecuteItem<string, INodeExecutionData[]> {
	return async function (client, itemIndex, id) {
		return [{ json: await getRecord<IDataObject>(client, kind, id, itemIndex, client.deadline()) }];
	};
}
