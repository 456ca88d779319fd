/**
 * The fake's clock controls: a service clock ahead of or behind the host's, a Date header that
 * disagrees with the records (or is garbage, or absent), and a `from` filter that compares whole
 * days. The attack suite builds its clock attacks on them, so they are proven here first.
 */
import { startFakeService, type FakeService } from '../../sandbox/index.cjs';
import { call, get, post, reportBody } from './helpers.cjs';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

function dateHeaderMs(headers: Headers): number {
	return Date.parse(headers.get('date') ?? '');
}

describe('fake service: clock controls', () => {
	let svc: FakeService;
	beforeEach(async () => {
		svc = await startFakeService({ timeScale: 0.01, limits: { write: 1000, generations: 1000 } });
	});
	afterEach(() => svc.stop());

	test('by default the Date header and the record times are the host clock', async () => {
		const before = Date.now();
		const res = await post(svc, '/v1/reports', reportBody(svc));
		expect(res.status).toBe(202);
		const created = Date.parse(res.body.data.createdAt);
		expect(created).toBeGreaterThanOrEqual(before);
		expect(created).toBeLessThanOrEqual(Date.now());
		expect(Math.abs(dateHeaderMs(res.headers) - created)).toBeLessThan(2_000);
	});

	test('setClockOffset(-30 min): records, the Date header and `from` all run 30 minutes behind', async () => {
		svc.setClockOffset(-30 * MINUTE);
		const res = await post(svc, '/v1/reports', reportBody(svc, { title: 'Behind' }));
		const created = Date.parse(res.body.data.createdAt);
		expect(Date.now() - 30 * MINUTE - created).toBeLessThan(2_000);
		expect(Date.now() - 30 * MINUTE - created).toBeGreaterThanOrEqual(-5);
		expect(Math.abs(dateHeaderMs(res.headers) - created)).toBeLessThan(2_000);

		const listed = async (from: number) => {
			const list = await get(svc, `/v1/reports?from=${new Date(from).toISOString()}`);
			return (list.body.data as Array<{ id: string }>).map((report) => report.id);
		};
		expect(await listed(created - 1_000)).toContain(res.body.data.id);
		// A `from` on n8n's clock is half an hour in the service's future.
		expect(await listed(Date.now() - MINUTE)).not.toContain(res.body.data.id);

		// Times handed to addReports are read on the service's clock.
		const stamp = new Date(Date.now() - 31 * MINUTE).toISOString();
		const [added] = svc.addReports(1, { createdAt: stamp, completedAt: stamp });
		expect(added.createdAt).toBe(stamp);
		expect(added.status).toBe('completed');

		svc.setClockOffset(0);
		const after = await post(svc, '/v1/reports', reportBody(svc, { title: 'Back' }));
		expect(Math.abs(Date.parse(after.body.data.createdAt) - Date.now())).toBeLessThan(2_000);
	});

	test('setDateHeader: skewed from the records, raw text, or absent; "clock" restores it', async () => {
		svc.setDateHeader({ skewMs: 60 * MINUTE });
		let res = await post(svc, '/v1/reports', reportBody(svc));
		const created = Date.parse(res.body.data.createdAt);
		expect(Math.abs(dateHeaderMs(res.headers) - created - 60 * MINUTE)).toBeLessThan(2_000);

		svc.setDateHeader({ raw: 'not a date' });
		res = await get(svc, '/v1/accounts');
		expect(res.headers.get('date')).toBe('not a date');

		svc.setDateHeader('omit');
		res = await get(svc, '/v1/accounts');
		expect(res.status).toBe(200);
		expect(res.headers.get('date')).toBeNull();
		// Error answers follow the same rule.
		res = await get(svc, '/v1/accounts', { key: null });
		expect(res.status).toBe(401);
		expect(res.headers.get('date')).toBeNull();

		svc.setDateHeader('clock');
		res = await get(svc, '/v1/accounts');
		expect(Math.abs(dateHeaderMs(res.headers) - Date.now())).toBeLessThan(2_000);
	});

	test('setCoarseFromFilter: `from` counts from the start of its UTC day', async () => {
		const dayStart = Date.now() - (Date.now() % DAY);
		const stamp = new Date(dayStart + MINUTE).toISOString();
		const [early] = svc.addReports(1, { createdAt: stamp, completedAt: stamp });
		const from = new Date(dayStart + 10 * MINUTE).toISOString();
		const ids = async () =>
			((await get(svc, `/v1/reports?from=${from}`)).body.data as Array<{ id: string }>).map(
				(report) => report.id,
			);
		expect(await ids()).not.toContain(early.id);
		svc.setCoarseFromFilter(true);
		expect(await ids()).toContain(early.id);
		svc.setCoarseFromFilter(false);
		expect(await ids()).not.toContain(early.id);
	});

	test('the control API sets all three: PUT /__fake/clock', async () => {
		const res = await call(svc, 'PUT', '/__fake/clock', {
			key: null,
			version: null,
			body: { offsetMs: -MINUTE, dateHeader: { skewMs: 5_000 }, coarseFromFilter: true },
		});
		expect(res.status).toBe(200);
		expect(res.body.data).toEqual({
			offsetMs: -MINUTE,
			dateHeader: { skewMs: 5_000 },
			coarseFromFilter: true,
		});
		const accounts = await get(svc, '/v1/accounts');
		expect(Math.abs(dateHeaderMs(accounts.headers) - (Date.now() - MINUTE + 5_000))).toBeLessThan(
			2_000,
		);
		const bad = await call(svc, 'PUT', '/__fake/clock', {
			key: null,
			version: null,
			body: { offsetMs: 'soon' },
		});
		expect(bad.status).toBe(400);
	});
});
