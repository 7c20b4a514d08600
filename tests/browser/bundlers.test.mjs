// The package as people consume it: its `npm pack` tarball installed into
// small apps that Vite 5 and webpack 5 build (bundlers/vite.mjs,
// bundlers/webpack.mjs: the configuration a user would write, no Node
// stubs), each build served cross-origin isolated and opened in headless
// Chromium. Guest threads only run if the bundler found and emitted the
// runtime's Worker script, the translator only loads if it emitted the
// WebAssembly, and webpack fails the build on any `node:` import the
// browser entry reaches (Vite, which would stub it, fails through vite.mjs).
//
// Cases are folders of bundlers/cases/: index.html + main.js (the app,
// importing 'pexe') and case.mjs exporting `files({ corpus })` (what the
// server adds to the build: URL path → file, or URL prefix ending in '/' →
// folder) and `check(page, { corpus })` (asserts; returns a line to print).
// Every case is built with every bundler.
//
// Needs npm and the npm registry (the bundlers, pinned in
// bundlers/package-lock.json, are installed with the tarball into a
// temporary folder), pkg/ (scripts/build-pkg.sh), the corpus, Chromium and
// playwright-core. Why these two bundlers: Vite (Rollup in production) and
// webpack are what most apps are built with, and they find Workers and
// assets in different ways; a third would go in BUNDLERS with a builder
// script beside vite.mjs. (`vite dev`, which needs `optimizeDeps.exclude`,
// is documented in js/README.md, not tested here.)

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { CHROMIUM, CORPUS, REPO, hasPlaywright, launchChromium, testNeeding } from './helpers.mjs';

const HERE = path.join(REPO, 'tests', 'browser', 'bundlers');
const PKG = path.join(REPO, 'pkg');
const BUNDLERS = ['vite', 'webpack'];
const CASES = fs.readdirSync(path.join(HERE, 'cases')).sort();

const npmWorks = () => spawnSync('npm', ['--version'], { encoding: 'utf8' }).status === 0;
const missing = !hasPlaywright()
  ? 'playwright-core is not installed (npm ci in tests/browser)'
  : !fs.existsSync(CHROMIUM)
    ? `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM)`
    : !fs.existsSync(path.join(PKG, 'package.json'))
      ? 'pkg/ is not built (scripts/build-pkg.sh)'
      : !fs.existsSync(CORPUS)
        ? `no corpus at ${CORPUS}`
        : !npmWorks()
          ? 'npm is not installed'
          : false;

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.pexe': 'application/x-pnacl',
};

/**
 * Serves `dir` and `extra` (URL path → file, or URL prefix ending in '/' →
 * folder) with the headers of a cross-origin isolated site.
 */
function serve(dir, extra) {
  const server = http.createServer((req, res) => {
    const headers = {
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cross-Origin-Resource-Policy': 'same-origin',
    };
    const { pathname } = new URL(req.url, 'http://localhost');
    let file = extra[pathname];
    let root = dir;
    // A key ending in '/' serves a folder under that prefix.
    const prefix = file ? null : Object.keys(extra).find((k) => k.endsWith('/') && pathname.startsWith(k));
    if (prefix) root = extra[prefix];
    file ??= path.join(root, path.normalize((prefix ? pathname.slice(prefix.length - 1) : pathname).replace(/\/$/, '/index.html')));
    if (!extra[pathname] && !file.startsWith(root + path.sep)) {
      res.writeHead(403, headers);
      return res.end();
    }
    if (!fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, headers);
      return res.end();
    }
    res.writeHead(200, { ...headers, 'Content-Type': MIME[path.extname(file)] ?? 'application/octet-stream' });
    res.end(fs.readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function sh(cmd, args, cwd) {
  const env = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} (in ${cwd}) failed:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

testNeeding(missing, 'the package through bundlers: built from its tarball, run in Chromium', { timeout: 900_000 }, async (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pexe-bundlers-'));
  const browser = await launchChromium();
  try {
    // The tarball, as `npm publish` would upload it, and the bundlers.
    const tarball = path.join(tmp, JSON.parse(sh('npm', ['pack', '--json', '--pack-destination', tmp, PKG], REPO))[0].filename);
    const tools = path.join(tmp, 'tools');
    fs.mkdirSync(tools);
    for (const f of ['package.json', 'package-lock.json', 'vite.mjs', 'webpack.mjs']) fs.copyFileSync(path.join(HERE, f), path.join(tools, f));
    // The lock pins the bundlers; `npm install` rather than `npm ci`, whose
    // check fails on the platform-specific optional packages (rollup's,
    // esbuild's) that npm leaves out of a lock written on Linux.
    sh('npm', ['install', '--no-save', '--no-audit', '--no-fund', tarball], tools);

    for (const name of CASES) {
      const spec = await import(path.join(HERE, 'cases', name, 'case.mjs'));
      const app = path.join(tools, 'apps', name);
      fs.cpSync(path.join(HERE, 'cases', name), app, { recursive: true });
      for (const bundler of BUNDLERS) {
        await t.test(`${bundler}: ${name}`, async () => {
          const out = path.join(tools, 'dist', `${bundler}-${name}`);
          const log = sh(process.execPath, [path.join(tools, `${bundler}.mjs`), app, out], tools);
          const emitted = fs.readdirSync(out, { recursive: true }).filter((f) => /\.(js|wasm)$/.test(f)).sort();
          console.log(`# BUNDLE ${bundler} ${name}: ${emitted.join(' ')}`);
          const server = await serve(out, spec.files({ corpus: CORPUS }));
          const page = await browser.newPage();
          const problems = [];
          page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
          page.on('response', (r) => {
            if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) problems.push(`${r.status()} ${r.url()}`);
          });
          try {
            await page.goto(`http://127.0.0.1:${server.address().port}/`);
            const line = await spec.check(page, { corpus: CORPUS });
            assert.deepEqual(problems, []);
            console.log(`# RESULT ${bundler} ${name}: ${line}`);
          } catch (e) {
            e.message += `\n(build log:\n${log})`;
            throw e;
          } finally {
            await page.close();
            server.close();
          }
        });
      }
    }
  } finally {
    await browser.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
