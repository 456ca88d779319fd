import {
	checkList,
	checkRecord,
	MAX_ANSWER_DEPTH,
	pagingOf,
	parseJsonBody,
	ProtocolError,
	remainingOf,
} from '../../nodes/shared/transport/envelope';

describe('envelope: only the documented shape counts as an answer', () => {
	test.each([
		[undefined, /empty/],
		['', /empty/],
		['   ', /empty/],
		['{"data": [', /not JSON/],
		['<html><body>Bad gateway</body></html>', /HTML page/],
	])('body %p is a protocol error', (body, problem) => {
		expect(() => parseJsonBody(body)).toThrow(ProtocolError);
		expect(() => parseJsonBody(body)).toThrow(problem);
	});

	test('JSON text is read; a body that is no text (exchange.ts decodes every answer) is none', () => {
		expect(parseJsonBody('{"data":[]}')).toEqual({ data: [] });
		expect(() => parseJsonBody({ a: 1 })).toThrow(/empty/);
	});

	test.each([
		[{}, /no data list/],
		[{ data: {} }, /not a list/],
		[{ data: [null] }, /record 1/],
		[{ data: [{ id: 'a' }, 'x'] }, /record 2/],
		[[], /not a JSON object/],
		[{ data: [], pagination: 'x' }, /pagination/],
	])('list %p is refused', (value, problem) => {
		expect(() => checkList(value)).toThrow(problem);
	});

	test.each([
		[{}, /no record/],
		[{ data: null }, /no record/],
		[{ data: [] }, /not a record/],
		['text', /not a JSON object/],
	])('record %p is refused', (value, problem) => {
		expect(() => checkRecord(value)).toThrow(problem);
	});

	test('good envelopes pass, unknown fields included', () => {
		const list = { data: [{ id: 'a', extra: 1 }], pagination: { hasMore: false }, meta: {} };
		expect(checkList(list)).toBe(list);
		expect(checkRecord({ data: { id: 'x' } }).data).toEqual({ id: 'x' });
	});

	test('paging numbers are used only when sane', () => {
		expect(pagingOf({ hasMore: true, total: 3 })).toEqual({ hasMore: true, total: 3 });
		expect(pagingOf({ hasMore: 'yes' as never, total: NaN })).toEqual({});
		expect(pagingOf(undefined)).toEqual({});
		expect(remainingOf({ meta: { remaining_requests: 4 } })).toBe(4);
		expect(remainingOf({ meta: { remaining_requests: '4' } })).toBeUndefined();
	});

	/** A list answer whose one record holds `inner` objects nested in one another. */
	function deepAnswer(inner: number): string {
		return `{"data":[{"id":"a","x":${'{"x":'.repeat(inner)}1${'}'.repeat(inner)}}]}`;
	}

	test('an answer nested to the limit is read; one level more is a protocol error', () => {
		// The envelope, the list and the record are 3 levels.
		const atLimit = deepAnswer(MAX_ANSWER_DEPTH - 3);
		expect(checkList(parseJsonBody(atLimit)).data).toHaveLength(1);
		expect(() => parseJsonBody(deepAnswer(MAX_ANSWER_DEPTH - 2))).toThrow(
			new ProtocolError(`the answer was nested deeper than ${MAX_ANSWER_DEPTH} levels`),
		);
	});

	test.each([100, 10_000, 100_000])('a record nested %i levels is a protocol error', (depth) => {
		expect(() => parseJsonBody(deepAnswer(depth))).toThrow(/nested deeper than 64 levels/);
	});
});
