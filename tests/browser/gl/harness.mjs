// What the GL tests and the GL benchmark share: the corpus demos
// translated by the `pexe` CLI, a small server for the test page
// (tests/browser/gl/index.html) that serves the JavaScript sources as they
// are (/js/ → js/src), the translated demos (/demos/) and the corpus
// (/corpus/), cross-origin isolated like the dev server; running a demo in
// headless Chromium; and reading the surface's pixels back (a PNG decoder,
// so no image package is needed).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(HERE, '../../..');
export const CORPUS = path.resolve(REPO, '../shared/corpus');
export const ORYOL = path.join(CORPUS, 'ppapi/floooh_oryol-samples');
export const DEMOS_DIR = path.join(REPO, 'target', 'gl-demos');
export const PEXE = path.join(REPO, 'target', 'release', 'pexe');

/** The five Oryol samples of the corpus. */
export const ORYOL_DEMOS = ['Fractal', 'ImGuiDemo', 'KC85-3', 'BulletPhysicsBasic', 'StbVoxelDemo'];

/** Other GL plugins of the corpus: demo name → pexe in the corpus. */
export const OTHER_GL = {
  glbench: path.join(CORPUS, 'ppapi/nicolaslangley_glbench27-nacl/glb_nacl.pexe'),
  nsg: path.join(CORPUS, 'ppapi/woodjazz_nsg-library/nsg.pexe'),
};

/** Translates `pexe` to DEMOS_DIR/`name`.wasm unless it is up to date. */
export function translate(name, pexe) {
  fs.mkdirSync(DEMOS_DIR, { recursive: true });
  const out = path.join(DEMOS_DIR, `${name}.wasm`);
  const fresh = fs.existsSync(out) && fs.statSync(out).mtimeMs > Math.max(fs.statSync(pexe).mtimeMs, fs.statSync(PEXE).mtimeMs);
  if (!fresh) execFileSync(PEXE, ['translate', pexe, '-o', out], { stdio: 'inherit' });
  return out;
}

/** Translates the Oryol samples; returns their names. */
export function translateOryol() {
  for (const d of ORYOL_DEMOS) translate(d, path.join(ORYOL, `${d}.pexe`));
  return ORYOL_DEMOS;
}

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.png': 'image/png',
};

/** Serves the test page; resolves { url, close() }. */
export function startGlServer({ isolation = true } = {}) {
  const mounts = [
    ['/js/', path.join(REPO, 'js', 'src')],
    ['/demos/', DEMOS_DIR],
    ['/corpus/', CORPUS],
    ['/', HERE],
  ];
  const headers = {
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Cache-Control': 'no-cache',
    ...(isolation ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {}),
  };
  const server = http.createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    const [prefix, root] = mounts.find(([p]) => pathname.startsWith(p));
    let file = path.join(root, path.normalize(pathname.slice(prefix.length)));
    if (!file.startsWith(root)) file = root;
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    if (!fs.existsSync(file)) {
      res.writeHead(404, headers);
      res.end('not found');
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Type': MIME[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}/`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}

/**
 * Opens the test page in `browser` and starts demo `name`; resolves the
 * page once the plugin has loaded. Options: debug, profile, width, height,
 * loseContextAfterFrames.
 */
export async function openDemo(browser, url, name, options = {}) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') page.problems.push(`console: ${m.text()}`);
  });
  await page.goto(url);
  await page.waitForFunction(() => window.gl?.ready === true);
  await page.evaluate(([n, o]) => window.gl.start(n, o), [name, options]);
  await page.waitForFunction(() => window.gl.loaded || window.gl.loadFailed || window.gl.exited || window.gl.bugs.length, null, {
    timeout: 60_000,
  });
  return page;
}

/** The page's record of the run (window.gl without the plugin handle). */
export function state(page) {
  return page.evaluate(() => {
    const { logs, messages, appLog, missing, loaded, loadFailed, bugs, exited } = window.gl;
    return { logs, messages, appLog, missing, loaded, loadFailed, bugs, exited };
  });
}

/** A PNG screenshot of the plugin's box. */
export function shootBox(page) {
  return page.locator('#box').screenshot();
}

/** Decodes an 8-bit RGB or RGBA, non-interlaced PNG: { width, height, data: RGBA bytes }. */
export function decodePng(buf) {
  let pos = 8;
  let width = 0;
  let height = 0;
  let colorType = 0;
  const idat = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos);
    const type = buf.toString('ascii', pos + 4, pos + 8);
    const body = buf.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      if (body[8] !== 8 || body[12] !== 0) throw new Error('decodePng: only 8-bit, non-interlaced PNGs');
      colorType = body[9];
    } else if (type === 'IDAT') {
      idat.push(body);
    }
    pos += 12 + len;
  }
  const channels = colorType === 6 ? 4 : colorType === 2 ? 3 : 0;
  if (!channels) throw new Error(`decodePng: colour type ${colorType}`);
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const out = Buffer.alloc(width * height * 4);
  let prev = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? line[i - channels] : 0;
      const b = prev[i];
      const c = i >= channels ? prev[i - channels] : 0;
      let v = line[i];
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      line[i] = v & 255;
    }
    for (let x = 0; x < width; x++) {
      out[4 * (y * width + x)] = line[x * channels];
      out[4 * (y * width + x) + 1] = line[x * channels + 1];
      out[4 * (y * width + x) + 2] = line[x * channels + 2];
      out[4 * (y * width + x) + 3] = channels === 4 ? line[x * channels + 3] : 255;
    }
    prev = line;
  }
  return { width, height, data: out };
}

/**
 * Pixel statistics of an image (or of the rectangle `r` of it):
 * distinct colours (quantized to 4 bits per channel), the most common
 * colour and its share, the mean brightness, and the share of pixels that
 * differ from the background (the most common colour).
 */
export function pixelStats(img, r = { x: 0, y: 0, width: img.width, height: img.height }) {
  const counts = new Map();
  let sum = 0;
  let n = 0;
  for (let y = r.y; y < r.y + r.height; y++) {
    for (let x = r.x; x < r.x + r.width; x++) {
      const i = 4 * (y * img.width + x);
      const key = ((img.data[i] >> 4) << 8) | ((img.data[i + 1] >> 4) << 4) | (img.data[i + 2] >> 4);
      counts.set(key, (counts.get(key) ?? 0) + 1);
      sum += img.data[i] + img.data[i + 1] + img.data[i + 2];
      n++;
    }
  }
  let top = 0;
  let topKey = 0;
  for (const [k, c] of counts) if (c > top) [top, topKey] = [c, k];
  return {
    colors: counts.size,
    background: [(topKey >> 8) << 4, ((topKey >> 4) & 15) << 4, (topKey & 15) << 4],
    backgroundShare: top / n,
    foregroundShare: 1 - top / n,
    brightness: sum / (3 * n),
  };
}

/** The share of pixels that differ (by more than `tolerance` in a channel) between two images. */
export function diffShare(a, b, tolerance = 24) {
  if (a.width !== b.width || a.height !== b.height) return 1;
  let diff = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    if (
      Math.abs(a.data[i] - b.data[i]) > tolerance ||
      Math.abs(a.data[i + 1] - b.data[i + 1]) > tolerance ||
      Math.abs(a.data[i + 2] - b.data[i + 2]) > tolerance
    ) {
      diff++;
    }
  }
  return diff / (a.width * a.height);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 255] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Encodes an RGBA image as an 8-bit RGBA PNG. */
export function encodePng({ width, height, data }) {
  const chunk = (type, body) => {
    const out = Buffer.alloc(12 + body.length);
    out.writeUInt32BE(body.length, 0);
    out.write(type, 4, 'ascii');
    body.copy(out, 8);
    out.writeUInt32BE(crc32(out.subarray(4, 8 + body.length)), 8 + body.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  const raw = Buffer.alloc(height * (4 * width + 1));
  for (let y = 0; y < height; y++) Buffer.from(data.subarray(4 * width * y, 4 * width * (y + 1))).copy(raw, y * (4 * width + 1) + 1);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The image scaled down by `k` (averaging k × k blocks). */
export function downscale(img, k) {
  const width = Math.floor(img.width / k);
  const height = Math.floor(img.height / k);
  const data = Buffer.alloc(4 * width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < 4; c++) {
        let sum = 0;
        for (let dy = 0; dy < k; dy++) for (let dx = 0; dx < k; dx++) sum += img.data[4 * ((y * k + dy) * img.width + x * k + dx) + c];
        data[4 * (y * width + x) + c] = Math.round(sum / (k * k));
      }
    }
  }
  return { width, height, data };
}

/** The share of the pixels of rectangle `r` for which `pred(r, g, b)` holds. */
export function share(img, r, pred) {
  let n = 0;
  let total = 0;
  for (let y = r.y; y < r.y + r.height; y++) {
    for (let x = r.x; x < r.x + r.width; x++) {
      const i = 4 * (y * img.width + x);
      total++;
      if (pred(img.data[i], img.data[i + 1], img.data[i + 2])) n++;
    }
  }
  return n / total;
}

/** Pixels that differ (by more than `tolerance` in a channel) between two images of one size. */
export function changedPixels(a, b, tolerance = 16) {
  return Math.round(diffShare(a, b, tolerance) * a.width * a.height);
}

/**
 * Waits until a frame differs from `first` by at least `min` pixels, taking
 * a new picture with `shoot()` (decoded) every `step` ms for at most
 * `within` ms: { img, changed, after } (the last picture, its changed pixels
 * and the ms waited). Some samples move little on their own (ImGuiDemo only
 * redraws its frame-time text, which can stay the same for a while at a
 * steady frame rate), so one fixed interval is not enough under load.
 */
export async function waitForChange(page, shoot, first, { min = 20, step = 500, within = 8000 } = {}) {
  const start = Date.now();
  for (;;) {
    await page.waitForTimeout(step);
    const img = await shoot();
    const changed = changedPixels(first, img);
    const after = Date.now() - start;
    if (changed >= min || after >= within) return { img, changed, after };
  }
}

/**
 * Asserts that a sample's frames change: `changed` pixels differed from an
 * earlier frame to `img` (`after` ms later). A sample whose scene settles
 * gets the input a user would give it (`sample.interact`: a camera moved,
 * keys typed) and is looked at again.
 */
export async function assertFramesChange({ page, shoot, img, changed, after, sample, box }) {
  let moved = changed;
  if (changed < 20 && sample.interact) {
    await sample.interact(page, box);
    moved = (await waitForChange(page, shoot, img)).changed;
  }
  const how = moved === changed ? '' : `; ${moved} after input`;
  assert.ok(moved >= 20, `frames change (${changed} pixels in ${after} ms${how})`);
}

/**
 * The JS heap in use by the page and each of its Workers (bytes, after a
 * garbage collection), through the DevTools protocol: { page, workers }.
 */
export async function jsHeap(browser, page) {
  const ps = await page.context().newCDPSession(page);
  await ps.send('HeapProfiler.collectGarbage');
  await ps.send('Performance.enable');
  const metrics = (await ps.send('Performance.getMetrics')).metrics;
  const pageHeap = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
  await ps.detach();
  const bs = await browser.newBrowserCDPSession();
  let id = 0;
  const pending = new Map();
  bs.on('Target.receivedMessageFromTarget', (e) => {
    const m = JSON.parse(e.message);
    pending.get(m.id)?.(m);
  });
  const call = (sessionId, method, params = {}) =>
    new Promise((resolve) => {
      const i = ++id;
      pending.set(i, resolve);
      bs.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: i, method, params }) });
    });
  const workers = {};
  const { targetInfos } = await bs.send('Target.getTargets');
  for (const t of targetInfos.filter((x) => x.type === 'worker')) {
    const { sessionId } = await bs.send('Target.attachToTarget', { targetId: t.targetId, flatten: false });
    await call(sessionId, 'HeapProfiler.collectGarbage');
    const usage = (await call(sessionId, 'Runtime.getHeapUsage')).result;
    workers[t.url.slice(t.url.lastIndexOf('/') + 1)] = usage.usedSize + (usage.backingStorageSize ?? 0);
    await bs.send('Target.detachFromTarget', { sessionId });
  }
  await bs.detach();
  return { page: pageHeap, workers, total: pageHeap + Object.values(workers).reduce((a, b) => a + b, 0) };
}
