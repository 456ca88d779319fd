import type { IDataObject } from 'n8n-workflow';

import { describeType } from '../../shared/validation';

/*
 * The trigger node's static data, the only thing that survives from one poll to the next:
 *
 *     { version: 2, scope: "<event>:<account filter>", state: {…}, lease?: { holder, until } }
 *
 * n8n starts each poll whether or not the previous one has finished, and polls of one trigger in
 * one process share this object (core's active-workflows.ts, activatePolling): a lease in it keeps
 * a second poll out. n8n saves it when a poll emits items and at activation. The rules:
 * docs/security.md, "Every trigger event is emitted once" and "Stored state…never fails a poll".
 */

/** The layout above. State of another version, or none, is not read: the poll starts a baseline. */
const STATE_VERSION = 2;

/**
 * What stored state may hold, checked before any of it is used. A value outside these was not
 * written by this node: the state is not read, and the poll records a new baseline (`read`).
 */
export const STATE_LIMITS = {
	/** A cursor is the service's now less an hour at most: its clock may be days off, not decades. */
	earliestMs: Date.UTC(2000, 0, 1),
	/** The first request asks `from` the cursor as stored: ISO 8601's years have four digits. */
	latestMs: Date.UTC(10_000, 0, 1) - 1,
	/**
	 * How far past the service's clock, once it has answered, a cursor may be; beyond it the look
	 * back of an hour (reportCompletions.ts) would emit old reports, so the poll records a baseline.
	 */
	aheadMs: 24 * 60 * 60_000,
	/** Any stored time is within JavaScript's dates, so `new Date(time)` never fails on it. */
	dateRangeMs: 8.64e15,
} as const;

/** A rule the stored state broke, in words: it names the rule, never the stored value. */
export class StateRejected extends Error {}

/**
 * A property the object holds itself, as stored data: undefined for anything inherited or
 * computed, so a stored `__proto__` or `constructor` is only ever data and no getter runs.
 */
export function ownValue(value: unknown, key: string): unknown {
	if (typeof value !== 'object' || value === null) return undefined;
	const property = Object.getOwnPropertyDescriptor(value, key);
	return property && 'value' in property ? property.value : undefined;
}

/** A stored time within JavaScript's dates; otherwise StateRejected naming `what`. */
export function readStoredTime(value: unknown, what: string): number {
	if (
		typeof value !== 'number' ||
		!Number.isFinite(value) ||
		Math.abs(value) > STATE_LIMITS.dateRangeMs
	)
		throw new StateRejected(`${what} is not a time`);
	return value;
}

/** A cursor: a time from 2000 to 9999 (the service's time: its clock judges it, aheadMs). */
export function readCursor(value: unknown, what: string): number {
	const time = readStoredTime(value, what);
	if (time < STATE_LIMITS.earliestMs || time > STATE_LIMITS.latestMs)
		throw new StateRejected(`${what} is not a time between 2000 and 9999`);
	return time;
}

/**
 * A list of [key, value] entries read into a Map (so a key is only ever data): at most
 * `maxEntries`, counted before any is looked at; keys of 1 to `maxKeyChars` characters, each
 * once; each value through `readValue`, which throws StateRejected.
 */
export function readEntries<T>(
	value: unknown,
	what: string,
	limits: { maxEntries: number; maxKeyChars: number },
	readValue: (value: unknown) => T,
): Map<string, T> {
	if (!Array.isArray(value)) throw new StateRejected(`${what} is not a list`);
	if (value.length > limits.maxEntries)
		throw new StateRejected(`${what} holds more than ${limits.maxEntries} entries`);
	const entries = new Map<string, T>();
	for (let i = 0; i < value.length; i++) {
		const entry = ownValue(value, String(i));
		if (!Array.isArray(entry) || entry.length !== 2)
			throw new StateRejected(`${what} holds something other than a [key, value] entry`);
		const key = ownValue(entry, '0');
		if (typeof key !== 'string' || key === '' || key.length > limits.maxKeyChars)
			throw new StateRejected(
				`${what} holds a key that is not a text of 1 to ${limits.maxKeyChars} characters`,
			);
		if (entries.has(key)) throw new StateRejected(`${what} holds a key twice`);
		entries.set(key, readValue(ownValue(entry, '1')));
	}
	return entries;
}

/** What `read` found: the state, or why the poll records a new baseline instead. */
type StateReading<State> =
	| { state: State; note?: undefined }
	| { state: undefined; note: { level: 'debug' | 'info' | 'warn'; reason: string } };

export class TriggerStore {
	private readonly data: IDataObject;
	/** Why nothing can be kept: n8n holds something other than an object as this node's data. */
	private readonly unstorable: string | undefined;

	constructor(
		data: unknown,
		/** Which event and filter the stored state belongs to: another scope's state is not ours. */
		private readonly scope: string,
	) {
		// Only a plain object keeps what the node writes into it when n8n saves it as JSON. In
		// place of anything else the poll works on an object n8n does not keep: every poll is a
		// baseline, and says why.
		const prototype: unknown =
			typeof data === 'object' && data !== null ? Object.getPrototypeOf(data) : undefined;
		const storable = !Array.isArray(data) && (prototype === Object.prototype || prototype === null);
		this.data = storable ? (data as IDataObject) : {};
		this.unstorable = storable
			? undefined
			: `the workflow's static data for this node is ${describeType(data)}, not an object, so no state can be kept (clear the workflow's static data)`;
	}

	/**
	 * The one door to the stored state: the wrapper is checked here, the state by its event
	 * kind's `readState`. Never throws: the note says which rule made the poll a baseline.
	 */
	read<State>(readState: (stored: object) => State): StateReading<State> {
		const baseline = (level: 'debug' | 'info' | 'warn', reason: string) => ({
			state: undefined,
			note: { level, reason },
		});
		if (this.unstorable) return baseline('warn', this.unstorable);
		try {
			const version = ownValue(this.data, 'version');
			const scope = ownValue(this.data, 'scope');
			const stored = ownValue(this.data, 'state');
			// The first poll (only the lease this poll just took is there): the usual way to start,
			// which the node's notice describes; n8n shows it only at its debug log level.
			if (Object.keys(this.data).every((key) => key === 'lease'))
				return baseline('debug', 'nothing is stored yet');
			if (version !== STATE_VERSION)
				return baseline('warn', 'the stored state is not of this version of the node');
			// The user changed the event or the filter: a baseline is what they asked for.
			if (scope !== this.scope)
				return baseline('info', 'the stored state is of another event or account filter');
			if (typeof stored !== 'object' || stored === null || Array.isArray(stored))
				return baseline('warn', 'the stored state is not an object');
			return { state: readState(stored) };
		} catch (error) {
			// A proxy or accessor that throws is as unreadable as a value that breaks a rule.
			return baseline(
				'warn',
				error instanceof StateRejected ? error.message : 'the stored state could not be read',
			);
		}
	}

	/**
	 * Takes the lease for one poll, or returns undefined while another poll holds a live one. No
	 * await between check and take: of two polls that start together exactly one gets it. A lease
	 * that claims to last longer than `durationMs` (n8n's clock set back), or whose end is no
	 * number, counts as expired.
	 */
	takeLease(now: number, durationMs: number): Lease | undefined {
		let until = NaN;
		try {
			const held = ownValue(ownValue(this.data, 'lease'), 'until');
			if (typeof held === 'number') until = held;
		} catch {
			// A lease that cannot be read keeps no poll out; taking it replaces it.
		}
		if (now < until && until - now <= durationMs) return undefined;
		const holder = `${now.toString(36)}-${Math.random().toString(36).slice(2)}`;
		this.data.lease = { holder, until: now + durationMs };
		return new Lease(this.data, this.scope, holder);
	}
}

/** A poll's exclusive right to commit the trigger's next state. */
class Lease {
	constructor(
		private readonly data: IDataObject,
		private readonly scope: string,
		private readonly holder: string,
	) {}

	/** Whether no other poll took over (after this one outlived its lease). */
	get held(): boolean {
		return (this.data.lease as { holder?: unknown } | undefined)?.holder === this.holder;
	}

	/** Replaces the state and releases the lease in one step; false, writing nothing, if lost. */
	commit(state: IDataObject): boolean {
		if (!this.held) return false;
		for (const key of Object.keys(this.data)) delete this.data[key];
		this.data.version = STATE_VERSION;
		this.data.scope = this.scope;
		this.data.state = state;
		return true;
	}

	/** Gives the lease back without changing the state (a failed or cut-short poll). */
	release(): void {
		if (this.held) delete this.data.lease;
	}
}
