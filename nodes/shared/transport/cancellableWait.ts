import * as n8nWorkflow from 'n8n-workflow';
import type { IExecuteFunctions } from 'n8n-workflow';

import { cancelledError, DeadlineReached, unexpectedError } from '../errors';
import type { RequestContext } from './exchange';

/**
 * Every wait of an execution goes through here, so each stops at once on cancel and none outlives
 * its caller's deadline. Node code may not use timers: n8n's `sleep` does the waiting.
 */
export class CancellableWait {
	constructor(private readonly ctx: RequestContext) {}

	/** The execution's cancel signal where the context has one (executions; not list search). */
	get signal(): AbortSignal | undefined {
		return (this.ctx as Partial<IExecuteFunctions>).getExecutionCancelSignal?.();
	}

	throwIfCancelled() {
		if (this.signal?.aborted) throw cancelledError(this.ctx.getNode());
	}

	/**
	 * Waits with n8n's sleep and stops at once on cancel; where n8n has only `sleep(ms)`
	 * (docs/compatibility.md), within a quarter of a second.
	 */
	async wait(ms: number): Promise<void> {
		this.throwIfCancelled();
		if (!(ms > 0)) return;
		const sleepWithAbort = (
			n8nWorkflow as { sleepWithAbort?: (ms: number, signal?: AbortSignal) => Promise<void> }
		).sleepWithAbort;
		if (typeof sleepWithAbort === 'function') {
			try {
				await sleepWithAbort(ms, this.signal);
			} catch (error) {
				this.throwIfCancelled();
				throw unexpectedError(this.ctx.getNode(), error as Error);
			}
			return;
		}
		const until = Date.now() + ms;
		for (let left = ms; left > 0; left = until - Date.now()) {
			await n8nWorkflow.sleep(Math.min(left, 250));
			this.throwIfCancelled();
		}
	}

	/** Waits, but never past the deadline: reaching it throws DeadlineReached. */
	async waitWithin(ms: number, deadline: number): Promise<void> {
		if (Date.now() + ms >= deadline) {
			await this.wait(deadline - Date.now());
			throw new DeadlineReached();
		}
		await this.wait(ms);
	}

	/** Waits for `event` until `until` (n8n time); false when the time ran out first. */
	async waitFor(event: Promise<void>, until: number): Promise<boolean> {
		let arrived = false;
		void event.then(() => (arrived = true));
		await Promise.resolve();
		while (!arrived) {
			const left = until - Date.now();
			if (left <= 0) return false;
			// Short slices: the event usually comes first, and a pending slice is harmless.
			await Promise.race([event, this.wait(Math.min(left, 1000))]);
		}
		return true;
	}
}
