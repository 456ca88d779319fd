import type { IExecuteFunctions } from 'n8n-workflow';

import { InputValidator } from '../../shared/validation';

/** Return All / Limit of a "Get Many" operation, checked before any request. */
export function readListOptions(
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
