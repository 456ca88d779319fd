/**
 * Return All over a large listing (50,000 campaigns = 500 pages): the reads limit (120 a minute)
 * is what bounds it, so the wall time is compared with the time the rate-limit windows force,
 * and the peak heap growth is divided by the records held.
 */
import { startFakeService } from '../../sandbox/index.cjs';
import { AD_NODE, runNodes } from './rows.cjs';

const WINDOW_MS = 60_000;
const READS_PER_WINDOW = 120;

export interface LargeListingResult {
	n: number;
	requests: number;
	minRequests: number;
	rejected429: number;
	wallMs: number;
	/** (windows needed − 1) × window: the service cannot answer the reads sooner */
	rateBoundMs: number;
	/** peak heap growth over the run (after a GC before it) */
	heapGrowth: number;
	/** the records' size as JSON, for scale */
	jsonBytes: number;
}

export async function benchLargeListing(options: { timeScale: number; n: number }) {
	const { timeScale, n } = options;
	const fake = await startFakeService({ timeScale, seed: 23 });
	try {
		const acme = fake.accounts().find((a) => a.name === 'Acme Outdoor')!;
		fake.addCampaigns(acme.id, n - fake.campaigns().length);
		const jsonBytes = Buffer.byteLength(JSON.stringify(fake.campaigns()));
		const minRequests = Math.ceil(n / 100);
		const rateBoundMs = (Math.ceil(minRequests / READS_PER_WINDOW) - 1) * WINDOW_MS * timeScale;
		fake.resetLimits();
		fake.clearLog();
		const gc = (globalThis as { gc?: () => void }).gc;
		gc?.();
		const heapBefore = process.memoryUsage().heapUsed;
		let heapPeak = heapBefore;
		const sampler = setInterval(() => {
			heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
		}, 10);
		const t0 = performance.now();
		let result;
		try {
			result = await runNodes(fake, timeScale, [
				{
					name: 'Ad Performance',
					type: AD_NODE,
					parameters: { resource: 'campaign', operation: 'getAll', returnAll: true },
				},
			]);
		} finally {
			clearInterval(sampler);
		}
		const wallMs = performance.now() - t0;
		heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
		if (result.error) throw result.error;
		if (result.items.length !== n)
			throw new Error(`listed ${result.items.length} of ${n} campaigns`);
		const log = fake.log.filter((e) => e.path === '/v1/campaigns');
		return {
			n,
			requests: log.length,
			minRequests,
			rejected429: log.filter((e) => e.status === 429).length,
			wallMs,
			rateBoundMs,
			heapGrowth: heapPeak - heapBefore,
			jsonBytes,
		} satisfies LargeListingResult;
	} finally {
		await fake.stop();
	}
}
