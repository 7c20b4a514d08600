// The same guest programs as the Node tests (helpers/cases.mjs), run by the
// runtime inside headless Chromium: once from a cross-origin isolated page
// (guest threads in module Workers) and once from a page that is not
// (the one-thread fallback on the page's main thread).
//
// Needs `playwright-core` (js/package.json's devDependencies: `npm ci` in
// js/, which scripts/setup.sh runs) and Chromium (`CHROMIUM` or
// /usr/bin/chromium); skipped without them, and failed without them in CI.

import test from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import * as nodeFs from 'node:fs';
import * as nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { interleaved, interleavedText, portableCases } from './helpers/cases.mjs';
import { testNeeding } from './helpers/needs.mjs';

const JS_ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

let playwright = null;
try {
  playwright = await import('playwright-core');
} catch {
  // skipped below
}
const missing = !playwright
  ? 'playwright-core is not installed (npm ci in js/)'
  : !nodeFs.existsSync(CHROMIUM)
    ? `no Chromium at ${CHROMIUM} (set CHROMIUM)`
    : false;

const PAGE = `<!doctype html><meta charset="utf-8"><script type="module">
import { run as runOn } from '/src/internal/runtime/index.js';
import { browserHost } from '/src/internal/runtime/threads/platform.js';
const run = (wasm, options) => runOn(wasm, options, browserHost);
window.runCase = async (url, options) => {
  const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
  const out = [];
  try {
    const r = await run(bytes, { ...options, stdout: (c) => out.push(...c) });
    return { ...r, stdout: new TextDecoder().decode(new Uint8Array(out)) };
  } catch (e) {
    return { error: String(e?.stack ?? e) };
  }
};
// run()'s output ring: the guest runs in a Worker of the page (on its own
// thread, or with guest threads in further Workers), this page drains the
// ring once per frame, as the pexe page's runner does.
window.runWithRing = async (url, options, capacity) => {
  const { OutputRing } = await import('/src/public/output.js');
  const ring = new OutputRing(capacity);
  const dec = { 1: new TextDecoder(), 2: new TextDecoder() };
  const got = { 1: '', 2: '', both: '' };
  const take = () => ring.read((fd, bytes) => {
    const text = dec[fd].decode(bytes, { stream: true });
    got[fd] += text;
    got.both += text;
  });
  let running = true;
  (async () => {
    while (running) {
      if (!(await ring.wait(250)) || !running) continue;
      await new Promise((r) => requestAnimationFrame(r));
      take();
    }
  })();
  const w = new Worker('/ring-worker.js', { type: 'module' });
  const r = await new Promise((resolve) => {
    w.onmessage = (e) => resolve(e.data);
    w.onerror = (e) => resolve({ error: e.message });
    w.postMessage({ url, options, output: ring.buffer });
  });
  running = false;
  w.terminate();
  take();
  return { ...r, stdout: got[1], stderr: got[2], both: got.both };
};
window.isolated = crossOriginIsolated;
window.ready = true;
</script>`;

const RING_WORKER = `import { run as runOn } from '/src/internal/runtime/index.js';
import { browserHost } from '/src/internal/runtime/threads/platform.js';
onmessage = async (e) => {
  const { url, options, output } = e.data;
  try {
    const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
    postMessage(await runOn(bytes, { ...options, output }, browserHost));
  } catch (err) {
    postMessage({ error: String(err?.stack ?? err) });
  }
};`;

const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.html': 'text/html', '.wasm': 'application/wasm' };

/** Serves js/ at /, the page at /page.html and the cases at /case/N.wasm. */
function serve(cases, isolated) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    const headers = isolated
      ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' }
      : {};
    const send = (type, body) => {
      res.writeHead(200, { 'Content-Type': type, ...headers });
      res.end(body);
    };
    if (url.pathname === '/page.html') return send('text/html', PAGE);
    if (url.pathname === '/ring-worker.js') return send('text/javascript', RING_WORKER);
    const m = /^\/case\/(\d+)\.wasm$/.exec(url.pathname);
    if (m && cases[Number(m[1])]) return send('application/wasm', cases[Number(m[1])].wasm);
    const file = nodePath.join(JS_ROOT, nodePath.normalize(url.pathname));
    if (!file.startsWith(JS_ROOT) || !nodeFs.existsSync(file) || !nodeFs.statSync(file).isFile()) {
      res.writeHead(404);
      return res.end();
    }
    send(TYPES[nodePath.extname(file)] ?? 'application/octet-stream', nodeFs.readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

for (const isolated of [true, false]) {
  const where = isolated ? 'isolated page (Workers)' : 'page without isolation (one thread)';
  testNeeding(missing, `Chromium, ${where}: the shared cases`, { timeout: 300000 }, async () => {
    const cases = portableCases().filter((c) => isolated || !c.needsWorkers);
    const server = await serve(cases, isolated);
    const browser = await playwright.chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    try {
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${server.address().port}/page.html`);
      await page.waitForFunction(() => window.ready);
      assert.equal(await page.evaluate(() => window.isolated), isolated);
      for (const [i, c] of cases.entries()) {
        const r = await page.evaluate(([url, options]) => window.runCase(url, options), [`/case/${i}.wasm`, c.options]);
        assert.equal(r.error, undefined, `${c.name}: ${r.error}`);
        assert.equal(r.exitCode, c.expect.exitCode, c.name);
        if (c.expect.stdout !== undefined) assert.equal(r.stdout, c.expect.stdout, c.name);
        if (c.expect.fault !== undefined) assert.match(r.fault, new RegExp(c.expect.fault), c.name);
      }
    } finally {
      await browser.close();
      server.close();
    }
  });
}

testNeeding(missing, 'Chromium, isolated page: run() with an output ring that the page drains per frame', { timeout: 300000 }, async () => {
  const rounds = 3000;
  const cases = [{ wasm: interleaved(rounds) }, { wasm: interleaved(rounds, 'fault') }];
  const server = await serve(cases, true);
  const browser = await playwright.chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/page.html`);
    await page.waitForFunction(() => window.ready);
    const [out, err, both] = interleavedText(rounds);
    for (const threads of [false, true]) {
      // The default ring, and one of 64 bytes: the guest waits for the page every few writes.
      for (const capacity of [undefined, 64]) {
        const what = `threads ${threads}, ring ${capacity ?? 'default'}`;
        const ok = await page.evaluate(([o, c]) => window.runWithRing('/case/0.wasm', o, c), [{ threads }, capacity]);
        assert.equal(ok.error, undefined, `${what}: ${ok.error}`);
        assert.equal(ok.exitCode, 0, what);
        assert.ok(ok.both === both, `${what}: stdout and stderr in the order written, to the last byte`);
        assert.deepEqual([ok.stdout, ok.stderr], [out, err], what);
        const faulted = await page.evaluate(([o, c]) => window.runWithRing('/case/1.wasm', o, c), [{ threads }, capacity]);
        assert.equal(faulted.exitCode, 134, what);
        assert.match(faulted.fault, /unreachable/, what);
        assert.ok(faulted.both === both, `${what}: every byte written before the fault`);
      }
    }
  } finally {
    await browser.close();
    server.close();
  }
});

test('Node: the shared cases', { timeout: 120000 }, async () => {
  const { run } = await import('./helpers/runtime.mjs');
  for (const c of portableCases()) {
    const out = [];
    const r = await run(c.wasm, { ...c.options, stdout: (chunk) => out.push(chunk) });
    assert.equal(r.exitCode, c.expect.exitCode, c.name);
    if (c.expect.stdout !== undefined) assert.equal(Buffer.concat(out).toString(), c.expect.stdout, c.name);
    if (c.expect.fault !== undefined) assert.match(r.fault, new RegExp(c.expect.fault), c.name);
  }
});
