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

/**
 * Opens the page at `query` (e.g. '?sample=hello') in a laptop-sized
 * viewport and waits until it has loaded its first file. Page errors and
 * console errors are collected in `page.problems`.
 */
export async function openPage(env, query = '', { width = 1440, height = 900 } = {}) {
  const page = await env.browser.newPage({ viewport: { width, height }, deviceScaleFactor: 1 });
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') page.problems.push(`console: ${m.text()}`);
  });
  await page.goto(env.server.url + query);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 60_000 });
  return page;
}

export async function screenshot(page, name) {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
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
