/**
 * How long the service's durations (its one-minute rate-limit window, the seconds a 429 asks us
 * to wait, backoff) last for the nodes. Against the real service, a service second is a second.
 *
 * The offline sandbox can run its clock faster (`npm run sandbox -- --time-scale 0.05`: a
 * service minute in 3 s), and then the nodes must wait correspondingly less, or every test and
 * demo would take real minutes. The credential's hidden `timeScale` field says so; it is honoured
 * only for a Base URL on this machine (the loopback addresses and `localhost`), so that a
 * credential carried over from a sandbox can never make the nodes hurry against a real service.
 */
export class ServiceClock {
	/** Real milliseconds per service millisecond: 1, or less for a sped-up local sandbox. */
	readonly speed: number;

	constructor(baseUrl: string, timeScale: unknown) {
		const scale = Number(timeScale ?? 1);
		this.speed =
			isLoopbackUrl(baseUrl) && Number.isFinite(scale) && scale > 0 && scale <= 1 ? scale : 1;
	}

	/** A duration of service time (the figures the service documents) in real milliseconds. */
	realMs(serviceMs: number): number {
		return serviceMs * this.speed;
	}

	/** A real duration in service milliseconds (for messages that quote the service's units). */
	serviceMs(realMs: number): number {
		return realMs / this.speed;
	}
}

function isLoopbackUrl(url: string): boolean {
	let host: string;
	try {
		host = new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, '');
	} catch {
		return false;
	}
	return (
		host === 'localhost' ||
		host.endsWith('.localhost') ||
		host === '::1' ||
		/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
	);
}

/**
 * How far the service's clock may be from n8n's when nothing better is known: time filters on
 * the service's timestamps (created after …) are widened by this much, so a clock that is off by
 * minutes never hides a record.
 */
export const CLOCK_SKEW_MARGIN_MS = 5 * 60_000;
