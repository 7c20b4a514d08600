// The page as a static site (scripts/build-site.sh), served by a plain
// static server — no COOP/COEP, nothing but Content-Type and
// Content-Length, like GitHub Pages or `python3 -m http.server` — from a
// sub-folder (/site/), as project pages are. The site's service worker
// makes the page cross-origin isolated (one reload on the first visit, none
// on the next), so a threaded corpus program runs with its threads in
// Workers; the Plugin view runs the bundled Pepper sample and a corpus
// plugin there too. Where service workers are
// blocked, the page still works, with one guest thread, and says so.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM, CORPUS, REPO, screenshot, skipReason, testNeeding, waitRun } from './helpers.mjs';

const skip = skipReason({ corpus: true });
const THREAD = '../corpus/cli/binji_pnacl_c/test/res/thread.pexe';
const PART2 = '../corpus/ppapi/lpdevs_PNaCl-examples/part2.pexe';

const TYPES = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
};

/** A static file server with no special headers: `mounts` maps URL prefixes to folders. */
function plainServer(mounts) {
  const server = http.createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const mount = Object.keys(mounts).find((p) => pathname.startsWith(p));
    let file = mount && path.join(mounts[mount], path.normalize(pathname.slice(mount.length)));
    if (file && pathname.endsWith('/')) file = path.join(file, 'index.html');
    let stat = null;
    try {
      stat = fs.statSync(file);
    } catch {
      // 404 below
    }
    if (!stat?.isFile()) {
      if (stat?.isDirectory()) {
        res.writeHead(301, { Location: `${pathname}/` });
        return res.end();
      }
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      return res.end('not found\n');
    }
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'Content-Length': stat.size });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}/`,
        close: () => new Promise((done) => {
          server.closeAllConnections();
          server.close(() => done());
        }),
      }),
    );
  });
}

/** Opens `url` in a fresh page of `context`; resolves once the app is ready, with the documents it loaded counted. */
async function openSite(context, url) {
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') page.problems.push(`console: ${m.text()}`);
  });
  page.navigations = 0; // documents requested (history.replaceState is not one)
  page.on('request', (r) => {
    if (r.isNavigationRequest() && r.frame() === page.mainFrame()) page.navigations++;
  });
  page.workerUrls = [];
  page.on('worker', (w) => page.workerUrls.push(w.url()));
  await page.goto(url);
  await page.waitForFunction(() => document.body?.dataset.ready === 'true', null, { timeout: 60_000 });
  return page;
}

testNeeding(skip, 'static site: a plain static server, isolated through the service worker', { timeout: 300_000 }, async (t) => {
  const { chromium } = await import('playwright-core');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pexe-site-'));
  const site = path.join(tmp, 'site');
  execFileSync(path.join(REPO, 'scripts/build-site.sh'), ['--no-build', '--out', site], { stdio: 'inherit' });
  for (const f of ['index.html', 'isolation.js', 'isolation-sw.js', 'app.js', 'samples/index.json', 'pkg/index.js', 'pkg/internal/translator/wasm/pexe_bg.wasm']) {
    assert.ok(fs.existsSync(path.join(site, f)), `the site has ${f}`);
  }
  assert.ok(!fs.existsSync(path.join(site, 'server.mjs')) && !fs.existsSync(path.join(site, 'pkg/bin')), 'no dev server, no CLI');
  assert.match(fs.readFileSync(path.join(site, 'index.html'), 'utf8'), /<script src="isolation.js"><\/script>\s*<script type="module" src="app.js">/);

  const server = await plainServer({ '/site/': site, '/corpus/': CORPUS });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  t.after(async () => {
    await browser.close().catch(() => {});
    await server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  const home = `${server.url}site/`;

  // The server really sends no isolation headers.
  const head = await fetch(home);
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('cross-origin-opener-policy'), null);
  assert.equal(head.headers.get('cross-origin-embedder-policy'), null);

  await t.test('first visit: the service worker isolates the page (one reload); a threaded program runs with threads', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await openSite(context, home);
    assert.equal(page.navigations, 2, 'the page reloaded once, through the service worker');
    assert.equal(await page.evaluate(() => crossOriginIsolated), true);
    assert.match(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL), /\/site\/isolation-sw\.js$/);
    assert.match(await page.textContent('#iso-badge'), /isolated · threads/);

    // The bundled hello sample opened by default, from the site's samples/.
    assert.equal(await page.textContent('#file-name'), 'hello.pexe');
    await page.click('#run-btn');
    const hello = await waitRun(page);
    assert.equal(hello.exitCode, 0);
    assert.equal(hello.stdout, 'Hello from pexe!\n');

    // A pthreads program: its threads run in Workers on shared memory.
    await page.fill('#url-input', THREAD);
    await page.press('#url-input', 'Enter');
    await page.waitForFunction(() => window.pexeApp.fileName === 'thread.pexe' && window.pexeApp.summary);
    const before = page.workerUrls.length;
    await page.click('#run-btn');
    const run = await waitRun(page);
    assert.equal(run.error, null);
    assert.equal(run.exitCode, 0, run.fault ?? '');
    assert.equal(run.stdout, 'data = 10\nretval = 0x2a\n');
    assert.equal(await page.evaluate(() => window.__pexeLastRun.threads), true);
    const threadWorkers = page.workerUrls.slice(before).filter((u) => u.includes('/site/pkg/internal/runtime/threads/'));
    assert.ok(threadWorkers.length >= 2, `guest threads in Workers: ${JSON.stringify(page.workerUrls.slice(before))}`);
    await screenshot(page, 'site-thread-isolated');

    // The Plugin view, on the static site: the bundled Pepper sample, then a corpus plugin.
    await page.selectOption('#sample-select', 'pepper');
    await page.waitForFunction(() => window.pexeApp.fileName === 'pepper.pexe' && window.pexeApp.summary);
    assert.equal(await page.evaluate(() => window.pexeApp.mode), 'plugin');
    await page.click('#run-btn');
    await page.waitForFunction(() => window.__pexePlugin?.loaded === true, null, { timeout: 60_000 });
    await page.fill('#console-input', 'from a static host');
    await page.press('#console-input', 'Enter');
    await page.waitForFunction(() => window.__pexePlugin.messages.includes('from a static host'), null, { timeout: 30_000 });
    assert.deepEqual(await page.evaluate(() => window.__pexePlugin.messages), ['ready', 'from a static host']);
    await page.fill('#url-input', PART2);
    await page.press('#url-input', 'Enter');
    await page.waitForFunction(() => window.pexeApp.fileName === 'part2.pexe' && window.pexeApp.summary);
    await page.click('#run-btn');
    await page.waitForFunction(() => window.__pexePlugin?.name === 'part2.pexe' && window.__pexePlugin.loaded === true, null, { timeout: 60_000 });
    await page.fill('#console-input', 'hello');
    await page.press('#console-input', 'Enter');
    await page.waitForFunction(() => window.__pexePlugin.messages.includes('hello from NaCl'), null, { timeout: 30_000 });
    assert.deepEqual(page.problems, []);
    await page.close();

    // The next visit is isolated at once: no reload.
    const again = await openSite(context, `${home}?sample=echo`);
    assert.equal(again.navigations, 1, 'no reload on the second visit');
    assert.equal(await again.evaluate(() => crossOriginIsolated), true);
    assert.deepEqual(again.problems, []);
    await context.close();
  });

  await t.test('service workers blocked: the page works with one guest thread and says so', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, serviceWorkers: 'block' });
    const page = await openSite(context, home);
    assert.equal(page.navigations, 1, 'no reload loop');
    assert.equal(await page.evaluate(() => crossOriginIsolated), false);
    assert.match(await page.textContent('#iso-badge'), /not isolated/);
    await page.click('#run-btn');
    const run = await waitRun(page);
    assert.equal(run.exitCode, 0);
    assert.equal(run.stdout, 'Hello from pexe!\n');
    assert.deepEqual(page.problems, []);
    await context.close();
  });
});
