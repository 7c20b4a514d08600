// The page's Workers under the polyfill, in headless Chromium: the
// synchronous legacy FileSystem API (webkitRequestFileSystemSync) over the
// page's store, which the page's own asynchronous API and the plugins see,
// and the Worker's script URL kept as its base (polyfill/worker-prelude.js).
//
// The test page (polyfill/pages/workers/) starts a classic or a module
// Worker by a relative URL with a query and a fragment; the Workers'
// scenarios (scenarios.js) report what they saw. The polyfill's tag is
// added at serve time, as for the corpus pages.

import assert from 'node:assert/strict';
import path from 'node:path';
import { launchChromium, testNeeding } from './helpers.mjs';
import { HERE, newPage, polyfillSkipReason } from './polyfill/helpers.mjs';
import { serveSite } from './polyfill/site-server.mjs';

const missing = polyfillSkipReason();
const ROOT = path.join(HERE, 'pages', 'workers');

/** The page's own asynchronous API: the PERSISTENT file system's tree (path → size, or 'dir'). */
const pageTree = (page) =>
  page.evaluate(async () => {
    const cb = (fn) => new Promise((ok, ko) => fn(ok, ko));
    const fs = await cb((ok, ko) => webkitRequestFileSystem(PERSISTENT, 0, ok, ko));
    const out = {};
    const walk = async (dir) => {
      for (const e of await cb((ok, ko) => dir.createReader().readEntries(ok, ko))) {
        if (e.isDirectory) {
          out[e.fullPath] = 'dir';
          await walk(e);
        } else out[e.fullPath] = (await cb((ok, ko) => e.getMetadata(ok, ko))).size;
      }
    };
    await walk(fs.root);
    return out;
  });

testNeeding(missing, 'polyfill: the page\u2019s Workers', { timeout: 600_000 }, async (t) => {
  const browser = await launchChromium();
  try {
    await t.test('isolated: both kinds of Worker keep their base URL and share the page\u2019s file system', async () => {
      const site = await serveSite({ root: ROOT, tag: 'classic' });
      const page = await newPage(browser);
      try {
        await page.goto(site.url('/index.html'));
        assert.equal(await page.evaluate(() => crossOriginIsolated), true);
        for (const kind of ['classic', 'module']) {
          const { result, error } = await page.evaluate((k) => run(k, 'whereAmI'), kind);
          assert.equal(error, undefined, error);
          const script = kind === 'module' ? 'sync-module.mjs' : 'sync-classic.js';
          assert.deepEqual(result, {
            href: site.url(`/${script}?q=1#h`),
            search: '?q=1',
            hash: '#h',
            pathname: `/${script}`,
            string: site.url(`/${script}?q=1#h`),
            fetched: 'data beside the worker\n',
            request: site.url('/data.txt'),
            xhr: 'data beside the worker\n',
            lib: kind === 'module' ? null : 'lib.js',
            name: kind === 'module' ? 'mod' : 'classic',
          });
        }
        // The page's own Worker was started through a blob: script; its requests show the same URLs.
        const paths = site.requests.map((r) => r.path);
        for (const p of ['/sync-classic.js', '/sync-module.mjs', '/lib.js', '/scenarios.js', '/data.txt', '/pexe/internal/polyfill/worker-prelude.js'])
          assert.ok(paths.includes(p), `${p} was not requested: ${paths.join(' ')}`);

        // Chrome gave a page no PERSISTENT quota until it asked (the Worker's writes fail until then).
        assert.equal(
          (await page.evaluate(() => run('classic', 'install'))).error.split('\n')[0],
          'QuotaExceededError: The operation failed because it would cause the application to exceed its storage quota.',
        );
        assert.ok((await page.evaluate(() => quota(650 * 1024 * 1024))) >= 100 << 20);
        for (const kind of ['classic', 'module']) {
          const { result, error } = await page.evaluate((k) => run(k, 'install'), kind);
          assert.equal(error, undefined, error);
          assert.equal(result.name, `${site.origin.replace(/[:/.]+/g, '_')}:Persistent`);
          assert.deepEqual(result.list, ['/fonts', '/game.ald', '/save']);
          assert.equal(result.size, 10 + (3 << 20));
          assert.deepEqual(result.writer, [10 + (3 << 20), 10 + (3 << 20)]);
          assert.deepEqual(result.file, ['game.ald', 10 + (3 << 20), '0123456789AA']);
          assert.equal(result.url, `filesystem:${site.origin}/persistent/game.ald`);
          assert.deepEqual(result.errors, {
            missing: 'NotFoundError: A requested file or directory could not be found at the time an operation was processed.',
            mismatch: 'TypeMismatchError',
          });
          assert.equal(result.isFileEntrySync, true);
          // What the Worker wrote, the page's own asynchronous API sees.
          assert.deepEqual(await pageTree(page), { '/fonts': 'dir', '/fonts/font.ttf': 4, '/game.ald': 10 + (3 << 20), '/save': 'dir' });
        }

        // Throughput of the bridge: 64 MiB in 1 MiB Blobs, then file().
        const mb = 64;
        const { result, error } = await page.evaluate((n) => run('classic', 'throughput', { mb: n }), mb);
        assert.equal(error, undefined, error);
        assert.equal(result.size, mb << 20);
        assert.deepEqual(result.last, [7, 7, 7, 7]);
        const backend = await page.evaluate(async () => (await window[Symbol.for('pexe.pageStorage')].backendInfo()).backend);
        console.log(
          `# RESULT sync bridge (${backend}): FileWriterSync.write ${mb} MiB in 1 MiB Blobs at ${(mb / (result.writeMs / 1000)).toFixed(1)} MiB/s; file() at ${(mb / (result.readMs / 1000)).toFixed(1)} MiB/s`,
        );
        assert.deepEqual(page.problems, []);
      } finally {
        await page.closeAll();
        await site.close();
      }
    });

    await t.test('not isolated: the Worker\u2019s calls throw NotSupportedError saying why', async () => {
      const site = await serveSite({ root: ROOT, tag: 'classic', isolation: false });
      const page = await newPage(browser);
      try {
        await page.goto(site.url('/index.html'));
        assert.equal(await page.evaluate(() => crossOriginIsolated), false);
        const { result, error } = await page.evaluate(() => run('classic', 'notIsolated'));
        assert.equal(error, undefined, error);
        assert.match(result, /^NotSupportedError: webkitRequestFileSystemSync: .* not cross-origin isolated\. Serve it with "Cross-Origin-Opener-Policy: same-origin"/);
        // The Worker said it once in the console as well (an error the test
        // expects). A Worker's console message reaches the test through the
        // DevTools protocol on its own, and may come after the result.
        const said = () => page.problems.some((p) => /not cross-origin isolated/.test(p));
        for (const deadline = Date.now() + 5000; !said() && Date.now() < deadline; ) {
          await new Promise((r) => setTimeout(r, 50));
        }
        assert.ok(
          page.problems.some((p) => /not cross-origin isolated/.test(p)),
          page.problems.join('\n'),
        );
      } finally {
        await page.closeAll();
        await site.close();
      }
    });
  } finally {
    await browser.close();
  }
});
