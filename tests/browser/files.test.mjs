// Pepper file systems in headless Chromium: the stores (OPFS, the
// IndexedDB fallback, memory served over a port) and the page's legacy
// HTML5 FileSystem API share one set of files with a plugin.
//
// The plugin is xsystem35 from the corpus, with a made-up game installed
// the way its install page did (a DRI archive whose scenario saves to slot
// 1 and quits, the generated xsystem35.gr, the font in fonts/, a save/
// directory): the page writes it through webkitRequestFileSystem
// (PERSISTENT), the plugin reads it through PPB_FileSystem/FileIO (nacl_io's
// html5fs, blocking calls from its pthread, in the host Worker) and writes
// its save there, the page reads the save back — and after a reload
// everything is still there.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { CORPUS, REPO, launch, skipReason, testNeeding } from './helpers.mjs';

const skip = skipReason({ corpus: true });
const SITE = '/corpus/ppapi/kichikuou_kichikuou_github_io/site/';
const TEST_PAGE = '/__files_test__/index.html';

/** The DRI archive (.ald) xsystem35's dri.c reads: one entry (see tests/pepper.rs). */
function aldArchive(name, payload) {
  const entry = Buffer.alloc(32 + payload.length);
  entry.writeUInt32LE(32, 0);
  entry.writeUInt32LE(payload.length, 4);
  entry.write(name, 8, 'latin1');
  payload.copy(entry, 32);
  const sectors = Math.ceil(entry.length / 256);
  const out = Buffer.alloc(512 + sectors * 256);
  const b3 = (at, v) => out.writeUIntLE(v, at, 3);
  b3(0, 1);
  b3(3, 2);
  b3(6, 2 + sectors);
  out.set([1, 1, 0], 256);
  entry.copy(out, 512);
  return out;
}

/** A scenario page that saves to slot 1 (`QD 1:`) and quits (`ZZ0 0:`). */
function testGame() {
  const sco = Buffer.alloc(32);
  sco.write('S350', 0, 'latin1');
  sco.writeUInt32LE(32, 4);
  const code = Buffer.from([...Buffer.from('QD'), 0x41, 0x7f, ...Buffer.from('ZZ'), 0, 0x40, 0x7f]);
  return aldArchive('test.sco', Buffer.concat([sco, code]));
}

/** Store operations and their errors, run in a page or a Worker: what they gave. */
const BATTERY = async (backend) => {
  // An absolute URL: a blob: Worker has no base for '/pkg/…'.
  const { pageStorage } = await import(new URL('/pkg/internal/pepper/storage/page.js', self.location.origin).href);
  const storage = pageStorage({ backend, persistentQuota: 64 });
  const s = await storage.get('persistent');
  const enc = (x) => new TextEncoder().encode(x);
  const dec = (b) => new TextDecoder().decode(b);
  const codeOf = (p) => p.then(() => 'ok', (e) => e.code);
  const out = { kind: s.kind };
  await s.mkdir('/a/b', { recursive: true });
  out.missingParent = await codeOf(s.mkdir('/x/y'));
  const h = await s.open('/a/f', { read: true, write: true, create: true });
  out.syncAccess = !!s.inner?.files?.get?.('/a/f')?.access;
  await s.write(h, 3, enc('hello'));
  out.read = [...(await s.read(h, 0, 100))];
  out.quota = await codeOf(s.write(h, 60, enc('past the quota')));
  await s.setLength(h, 70000 > 64 ? 10 : 0);
  out.size = (await s.fstat(h)).size;
  await s.rename('/a/f', '/a/b/g');
  await s.write(h, 0, enc('AB'));
  await s.close(h);
  const h2 = await s.open('/a/b/g', { read: true });
  out.afterRename = dec(await s.read(h2, 0, 2));
  await s.close(h2);
  out.list = await s.readdir('/a/b');
  out.notEmpty = await codeOf(s.remove('/a'));
  out.escape = await codeOf(s.stat('/../etc'));
  out.exists = await codeOf(s.open('/a/b/g', { write: true, create: true, exclusive: true }));
  out.notFile = await codeOf(s.open('/a', { read: true }));
  await s.copy('/a', '/c');
  out.copied = (await s.stat('/c/b/g')).size;
  out.usage = (await s.usageAndQuota()).usage;
  await s.remove('/a', { recursive: true });
  await s.remove('/c', { recursive: true });
  // Two opens of one file at once share it (a sync access handle is exclusive).
  const [r1, r2] = await Promise.all([s.open('/race', { read: true, write: true, create: true }), s.open('/race', { read: true, write: true, create: true })]);
  await s.write(r1, 0, enc('shared'));
  out.race = dec(await s.read(r2, 0, 10));
  await s.close(r1);
  await s.close(r2);
  await s.remove('/race');
  out.empty = await s.readdir('/');
  out.usageAfter = (await s.usageAndQuota()).usage;
  return out;
};

testNeeding(skip, 'Pepper file systems in the page', { timeout: 600_000 }, async (t) => {
  const env = await launch({ isolation: true });
  t.after(() => env.close());
  const wasm = path.join(REPO, 'target', 'tmp', 'files-test-xsystem35.wasm');
  fs.mkdirSync(path.dirname(wasm), { recursive: true });
  execFileSync(path.join(REPO, 'target', 'release', 'pexe'), ['translate', path.join(CORPUS, 'ppapi/kichikuou_kichikuou_github_io/xsystem35.pexe'), '-o', wasm]);
  const game = testGame();

  /** A blank cross-origin-isolated page of the server's origin, with the test's files routed in. */
  async function open(context) {
    const page = await context.newPage();
    page.problems = [];
    page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
    await page.route('**/__files_test__/**', (route) => {
      const url = new URL(route.request().url());
      const headers = {
        'Cross-Origin-Opener-Policy': 'same-origin',
        'Cross-Origin-Embedder-Policy': 'require-corp',
        'Cross-Origin-Resource-Policy': 'same-origin',
      };
      if (url.pathname.endsWith('/index.html')) return route.fulfill({ headers: { ...headers, 'Content-Type': 'text/html' }, body: '<!doctype html><title>files</title>' });
      if (url.pathname.endsWith('/xsystem35.wasm')) return route.fulfill({ headers: { ...headers, 'Content-Type': 'application/wasm' }, body: fs.readFileSync(wasm) });
      if (url.pathname.endsWith('/testsa.ald')) return route.fulfill({ headers: { ...headers, 'Content-Type': 'application/octet-stream' }, body: game });
      return route.fulfill({ status: 404, headers });
    });
    await page.goto(env.server.url.replace(/\/$/, '') + TEST_PAGE);
    assert.equal(await page.evaluate(() => crossOriginIsolated), true);
    return page;
  }

  for (const backend of ['opfs', 'idb', 'memory']) {
    await t.test(`the stores themselves (${backend})`, async () => {
      const context = await env.browser.newContext();
      const page = await open(context);
      // On the page's main thread (streams), and in a dedicated Worker (sync access handles).
      const result = await page.evaluate(`(${BATTERY})(${JSON.stringify(backend)})`);
      const inWorker = await page.evaluate(
        ({ src, backend }) =>
          new Promise((resolve) => {
            const script = `(${src})(self.name).then((r) => postMessage(r), (e) => postMessage({ error: String(e?.stack ?? e) }));`;
            const w = new Worker(URL.createObjectURL(new Blob([script], { type: 'text/javascript' })), { type: 'module', name: backend });
            w.onmessage = (e) => {
              resolve(e.data);
              w.terminate();
            };
            w.onerror = (e) => resolve({ error: e.message });
          }),
        { src: BATTERY.toString(), backend },
      );
      assert.equal(inWorker.error, undefined, inWorker.error);
      assert.equal(inWorker.syncAccess, backend === 'opfs', 'OPFS files in a Worker use sync access handles');
      assert.equal(result.syncAccess, false, 'not on the main thread');
      const { syncAccess: _a, ...mainResult } = result;
      const { syncAccess: _b, ...workerResult } = inWorker;
      assert.deepEqual(workerResult, mainResult, 'the same answers in a Worker');
      assert.equal(result.kind, backend === 'memory' ? 'memory' : backend);
      assert.equal(result.missingParent, 'NOT_FOUND');
      assert.deepEqual(result.read, [0, 0, 0, 104, 101, 108, 108, 111]);
      assert.equal(result.quota, 'QUOTA');
      assert.equal(result.size, 10);
      assert.equal(result.afterRename, 'AB', 'an open file follows its rename');
      assert.deepEqual(result.list, [{ name: 'g', type: 'file' }]);
      assert.equal(result.notEmpty, 'NOT_EMPTY');
      assert.equal(result.escape, 'INVALID_PATH');
      assert.equal(result.exists, 'EXISTS');
      assert.equal(result.notFile, 'NOT_A_FILE');
      assert.equal(result.copied, 10);
      assert.equal(result.usage, 20);
      assert.equal(result.race, 'shared');
      assert.deepEqual(result.empty, []);
      assert.equal(result.usageAfter, 0);
      assert.deepEqual(page.problems, []);
      await context.close();
    });
  }

  for (const backend of ['opfs', 'idb', 'memory']) {
    await t.test(`the page installs a game, the plugin plays it and saves, the page reads the save (${backend})`, async () => {
      const context = await env.browser.newContext();
      const page = await open(context);
      const installed = await page.evaluate(async ({ backend, site }) => {
        const { pageStorage } = await import('/pkg/internal/pepper/storage/page.js');
        const { installLegacyFileSystem } = await import('/pkg/internal/pepper/html5fs-page.js');
        window.__storage = pageStorage({ backend });
        // Chromium still has its own webkitRequestFileSystem, over a store the plugin cannot see: replaced.
        const hadNative = /\[native code\]/.test(String(window.webkitRequestFileSystem));
        installLegacyFileSystem(window, window.__storage);
        const replaced = !/\[native code\]/.test(String(window.webkitRequestFileSystem));
        const cb = (fn) => new Promise((ok, ko) => fn(ok, ko));
        // As install.html: ask for the quota, then write into the PERSISTENT file system.
        const granted = await cb((ok, ko) => navigator.webkitPersistentStorage.requestQuota(650 * 1024 * 1024, ok, ko));
        const fs = await cb((ok, ko) => webkitRequestFileSystem(PERSISTENT, 0, ok, ko));
        const write = async (dir, name, blob) => {
          const entry = await cb((ok, ko) => dir.getFile(name, { create: true }, ok, ko));
          const writer = await cb((ok, ko) => entry.createWriter(ok, ko));
          await new Promise((ok, ko) => {
            writer.onwriteend = () => (writer.error ? ko(writer.error) : ok());
            writer.write(blob);
          });
        };
        await write(fs.root, 'testsa.ald', await (await fetch('/__files_test__/testsa.ald')).blob());
        await write(fs.root, 'xsystem35.gr', new Blob(['ScenarioA gamedata/testsa.ald\nSaveA gamedata/save/testsa.asd\n']));
        const fonts = await cb((ok, ko) => fs.root.getDirectory('fonts', { create: true }, ok, ko));
        await write(fonts, 'MTLc3m.ttf', await (await fetch(`${site}xsystem35/fonts/MTLc3m.ttf`)).blob());
        await cb((ok, ko) => fs.root.getDirectory('save', { create: true }, ok, ko));
        const entries = await cb((ok, ko) => fs.root.createReader().readEntries(ok, ko));
        return { granted, names: entries.map((e) => e.name), backend: (await window.__storage.backendInfo()).backend, hadNative, replaced };
      }, { backend, site: SITE });
      assert.equal(installed.backend, backend);
      assert.equal(installed.replaced, true, `the page's API is ours (Chromium had its own: ${installed.hadNative})`);
      assert.ok(installed.granted > 2_000_000, `granted ${installed.granted}`);
      assert.deepEqual(installed.names, ['fonts', 'save', 'testsa.ald', 'xsystem35.gr']);

      // The plugin, in its host Worker, reads the game and saves.
      const run = await page.evaluate(async ({ site }) => {
        const { startPluginInPage } = await import('/pkg/internal/pepper/page.js');
        const module = await WebAssembly.compileStreaming(fetch('/__files_test__/xsystem35.wasm'));
        const messages = [];
        const output = [];
        const plugin = startPluginInPage(
          module,
          {
            storage: window.__storage,
            args: ['xsystem35'],
            attributes: [['src', 'xsystem35/xsystem35.nmf'], ['PS_VERBOSITY', '2'], ['ARG1', '-debuglv'], ['ARG2', '2']],
            view: { rect: { x: 0, y: 0, width: 640, height: 480 } },
            baseUrl: new URL(`${site}play.html`, location.href).href,
          },
          {
            postMessage: (v) => messages.push(v),
            output: (fd, chunk) => output.push(new TextDecoder().decode(chunk)),
            log: (level, source, text) => output.push(`[${level}] ${text}\n`),
          },
        );
        const deadline = Date.now() + 120_000;
        while (!messages.some((m) => m?.command === 'exit') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
        plugin.destroy();
        await plugin.exited;
        return { messages, output: output.join('') };
      }, { site: SITE });
      assert.deepEqual(
        run.messages.filter((m) => typeof m === 'object'),
        [{ command: 'set_window_size', width: 640, height: 480 }, { command: 'ready' }, { command: 'exit', code: 1 }],
        run.output,
      );
      assert.ok(!/not found|mount failed|ERROR/.test(run.output), run.output);

      // The page finds the plugin's save through its own API.
      const save = await page.evaluate(async () => {
        const cb = (fn) => new Promise((ok, ko) => fn(ok, ko));
        const fs = await cb((ok, ko) => webkitRequestFileSystem(PERSISTENT, 0, ok, ko));
        const entry = await cb((ok, ko) => fs.root.getFile('save/testsa.asd', {}, ok, ko));
        const file = await cb((ok, ko) => entry.file(ok, ko));
        const bytes = new Uint8Array(await file.arrayBuffer());
        return { size: file.size, head: new TextDecoder('latin1').decode(bytes.subarray(0, 18)) };
      });
      assert.equal(save.head, 'System3.5 SavaData');
      assert.ok(save.size > 1000, `${save.size} bytes`);

      if (backend !== 'memory') {
        // After a reload, a new page of the same origin sees the same files and the quota it was granted.
        await page.reload();
        const again = await page.evaluate(async (backend) => {
          const { pageStorage } = await import('/pkg/internal/pepper/storage/page.js');
          const { installLegacyFileSystem } = await import('/pkg/internal/pepper/html5fs-page.js');
          installLegacyFileSystem(window, pageStorage({ backend }));
          const cb = (fn) => new Promise((ok, ko) => fn(ok, ko));
          const fs = await cb((ok, ko) => webkitRequestFileSystem(PERSISTENT, 0, ok, ko));
          // As play.html: a `save` directory means the game is installed.
          const save = await cb((ok, ko) => fs.root.getDirectory('save', {}, ok, ko));
          const names = (await cb((ok, ko) => save.createReader().readEntries(ok, ko))).map((e) => e.name);
          const font = await cb((ok, ko) => fs.root.getFile('fonts/MTLc3m.ttf', {}, ok, ko));
          const md = await cb((ok, ko) => font.getMetadata(ok, ko));
          const [usage, quota] = await new Promise((ok, ko) => navigator.webkitPersistentStorage.queryUsageAndQuota((u, q) => ok([u, q]), ko));
          return { names, fontSize: md.size, usage, quota };
        }, backend);
        assert.deepEqual(again.names, ['testsa.asd']);
        assert.equal(again.fontSize, fs.statSync(path.join(CORPUS, 'ppapi/kichikuou_kichikuou_github_io/site/xsystem35/fonts/MTLc3m.ttf')).size);
        assert.ok(again.usage > again.fontSize, `usage ${again.usage}`);
        assert.equal(again.quota, installed.granted, 'the grant survives the reload');
      }
      assert.deepEqual(page.problems, []);
      await context.close();
    });
  }
});
