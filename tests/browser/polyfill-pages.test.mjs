// The drop-in polyfill on the apps' original pages, in headless Chromium.
// Each corpus `site/` folder is served as it is (polyfill/site-server.mjs)
// with only the polyfill's tag added at serve time; the page's own
// scripts do the rest, and the tests read what the page itself shows
// (its log lines, its status fields) or drive its own functions and
// controls as a visitor would.
//
// - niklasf's Stockfish page (classic tag: its inline script posts `uci`
//   while the page is being parsed; the module tag is shown to fail
//   there): uci → uciok; Threads 2 + go depth 12 → bestmove with two
//   Workers busy (per-thread CPU time of the renderer, /proc); stop
//   during go infinite answered within 2 s; a second visit takes the
//   translation from the cache (no translator is even loaded);
// - exoticorn's Chrome app: window.html as it is (module tag) gets uciok
//   through its handler that reads the global `event`, then stops where
//   the page needs the Chrome Apps API (`chrome.system.cpu`); the search
//   runs on a test page beside it (chromefish-engine.html) that drives the
//   app's own engine-connector.js;
// - hello_tutorial (cptaffe), part2 (lpdevs), A* (Annonator), webpenc
//   (mcanthony): what their pages expect;
// - url_loader (shhnjk, no page of its own): a page embeds its .nmf, the
//   urlMap sends its hard-coded hosts to the test server, which sees the
//   two requests arrive;
// - a page that is not cross-origin isolated: Stockfish with Threads 1
//   plays (cooperative threads), and with cooperative threads turned off
//   the page shows lastError saying why; the service worker makes the
//   same page isolated after one reload.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium, testNeeding } from './helpers.mjs';
import { HERE, PPAPI, newPage, polyfillSkipReason, waitForLines, workerCpuSampler } from './polyfill/helpers.mjs';
import { PKG, serveSite } from './polyfill/site-server.mjs';

const missing = polyfillSkipReason();
const PAGES = path.join(HERE, 'pages');

/** The lines niklasf's page shows in #out (its own rendering of each message). */
const niklasfLines = (page) =>
  page.evaluate(() => [...document.querySelectorAll('#out > in, #out > out, #out > err')].map((e) => `${e.localName}: ${e.textContent}`));

/** Records every NaCl event the page's elements get (a capture listener: observation only). */
function recordEvents(page) {
  return page.addInitScript(() => {
    window.__naclEvents = [];
    for (const type of ['loadstart', 'progress', 'load', 'loadend', 'error', 'abort', 'crash', 'message']) {
      // On the document: an element's `load` never reaches window's listeners.
      document.addEventListener(
        type,
        (e) => {
          const t = e.target;
          if (t?.localName !== 'embed' && t?.localName !== 'object') return;
          window.__naclEvents.push({ type, at: performance.now(), data: type === 'message' ? e.data : undefined });
        },
        true,
      );
    }
  });
}

const events = (page) => page.evaluate(() => window.__naclEvents);

testNeeding(missing, 'polyfill: original pages', { timeout: 1_500_000 }, async (t) => {
  const browser = await launchChromium();
  try {
    await t.test('niklasf Stockfish (classic tag, isolated): uci, two threads searching, stop, the cache', async () => {
      const site = await serveSite({ root: path.join(PPAPI, 'niklasf_stockfish_pexe/site'), tag: 'classic' });
      const context = await browser.newContext();
      const page = await newPage(browser, { context });
      await recordEvents(page);
      try {
        const t0 = Date.now();
        await page.goto(site.url('/nacl/index.html'));
        let lines = await waitForLines(() => niklasfLines(page), (l) => l.includes('out: uciok'), { what: 'uciok' });
        const firstVisit = (await events(page)).find((e) => e.type === 'load').at;
        assert.deepEqual(lines[0], 'in: uci');
        assert.match(lines[1], /^out: Stockfish 170317/);
        assert.deepEqual(await page.evaluate(() => [stockfish.readyState, stockfish.lastError, stockfish.exitStatus, crossOriginIsolated]), [4, '', -1, true]);

        // Two search threads, through the page's own send().
        await page.evaluate(() => {
          send('setoption name Threads value 2');
          send('position startpos');
          send('go depth 12');
        });
        lines = await waitForLines(() => niklasfLines(page), (l) => l.some((x) => x.startsWith('out: bestmove')), { timeout: 180_000, what: 'bestmove' });
        console.log(`# RESULT stockfish Threads 2, go depth 12: ${lines.find((x) => x.startsWith('out: bestmove'))}`);
        assert.ok(lines.some((x) => /^out: info depth 12 /.test(x)), 'no depth-12 info line');

        // Both threads computing, watched in the renderer's Workers over a
        // few seconds of `go infinite` (a depth-12 search is too short a
        // window on a shared 2-core machine), then stop.
        const sampler = await workerCpuSampler(browser);
        await page.evaluate(() => send('go infinite'));
        await waitForLines(() => niklasfLines(page), (l) => l.filter((x) => x.startsWith('out: info depth')).length > 20, { what: 'infinite search output' });
        await page.waitForTimeout(Math.max(0, 3000 - sampler.busy(0).wall));
        const { busy, workers, wall } = sampler.busy(0);
        const [first, second] = workers;
        console.log(`# RESULT stockfish Threads 2, go infinite: Worker CPU ms: ${workers.map((w) => w.ms).join(', ')} in ${Math.round(wall)} ms`);
        // The second busiest Worker used at least 40% of the busiest's CPU
        // time (the machine may be shared, so not an absolute share of the
        // wall time), and a real amount of it.
        assert.ok(busy.length >= 2 && second.ms >= 300 && second.ms >= 0.4 * first.ms, `Workers: ${JSON.stringify(workers)}`);
        const before = (await niklasfLines(page)).filter((x) => x.startsWith('out: bestmove')).length;
        const stopAt = await page.evaluate(() => {
          send('stop');
          return performance.now();
        });
        await waitForLines(() => niklasfLines(page), (l) => l.filter((x) => x.startsWith('out: bestmove')).length > before, { timeout: 10_000, what: 'bestmove after stop' });
        const answered = (await events(page)).filter((e) => e.type === 'message' && String(e.data).startsWith('bestmove')).pop().at;
        console.log(`# RESULT stockfish stop answered in ${Math.round(answered - stopAt)} ms`);
        assert.ok(answered - stopAt < 2000, `stop took ${answered - stopAt} ms`);
        assert.deepEqual(page.problems, []);

        // A second visit: the translation comes from the cache (IndexedDB);
        // the translator is not even fetched.
        const firstRequests = site.requests.length;
        assert.ok(site.requests.some((r) => r.path.endsWith('/translate-worker.js')), 'the first visit translated');
        await page.goto(site.url('/nacl/index.html'));
        await waitForLines(() => niklasfLines(page), (l) => l.includes('out: uciok'), { what: 'uciok (second visit)' });
        const secondVisit = (await events(page)).find((e) => e.type === 'load').at;
        const again = site.requests.slice(firstRequests).map((r) => r.path);
        assert.ok(again.includes('/nacl/stockfish.pexe'), 'the pexe is read again (its hash is the key)');
        assert.ok(!again.some((p) => /translate-worker\.js|pexe_bg\.wasm/.test(p)), `the translator was loaded: ${again.join(' ')}`);
        console.log(`# SPEED polyfill stockfish time to load: first visit ${Math.round(firstVisit)} ms, cached ${Math.round(secondVisit)} ms (page start to the load event; ${Date.now() - t0} ms in all)`);
        assert.ok(secondVisit < firstVisit, `cached ${secondVisit} ms is not faster than ${firstVisit} ms`);
        assert.deepEqual(page.problems, []);
      } finally {
        await page.closeAll();
        await context.close();
        await site.close();
      }
    });

    await t.test('niklasf Stockfish with the module tag: too late for the page\'s inline script', async () => {
      const site = await serveSite({ root: path.join(PPAPI, 'niklasf_stockfish_pexe/site'), tag: 'module' });
      const page = await newPage(browser);
      try {
        await page.goto(site.url('/nacl/index.html'));
        await page.waitForFunction(() => stockfish.readyState === 4, null, { timeout: 120_000 });
        assert.ok(page.problems.some((p) => /stockfish\.postMessage is not a function/.test(p)), page.problems.join('\n'));
      } finally {
        await page.closeAll();
        await site.close();
      }
    });

    await t.test('exoticorn chromefish: window.html as it is (module tag) gets uciok through its window.event handler', async () => {
      const site = await serveSite({ root: path.join(PPAPI, 'exoticorn_chromefish/site'), tag: 'module' });
      const page = await newPage(browser);
      await recordEvents(page);
      try {
        await page.goto(site.url('/window.html'));
        await waitForLines(async () => (await events(page)).filter((e) => e.type === 'message').map((e) => e.data), (l) => l.includes('uciok'), {
          timeout: 120_000,
          what: 'uciok',
        });
        // The handler reads the legacy global `event`: without it, every
        // message would throw in the page. The one error is the page's own
        // call into the Chrome Apps API.
        assert.equal(page.problems.length, 1, page.problems.join('\n'));
        assert.match(page.problems[0], /^pageerror: Cannot read properties of undefined \(reading '(system|cpu)'\)$/);
      } finally {
        await page.closeAll();
        await site.close();
      }
    });

    await t.test('exoticorn chromefish: its engine connector, on a page beside it: two threads, stop', async () => {
      const site = await serveSite({
        root: path.join(PPAPI, 'exoticorn_chromefish/site'),
        tag: 'module',
        routes: { '/chromefish-engine.html': path.join(PAGES, 'chromefish-engine.html') },
      });
      const page = await newPage(browser);
      try {
        await page.goto(site.url('/chromefish-engine.html'));
        const lines = () => page.evaluate(() => window.engineLines ?? []);
        await waitForLines(lines, (l) => l.includes('uciok'), { timeout: 120_000, what: 'uciok' });
        await page.evaluate(() => {
          engine.send('setoption name Threads value 2');
          engine.send('position startpos');
          engine.send('go depth 12');
        });
        const l = await waitForLines(lines, (x) => x.some((y) => y.startsWith('bestmove')), { timeout: 180_000, what: 'bestmove' });
        console.log(`# RESULT chromefish Threads 2, go depth 12: ${l.find((y) => y.startsWith('bestmove'))}`);
        // Both threads computing, over a few seconds of `go infinite` (a
        // depth-12 search is too short a window on a shared 2-core machine).
        const sampler = await workerCpuSampler(browser);
        await page.evaluate(() => engine.send('go infinite'));
        await waitForLines(lines, (x) => x.filter((y) => y.startsWith('info depth')).length > 30, { what: 'infinite search output' });
        await page.waitForTimeout(Math.max(0, 3000 - sampler.busy(0).wall));
        const { workers, wall } = sampler.busy(0);
        console.log(`# RESULT chromefish Threads 2, go infinite: Worker CPU ms: ${workers.map((w) => w.ms).join(', ')} in ${Math.round(wall)} ms`);
        assert.ok(workers[1].ms >= 300 && workers[1].ms >= 0.4 * workers[0].ms, `Workers: ${JSON.stringify(workers)}`);
        const took = await page.evaluate(
          () =>
            new Promise((resolve) => {
              const t0 = performance.now();
              const seen = window.engineLines.length;
              const poll = () => {
                if (window.engineLines.slice(seen).some((y) => y.startsWith('bestmove'))) resolve(performance.now() - t0);
                else setTimeout(poll, 5);
              };
              engine.send('stop');
              poll();
            }),
        );
        console.log(`# RESULT chromefish stop answered in ${Math.round(took)} ms`);
        assert.ok(took < 2000, `stop took ${took} ms`);
        assert.deepEqual(page.problems, []);
      } finally {
        await page.closeAll();
        await site.close();
      }
    });

    await t.test('hello_tutorial (cptaffe): its greeting, then primes for a number typed in', async () => {
      const site = await serveSite({ root: path.join(PPAPI, 'cptaffe_pnacl-test/site'), tag: 'module' });
      const page = await newPage(browser);
      try {
        await page.goto(site.url('/index.html'));
        await page.waitForFunction(() => document.getElementById('statusField').textContent === 'success', null, { timeout: 120_000 });
        await page.waitForFunction(() => document.getElementById('message-log').textContent.includes('C++ program online.'));
        await page.fill('#input-box', '50');
        await page.click('button');
        const log = await page.waitForFunction(() => document.querySelectorAll('#message-log p').length >= 2 && document.querySelector('#message-log p:last-child').textContent, null, { timeout: 30_000 });
        const numbers = (await log.jsonValue()).split(', ').map(Number);
        // The module's prime counter is uninitialised (PAGES.md), so the
        // length varies; what it sends are the primes below 50, in order.
        const primes = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47];
        assert.ok(numbers.length >= 6, `${numbers}`);
        assert.deepEqual(numbers, primes.slice(0, numbers.length));
        assert.deepEqual(page.problems, []);
      } finally {
        await page.closeAll();
        await site.close();
      }
    });

    await t.test('part2 (lpdevs): the SDK page probes navigator.mimeTypes, loads, gets its echo', async () => {
      const site = await serveSite({ root: path.join(PPAPI, 'lpdevs_PNaCl-examples/site'), tag: 'module' });
      const page = await newPage(browser);
      try {
        await page.goto(site.url('/pepper_49/getting_started/part2/index.html'));
        await page.waitForFunction(() => document.getElementById('log').textContent !== '', null, { timeout: 120_000 });
        assert.deepEqual(await page.evaluate(() => [document.getElementById('statusField').textContent, document.getElementById('log').textContent]), [
          'RUNNING',
          'hello from NaCl',
        ]);
        assert.deepEqual(page.problems, []);
      } finally {
        await page.closeAll();
        await site.close();
      }
    });

    await t.test('A* (Annonator): "Send To Native" posts its graph, the route comes back to "Ergebnis"', async () => {
      const site = await serveSite({ root: path.join(PPAPI, 'Annonator_AStar-PNaCl/site'), tag: 'module' });
      const page = await newPage(browser);
      try {
        await page.goto(site.url('/index.html'));
        await page.waitForFunction(() => document.getElementById('star').readyState === 4, null, { timeout: 120_000 });
        await page.click('#sendToNative');
        const out = await page.waitForFunction(() => document.getElementById('output').textContent, null, { timeout: 30_000 });
        // The default graph's shortest route by straight-line distance (PAGES.md).
        assert.deepEqual(JSON.parse(await out.jsonValue()), { array: [0, 2, 4] });
        assert.deepEqual(page.problems, []);
      } finally {
        await page.closeAll();
        await site.close();
      }
    });

    await t.test('webpenc (mcanthony): "Click Me!" sends the 1920×1080 canvas, a WebP of it comes back as an <img>', async () => {
      const site = await serveSite({ root: path.join(PPAPI, 'mcanthony_webpenc-pnacl/site'), tag: 'module' });
      const page = await newPage(browser);
      try {
        await page.goto(site.url('/index.html'));
        await page.waitForFunction(() => document.getElementById('statusField').textContent === 'SUCCESS', null, { timeout: 120_000 });
        await page.click('#pingTest');
        await page.waitForFunction(() => document.querySelector('img[src^="data:image/webp"]')?.complete, null, { timeout: 120_000 });
        // Chromium decodes it: the canvas's size, the red square at the top left, transparent elsewhere.
        const img = await page.evaluate(() => {
          const im = document.querySelector('img[src^="data:image/webp"]');
          const c = document.createElement('canvas');
          c.width = im.naturalWidth;
          c.height = im.naturalHeight;
          const ctx = c.getContext('2d');
          ctx.drawImage(im, 0, 0);
          return { w: im.naturalWidth, h: im.naturalHeight, inside: [...ctx.getImageData(50, 50, 1, 1).data], outside: [...ctx.getImageData(500, 500, 1, 1).data] };
        });
        assert.deepEqual(img, { w: 1920, h: 1080, inside: [255, 0, 0, 255], outside: [0, 0, 0, 0] });
        assert.deepEqual(page.problems, []);
      } finally {
        await page.closeAll();
        await site.close();
      }
    });

    await t.test('url_loader (shhnjk): the urlMap sends its hard-coded hosts to the test server', async () => {
      const hits = [];
      const record = (body) => (req, res, headers) => {
        hits.push(req.url);
        res.writeHead(200, { ...headers, 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*' });
        res.end(body);
      };
      const dir = path.join(PPAPI, 'shhnjk_PNaCl_Leaker');
      const site = await serveSite({
        root: null,
        tag: null,
        routes: {
          '/leak.html': path.join(PAGES, 'url-loader.html'),
          '/url_loader.nmf': path.join(dir, 'url_loader.nmf'),
          '/url_loader.pexe': path.join(dir, 'url_loader.pexe'),
          '/test.shhnjk.com/secret.html': record('s3cr3t'),
          // The module reports every body it reads that is not "test";
          // answering "test" ends its loop.
          '/attack.shhnjk.com/': record('test'),
        },
      });
      const page = await newPage(browser);
      try {
        await page.goto(site.url('/leak.html'));
        await page.waitForFunction(() => window.loaded === true, null, { timeout: 120_000 });
        await waitForLines(async () => hits, (h) => h.length >= 2, { timeout: 30_000, what: 'the two requests' });
        await new Promise((r) => setTimeout(r, 500));
        assert.deepEqual(hits, ['/test.shhnjk.com/secret.html', '/attack.shhnjk.com/?leak=s3cr3t']);
        assert.deepEqual(page.problems, []);
      } finally {
        await page.closeAll();
        await site.close();
      }
    });

    await t.test('not isolated: Stockfish plays with Threads 1 (cooperative threads)', async () => {
      const site = await serveSite({ root: path.join(PPAPI, 'niklasf_stockfish_pexe/site'), tag: 'classic', isolation: false });
      const page = await newPage(browser);
      try {
        await page.goto(site.url('/nacl/index.html'));
        await waitForLines(() => niklasfLines(page), (l) => l.includes('out: uciok'), { timeout: 120_000, what: 'uciok' });
        assert.equal(await page.evaluate(() => crossOriginIsolated), false);
        await page.evaluate(() => {
          send('setoption name Threads value 1');
          send('position startpos');
          send('go depth 10');
        });
        const lines = await waitForLines(() => niklasfLines(page), (l) => l.some((x) => x.startsWith('out: bestmove')), { timeout: 180_000, what: 'bestmove' });
        console.log(`# RESULT stockfish not isolated, Threads 1: ${lines.find((x) => x.startsWith('out: bestmove'))}`);
        assert.deepEqual(page.problems, []);
      } finally {
        await page.closeAll();
        await site.close();
      }
    });

    await t.test('not isolated, cooperative threads off: the page shows lastError saying why', async () => {
      const site = await serveSite({
        root: path.join(PPAPI, 'niklasf_stockfish_pexe/site'),
        tag: 'classic',
        isolation: false,
        config: { cooperativeThreads: false },
      });
      const page = await newPage(browser);
      await recordEvents(page);
      try {
        await page.goto(site.url('/nacl/index.html'));
        // The page prints lastError in red on `error` (its own handler).
        const lines = await waitForLines(() => niklasfLines(page), (l) => l.some((x) => x.startsWith('err: ')), { timeout: 120_000, what: 'the error line' });
        const err = lines.find((x) => x.startsWith('err: '));
        assert.match(err, /^err: NaCl module load failed: the plugin needs a thread, and guest threads cannot run here: the page is not cross-origin isolated .*cooperative threads are turned off$/);
        assert.deepEqual((await events(page)).map((e) => e.type).filter((x) => x !== 'message' && x !== 'progress'), ['loadstart', 'error', 'loadend']);
        assert.equal(await page.evaluate(() => stockfish.readyState), 4);
      } finally {
        await page.closeAll();
        await site.close();
      }
    });

    await t.test('a static host: the service worker makes the page isolated after one reload', async () => {
      const site = await serveSite({
        root: path.join(PPAPI, 'niklasf_stockfish_pexe/site'),
        tag: 'classic',
        isolation: false,
        config: { serviceWorker: '/pexe-sw.js' },
        routes: { '/pexe-sw.js': path.join(PKG, 'pexe-sw.js') },
      });
      const context = await browser.newContext();
      const page = await newPage(browser, { context });
      try {
        await page.goto(site.url('/nacl/index.html'));
        // The polyfill registers the worker and reloads once it controls the page.
        const deadline = Date.now() + 60_000;
        let isolated = false;
        while (!isolated && Date.now() < deadline) {
          isolated = await page.evaluate(() => crossOriginIsolated).catch(() => false);
          if (!isolated) await new Promise((r) => setTimeout(r, 200));
        }
        assert.equal(isolated, true, 'the page never became cross-origin isolated');
        const navigations = site.requests.filter((r) => r.path === '/nacl/index.html').length;
        assert.equal(navigations, 2, 'exactly one reload');
        await waitForLines(() => niklasfLines(page), (l) => l.includes('out: uciok'), { timeout: 120_000, what: 'uciok' });
        await page.evaluate(() => {
          send('setoption name Threads value 2');
          send('position startpos');
          send('go depth 8');
        });
        await waitForLines(() => niklasfLines(page), (l) => l.some((x) => x.startsWith('out: bestmove')), { timeout: 120_000, what: 'bestmove' });
        assert.deepEqual(page.problems, []);
      } finally {
        await page.closeAll();
        await context.close();
        await site.close();
      }
    });
  } finally {
    await browser.close();
  }
});

// The test pages used above exist (a missing one would only show as a 404).
for (const f of ['chromefish-engine.html', 'url-loader.html']) assert.ok(fs.existsSync(path.join(PAGES, f)), f);
