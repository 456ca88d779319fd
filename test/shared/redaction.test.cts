import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import fc from 'fast-check';

import { MIN_SECRET_CHARS, Redactor } from '../../nodes/shared/redaction';
import { secretsOf } from '../../nodes/shared/credentialRules';
import { spell } from './spellings.cjs';

const KEY = 'service_live_abcdefghijklmnopqrstuvwxyz012345';
const NODE = {
	id: '1',
	name: 'n',
	type: 't',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
} as never;

/** `{ next: { next: … { leaf } } }`, `depth` objects deep, built without recursion. */
function nested(depth: number, leaf: IDataObject): IDataObject {
	let value: IDataObject = leaf;
	for (let level = 1; level < depth; level++) value = { next: value };
	return value;
}

/** The innermost object of `nested`, found without recursion. */
function innermost(value: IDataObject): IDataObject {
	let current = value;
	while (current.next) current = current.next as IDataObject;
	return current;
}

/** Every object and array inside a value (the value included), found without recursion. */
function everyObject(value: unknown): object[] {
	const found: object[] = [];
	const pending = [value];
	while (pending.length > 0) {
		const current = pending.pop();
		if (current === null || typeof current !== 'object') continue;
		found.push(current);
		pending.push(...Object.values(current));
	}
	return found;
}

describe('Redactor: no key and no URL password reaches the user', () => {
	const redactor = new Redactor(secretsOf({ apiKey: KEY }));

	test('texts lose the key, its URL-encoded form and URL user info', () => {
		expect(redactor.text(`bad key ${KEY}!`)).toBe('bad key [redacted]!');
		expect(redactor.text(`?k=${encodeURIComponent(KEY + '/')}`)).not.toContain(KEY);
		expect(redactor.text('see https://bob:hunter2@api.example.com/v1')).toBe(
			'see https://[redacted]@api.example.com/v1',
		);
		expect(redactor.text('nothing secret here')).toBe('nothing secret here');
	});

	test('values are copied with every string scrubbed, the original left as it was', () => {
		const value = { a: [{ b: `x${KEY}` }], n: 1, t: true, z: null };
		expect(redactor.value(value)).toEqual({ a: [{ b: 'x[redacted]' }], n: 1, t: true, z: null });
		expect(value.a[0].b).toContain(KEY);
	});

	test.each([20, 100, 10_000, 200_000])(
		'a key %i objects deep is scrubbed, and the copy keeps its depth',
		(depth) => {
			const copy = redactor.value(nested(depth, { secret: `the key ${KEY}` }));
			expect(innermost(copy)).toEqual({ secret: 'the key [redacted]' });
			let levels = 1;
			for (let current = copy; current.next; current = current.next as IDataObject) levels++;
			expect(levels).toBe(depth);
		},
	);

	test('a key 200,000 arrays deep is scrubbed too', () => {
		let value: unknown = [KEY];
		for (let level = 1; level < 200_000; level++) value = [value];
		let current = redactor.value(value) as unknown[];
		while (Array.isArray(current[0])) current = current[0] as unknown[];
		expect(current).toEqual(['[redacted]']);
	});

	test('property names are scrubbed at any depth, in every form of the key', () => {
		const value: IDataObject = {
			[KEY]: 1,
			outer: nested(50, { [`field-${encodeURIComponent(KEY)}`]: 2, [`https://u:pw@h/${KEY}`]: 3 }),
		};
		const copy = redactor.value(value);
		expect(copy['[redacted]']).toBe(1);
		expect(innermost(copy.outer as IDataObject)).toEqual({
			'field-[redacted]': 2,
			'https://[redacted]@h/[redacted]': 3,
		});
		expect(JSON.stringify(copy)).not.toContain('pw');
	});

	test('a __proto__ key stays data: every copied object has the plain prototype', () => {
		const parsed = JSON.parse(
			`{"__proto__": {"polluted": "${KEY}"}, "inner": [{"__proto__": {"status": "inherited"}}]}`,
		) as IDataObject;
		const copy = redactor.value(parsed);
		for (const object of everyObject(copy)) {
			expect(Object.getPrototypeOf(object)).toBe(
				Array.isArray(object) ? Array.prototype : Object.prototype,
			);
		}
		expect('polluted' in copy).toBe(false);
		expect(Object.keys(copy)).toEqual(['__proto__', 'inner']);
		expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toEqual({
			polluted: '[redacted]',
		});
		const inner = (copy.inner as IDataObject[])[0];
		expect('status' in inner).toBe(false);
		expect(JSON.stringify(copy)).toBe(
			'{"__proto__":{"polluted":"[redacted]"},"inner":[{"__proto__":{"status":"inherited"}}]}',
		);
		expect(({} as IDataObject).polluted).toBeUndefined();
	});

	test('objects without a plain prototype come back as plain objects', () => {
		const bare = Object.create(null) as IDataObject;
		bare.name = KEY;
		class Record {
			constructor(readonly id: string) {}
		}
		const copy = redactor.value({ bare, record: new Record('r1'), when: new Date(0) });
		expect(Object.getPrototypeOf(copy.bare)).toBe(Object.prototype);
		expect(copy.bare).toEqual({ name: '[redacted]' });
		expect(Object.getPrototypeOf(copy.record)).toBe(Object.prototype);
		expect(copy.record).toEqual({ id: 'r1' });
		expect(copy.when).toEqual(new Date(0));
	});

	// A cycle with the key: the check for clean values stops at the key, and the copying walk
	// ends the cycle.
	test('a cycle ends, and a value met twice is copied once', () => {
		const shared = { note: KEY };
		const cyclic: IDataObject = {};
		cyclic.self = cyclic;
		cyclic.a = shared;
		cyclic.b = shared;
		const copy = redactor.value(cyclic);
		expect(copy.self).toBe(copy);
		expect(copy.a).toBe(copy.b);
		expect(copy.a).toEqual({ note: '[redacted]' });
	});

	// A cycle with nothing to scrub: the check for clean values, which remembers nothing, follows
	// it until its budget of objects (2,000,000) runs out; then the walk copies it. The cycle is
	// first in its list, so the check's stack stays a few entries deep (when the cycle came after
	// the values beside it, the stack grew by two entries an object: 8 s of a worker's time here,
	// 1.5 s this way, on a loaded machine).
	test('a cycle with nothing to scrub ends too', () => {
		const shared = { note: 1 };
		const cyclic: unknown[] = [];
		cyclic.push(cyclic, shared, shared);
		const copy = redactor.value(cyclic);
		expect(copy).not.toBe(cyclic);
		expect(copy[0]).toBe(copy);
		expect(copy[1]).toBe(copy[2]);
		expect(copy[1]).toEqual({ note: 1 });
	});

	test('items: the JSON and every text of the binary metadata, not the file or its store id', () => {
		const items: INodeExecutionData[] = [
			{
				json: { fileName: `r-${KEY}.pdf`, deep: nested(30, { x: KEY }) },
				binary: {
					[`file-${KEY}`]: {
						data: 'JVBERi0=',
						id: 'filesystem-v2:abc',
						mimeType: `application/${KEY}`,
						fileName: `r-${KEY}.pdf`,
						fileExtension: 'pdf',
						directory: `/tmp/${KEY}`,
					},
				},
				pairedItem: { item: 3 },
			},
		];
		const [item] = redactor.items(items);
		expect(JSON.stringify(item)).not.toContain(KEY);
		expect(item.pairedItem).toEqual({ item: 3 });
		const file = item.binary?.['file-[redacted]'];
		expect(file).toEqual({
			data: 'JVBERi0=',
			id: 'filesystem-v2:abc',
			mimeType: 'application/[redacted]',
			fileName: 'r-[redacted].pdf',
			fileExtension: 'pdf',
			directory: '/tmp/[redacted]',
		});
		expect(innermost(item.json.deep as IDataObject)).toEqual({ x: '[redacted]' });
	});

	test('errors are scrubbed in place: every field at any depth, the cause dropped', () => {
		const error = new NodeApiError(
			NODE,
			{ message: `echo ${KEY}`, [KEY]: nested(40, { leak: KEY }) } as never,
			{ message: `failed for ${KEY}`, description: `key ${KEY}`, itemIndex: 2 },
		);
		error.context.deep = nested(100, { leak: KEY });
		(error as unknown as IDataObject).cause = new Error(KEY);
		expect(redactor.error(error)).toBe(error);
		expect(error.message).toBe('failed for [redacted]');
		expect(error.stack).not.toContain(KEY);
		expect(error.cause).toBeUndefined();
		expect(error.context.itemIndex).toBe(2);
		const everything = JSON.stringify(
			{ ...error, message: error.message, stack: error.stack },
			(_key, value: unknown) => value,
		);
		expect(everything).not.toContain(KEY);
		expect(everything).toContain('[redacted]');
	});

	test('an error field that cannot be replaced goes, and one that cannot go is no reason to throw', () => {
		const error = new Error(`x ${KEY}`) as Error & IDataObject;
		Object.defineProperty(error, 'readOnly', { value: KEY, enumerable: true, configurable: true });
		Object.defineProperty(error, 'fixed', { value: 'plain', enumerable: true });
		expect(() => redactor.error(error)).not.toThrow();
		expect('readOnly' in error).toBe(false);
		expect(error.fixed).toBe('plain');
		expect(error.message).toBe('x [redacted]');
	});

	test('an error keeps its class and n8n’s copy of the node', () => {
		const error = new NodeOperationError(NODE, `x ${KEY}`, { itemIndex: 0 });
		const node = error.node;
		expect(redactor.error(error)).toBeInstanceOf(NodeOperationError);
		expect(error.node).toBe(node);
		expect(error.message).toBe('x [redacted]');
	});

	test('short strings are never treated as secrets', () => {
		expect(new Redactor(secretsOf({ apiKey: 'abc' })).text('abc')).toBe('abc');
	});
});

/**
 * The key in every spelling a service may echo it in (issue 30, scrub): fast-check spells each
 * character of a generated key at random (as it is, percent-encoded once or twice in either
 * case, as a JSON or JavaScript escape, as an HTML character reference), cuts it anywhere past
 * its recognisable start, and puts it in a value or a property name among text that has escapes
 * of its own. Whatever the spelling, nothing that decodes to a recognisable start of the key
 * is left.
 */
describe('Redactor: the key in any spelling', () => {
	const HEAD = 'service_live_';
	const keyArbitrary = fc.stringMatching(/^[A-Za-z0-9_]{32}$/).map((tail) => `${HEAD}${tail}`);
	/** Every decoding a reader of the text might apply, until nothing changes. */
	const decoded = (text: string): string => {
		let current = text;
		for (let round = 0; round < 5; round++) {
			const next = current
				.replace(/%([0-9a-fA-F]{2})/g, (_, code: string) => String.fromCharCode(parseInt(code, 16)))
				.replace(/\\+u\{([0-9a-fA-F]+)\}/g, (_, code: string) =>
					String.fromCodePoint(parseInt(code, 16)),
				)
				.replace(/\\+u([0-9a-fA-F]{4})/g, (_, code: string) =>
					String.fromCharCode(parseInt(code, 16)),
				)
				.replace(/\\+x([0-9a-fA-F]{2})/g, (_, code: string) =>
					String.fromCharCode(parseInt(code, 16)),
				)
				.replace(/&#x([0-9a-fA-F]+);?/g, (_, code: string) =>
					String.fromCodePoint(parseInt(code, 16)),
				)
				.replace(/&#(\d+);?/g, (_, code: string) => String.fromCodePoint(Number(code)))
				.replace(/&lowbar;/g, '_');
			if (next === current) break;
			current = next;
		}
		return current;
	};
	const around = fc.stringMatching(/^[a-z %&\\#;:=/?.]{0,12}$/);
	/** A key, where to cut it, and each character's spelling (`spell`'s form and case). */
	const keyCutAndForms = keyArbitrary.chain((key) =>
		fc.tuple(
			fc.constant(key),
			// Cut anywhere from the recognisable start (head + MIN_SECRET_CHARS) to the whole.
			fc.integer({ min: HEAD.length + MIN_SECRET_CHARS, max: key.length }),
			// Half the characters as they are, the rest in one of eight escapes.
			fc.array(fc.tuple(fc.integer({ min: -7, max: 8 }), fc.boolean()), {
				minLength: key.length,
				maxLength: key.length,
			}),
		),
	);

	test('no spelling, start or place of the key survives', () => {
		fc.assert(
			fc.property(
				keyCutAndForms,
				around,
				around,
				fc.constantFrom('value', 'key', 'nested'),
				([key, length, forms], before, after, place) => {
					const spelled = [...key.slice(0, length)]
						.map((character, index) =>
							spell(character, Math.max(0, forms[index][0]), forms[index][1]),
						)
						.join('');
					const text = `${before}${spelled}${after}`;
					const redactor = new Redactor(secretsOf({ apiKey: key }));
					const input =
						place === 'value'
							? { message: text }
							: place === 'key'
								? { [text]: 1 }
								: { a: [{ b: { c: text } }] };
					const output = JSON.stringify(redactor.value(input));
					const start = key.slice(0, HEAD.length + MIN_SECRET_CHARS);
					expect({ spelled, found: decoded(output).includes(start) }).toEqual({
						spelled,
						found: false,
					});
				},
			),
			{ numRuns: 200 },
		);
	});

	/** A list answer whose record `at` holds `text` in `place`, among records of decoy texts. */
	const answerWith = (text: string, place: string, at: number, decoys: string[]) => ({
		data: decoys.map((decoy, index) =>
			index !== at
				? { id: `rec_${index}`, name: decoy }
				: place === 'value'
					? { id: `rec_${index}`, name: text }
					: place === 'key'
						? { id: `rec_${index}`, [text]: decoy }
						: { id: `rec_${index}`, nested: [{ deeper: { name: text } }] },
		),
		pagination: { page: 1, page_size: 100, total: decoys.length, hasMore: false },
	});

	test('an answer vouched for (Redactor.vouch) leaves a node as the full scrub would leave it', () => {
		const decoy = fc.stringMatching(/^[a-zA-Z0-9 %&@#;:=/?._-]{0,16}$/);
		fc.assert(
			fc.property(
				keyCutAndForms,
				fc.record({
					// Whether the answer holds the key at all, and written as it is or spelled.
					holdsKey: fc.boolean(),
					// Every character as it is, in any escape, or as it is or in one family of escapes.
					spelling: fc.constantFrom('literal', 'mixed', 'percent', 'entity', 'named'),
					// The answer's `_` written as JSON's \u005f: JSON.parse gives back the key itself.
					jsonEscaped: fc.boolean(),
					place: fc.constantFrom('value', 'key', 'nested'),
					before: around,
					after: around,
					decoys: fc.array(decoy, { minLength: 1, maxLength: 6 }),
				}),
				fc.nat(),
				([key, length, forms], how, pick) => {
					const formOf = (character: string, [form]: [number, boolean]): number => {
						if (how.spelling === 'named') return character === '_' ? 8 : 0;
						if (how.spelling === 'literal' || form <= 0) return 0;
						if (how.spelling === 'percent') return 1 + (form % 2);
						return how.spelling === 'entity' ? 6 + (form % 3) : form;
					};
					const spelled = [...key.slice(0, length)]
						.map((character, index) =>
							spell(character, formOf(character, forms[index]), forms[index][1]),
						)
						.join('');
					const text = how.holdsKey ? `${how.before}${spelled}${how.after}` : how.before;
					const answer = answerWith(text, how.place, pick % how.decoys.length, how.decoys);
					let json = JSON.stringify(answer);
					if (how.jsonEscaped) json = json.replace(/_/g, '\\u005f');
					const items = (value: unknown) =>
						(value as { data: IDataObject[] }).data.map((record) => ({ json: record }));
					const vouching = new Redactor(secretsOf({ apiKey: key }));
					const parsed = JSON.parse(json) as unknown;
					vouching.vouch(json, parsed);
					const output = vouching.items(items(parsed)).map((item) => item.json);
					const scrubbed = new Redactor(secretsOf({ apiKey: key }))
						.items(items(JSON.parse(json)))
						.map((item) => item.json);
					expect(output).toEqual(scrubbed);
					const start = key.slice(0, HEAD.length + MIN_SECRET_CHARS);
					expect(decoded(JSON.stringify(output)).includes(start)).toBe(false);
				},
			),
			{ numRuns: 120 },
		);
	});

	test("vouching spares an answer's texts only when it holds nothing to scrub", () => {
		const key = `${HEAD}${'k'.repeat(32)}`;
		const searched = (json: string) => {
			const redactor = new Redactor(secretsOf({ apiKey: key }));
			const parsed = JSON.parse(json) as { data: IDataObject[] };
			redactor.vouch(json, parsed);
			const text = jest.spyOn(redactor, 'text');
			redactor.items(parsed.data.map((record) => ({ json: record })));
			return text.mock.calls.length;
		};
		// A `%` before no hex digit and an `&` before a space begin no escape.
		const clean = answerWith('', 'value', -1, ['Lookalike 1% ', 'Tom & Jerry', 'Spring sale']);
		expect(searched(JSON.stringify(clean))).toBe(0);
		for (const suspect of ['50%25 off', 'a&#95;b', 'me@example.com', 'C:\\dir', key.slice(0, 21)]) {
			const answer = answerWith('', 'value', -1, ['Spring sale', suspect]);
			expect({ suspect, searched: searched(JSON.stringify(answer)) > 0 }).toEqual({
				suspect,
				searched: true,
			});
		}
	});
});
