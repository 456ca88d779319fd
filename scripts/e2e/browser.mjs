// Browser checks of n8n's editor with Debian's Chromium driven by playwright-core.
//
//   import { inspectNodeInEditor } from './browser.mjs';
//   const server = await n8n.start();                       // from n8n-instance.mjs
//   const r = await inspectNodeInEditor({ ...server, displayName: 'Ad Performance', screenshotPath: 'out/ndv.png' });
//   r.resourceOptions   // ['Account', 'Campaign', ...] or null when the node has no Resource parameter
//   r.icon.isImg        // true when the node icon is an <img> (a file: SVG) that loaded
//
// Chromium: /usr/bin/chromium (apt-get install -y chromium), or CHROMIUM_PATH. playwright-core
// never downloads a browser. PLAYWRIGHT_CORE_DIR may point at a playwright-core outside the repo.
//
// Selectors are n8n's data-test-id attributes; the same ones work on 1.123.x and 2.41.x (see
// SELECTORS); where the two lines differ there are alternatives in the selector lists.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

export const CHROMIUM_ARGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-dev-shm-usage',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
	'--disable-default-apps',
	'--disable-extensions',
];

export const SELECTORS = {
	loginEmail: 'input[name="emailOrLdapLoginId"], input[name="email"]',
	loginPassword: 'input[name="password"]',
	loginSubmit: '[data-test-id="form-submit-button"]',
	/** the big "Add first step" on an empty canvas, or the "+" in the top right corner */
	openCreator: '[data-test-id="canvas-plus-button"], [data-test-id="canvas-add-button"], [data-test-id="node-creator-plus-button"]',
	creator: '[data-test-id="node-creator"]',
	creatorSearch: '[data-test-id="node-creator-search-bar"]',
	creatorItem: '[data-test-id="item-iterator-item"]',
	creatorItemName: '[data-test-id="node-creator-item-name"]',
	creatorCategory: '[data-test-id="node-creator-category-item"]',
	nodeIcon: '.n8n-node-icon',
	ndv: '[data-test-id="ndv"]',
	ndvParameters: '[data-test-id="node-parameters"]',
	ndvTitle: '[data-test-id="node-title-container"]',
	parameterInput: (name) => `[data-test-id="parameter-input-${name}"]`,
	dropdownOption: '.el-select-dropdown__item, [role="option"]',
};

async function loadPlaywright() {
	try {
		return await import('playwright-core');
	} catch (e) {
		const candidates = [process.env.PLAYWRIGHT_CORE_DIR, path.join(process.cwd(), 'node_modules', 'playwright-core')].filter(Boolean);
		for (const dir of candidates) {
			if (fs.existsSync(path.join(dir, 'package.json'))) {
				const req = createRequire(path.join(dir, 'package.json'));
				return import(pathToFileURL(req.resolve('playwright-core')).href);
			}
		}
		throw new Error(`playwright-core is not installed (dev dependency), nor found via PLAYWRIGHT_CORE_DIR: ${e.message}`);
	}
}

export function chromiumPath() {
	const p = process.env.CHROMIUM_PATH || ['/usr/bin/chromium', '/usr/bin/chromium-headless-shell', '/usr/bin/chromium-browser'].find((f) => fs.existsSync(f));
	if (!p || !fs.existsSync(p)) throw new Error('Chromium not found: apt-get install -y chromium (or set CHROMIUM_PATH)');
	return p;
}

/** Launches headless Chromium with a fresh profile. Close it with `await browser.close()`. */
export async function launchBrowser({ headless = true, executablePath = chromiumPath() } = {}) {
	const { chromium } = await loadPlaywright();
	// chromium.launch() gives every launch a fresh temporary profile (its own --user-data-dir)
	return chromium.launch({ executablePath, headless, args: CHROMIUM_ARGS });
}

/**
 * Signed-in sessions this process has made, by `baseUrl email`: the cookies and local storage
 * (n8n ties its auth cookie to the browser id kept there). n8n allows 5 form logins a minute per
 * e-mail (a keyed rate limit on POST /rest/login, 2.x) and a suite opens more pages than that, so
 * later pages reuse the session and the form is only used when there is none or it has expired.
 */
const signedInSessions = new Map();

/**
 * Signs in to n8n; resolves when the editor left /signin. The first page of a process (or one
 * whose session n8n no longer accepts) fills the login form, as a user does; a refusal for too
 * many logins waits for n8n's Retry-After and submits again, within `timeoutMs` plus one
 * rate-limit window. Resolves with how it signed in: `{ via: 'session' | 'form', refusals }`
 * (refusals: answers of 429 waited out).
 *
 * `path` (e.g. '/workflow/<id>'): the page wanted after signing in, asked for as n8n's editor
 * links do (/signin?redirect=<path>): the editor then opens it itself, and the page is loaded
 * once rather than once to sign in and again for it (each load of the editor is seconds of
 * Chromium's time). Go there with gotoUnlessThere(): it loads the page only when the editor did
 * not open it.
 */
export async function login(page, { baseUrl, email, password, timeoutMs = 30_000, path: wanted }) {
	const key = `${baseUrl} ${email}`;
	const remembered = signedInSessions.get(key);
	if (remembered) {
		await page.context().addCookies(remembered.cookies);
		const origin = new URL(baseUrl).origin;
		const storage = remembered.origins.find((o) => o.origin === origin)?.localStorage ?? [];
		await page.context().addInitScript(
			({ origin, storage }) => {
				if (location.origin !== origin) return;
				for (const { name, value } of storage) if (localStorage.getItem(name) === null) localStorage.setItem(name, value);
			},
			{ origin, storage },
		);
	}
	await page.goto(`${baseUrl}/signin${wanted ? `?redirect=${encodeURIComponent(wanted)}` : ''}`, { timeout: timeoutMs });
	// n8n sends a signed-in visitor of /signin on to the editor; anyone else gets the form
	const emailField = page.locator(SELECTORS.loginEmail).first();
	const left = page.waitForURL((u) => !u.pathname.includes('/signin'), { timeout: timeoutMs }).then(() => 'signed in');
	const form = emailField.waitFor({ state: 'visible', timeout: timeoutMs }).then(() => 'form');
	const seen = await Promise.race([left, form]);
	left.catch(() => {});
	form.catch(() => {});
	let refusals = 0;
	if (seen === 'form') {
		await emailField.fill(email, { timeout: timeoutMs });
		await page.locator(SELECTORS.loginPassword).fill(password);
		const rateLimitWindowMs = 65_000;
		const giveUpAt = Date.now() + timeoutMs + rateLimitWindowMs;
		for (;;) {
			const answered = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname.endsWith('/rest/login'), { timeout: timeoutMs });
			await page.locator(SELECTORS.loginSubmit).click();
			const answer = await answered;
			if (answer.status() !== 429) break;
			refusals++;
			const retryAfterS = Number(answer.headers()['retry-after']);
			const waitMs = (Number.isFinite(retryAfterS) && retryAfterS > 0 ? retryAfterS * 1000 : 10_000) + 500;
			if (Date.now() + waitMs > giveUpAt) throw new Error(`n8n refused the login for too many attempts (HTTP 429) and asks to wait ${waitMs} ms, past this login's time`);
			await page.waitForTimeout(waitMs);
		}
		await page.waitForURL((u) => !u.pathname.includes('/signin'), { timeout: timeoutMs });
	}
	signedInSessions.set(key, await page.context().storageState());
	return { via: seen === 'form' ? 'form' : 'session', refusals };
}

/** Loads `url` unless the page shows it already (login's `path` brought it there). */
export async function gotoUnlessThere(page, url, options) {
	const here = new URL(page.url());
	const there = new URL(url);
	if (here.origin === there.origin && here.pathname === there.pathname && here.search === there.search) return;
	await page.goto(url, options);
}

/** Opens an empty new workflow in the editor. */
export async function openNewWorkflow(page, { baseUrl, timeoutMs = 30_000 }) {
	await gotoUnlessThere(page, `${baseUrl}/workflow/new`, { timeout: timeoutMs });
	await page.locator(SELECTORS.openCreator).first().waitFor({ state: 'visible', timeout: timeoutMs });
}

/** The node icon next to the NDV title: inside its container in 1.x, a sibling in the 2.x header. */
async function ndvIconInfo(page) {
	const title = page.locator(`${SELECTORS.ndv} ${SELECTORS.ndvTitle}`).first();
	if (!(await title.count())) return { found: false, isImg: false };
	const handle = await title.evaluateHandle((t, iconSel) => {
		for (let el = t, i = 0; el && i < 4; el = el.parentElement, i++) {
			const icon = el.querySelector(iconSel);
			if (icon) return icon;
		}
		return null;
	}, SELECTORS.nodeIcon);
	const el = handle.asElement();
	if (!el) return { found: false, isImg: false };
	return iconInfoOf(el);
}

async function iconInfo(locator) {
	if (!(await locator.count())) return { found: false, isImg: false };
	return iconInfoOf(locator.first());
}

function iconInfoOf(target) {
	return target.evaluate((el) => {
		const img = el.querySelector('img');
		const svg = el.querySelector('svg');
		return {
			found: true,
			isImg: Boolean(img),
			src: img?.getAttribute('src') ?? undefined,
			loaded: img ? img.complete && img.naturalWidth > 0 : false,
			naturalWidth: img?.naturalWidth,
			/** n8n's stand-ins: an inline (font/lucide) svg, or the node name's initials as text */
			inlineSvgIcon: !img && svg ? svg.getAttribute('data-icon') || 'svg' : undefined,
			placeholderText: !img && !svg ? el.textContent.trim() : undefined,
		};
	});
}

/**
 * Logs in, opens a new workflow, searches the node creator for `displayName`, adds the node
 * (choosing `action` — or the first action — when n8n lists the node's actions), opens its
 * parameter panel and screenshots it.
 *
 * @param {{ baseUrl: string, email: string, password: string, displayName: string,
 *           screenshotPath: string, action?: string|RegExp, category?: 'Actions'|'Triggers',
 *           dropdownScreenshotPath?: string,
 *           browser?: import('playwright-core').Browser, timeoutMs?: number,
 *           viewport?: {width: number, height: number} }} options
 */
export async function inspectNodeInEditor(options) {
	const { baseUrl, email, password, displayName, screenshotPath, timeoutMs = 30_000 } = options;
	const ownBrowser = !options.browser;
	const browser = options.browser ?? (await launchBrowser());
	const context = await browser.newContext({ viewport: options.viewport ?? { width: 1440, height: 900 } });
	const page = await context.newPage();
	const consoleErrors = [];
	page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
	const failedRequests = [];
	page.on('response', (r) => r.status() >= 400 && failedRequests.push(`${r.status()} ${new URL(r.url()).pathname}`));
	const steps = [];
	const t0 = Date.now();
	const mark = (s) => steps.push(`${((Date.now() - t0) / 1000).toFixed(1)}s ${s}`);
	try {
		await login(page, { baseUrl, email, password, timeoutMs, path: '/workflow/new' });
		mark('logged in');
		await openNewWorkflow(page, { baseUrl, timeoutMs });
		mark('new workflow open');

		await page.locator(SELECTORS.openCreator).first().click();
		const search = page.locator(SELECTORS.creatorSearch);
		await search.waitFor({ state: 'visible', timeout: timeoutMs });
		await search.fill(displayName);
		const esc = (t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
		// n8n lists a "<Name> Trigger" node under "<Name>" (its Triggers category) when both exist
		const baseName = /\sTrigger$/.test(displayName) ? displayName.replace(/\s+Trigger$/, '') : undefined;
		const namePattern = baseName ? `(${esc(displayName)}|${esc(baseName)})` : esc(displayName);
		const item = page
			.locator(SELECTORS.creatorItem)
			.filter({ has: page.locator(SELECTORS.creatorItemName, { hasText: new RegExp(`^\\s*${namePattern}\\s*$`) }) })
			.first();
		await item.waitFor({ state: 'visible', timeout: timeoutMs });
		const listedAs = (await item.locator(SELECTORS.creatorItemName).first().innerText()).trim();
		mark(`found "${listedAs}" in the node creator`);
		const creatorIcon = await iconInfo(item.locator(SELECTORS.nodeIcon));
		const creatorText = await item.innerText();
		await item.click();

		// Either the node is added at once (NDV opens), or n8n lists the node's triggers and actions
		// ("Node details"), or (a community node without actions) "Node details" offers "Add to
		// workflow". When the package has a trigger too, the trigger list comes first and the
		// Actions category starts collapsed.
		const category = options.category ?? (baseName && listedAs === baseName ? 'Triggers' : 'Actions');
		const ndv = page.locator(SELECTORS.ndv);
		const anyCategory = page.locator(`${SELECTORS.creator} ${SELECTORS.creatorCategory}`, { hasText: /^\s*(Actions|Triggers)\b/ });
		const wantedCategory = page.locator(`${SELECTORS.creator} ${SELECTORS.creatorCategory}`, { hasText: new RegExp(`^\\s*${category}\\b`) });
		const addToWorkflow = page.locator(`${SELECTORS.creator} ${SELECTORS.creatorItem}`, { hasText: /^\s*Add to workflow\s*$/ });
		await Promise.race([
			ndv.waitFor({ state: 'visible', timeout: timeoutMs }),
			anyCategory.first().waitFor({ state: 'visible', timeout: timeoutMs }),
			addToWorkflow.first().waitFor({ state: 'visible', timeout: timeoutMs }),
		]).catch(() => {});
		let chosenAction;
		const findAction = () =>
			page.evaluate(
				({ sel, action, category }) => {
					const all = [...document.querySelectorAll(`${sel.creator} ${sel.creatorCategory}, ${sel.creator} ${sel.creatorItem}`)];
					const items = [...document.querySelectorAll(`${sel.creator} ${sel.creatorItem}`)];
					let inCategory = false;
					for (const el of all) {
						if (el.matches(sel.creatorCategory)) {
							inCategory = new RegExp(`^\\s*${category}\\b`).test(el.textContent);
							continue;
						}
						const name = el.querySelector(sel.creatorItemName)?.textContent.trim();
						if (!inCategory || !name || el.offsetParent === null) continue;
						if (action && !(action.re ? new RegExp(action.re, action.flags).test(name) : name === action.text)) continue;
						return { index: items.indexOf(el), name };
					}
					return null;
				},
				{
					sel: { creator: SELECTORS.creator, creatorCategory: SELECTORS.creatorCategory, creatorItem: SELECTORS.creatorItem, creatorItemName: SELECTORS.creatorItemName },
					action: options.action === undefined ? undefined : options.action instanceof RegExp ? { re: options.action.source, flags: options.action.flags } : { text: options.action },
					category,
				},
			);
		if (!(await ndv.isVisible()) && !(await anyCategory.count()) && (await addToWorkflow.count())) {
			await addToWorkflow.first().click();
			mark('clicked "Add to workflow" in the node details');
		} else if (!(await ndv.isVisible()) && (await anyCategory.count())) {
			let found = await findAction();
			if (!found && (await wantedCategory.count())) {
				// collapsed: open it
				await wantedCategory.first().click();
				await page.waitForTimeout(300);
				found = await findAction();
			}
			if (!found) throw new Error(`no ${category.toLowerCase()} item${options.action ? ` matching ${options.action}` : ''} listed for ${displayName}`);
			chosenAction = found.name;
			await page.locator(`${SELECTORS.creator} ${SELECTORS.creatorItem}`).nth(found.index).click();
			mark(`chose ${category === 'Actions' ? 'action' : 'trigger'} "${chosenAction}"`);
		}
		await ndv.waitFor({ state: 'visible', timeout: timeoutMs });
		await page.locator(`${SELECTORS.ndv} ${SELECTORS.ndvParameters}`).waitFor({ state: 'visible', timeout: timeoutMs });
		mark('parameter panel open');
		// the node creator slides out behind the NDV; wait until it is gone
		await page.locator(SELECTORS.creator).waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => {});
		// let icons and remote option lists settle
		await page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => {});

		const nodeTitle = (await page.locator(`${SELECTORS.ndv} ${SELECTORS.ndvTitle}`).first().innerText().catch(() => '')).trim();
		const ndvIcon = await ndvIconInfo(page);
		const parameterLabels = await page
			.locator(`${SELECTORS.ndv} ${SELECTORS.ndvParameters} label.n8n-input-label`)
			.evaluateAll((els) =>
				els
					.filter((e) => e.offsetParent !== null)
					.map((e) => (e.querySelector('.n8n-text') ?? e).textContent.trim())
					.filter(Boolean),
			);

		if (screenshotPath) {
			fs.mkdirSync(path.dirname(path.resolve(screenshotPath)), { recursive: true });
			await page.screenshot({ path: screenshotPath });
			mark(`screenshot ${screenshotPath}`);
		}

		const readOptions = async (name) => {
			const input = page.locator(`${SELECTORS.ndv} ${SELECTORS.parameterInput(name)}`).first();
			if (!(await input.count())) return null;
			await input.click();
			const opts = page.locator(SELECTORS.dropdownOption).filter({ visible: true });
			await opts.first().waitFor({ state: 'visible', timeout: 5_000 }).catch(() => {});
			const texts = (await opts.allInnerTexts()).map((t) => t.split('\n')[0].trim()).filter(Boolean);
			if (name === 'resource' && options.dropdownScreenshotPath) await page.screenshot({ path: options.dropdownScreenshotPath });
			await page.keyboard.press('Escape');
			// Escape must close only the dropdown, not the NDV
			await opts.first().waitFor({ state: 'hidden', timeout: 2_000 }).catch(() => {});
			return texts;
		};
		const resourceOptions = await readOptions('resource');
		const operationOptions = (await ndv.isVisible()) ? await readOptions('operation') : null;
		mark('read dropdowns');

		const img = ndvIcon.isImg ? ndvIcon : creatorIcon;
		return {
			displayName,
			creatorText: creatorText.trim(),
			chosenAction,
			nodeTitle,
			parameterLabels,
			resourceOptions,
			operationOptions,
			icon: {
				isImg: Boolean(img.isImg && img.loaded),
				src: img.src,
				creator: creatorIcon,
				ndv: ndvIcon,
			},
			screenshotPath,
			consoleErrors,
			failedRequests,
			steps,
		};
	} catch (e) {
		const shot = screenshotPath ? screenshotPath.replace(/(\.png)?$/, '.failure.png') : path.join(os.tmpdir(), `e2e-failure-${Date.now()}.png`);
		await page.screenshot({ path: shot }).catch(() => {});
		e.message += `\n(steps: ${steps.join(' → ')}; failure screenshot: ${shot})`;
		throw e;
	} finally {
		await context.close().catch(() => {});
		if (ownBrowser) await browser.close().catch(() => {});
	}
}

/** Screenshot of any editor page after login (e.g. '/home/workflows'). */
export async function screenshotPage({ baseUrl, email, password, urlPath = '/home/workflows', screenshotPath, browser: given }) {
	const browser = given ?? (await launchBrowser());
	const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
	const page = await context.newPage();
	try {
		await login(page, { baseUrl, email, password, path: urlPath });
		await gotoUnlessThere(page, `${baseUrl}${urlPath}`);
		await page.waitForLoadState('networkidle', { timeout: 10_000 }).catch(() => {});
		await page.screenshot({ path: screenshotPath });
		return screenshotPath;
	} finally {
		await context.close();
		if (!given) await browser.close();
	}
}

/**
 * Types `query` into the node creator and returns the names it lists (the search a newcomer
 * does first: "Ad Performance"). In a new workflow the creator offers triggers; in a saved
 * workflow that has one (`workflowId`) it offers actions. `withDescriptions` returns each
 * entry's whole text (name, then description).
 */
export async function searchNodeCreator({ baseUrl, email, password, query, screenshotPath, workflowId, withDescriptions = false, browser: given, timeoutMs = 30_000 }) {
	const browser = given ?? (await launchBrowser());
	const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
	const page = await context.newPage();
	try {
		await login(page, { baseUrl, email, password, timeoutMs, path: workflowId ? `/workflow/${workflowId}` : '/workflow/new' });
		if (workflowId) {
			await gotoUnlessThere(page, `${baseUrl}/workflow/${workflowId}`, { timeout: timeoutMs });
			await page.locator(SELECTORS.openCreator).first().waitFor({ state: 'visible', timeout: timeoutMs });
		} else await openNewWorkflow(page, { baseUrl, timeoutMs });
		await page.locator(SELECTORS.openCreator).first().click();
		await page.locator(SELECTORS.creatorSearch).first().fill(query);
		const names = page.locator(`${SELECTORS.creator} ${SELECTORS.creatorItemName}`);
		await names.first().waitFor({ state: 'visible', timeout: timeoutMs });
		await page.waitForTimeout(500); // the list settles after the last keystroke
		if (screenshotPath) await page.screenshot({ path: screenshotPath });
		const texts = withDescriptions
			? await page.locator(`${SELECTORS.creator} ${SELECTORS.creatorItem}`).allInnerTexts()
			: await names.allInnerTexts();
		return texts.map((text) => text.trim().replace(/\n\s*\n/g, '\n'));
	} finally {
		await context.close().catch(() => {});
		if (!given) await browser.close().catch(() => {});
	}
}

/**
 * Runs `work(page)` on a fresh page logged in to n8n (on its way to `path`, see login) and
 * resolves with its result; on a failure it saves a screenshot next to `screenshotPath`
 * (`….failure.png`).
 */
async function withEditorPage({ baseUrl, email, password, screenshotPath, browser: given, path: wanted }, work) {
	const browser = given ?? (await launchBrowser());
	const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
	const page = await context.newPage();
	try {
		await login(page, { baseUrl, email, password, path: wanted });
		return await work(page);
	} catch (e) {
		if (screenshotPath) await page.screenshot({ path: screenshotPath.replace(/(\.png)?$/, '.failure.png') }).catch(() => {});
		throw e;
	} finally {
		await context.close().catch(() => {});
		if (!given) await browser.close().catch(() => {});
	}
}

/**
 * Opens a saved workflow in the editor and runs it with the canvas's "Execute workflow" button,
 * as a user does; resolves once the button is clickable again (the run has ended) and a
 * screenshot of the canvas after the run is taken.
 */
export async function executeWorkflowInEditor({ workflowId, screenshotPath, timeoutMs = 180_000, ...session }) {
	return withEditorPage({ ...session, screenshotPath, path: `/workflow/${workflowId}` }, async (page) => {
		await gotoUnlessThere(page, `${session.baseUrl}/workflow/${workflowId}`);
		const button = page.locator('[data-test-id="execute-workflow-button"]').first();
		await button.waitFor({ state: 'visible', timeout: 30_000 });
		await button.click();
		// While it runs, n8n shows a stop button instead; the run is over when it is gone.
		const stop = page.locator('[data-test-id="stop-execution-button"]').first();
		await stop.waitFor({ state: 'visible', timeout: 15_000 }).catch(() => {});
		await stop.waitFor({ state: 'hidden', timeout: timeoutMs });
		await page.waitForTimeout(1_000);
		if (screenshotPath) await page.screenshot({ path: screenshotPath });
	});
}

/**
 * Opens a saved workflow in the editor and the parameter panel of its node `nodeName` (by
 * double-clicking it on the canvas, as a user does), screenshots the panel and resolves with
 * the panel's text.
 */
export async function openNodeInWorkflow({ workflowId, nodeName, screenshotPath, timeoutMs = 30_000, ...session }) {
	return withEditorPage({ ...session, screenshotPath, path: `/workflow/${workflowId}` }, async (page) => {
		await gotoUnlessThere(page, `${session.baseUrl}/workflow/${workflowId}`, { timeout: timeoutMs });
		const node = page.locator(`[data-test-id="canvas-node"][data-node-name="${nodeName}"]`).first();
		await node.waitFor({ state: 'visible', timeout: timeoutMs });
		await node.dblclick();
		await page.locator(SELECTORS.ndv).first().waitFor({ state: 'visible', timeout: timeoutMs });
		await page.waitForTimeout(1_000); // parameters and list searches settle
		if (screenshotPath) await page.screenshot({ path: screenshotPath });
		return (await page.locator(SELECTORS.ndv).first().innerText()).trim();
	});
}

/** Screenshot of a page that needs no login (e.g. the demo inbox); returns its visible text. */
export async function screenshotUrl({ url, screenshotPath, browser: given, viewport = { width: 1280, height: 1000 }, fullPage = false }) {
	const browser = given ?? (await launchBrowser());
	const context = await browser.newContext({ viewport });
	const page = await context.newPage();
	try {
		await page.goto(url);
		await page.waitForLoadState('load');
		await page.waitForTimeout(500);
		await page.screenshot({ path: screenshotPath, fullPage });
		return await page.locator('body').innerText();
	} finally {
		await context.close().catch(() => {});
		if (!given) await browser.close().catch(() => {});
	}
}
