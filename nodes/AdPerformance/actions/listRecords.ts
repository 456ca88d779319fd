import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { AdPerformanceClient } from '../../shared/transport';
import { InputValidator } from '../../shared/validation';

/** Return All / Limit of a "Get Many" operation, checked before any request. */
function readListOptions(
	ctx: IExecuteFunctions,
	itemIndex: number,
): { returnAll: boolean; limit?: number } {
	const returnAll = ctx.getNodeParameter('returnAll', itemIndex, false);
	if (typeof returnAll !== 'boolean') {
		new InputValidator(ctx.getNode(), itemIndex).fail(
			'Return All',
			'must be true or false',
			'Switch Return All on or off (or make its expression return a boolean).',
		);
	}
	if (returnAll) return { returnAll };
	const limit = new InputValidator(ctx.getNode(), itemIndex).integer(
		'Limit',
		ctx.getNodeParameter('limit', itemIndex, 50),
		1,
		1_000_000,
	);
	return { returnAll, limit };
}

/**
 * A Get Many: the records of `path` matching `qs` (the operation's checked filters), all or up
 * to Limit, one output item per record.
 */
export async function listRecords(
	ctx: IExecuteFunctions,
	client: AdPerformanceClient,
	itemIndex: number,
	path: string,
	qs: IDataObject,
): Promise<INodeExecutionData[]> {
	const records = await client.list<IDataObject>(path, qs, {
		...readListOptions(ctx, itemIndex),
		itemIndex,
	});
	return records.map((record) => ({ json: record }));
}
