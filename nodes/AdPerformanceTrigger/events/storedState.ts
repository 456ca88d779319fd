import type { IDataObject } from 'n8n-workflow';

/*
 * The trigger node's static data, the only thing that survives from one poll to the next:
 *
 *     { version: 2, scope: "<event>:<account filter>", state: {…}, lease?: { holder, until } }
 *
 * How n8n keeps it (read in n8n's source, see the README's Security section): the poller of an
 * active workflow holds ONE Workflow object and ONE poll context for its whole life
 * (packages/core/src/execution-engine/active-workflows.ts, activatePolling), and the cron starts
 * each poll with `void executeTrigger()` whether or not the previous one has finished. So polls of
 * one trigger that overlap in one n8n process see the same static data object, and a lease in it
 * keeps a second poll out. n8n writes the object to its database when a poll emits items
 * (packages/cli/src/active-workflow-manager.ts, __emit → saveStaticData) and at activation; a
 * restart reads back what was written then.
 */

/** The layout above. State of another version, or none, is not read: the poll starts a baseline. */
const STATE_VERSION = 2;

export class TriggerStore {
	constructor(
		private readonly data: IDataObject,
		/** Which event and filter the stored state belongs to: another scope's state is not ours. */
		private readonly scope: string,
	) {}

	/** What the last successful poll of this scope stored, not yet checked by its event kind. */
	get state(): unknown {
		return this.data.version === STATE_VERSION && this.data.scope === this.scope
			? this.data.state
			: undefined;
	}

	/**
	 * Takes the lease for one poll, or returns undefined while another poll of this trigger holds
	 * a live one. Check and take happen without an await in between, so of two polls that start
	 * together exactly one gets it. A lease expires after `durationMs`; one that claims to last
	 * longer (written before n8n's clock was set back) counts as expired.
	 */
	takeLease(now: number, durationMs: number): Lease | undefined {
		const held = this.data.lease as { holder?: unknown; until?: unknown } | undefined;
		const until = typeof held?.until === 'number' ? held.until : NaN;
		if (now < until && until - now <= durationMs) return undefined;
		const holder = `${now.toString(36)}-${Math.random().toString(36).slice(2)}`;
		this.data.lease = { holder, until: now + durationMs };
		return new Lease(this.data, this.scope, holder);
	}
}

/** A poll's exclusive right to commit the trigger's next state. */
export class Lease {
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
