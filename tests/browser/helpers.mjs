// Shared set-up of the browser tests: the dev server (www/server.mjs, with
// the corpus mounted read-only under /corpus/), headless Chromium through
// playwright-core, screenshots into target/screenshots/, and the reasons a
// test cannot run (no Chromium, no pkg/, no samples): skipped on a
// developer's machine, failed in CI (CI=true), where a skipped test would be
// a test that does not exist.

import test from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../www/server.mjs';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CORPUS = path.resolve(REPO, '../shared/corpus');
export const SCREENSHOTS = path.join(REPO, 'target', 'screenshots');
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

let playwright = null;
try {
  playwright = await import('playwright-core');
} catch {
  // reported by skipReason
}

/** Why the browser tests cannot run here, or false. */
export function skipReason({ corpus = false } = {}) {
  if (!playwright) return 'playwright-core is not installed (npm ci in tests/browser)';
  if (!fs.existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM)`;
  if (!fs.existsSync(path.join(REPO, 'pkg', 'index.js'))) return 'pkg/ is not built (scripts/build-pkg.sh)';
  if (!fs.existsSync(path.join(REPO, 'www', 'samples', 'index.json'))) return 'samples are not built (scripts/build-samples.sh)';
  if (corpus && !fs.existsSync(CORPUS)) return `no corpus at ${CORPUS}`;
  return false;
}

/** `test(name, options, fn)` unless `missing` (a reason, or false): skipped, or failed in CI. */
export function testNeeding(missing, name, options, fn) {
  if (missing && process.env.CI === 'true') {
    return test(name, options, () => {
      throw new Error(`cannot run: ${missing} (CI=true: a missing tool is a failure, not a skip; scripts/setup.sh installs it)`);
    });
  }
  return test(name, { ...options, skip: missing || false }, fn);
}

/** Whether playwright-core could be imported. */
export const hasPlaywright = () => playwright !== null;

/** Headless Chromium (Debian's, or $CHROMIUM) through playwright-core. */
export function launchChromium() {
  return playwright.chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** Starts the dev server and Chromium; returns { server, browser, close() }. */
export async function launch({ isolation = true } = {}) {
  const server = await startServer({ port: 0, isolation, corpus: fs.existsSync(CORPUS) ? CORPUS : null });
  let browser;
  try {
    browser = await launchChromium();
  } catch (e) {
    await server.close();
    throw e;
  }
  return {
    server,
    browser,
    async close() {
      await browser.close().catch(() => {});
      await server.close();
    },
  };
}

/** Screen sizes the layout tests use: a phone (touch, the page may scroll vertically) and a small laptop. */
export const SIZES = {
  phone: { width: 390, height: 844, mobile: true },
  laptop: { width: 1024, height: 700, mobile: false },
};

/**
 * Opens the page at `query` (e.g. '?sample=hello') in a laptop-sized
 * viewport (or `mobile`: a touch screen that honours the viewport meta tag)
 * and waits until it has loaded its first file. Page errors and console
 * errors are collected in `page.problems`.
 */
export async function openPage(env, query = '', { width = 1440, height = 900, mobile = false } = {}) {
  const page = await env.browser.newPage({ viewport: { width, height }, deviceScaleFactor: 1, isMobile: mobile, hasTouch: mobile });
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') page.problems.push(`console: ${m.text()}`);
  });
  await page.goto(env.server.url + query);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 60_000 });
  return page;
}

export async function screenshot(page, name, { fullPage = false } = {}) {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage });
  return file;
}

/**
 * What sticks out of a `width`-pixel-wide screen: the page's own scroll
 * width, and every visible element whose box leaves [0, width] without an
 * ancestor that clips or scrolls it inside the screen (a wide listing that
 * scrolls sideways in its own box is fine; a toolbar pushed off-screen is
 * not). Resolves `{ scrollWidth, innerWidth, offenders: [description…] }`.
 */
export function horizontalOverflow(page, width) {
  return page.evaluate((W) => {
    const describe = (el) => {
      const r = el.getBoundingClientRect();
      const id = el.id ? `#${el.id}` : '';
      const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
      return `${el.tagName.toLowerCase()}${id}${cls} [${Math.round(r.left)}, ${Math.round(r.right)}]`;
    };
    const fits = (r) => r.left >= -1 && r.right <= W + 1;
    const offenders = [];
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || fits(r)) continue;
      if (!el.checkVisibility({ visibilityProperty: true })) continue;
      // Fine if some ancestor that clips (or scrolls) it lies inside the screen.
      let clipped = false;
      for (let a = el.parentElement; a && a !== document.body && !clipped; a = a.parentElement) {
        clipped = getComputedStyle(a).overflowX !== 'visible' && fits(a.getBoundingClientRect());
      }
      if (!clipped) offenders.push(describe(el));
    }
    return { scrollWidth: document.scrollingElement.scrollWidth, innerWidth, offenders: offenders.slice(0, 20) };
  }, width);
}

/** Waits for the current run to end; returns window.__pexeLastRun. */
export async function waitRun(page, timeout = 120_000) {
  await page.waitForFunction(() => window.__pexeLastRun?.done === true, null, { timeout, polling: 50 });
  return page.evaluate(() => {
    const r = window.__pexeLastRun;
    return {
      exitCode: r.exitCode,
      fault: r.fault,
      error: r.error ?? null,
      stdout: r.stdout,
      stderr: r.stderr,
      firstOutputMs: r.firstOutputMs,
      totalMs: r.totalMs,
      timings: r.timings,
    };
  });
}
