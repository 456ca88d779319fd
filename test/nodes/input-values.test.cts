/**
 * Every value an n8n user writes, in every field (issue 31): for each field of each operation,
 * of the regular node, its tool variant and the trigger, fast-check generates idiomatic forms of
 * valid values (Luxon DateTimes in any zone, JS Dates, ISO text with an offset, text with spaces,
 * switches as text, numbers as text, ID lists as JSON text…) and checks, through n8n's engine
 * against the fake, that each sends the same requests (and gives the same output) as the
 * value's plain form; and generates invalid values and checks that the field's error names it
 * and that no request is sent. The workflow's time zone is generated too: days are counted in
 * it. A failure prints fast-check's seed and path; `FC_SEED=… FC_PATH=…` replays it.
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import type { IDataObject } from 'n8n-workflow';

import { ActiveTrigger } from './AdPerformanceTrigger/poll-harness.cjs';
import {
	AD_TOOL_NODE,
	adNode,
	rl,
	run,
	useFakeService,
	WAIT_NODE,
	WAIT_TOOL_NODE,
} from './helpers.cjs';

const UNLIMITED = 1_000_000;
const service = useFakeService({
	timeScale: 0.002,
	limits: { read: UNLIMITED, write: UNLIMITED, generations: UNLIMITED, diagnosticRuns: UNLIMITED },
});

/** Cases per property: `npm test` keeps its budget; FC_RUNS raises it for a deeper look. */
const RUNS = Number(process.env.FC_RUNS ?? 6);
/** A case runs the node up to four times; a busy machine is given room. */
const TEST_TIMEOUT_MS = 30_000 + RUNS * 2_000;
const replay = process.env.FC_SEED
	? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH }
	: {};

const ZONES = [
	'UTC',
	'America/New_York',
	'Asia/Tokyo',
	'Pacific/Kiritimati',
	'Pacific/Pago_Pago',
	'America/St_Johns',
	'Asia/Kathmandu',
	'Europe/Berlin',
];

/**
 * A form of a value as an n8n user writes it: an expression's code (inside `={{ }}`), with the
 * JSON the input item carries for it (`$json.value`).
 */
interface Form {
	code: string;
	value?: unknown;
	/** What the form is, for a failure's report. */
	label: string;
}
const json = (value: unknown, label = 'as JSON'): Form => ({ code: '$json.value', value, label });
const code = (text: string, label: string): Form => ({ code: text, label });
/** The JSON forms are all a model can pass: the tool path tries those. */
const isJson = (form: Form) => form.code === '$json.value';

/** A kind of value: plain valid values, the forms of one, and invalid values. */
interface Kind<T> {
	plain: fc.Arbitrary<T>;
	/** Forms of `plain` that every reader of this kind must read as `plain`, in time zone `zone`. */
	forms(plain: T, zone: string): fc.Arbitrary<Form>;
	invalid: fc.Arbitrary<Form>;
}

const spaced = (text: string) =>
	fc
		.tuple(fc.constantFrom('', ' ', '  ', '\t'), fc.constantFrom('', ' ', '\n'))
		.map(([before, after]) => json(`${before}${text}${after}`, 'text with spaces'));

const choice = (allowed: readonly string[]): Kind<string> => ({
	plain: fc.constantFrom(...allowed),
	forms: (plain) =>
		fc.oneof(
			fc.constant(json(plain)),
			spaced(plain),
			fc.constant(json(plain.toUpperCase(), 'upper case')),
		),
	invalid: fc.constantFrom(json('nope'), json(7, 'a number'), json({}, 'an object')),
});

const idKind = (ids: () => string[]): Kind<number> => ({
	// An index into the fake's ids: they exist only once the fake has started.
	plain: fc.nat(),
	forms: (index) => {
		const id = pick(ids(), index);
		return fc.oneof(fc.constant(json(id)), spaced(id));
	},
	invalid: fc.constantFrom(
		json('nope_123', 'wrong prefix'),
		json('camp_ab/cd', 'a slash'),
		json('rpt_', 'prefix only'),
		json(123, 'a number'),
		json(true, 'a boolean'),
	),
});
const pick = <T,>(list: T[], index: number): T => list[index % list.length];

const DAY_MS = 86_400_000;
const BASE_DAY = Date.UTC(2026, 9, 1); // 2026-10-01
const dayText = (offset: number) => new Date(BASE_DAY + offset * DAY_MS).toISOString().slice(0, 10);

const invalidDates = fc.constantFrom(
	json('2026-02-30', 'a day that does not exist'),
	json('01/10/2026', 'a US date'),
	json('next monday', 'words'),
	json(20261001, 'a number'),
	json(true, 'a boolean'),
	json({}, 'an object'),
	code("DateTime.fromISO('not a date')", 'an invalid DateTime'),
	code("new Date('not a date')", 'an Invalid Date'),
);

/** A day, given as its offset from 2026-10-01 (the operation bounds it). */
const dateKind = (offsets: fc.Arbitrary<number>): Kind<number> => ({
	plain: offsets,
	forms: (offset, zone) => {
		const day = dayText(offset);
		return fc
			.tuple(fc.integer({ min: 0, max: 23 * 60 + 59 }), fc.constantFrom(...ZONES))
			.chain(([minute, otherZone]) => {
				const wall = DateTime.fromISO(day, { zone }).plus({ minutes: minute });
				const moment =
					wall.isValid && wall.toISODate() === day ? wall : DateTime.fromISO(day, { zone });
				return fc.constantFrom(
					json(day),
					json(` ${day} `, 'text with spaces'),
					json(`${day}T${moment.toFormat('HH:mm:ss')}`, 'a wall time without a zone'),
					json(moment.toUTC().toISO(), 'ISO text with Z'),
					json(moment.setZone(otherZone).toISO(), 'ISO text with an offset'),
					code(
						`DateTime.fromISO('${day}', { zone: '${zone}' })`,
						"a DateTime at the day's start, like $today",
					),
					code(
						`DateTime.fromMillis(${moment.toMillis()}).setZone('${otherZone}')`,
						'a DateTime in another zone',
					),
					code(
						`$today.set({ year: ${moment.year}, month: ${moment.month}, day: ${moment.day} })`,
						'$today moved',
					),
					code(`new Date(${moment.toMillis()})`, 'a JS Date'),
				);
			});
	},
	invalid: invalidDates,
});

/** A moment, in whole seconds within a few weeks of 2026-10-01 (its plain form is ISO UTC text). */
const dateTimeKind: Kind<number> = {
	plain: fc.integer({ min: -30 * 86_400, max: 30 * 86_400 }).map((s) => BASE_DAY + s * 1000),
	forms: (ms, zone) =>
		fc.constantFrom(...ZONES).chain((otherZone) => {
			const inZone = DateTime.fromMillis(ms, { zone });
			const wall = inZone.toFormat("yyyy-MM-dd'T'HH:mm:ss");
			const forms = [
				json(new Date(ms).toISOString()),
				json(` ${new Date(ms).toISOString()} `, 'text with spaces'),
				json(DateTime.fromMillis(ms, { zone: otherZone }).toISO(), 'ISO text with an offset'),
				code(`DateTime.fromMillis(${ms}).setZone('${otherZone}')`, 'a DateTime'),
				code(`new Date(${ms})`, 'a JS Date'),
			];
			// A wall time names one moment unless the clocks went back over it.
			if (DateTime.fromISO(wall, { zone }).toMillis() === ms) {
				forms.push(json(wall, "a wall time of the workflow's zone (the date picker)"));
			}
			if (inZone.startOf('day').toMillis() === ms) {
				forms.push(json(inZone.toISODate(), 'a day alone: its first moment'));
			}
			return fc.constantFrom(...forms);
		}),
	invalid: invalidDates,
};

const switchKind: Kind<boolean> = {
	plain: fc.boolean(),
	forms: (on) =>
		fc.constantFrom(
			json(on),
			json(String(on), 'text'),
			json(` ${String(on).toUpperCase()} `, 'upper-case text with spaces'),
			json(on ? 1 : 0, 'a number'),
			json(on ? '1' : '0', 'a digit as text'),
		),
	invalid: fc.constantFrom(
		json('yes'),
		json('off'),
		json(2, 'the number 2'),
		json({}, 'an object'),
		json([true], 'a list'),
	),
};

/** A whole number from `min` to `max`; plain values from `plain` (a range a run can afford). */
const wholeNumber = (min: number, max: number, plain = { min, max }): Kind<number> => ({
	plain: fc.integer(plain),
	forms: (n) =>
		fc.constantFrom(
			json(n),
			json(String(n), 'numeric text'),
			json(` ${n} `, 'text with spaces'),
			json(`${n}.0`, 'n.0 text'),
		),
	invalid: fc.constantFrom(
		json(min + 0.5, 'a fraction'),
		json(`${min + 0.5}`, 'a fraction as text'),
		json('ten', 'words'),
		json(max + 1, 'above the maximum'),
		json(min - 1, 'below the minimum'),
		json(true, 'a boolean'),
	),
});

const numberKind = (min: number, max: number, plain = { min, max }): Kind<number> => ({
	plain: fc
		.integer({ min: Math.ceil(plain.min * 10), max: Math.floor(plain.max * 10) })
		.map((n) => n / 10),
	forms: (n) =>
		fc.constantFrom(json(n), json(String(n), 'numeric text'), json(` ${n} `, 'text with spaces')),
	invalid: fc.constantFrom(
		json('soon', 'words'),
		json(max + 1, 'above the maximum'),
		json(false, 'a boolean'),
		json({}, 'an object'),
	),
});

const textKind: Kind<string> = {
	plain: fc.stringMatching(/^[A-Za-z][A-Za-z0-9 .-]{0,20}[A-Za-z0-9]$/),
	forms: (text) => spaced(text),
	invalid: fc.constantFrom(json({}, 'an object'), json(true, 'a boolean'), json(['a'], 'a list')),
};

const colorKind: Kind<string> = {
	plain: fc.stringMatching(/^[0-9a-f]{6}$/).map((hex) => `#${hex}`),
	forms: (color) => {
		const forms = [
			json(color),
			json(color.toUpperCase(), 'upper case'),
			json(color.slice(1), 'without #'),
			json(` ${color} `, 'text with spaces'),
		];
		const [r1, r2, g1, g2, b1, b2] = color.slice(1);
		if (r1 === r2 && g1 === g2 && b1 === b2) forms.push(json(`#${r1}${g1}${b1}`, 'three digits'));
		return fc.constantFrom(...forms);
	},
	invalid: fc.constantFrom(
		json('#12345'),
		json('blue'),
		json('#gggggg'),
		json(0x1a73e8, 'a number'),
	),
};

const urlKind: Kind<string> = {
	plain: fc.stringMatching(/^[a-z]{1,10}$/).map((name) => `https://example.com/${name}.png`),
	forms: (url) => spaced(url),
	invalid: fc.constantFrom(
		json('ftp://example.com/logo.png'),
		json('logo.png'),
		json(12, 'a number'),
	),
};

/** Campaign IDs: a non-empty subset of the account's campaigns, by index. */
const idListKind = (ids: () => string[]): Kind<number[]> => ({
	plain: fc.uniqueArray(fc.nat({ max: 11 }), { minLength: 1, maxLength: 5 }),
	forms: (indexes) => {
		const list = indexes.map((i) => pick(ids(), i));
		return fc.constantFrom(
			json(list, 'a list'),
			json(list.join(','), 'comma-separated text'),
			json(list.join(' , ') + ',', 'comma-separated with spaces and a trailing comma'),
			json(JSON.stringify(list), 'a JSON list as text (a Data Table cell)'),
			json(
				list.map((id) => ` ${id} `),
				'a list with spaces',
			),
		);
	},
	invalid: fc.oneof(
		// A list whose entries are all empty ([$json.campaignId] without the column): as a list,
		// as comma-separated text, as a JSON list in text, or from an expression.
		fc
			.array(fc.constantFrom(null, undefined, '', ' ', '\t', '\n '), { minLength: 1, maxLength: 6 })
			.chain((entries) =>
				fc.constantFrom(
					json(entries, `a list of empty entries ${JSON.stringify(entries)}`),
					json(entries.map((entry) => entry ?? '').join(','), 'commas between blanks'),
					json(JSON.stringify(entries), 'a JSON list of empty entries as text'),
					code(
						`[${entries.map((entry) => JSON.stringify(entry) ?? 'undefined').join(', ')}]`,
						'an expression of a list of empty entries',
					),
				),
			)
			.filter((form) => typeof form.value !== 'string' || form.value.trim() !== ''),
		fc.constantFrom(
			json('camp_a,act_b', 'an ID of another kind'),
			json('["camp_a", ', 'broken JSON'),
			json(JSON.stringify(Array.from({ length: 21 }, (_, i) => `camp_x${i}`)), '21 IDs'),
			json({ ids: [] }, 'an object'),
			json([1, 2], 'numbers'),
		),
	),
});

// ---------------------------------------------------------------------------------------------
// The fields of every operation.

/**
 * The fake's accounts, campaigns and completed reports, read once it has started (each read of
 * the fake copies its whole state, which the Generates of this file keep growing).
 */
let seeded: {
	acme: { id: string; platformAccountId: string };
	campaigns: string[];
	reports: string[];
};
beforeAll(() => {
	const acmeAccount = service.fake.accounts().find((account) => account.name === 'Acme Outdoor')!;
	seeded = {
		acme: acmeAccount,
		campaigns: service.fake
			.campaigns()
			.filter((campaign) => campaign.accountId === acmeAccount.id)
			.map((campaign) => campaign.id),
		reports: service.fake
			.reports()
			.filter((report) => report.status === 'completed')
			.map((report) => report.id),
	};
});
const acme = () => seeded.acme;
const acmeCampaigns = () => seeded.campaigns;
const accountIds = () => [acme().platformAccountId, acme().id];
const completedReports = () => seeded.reports;

interface Field {
	operation: string;
	node: 'ad' | 'wait';
	/** The node's parameters but the field under test. */
	parameters: () => IDataObject;
	/** The field's parameter path (`collection.option`). */
	path: string;
	locator?: boolean;
	/** How the node's errors name it. */
	label: string;
	/** The tool argument standing in for it, with the other arguments a call needs. */
	tool?: { key: string; args: () => IDataObject; parameters?: IDataObject };
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	kind: Kind<any>;
	/** The plain value of a generated plain (an index, an offset…), as a model or user types it. */
	plainOf?: (plain: never) => unknown;
	/** What of a run is compared (default: the requests, the error, the output's shape). */
	observe?: (outcome: Outcome) => unknown;
	/** Node and tool send the same request for the plain value (false where they differ by design). */
	samePaths?: boolean;
}

const list =
	(resource: string, extra: IDataObject = {}) =>
	() => ({
		resource,
		operation: 'getAll',
		returnAll: false,
		limit: 10,
		...extra,
	});
const listTool =
	(extra: () => IDataObject = () => ({})) =>
	() => ({ limit: 10, page: 1, ...extra() });
const generate =
	(extra: IDataObject = {}, fields: IDataObject = {}) =>
	() => ({
		resource: 'report',
		operation: 'generate',
		accountId: rl(acme().platformAccountId),
		title: 'Weekly',
		dateStart: '2026-10-01',
		dateEnd: '2026-10-07',
		additionalFields: fields,
		...extra,
	});
const generateArgs =
	(extra: IDataObject = {}) =>
	() => ({
		account: acme().platformAccountId,
		title: 'Weekly',
		dateStart: '2026-10-01',
		dateEnd: '2026-10-07',
		...extra,
	});
/** A diagnostic is looked at every 2.5 s of real time by default: the fake's take 20 ms. */
const FAST_POLLS = { pollIntervalSeconds: 0.1 };
const GENERATE_TOOL = { parameters: { toolReuseRecentReport: false } };
const reportId = () => completedReports()[0];
const indexIn = (ids: () => string[]) => (index: number) => pick(ids(), index);
const startOf = (offset: number) => dayText(offset);
const isoOf = (ms: number) => new Date(ms).toISOString();

const FIELDS: Field[] = [
	{
		operation: 'Account → Get Many',
		node: 'ad',
		parameters: list('account'),
		path: 'filters.connectionStatus',
		label: 'Connection Status',
		tool: { key: 'status', args: listTool() },
		kind: choice(['active', 'disconnected', 'token_expired']),
	},
	{
		operation: 'Account → Get Many',
		node: 'ad',
		parameters: () => ({ resource: 'account', operation: 'getAll', limit: 3 }),
		path: 'returnAll',
		label: 'Return All',
		kind: switchKind,
	},
	{
		operation: 'Account → Get Many',
		node: 'ad',
		parameters: () => ({ resource: 'account', operation: 'getAll', returnAll: false }),
		path: 'limit',
		label: 'Limit',
		// The node takes up to 1,000,000 records; a tool's page at most 50.
		tool: { key: 'limit', args: () => ({ page: 1 }) },
		kind: wholeNumber(1, 1_000_000, { min: 1, max: 50 }),
	},
	{
		operation: 'Campaign → Get Many',
		node: 'ad',
		parameters: list('campaign'),
		path: 'filters.accountId',
		label: 'Filters → Account ID',
		tool: { key: 'account', args: listTool() },
		kind: idKind(accountIds),
		plainOf: indexIn(accountIds),
	},
	{
		operation: 'Campaign → Get Many',
		node: 'ad',
		parameters: list('campaign'),
		path: 'filters.status',
		label: 'Filters → Status',
		tool: { key: 'status', args: listTool() },
		kind: choice(['ACTIVE', 'PAUSED', 'ARCHIVED']),
	},
	{
		operation: 'Campaign → Get',
		node: 'ad',
		parameters: () => ({ resource: 'campaign', operation: 'get' }),
		path: 'campaignId',
		locator: true,
		label: 'Campaign',
		tool: { key: 'campaignId', args: () => ({}) },
		kind: idKind(acmeCampaigns),
		plainOf: indexIn(acmeCampaigns),
	},
	{
		operation: 'Report → Generate',
		node: 'ad',
		parameters: generate(),
		path: 'accountId',
		locator: true,
		label: 'Ad Account',
		tool: { key: 'account', args: generateArgs(), ...GENERATE_TOOL },
		kind: idKind(() => [acme().platformAccountId]),
		plainOf: () => acme().platformAccountId,
	},
	{
		operation: 'Report → Generate',
		node: 'ad',
		parameters: generate(),
		path: 'title',
		label: 'Title',
		tool: { key: 'title', args: generateArgs(), ...GENERATE_TOOL },
		kind: textKind,
	},
	{
		operation: 'Report → Generate',
		node: 'ad',
		parameters: generate({ dateEnd: '2026-10-20' }),
		path: 'dateStart',
		label: 'Start Date',
		tool: { key: 'dateStart', args: generateArgs({ dateEnd: '2026-10-20' }), ...GENERATE_TOOL },
		kind: dateKind(fc.integer({ min: -60, max: 18 })),
		plainOf: startOf,
	},
	{
		operation: 'Report → Generate',
		node: 'ad',
		parameters: generate(),
		path: 'dateEnd',
		label: 'End Date',
		tool: { key: 'dateEnd', args: generateArgs(), ...GENERATE_TOOL },
		kind: dateKind(fc.integer({ min: 1, max: 85 })),
		plainOf: startOf,
	},
	{
		operation: 'Report → Generate',
		node: 'ad',
		parameters: generate(),
		path: 'additionalFields.campaignIds',
		label: 'Campaign IDs',
		tool: { key: 'campaignIds', args: generateArgs(), ...GENERATE_TOOL },
		kind: idListKind(acmeCampaigns),
		plainOf: (indexes: number[]) => indexes.map((i) => pick(acmeCampaigns(), i)),
	},
	{
		operation: 'Report → Generate',
		node: 'ad',
		parameters: generate(),
		path: 'additionalFields.format',
		label: 'Format',
		tool: { key: 'format', args: generateArgs(), ...GENERATE_TOOL },
		kind: choice(['pdf', 'markdown', 'json']),
	},
	{
		operation: 'Report → Generate',
		node: 'ad',
		parameters: generate(),
		path: 'additionalFields.reuseRecentReport',
		label: 'Reuse a Recent Identical Report',
		kind: switchKind,
		// Reuse reads the report list before it generates: which requests, not their window.
		observe: ({ requests, error }) => ({ error, first: requests[0]?.slice(0, 2) }),
	},
	{
		operation: 'Report → Generate',
		node: 'ad',
		parameters: generate(),
		path: 'additionalFields.whiteLabel.branding.companyName',
		label: 'White Label → Company Name',
		kind: textKind,
	},
	{
		operation: 'Report → Generate',
		node: 'ad',
		parameters: generate(),
		path: 'additionalFields.whiteLabel.branding.logoUrl',
		label: 'White Label → Logo URL',
		kind: urlKind,
	},
	{
		operation: 'Report → Generate',
		node: 'ad',
		parameters: generate(),
		path: 'additionalFields.whiteLabel.branding.primaryColor',
		label: 'White Label → Primary Color',
		kind: colorKind,
	},
	{
		operation: 'Report → Get Many',
		node: 'ad',
		parameters: list('report'),
		path: 'filters.accountId',
		label: 'Filters → Account ID',
		tool: { key: 'account', args: listTool() },
		kind: idKind(accountIds),
		plainOf: indexIn(accountIds),
	},
	{
		operation: 'Report → Get Many',
		node: 'ad',
		parameters: list('report'),
		path: 'filters.campaignId',
		label: 'Filters → Campaign ID',
		tool: { key: 'campaignId', args: listTool() },
		kind: idKind(acmeCampaigns),
		plainOf: indexIn(acmeCampaigns),
	},
	{
		operation: 'Report → Get Many',
		node: 'ad',
		parameters: list('report'),
		path: 'filters.status',
		label: 'Filters → Status',
		tool: { key: 'status', args: listTool() },
		kind: choice(['pending', 'generating', 'completed', 'failed']),
	},
	{
		operation: 'Report → Get Many',
		node: 'ad',
		parameters: list('report'),
		path: 'filters.format',
		label: 'Filters → Format',
		tool: { key: 'format', args: listTool() },
		kind: choice(['pdf', 'markdown', 'json']),
	},
	{
		operation: 'Report → Get Many',
		node: 'ad',
		parameters: list('report'),
		path: 'filters.from',
		label: 'Filters → Created After',
		tool: { key: 'from', args: listTool() },
		kind: dateTimeKind,
		plainOf: isoOf,
	},
	{
		operation: 'Report → Get Many',
		node: 'ad',
		parameters: list('report'),
		path: 'filters.to',
		label: 'Filters → Created Before',
		// The tool documents `to` as a day, "on or before": a day alone is its last moment there.
		tool: { key: 'to', args: listTool() },
		kind: dateTimeKind,
		plainOf: isoOf,
		samePaths: false,
	},
	{
		operation: 'Report → Get',
		node: 'ad',
		parameters: () => ({ resource: 'report', operation: 'get' }),
		path: 'reportId',
		label: 'Report ID',
		tool: { key: 'reportId', args: () => ({}) },
		kind: idKind(completedReports),
		plainOf: indexIn(completedReports),
	},
	{
		operation: 'Report → Get',
		node: 'ad',
		parameters: () => ({ resource: 'report', operation: 'get', reportId: reportId() }),
		path: 'options.createdAfter',
		label: 'Options → Created After',
		kind: dateTimeKind,
		plainOf: isoOf,
	},
	{
		operation: 'Report → Get',
		node: 'ad',
		parameters: () => ({ resource: 'report', operation: 'get', reportId: reportId() }),
		path: 'options.accountId',
		label: 'Options → Account ID',
		kind: idKind(accountIds),
		plainOf: indexIn(accountIds),
	},
	{
		operation: 'Report → Download',
		node: 'ad',
		parameters: () => ({ resource: 'report', operation: 'download', reportId: reportId() }),
		path: 'binaryPropertyName',
		label: 'Put Output File in Field',
		kind: textKind,
	},
	{
		operation: 'Report → Download',
		node: 'ad',
		parameters: () => ({ resource: 'report', operation: 'download', reportId: reportId() }),
		path: 'options.maxFileSizeMb',
		label: 'Options → Max File Size (MB)',
		kind: numberKind(0.1, 4096, { min: 1, max: 1000 }),
	},
	{
		operation: 'Report → Download',
		node: 'ad',
		parameters: () => ({ resource: 'report', operation: 'download' }),
		path: 'reportId',
		label: 'Report ID',
		tool: { key: 'reportId', args: () => ({}) },
		kind: idKind(completedReports),
		plainOf: indexIn(completedReports),
		// The node downloads the file, the tool answers with the report as text.
		samePaths: false,
	},
	{
		operation: 'Diagnostic → Get',
		node: 'ad',
		parameters: () => ({ resource: 'diagnostic', operation: 'get' }),
		path: 'diagnosticId',
		label: 'Diagnostic ID',
		tool: { key: 'diagnosticId', args: () => ({}) },
		// IDs the fake does not hold: the same request (and the same not_found) either way.
		kind: idKind(() => ['diag_3m8k2x9q1z7w', 'diag_a1b2c3d4e5f6']),
		plainOf: indexIn(() => ['diag_3m8k2x9q1z7w', 'diag_a1b2c3d4e5f6']),
	},
	{
		operation: 'Diagnostic → Run',
		node: 'ad',
		parameters: () => ({ resource: 'diagnostic', operation: 'run', options: FAST_POLLS }),
		path: 'campaignId',
		locator: true,
		label: 'Campaign',
		tool: { key: 'campaignId', args: () => ({}), parameters: { options: FAST_POLLS } },
		kind: idKind(acmeCampaigns),
		plainOf: indexIn(acmeCampaigns),
	},
	{
		operation: 'Diagnostic → Run',
		node: 'ad',
		parameters: () => ({
			resource: 'diagnostic',
			operation: 'run',
			campaignId: rl(acmeCampaigns()[0]),
			options: FAST_POLLS,
		}),
		path: 'options.waitForCompletion',
		label: 'Options → Wait for Completion',
		kind: switchKind,
	},
	{
		operation: 'Diagnostic → Run',
		node: 'ad',
		parameters: () => ({
			resource: 'diagnostic',
			operation: 'run',
			campaignId: rl(acmeCampaigns()[1]),
			options: FAST_POLLS,
		}),
		path: 'options.timeoutSeconds',
		label: 'Options → Timeout (Seconds)',
		kind: numberKind(1, 86_400, { min: 30, max: 600 }),
	},
	{
		operation: 'Request Options',
		node: 'ad',
		parameters: () => ({ resource: 'account', operation: 'getAll', returnAll: false, limit: 2 }),
		path: 'requestOptions.maxAttempts',
		label: 'Request Options → Max Attempts',
		kind: wholeNumber(1, 10),
	},
	{
		operation: 'Request Options',
		node: 'ad',
		parameters: () => ({ resource: 'account', operation: 'getAll', returnAll: false, limit: 2 }),
		path: 'requestOptions.rateLimitWaitMinutes',
		label: 'Request Options → Max Wait When Rate Limited (Minutes)',
		kind: numberKind(0, 1440),
	},
	{
		operation: 'Wait for Ad Report',
		node: 'wait',
		parameters: () => ({}),
		path: 'reportId',
		label: 'Report ID',
		tool: { key: 'reportId', args: () => ({}) },
		kind: idKind(completedReports),
		plainOf: indexIn(completedReports),
		// The node downloads the file, the tool answers with text: each compared with itself.
		samePaths: false,
	},
	{
		operation: 'Wait for Ad Report',
		node: 'wait',
		parameters: () => ({ reportId: reportId() }),
		path: 'download',
		label: 'Download File',
		kind: switchKind,
	},
	{
		operation: 'Wait for Ad Report',
		node: 'wait',
		parameters: () => ({ reportId: reportId() }),
		path: 'onTimeout',
		label: 'On Timeout',
		kind: choice(['error', 'outputPending']),
	},
	{
		operation: 'Wait for Ad Report',
		node: 'wait',
		parameters: () => ({ reportId: reportId() }),
		path: 'pollIntervalSeconds',
		label: 'Poll Interval (Seconds)',
		kind: numberKind(0.1, 3600, { min: 0.1, max: 60 }),
	},
	{
		operation: 'Wait for Ad Report',
		node: 'wait',
		parameters: () => ({ reportId: reportId() }),
		path: 'timeoutSeconds',
		label: 'Timeout (Seconds)',
		kind: numberKind(1, 86_400, { min: 10, max: 3600 }),
	},
];

// ---------------------------------------------------------------------------------------------
// Running a field's value through the node or its tool.

interface Outcome {
	/** The requests that reached the fake, each [method, path, query, body], repeats folded. */
	requests: unknown[][];
	error?: string;
	/** The output's shape: its json keys and binary fields. */
	output: unknown;
}

function setPath(target: IDataObject, path: string, value: unknown): IDataObject {
	const copy = structuredClone(target);
	const keys = path.split('.');
	let at = copy;
	for (const key of keys.slice(0, -1)) {
		if (typeof at[key] !== 'object' || at[key] === null) at[key] = {};
		at = at[key] as IDataObject;
	}
	at[keys[keys.length - 1]] = value as IDataObject[string];
	return copy;
}

async function settled(): Promise<void> {
	// One diagnostic at a time per campaign: let a run that did not wait end first.
	if (!service.fake.log.some((entry) => entry.path === '/v1/diagnostics')) return;
	for (let i = 0; i < 200 && service.fake.diagnostics().some((d) => d.status === 'running'); i++) {
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

async function outcomeOf(run: Promise<Awaited<ReturnType<typeof runNode>>>): Promise<Outcome> {
	const result = await run;
	const requests: unknown[][] = [];
	for (const entry of service.fake.log) {
		// A diagnostic's id is new each run: what is compared is that its result was asked for.
		const path = entry.path.replace(/diag_[A-Za-z0-9_-]+/, 'diag_…');
		const request = [entry.method, path, entry.query, entry.body ?? null];
		if (JSON.stringify(request) !== JSON.stringify(requests[requests.length - 1]))
			requests.push(request);
	}
	const item = result.items[0];
	// What was output: the records read, by id (their fields change as reports finish in the
	// background); what a POST created is new each run, so its shape instead.
	const created = requests.some(([method]) => method === 'POST');
	const output = item
		? {
				count: result.items.length,
				...(created
					? { json: Object.keys(item.json).sort() }
					: { ids: result.items.map((each) => each.json.id) }),
				binary: Object.keys(item.binary ?? {}),
				reused: item.json.reused,
			}
		: null;
	await settled();
	return { requests, error: result.error?.message, output };
}

function runNode(field: Field, form: Form, zone: string) {
	const expression = `={{ ${form.code} }}`;
	const parameters = setPath(
		field.parameters(),
		field.path,
		field.locator ? rl(expression) : expression,
	);
	const node =
		field.node === 'wait'
			? { name: 'Wait for Ad Report', type: WAIT_NODE, parameters }
			: adNode(parameters);
	return run(service, [node], { items: [{ value: form.value ?? null }], timezone: zone });
}

function runTool(field: Field, value: unknown, zone: string) {
	const tool = field.tool!;
	const { resource, operation } = field.parameters();
	const node =
		field.node === 'wait'
			? {
					name: 'Wait for Ad Report Tool',
					type: WAIT_TOOL_NODE,
					parameters: { ...tool.parameters },
				}
			: {
					name: 'Ad Performance Tool',
					type: AD_TOOL_NODE,
					parameters: { resource, operation, ...tool.parameters },
				};
	return run(service, [node], {
		items: [{ ...tool.args(), [tool.key]: value as IDataObject[string] }],
		timezone: zone,
	});
}

const observe = (field: Field, outcome: Outcome) =>
	field.observe ? field.observe(outcome) : outcome;

const describeField = (field: Field) => `${field.operation}: ${field.label}`;

describe.each(FIELDS.map((field) => [describeField(field), field] as const))(
	'%s',
	(_name, field) => {
		const plainOf = (plain: unknown) => (field.plainOf ? field.plainOf(plain as never) : plain);

		test(
			'every idiomatic form of a valid value sends what its plain form sends',
			async () => {
				await fc.assert(
					fc.asyncProperty(
						fc.constantFrom(...ZONES),
						field.kind.plain.chain((plain) =>
							fc.tuple(
								fc.constant(plain),
								fc
									.constantFrom(...ZONES)
									.chain((zone) => fc.tuple(fc.constant(zone), field.kind.forms(plain, zone))),
							),
						),
						async (_unused, [plain, [zone, form]]) => {
							const expected = observe(
								field,
								await outcomeOf(runNode(field, json(plainOf(plain)), zone)),
							);
							const actual = observe(field, await outcomeOf(runNode(field, form, zone)));
							expect({ form: form.label, zone, ...(actual as object) }).toEqual({
								form: form.label,
								zone,
								...(expected as object),
							});
							if ((expected as Outcome).error === undefined && field.observe === undefined) {
								expect((expected as Outcome).requests.length).toBeGreaterThan(0);
							}
							if (field.tool && isJson(form)) {
								const fromTool = observe(field, await outcomeOf(runTool(field, form.value, zone)));
								const plainTool = observe(
									field,
									await outcomeOf(runTool(field, plainOf(plain), zone)),
								);
								expect({ form: form.label, zone, path: 'tool', ...(fromTool as object) }).toEqual({
									form: form.label,
									zone,
									path: 'tool',
									...(plainTool as object),
								});
								if (field.samePaths !== false) {
									// The same value gives the same request on the node and on the tool.
									expect((plainTool as Outcome).requests).toEqual((expected as Outcome).requests);
								}
							}
						},
					),
					{ numRuns: RUNS, ...replay },
				);
			},
			TEST_TIMEOUT_MS,
		);

		test(
			'an invalid value is refused naming the field, before any request',
			async () => {
				await fc.assert(
					fc.asyncProperty(field.kind.invalid, fc.constantFrom(...ZONES), async (form, zone) => {
						const outcome = await outcomeOf(runNode(field, form, zone));
						expect({
							form: form.label,
							error: outcome.error?.startsWith(`${field.label}`) ? field.label : outcome.error,
						}).toEqual({
							form: form.label,
							error: field.label,
						});
						expect(outcome.requests).toEqual([]);
						if (field.tool && isJson(form)) {
							const fromTool = await outcomeOf(runTool(field, form.value, zone));
							expect(fromTool.error).toMatch(new RegExp(`^argument ${field.tool.key}[ :]`));
							expect(fromTool.requests).toEqual([]);
						}
					}),
					{ numRuns: Math.max(3, Math.ceil(RUNS / 2)), ...replay },
				);
			},
			TEST_TIMEOUT_MS,
		);

		test("an expression that gives null is the field's error, never a silent default; a model's null leaves the argument out", async () => {
			for (const form of [code('null', 'null'), code('$json.renamedColumn', 'a missing key')]) {
				const outcome = await outcomeOf(runNode(field, form, 'UTC'));
				expect(outcome.error).toMatch(
					new RegExp(`^${escape(field.label)}: its expression gave (null|undefined)`),
				);
				expect(outcome.requests).toEqual([]);
			}
			if (field.tool) {
				const left = await outcomeOf(runTool(field, null, 'UTC'));
				const rest = field.tool.args();
				delete rest[field.tool.key];
				const fieldTool = { ...field, tool: { ...field.tool, args: () => rest, key: '__absent' } };
				const absent = await outcomeOf(runTool(fieldTool, undefined, 'UTC'));
				expect(observe(field, left)).toEqual(observe(field, absent));
			}
		});
	},
);

test("Report → Generate's default dates are the same week on the node and the tool, in every time zone", async () => {
	// Near midnight somewhere: the zones are a day apart for part of every day.
	for (const zone of ZONES) {
		const parameters: IDataObject = generate()();
		delete parameters.dateStart;
		delete parameters.dateEnd;
		const node = await outcomeOf(run(service, [adNode(parameters)], { timezone: zone }));
		const args: IDataObject = generateArgs()();
		delete args.dateStart;
		delete args.dateEnd;
		const tool = await outcomeOf(
			run(
				service,
				[
					{
						name: 'Ad Performance Tool',
						type: AD_TOOL_NODE,
						parameters: { resource: 'report', operation: 'generate', ...GENERATE_TOOL.parameters },
					},
				],
				{ items: [args], timezone: zone },
			),
		);
		const today = DateTime.now().setZone(zone);
		const week = {
			date_start: today.minus({ days: 7 }).toISODate(),
			date_end: today.minus({ days: 1 }).toISODate(),
		};
		expect({ zone, body: node.requests[0]?.[3] }).toMatchObject({ zone, body: week });
		expect({ zone, body: tool.requests[0]?.[3] }).toMatchObject({ zone, body: week });
	}
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('Ad Performance Trigger', () => {
	const poll = async (parameters: IDataObject) => {
		service.fake.clearLog();
		const trigger = new ActiveTrigger(parameters, service.credentials().adPerformanceApi);
		let error: string | undefined;
		try {
			await trigger.poll();
		} catch (caught) {
			error = (caught as Error).message;
		}
		// A first poll records the present: its window starts at the moment it ran.
		const requests = service.fake.log.map(({ method, path, query: { from: _from, ...query } }) => [
			method,
			path,
			query,
		]);
		return { error, requests };
	};

	test(
		'Event and Account ID: every form of a valid value polls as its plain form',
		async () => {
			const events = {
				reportCompleted: () => acme().platformAccountId,
				accountConnectionChanged: () => pick(accountIds(), 1),
			};
			await fc.assert(
				fc.asyncProperty(
					fc.constantFrom(...(Object.keys(events) as Array<keyof typeof events>)),
					fc.constantFrom('', ' ', '\t'),
					fc.boolean(),
					async (event, pad, upper) => {
						const account = events[event]();
						const plain = await poll({ event, filters: { accountId: account } });
						const form = await poll({
							event: `={{ ${JSON.stringify(`${pad}${upper ? event.toUpperCase() : event}${pad}`)} }}`,
							filters: { accountId: `=${pad}{{ ${JSON.stringify(account)} }}${pad}` },
						});
						expect(form).toEqual(plain);
						expect(plain.error).toBeUndefined();
					},
				),
				{ numRuns: RUNS, ...replay },
			);
		},
		TEST_TIMEOUT_MS,
	);

	test('an Account ID whose expression gives null is refused, not "every account"', async () => {
		for (const expression of ['={{ null }}', '={{ {}.accountId }}', '={{ undefined }}']) {
			const outcome = await poll({ event: 'reportCompleted', filters: { accountId: expression } });
			expect(outcome.error).toMatch(/^Account ID: its expression gave (null|undefined)/);
			expect(outcome.requests).toEqual([]);
		}
		const invalid = await poll({
			event: 'reportCompleted',
			filters: { accountId: '={{ ["act_1"] }}' },
		});
		expect(invalid.error).toMatch(/^Account ID: /);
		expect(invalid.requests).toEqual([]);
	});
});
