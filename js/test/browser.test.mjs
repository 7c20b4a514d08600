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
import { portableCases } from './helpers/cases.mjs';
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
window.isolated = crossOriginIsolated;
window.ready = true;
</script>`;

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
