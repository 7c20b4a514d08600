// Corpus Pepper apps driven through the package's public API as their
// pages drove them, with JS values: `run(pexe, { messages, onMessage,
// fetch, baseUrl })` translates the pexe and runs the plugin headless.
//
// - webpenc (mcanthony_webpenc-pnacl): the page posts a dictionary
//   `{ rgba: ArrayBuffer, id, width, height, quality: 'lossless' }` and
//   shows the `{ id, data: ArrayBuffer }` reply as a WebP image; Debian's
//   `dwebp` (package webp) decodes what comes back, which must be the
//   same size and, lossless, the same pixels.
// - url_loader (shhnjk_PNaCl_Leaker): GETs https://test.shhnjk.com/secret.html
//   and sends the body to https://attack.shhnjk.com/?leak=<body> until a
//   body is "test"; the fetch hook sends both hosts to a server on
//   127.0.0.1, which records what it was asked.
// - the project's own TCP plugin (samples/tcp.records): a port in, "ping"
//   back from an echo server through a socket relay (the package's
//   internal/node/relay.mjs), Chrome's error codes otherwise.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as http from 'node:http';
import * as net from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { corpusFile, native, pexe, pkgDir, repo } from './helpers.mjs';

const DWEBP = spawnSync('dwebp', ['-version']).status === 0 ? 'dwebp' : null;
const needDwebp = DWEBP ? false : 'dwebp is not installed (apt-get install webp; scripts/setup.sh does it)';

/** `test`, failing in CI (CI=true) and skipping elsewhere when `missing` says why it cannot run. */
function testNeeding(missing, name, fn) {
  if (missing && process.env.CI === 'true') return test(name, () => assert.fail(`cannot run: ${missing}`));
  return test(name, { skip: missing || false }, fn);
}

/** The page's picture: a red square (100×100 at 10,10) on transparent. */
function picture(width, height) {
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 10; y < Math.min(110, height); y++) {
    for (let x = 10; x < Math.min(110, width); x++) rgba.set([255, 0, 0, 255], (y * width + x) * 4);
  }
  return rgba;
}

/**
 * Runs webpenc with `request` as its one message: the messages end once
 * the reply came, so the run ends soon after. Resolves the replies.
 */
async function encode(request) {
  const replies = [];
  let replied;
  const answered = new Promise((resolve) => (replied = resolve));
  async function* messages() {
    yield request;
    await answered;
  }
  const result = await pexe.run(corpusFile('ppapi/mcanthony_webpenc-pnacl/webpenc.pexe'), {
    messages: messages(),
    onMessage(value) {
      replies.push(value);
      replied();
    },
    idleTimeout: 300,
    stdout: null,
    stderr: null,
  });
  assert.equal(result.exitCode, 0, JSON.stringify(result));
  return replies;
}

/** dwebp's decoding of `webp` as PAM: `{ width, height, rgba }`. */
function decode(webp) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pexe-webp-'));
  try {
    writeFileSync(path.join(dir, 'in.webp'), webp);
    const r = spawnSync(DWEBP, ['-pam', path.join(dir, 'in.webp'), '-o', path.join(dir, 'out.pam')], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const pam = readFileSync(path.join(dir, 'out.pam'));
    const end = pam.indexOf('ENDHDR\n') + 'ENDHDR\n'.length;
    const header = pam.subarray(0, end).toString();
    const field = (k) => Number(new RegExp(`^${k} (\\d+)$`, 'm').exec(header)[1]);
    assert.equal(field('DEPTH'), 4, header);
    return { width: field('WIDTH'), height: field('HEIGHT'), rgba: new Uint8Array(pam.subarray(end)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Pixels that differ (RGB of fully transparent pixels aside, which WebP need not keep). */
function differences(a, b) {
  let n = 0;
  for (let i = 0; i < a.length; i += 4) {
    if (a[i + 3] !== b[i + 3]) n++;
    else if (a[i + 3] !== 0 && (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2])) n++;
  }
  return n;
}

for (const [width, height] of [
  [300, 200],
  [1920, 1080], // the page's own canvas
]) {
  testNeeding(needDwebp, `webpenc encodes a ${width}×${height} picture posted as a dictionary; dwebp decodes the same pixels`, async () => {
    const rgba = picture(width, height);
    const replies = await encode({ rgba: rgba.buffer, id: 7, width, height, quality: 'lossless' });
    assert.equal(replies.length, 1, JSON.stringify(replies));
    const [reply] = replies;
    assert.equal(reply.id, 7);
    assert.ok(reply.data instanceof ArrayBuffer, `data is ${Object.prototype.toString.call(reply.data)}`);
    const webp = new Uint8Array(reply.data);
    assert.equal(new TextDecoder().decode(webp.subarray(0, 4)), 'RIFF');
    assert.equal(new TextDecoder().decode(webp.subarray(8, 12)), 'WEBP');
    const out = decode(webp);
    assert.deepEqual([out.width, out.height], [width, height]);
    assert.equal(differences(rgba, out.rgba), 0, 'lossless: every pixel as posted');
  });
}

test('webpenc answers a request whose pixels do not fill the picture with an error, not a crash', async () => {
  const replies = await encode({ rgba: new ArrayBuffer(16), id: 8, width: 100, height: 100, quality: 'lossless' });
  assert.equal(replies.length, 1, JSON.stringify(replies));
  assert.equal(typeof replies[0].Error, 'string', JSON.stringify(replies[0]));
});

test('url_loader: its two requests reach the local server through the fetch hook, with the leaked body', async () => {
  const seen = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' });
    // The secret, then "test", which ends the plugin's loop.
    res.end(req.url.startsWith('/test.shhnjk.com/') ? 'the secret' : 'test');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const local = `http://127.0.0.1:${server.address().port}`;
  const asked = [];
  const out = [];
  try {
    const result = await pexe.run(corpusFile('ppapi/shhnjk_PNaCl_Leaker/url_loader.pexe'), {
      baseUrl: 'https://victim.example/page.html',
      // Archived hosts: every https URL goes to the local server, host first.
      fetch(url, init) {
        asked.push({ url, credentials: init.credentials, mode: init.mode });
        const u = new URL(url);
        return fetch(`${local}/${u.host}${u.pathname}${u.search}`, init);
      },
      stdout: (chunk) => out.push(Buffer.from(chunk)),
      stderr: (chunk) => out.push(Buffer.from(chunk)),
      // Two fetches before each answer: room for a busy machine.
      idleTimeout: 4000,
    });
    assert.equal(result.exitCode, 0, JSON.stringify(result));
  } finally {
    server.close();
  }
  assert.deepEqual(seen, ['GET /test.shhnjk.com/secret.html', 'GET /attack.shhnjk.com/?leak=the%20secret']);
  // Both cross-origin, with credentials: the plugin asked for both (Chrome
  // refused cross-origin loads without ALLOWCROSSORIGINREQUESTS).
  assert.deepEqual(asked.map((a) => [a.mode, a.credentials]), [['cors', 'include'], ['cors', 'include']]);
  assert.equal(Buffer.concat(out).toString(), 'URLLoaderHandler::ReportResult(Ok).\n'.repeat(2));
});

test('the project\'s TCP sample plugin pings an echo server through a socket relay; without one it gets NOACCESS', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pexe-tcp-'));
  const file = path.join(dir, 'tcp.pexe');
  native(['as', path.join(repo, 'samples', 'tcp.records'), '-o', file]);
  const tcp = new Uint8Array(readFileSync(file));
  rmSync(dir, { recursive: true, force: true });
  const echo = net.createServer((s) => s.pipe(s));
  await new Promise((resolve) => echo.listen(0, '127.0.0.1', resolve));
  const { startRelay } = await import(path.join(pkgDir, 'internal', 'node', 'relay.mjs'));
  const relay = await startRelay({ allow: ['127.0.0.1:*'] });
  const talk = async (port, options) => {
    const got = [];
    const logs = [];
    const result = await pexe.run(tcp, { messages: [port], onMessage: (v) => got.push(v), onLog: (...a) => logs.push(a.join(' ')), idleTimeout: 2000, ...options });
    assert.equal(result.exitCode, 0, JSON.stringify(result));
    return { got, logs };
  };
  try {
    const port = echo.address().port;
    assert.deepEqual((await talk(port, {})).got, ['ready', -7], 'no network: PP_ERROR_NOACCESS');
    assert.deepEqual((await talk(port, { socketRelay: relay.url })).got, ['ready', 'ping']);
    const closed = net.createServer();
    await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = closed.address().port;
    await new Promise((resolve) => closed.close(resolve));
    assert.deepEqual((await talk(closedPort, { socketRelay: relay.url })).got, ['ready', -102], 'PP_ERROR_CONNECTION_REFUSED');
    // A relay that is not there: PP_ERROR_FAILED, and the log says so.
    const gone = await talk(port, { socketRelay: 'ws://127.0.0.1:1/' });
    assert.deepEqual(gone.got, ['ready', -2]);
    assert.ok(gone.logs.some((l) => l.includes('socket relay ws://127.0.0.1:1/: cannot connect')), gone.logs.join('\n'));
  } finally {
    await relay.close();
    echo.close();
  }
});
