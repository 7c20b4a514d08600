// The Oryol samples on their own pages (floooh_oryol-samples/site/pnacl/
// *.html, with ../pnacl.js), served as they were published with only the
// polyfill's tag added (polyfill/site-server.mjs), in headless Chromium:
// the page's own script grows the <embed> from 256×256 when the module asks
// ({"msg":"resize"}) and writes the module's log lines into its textarea.
// On each page the sample draws in the element as on the GL test page (the
// same per-sample checks and reference screenshots, gl/samples.mjs) and
// changes between frames; a drag on ImGuiDemo's element moves its window;
// the KC85/3 emulator boots to its HC-CAOS screen. NSG's page (quota
// request, then the embed; its texture over URLLoader) shows its spinning
// cube; GLBench 2.7's page loads it and it sets up, finds none of its
// (proprietary) data and ends.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { SCREENSHOTS, launchChromium, testNeeding } from './helpers.mjs';
import { assertFramesChange, changedPixels, decodePng, diffShare, downscale, share, waitForChange } from './gl/harness.mjs';
import { REFERENCES, SAMPLES, dragImGuiDebugWindow, settle } from './gl/samples.mjs';
import { PPAPI, newPage, polyfillSkipReason, waitForLines } from './polyfill/helpers.mjs';
import { serveSite } from './polyfill/site-server.mjs';

const missing = polyfillSkipReason();
const SITE = path.join(PPAPI, 'floooh_oryol-samples/site');

/** Opens `name`'s page and waits until its element is loaded and has grown to the sample's size. */
async function openSample(browser, site, name) {
  const page = await newPage(browser, { viewport: { width: 1280, height: 1000 } });
  await page.goto(site.url(`/pnacl/${name}.html`));
  const [w, h] = SAMPLES[name].size;
  await page.waitForFunction(
    ([w, h]) => {
      const e = document.getElementById('pnacl-module');
      return e.readyState === 4 && Number(e.width) === w && Number(e.height) === h;
    },
    [w, h],
    { timeout: 60_000 },
  );
  const element = page.locator('#pnacl-module');
  const shoot = async () => decodePng(await element.screenshot());
  return { page, element, shoot };
}

/** The element's state and the page's textarea (where pnacl.js writes the module's log). */
const pageState = (page) =>
  page.evaluate(() => {
    const e = document.getElementById('pnacl-module');
    return { readyState: e.readyState, lastError: e.lastError, output: document.getElementById('output').value };
  });

testNeeding(missing, 'Oryol samples on their own pages (polyfill)', { timeout: 600_000 }, async (t) => {
  const browser = await launchChromium();
  const site = await serveSite({ root: SITE, tag: 'classic' });
  t.after(async () => {
    await site.close();
    await browser.close();
  });

  for (const [name, sample] of Object.entries(SAMPLES)) {
    await t.test(`${name}.html: the sample draws in its element`, async (tt) => {
      const { page, element, shoot } = await openSample(browser, site, name);
      tt.after(() => page.closeAll());
      const first = await settle(page, shoot, name);
      const { img, changed, after } = await waitForChange(page, shoot, first);
      fs.mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SCREENSHOTS, `gl-page-${name}.png`) });
      assert.deepEqual([img.width, img.height], sample.size, 'the element has the size the sample asked for');
      sample.check(img);
      await assertFramesChange({ page, shoot, img, changed, after, sample, box: await element.boundingBox() });
      const d = diffShare(decodePng(fs.readFileSync(path.join(REFERENCES, `${name}.png`))), downscale(img, 4), 40);
      tt.diagnostic(`${name}: ${(100 * d).toFixed(1)}% of pixels differ from the reference; ${changed} changed in ${after} ms`);
      assert.ok(d <= sample.tolerance, `like the reference (${(100 * d).toFixed(1)}% differ, ${100 * sample.tolerance}% allowed)`);
      const st = await pageState(page);
      assert.equal(st.lastError, '');
      assert.match(st.output, /GL_VERSION: OpenGL ES 2\.0 Chromium/, 'the module’s log lines, in the page’s textarea');
      assert.doesNotMatch(st.output, /PNACL ERROR|CRASHED/);
      assert.deepEqual(page.problems, []);
    });
  }

  await t.test('ImGuiDemo.html: a drag on the element moves the Debug window', async (tt) => {
    const { page, element, shoot } = await openSample(browser, site, 'ImGuiDemo');
    tt.after(() => page.closeAll());
    await page.waitForTimeout(3000);
    await dragImGuiDebugWindow(page, element, shoot);
    assert.deepEqual(page.problems, []);
  });

  await t.test('Fractal.html: its "fullscreen" link puts the embed in fullscreen, and the plugin draws there', async (tt) => {
    const { page } = await openSample(browser, site, 'Fractal');
    tt.after(() => page.closeAll());
    await page.waitForTimeout(2000);
    await page.click('text=fullscreen');
    await page.waitForFunction(() => document.fullscreenElement === document.getElementById('pnacl-module'), null, { timeout: 10_000 });
    // The fullscreen element fills the window (the page's own resize reads
    // document.webkitIsFullscreen, which Chrome never had); the module gets
    // the new view and draws at that size.
    await page.waitForFunction(() => {
      const box = document.querySelector('[data-pexe-surface]').getBoundingClientRect();
      return box.width === innerWidth && box.height === innerHeight;
    });
    const all = (img) => ({ x: 0, y: 0, width: img.width, height: img.height });
    const bands = {
      yellow: (r, g, b) => r > 200 && g > 200 && b < 80,
      cyan: (r, g, b) => r < 80 && g > 200 && b > 200,
      blue: (r, g, b) => r < 80 && g < 120 && b > 200,
      orange: (r, g, b) => r > 200 && g > 130 && g < 220 && b < 60,
    };
    const look = (img) => {
      const shares = Object.fromEntries(Object.entries(bands).map(([k, f]) => [k, share(img, all(img), f)]));
      const black = share(img, all(img), (r, g, b) => r < 16 && g < 16 && b < 16);
      // Its corners are the outer band, not the fullscreen backdrop.
      const at = 4 * (img.width * (img.height - 2) + img.width - 2);
      const corner = bands.orange(img.data[at], img.data[at + 1], img.data[at + 2]);
      return { shares, black, corner, ok: Object.values(shares).every((x) => x > 0.01) && black < 0.3 && corner };
    };
    // The sample renders at the new size over a few frames (SwiftShader: slower on a busy machine).
    let img = decodePng(await page.screenshot());
    for (let i = 0; i < 30 && !look(img).ok; i++) {
      await page.waitForTimeout(500);
      img = decodePng(await page.screenshot());
    }
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'gl-page-Fractal-fullscreen.png') });
    const seen = look(img);
    tt.diagnostic(`Fractal fullscreen: ${img.width}×${img.height}, ${JSON.stringify(seen.shares)}, black ${seen.black.toFixed(2)}`);
    assert.ok(seen.ok, `the fractal's bands over the whole screen (${JSON.stringify(seen)})`);
    await page.evaluate(() => document.exitFullscreen());
    await page.waitForFunction(() => document.fullscreenElement === null);
    assert.deepEqual(page.problems, []);
  });

  await t.test('KC85-3.html: the emulator boots to its HC-CAOS screen', async (tt) => {
    const { page, shoot } = await openSample(browser, site, 'KC85-3');
    tt.after(() => page.closeAll());
    const tv = { x: 300, y: 180, width: 190, height: 150 };
    let blue = 0;
    let white = 0;
    for (let i = 0; i < 60 && !(blue > 0.8 && white > 0.005); i++) {
      await page.waitForTimeout(1000);
      const img = await shoot();
      blue = share(img, tv, (r, g, b) => b > 120 && r < 40 && g < 40);
      white = share(img, tv, (r, g, b) => r > 180 && g > 180 && b > 180);
    }
    assert.ok(blue > 0.8 && white > 0.005, `the boot screen (blue ${blue.toFixed(2)}, text ${white.toFixed(3)})`);
    assert.deepEqual(page.problems, []);
  });
});

testNeeding(missing, 'NSG and GLBench 2.7 on their own pages (polyfill)', { timeout: 300_000 }, async (t) => {
  const browser = await launchChromium();
  t.after(() => browser.close());

  await t.test('nsg: the quota request, the texture over URLLoader, a spinning textured cube', async () => {
    const site = await serveSite({ root: path.join(PPAPI, 'woodjazz_nsg-library/site'), tag: 'classic' });
    const page = await newPage(browser);
    try {
      await page.goto(site.url('/index.html'));
      // The page creates its embed only once navigator.webkitPersistentStorage grants the quota.
      await page.waitForFunction(() => document.getElementById('statusField')?.textContent === 'RUNNING', null, { timeout: 120_000 });
      await page.waitForFunction(() => document.getElementById('log').innerText.includes('FILE LOADED!!! SIZE=20826'), null, { timeout: 30_000 });
      const element = page.locator('#nsg_pnacl');
      const shoot = async () => decodePng(await page.screenshot({ clip: await element.boundingBox() }));
      // Its clear colour (dark red) around the cube, and the cube's textured
      // faces in many colours (hue buckets of its saturated pixels).
      const isClear = (r, g, b) => Math.abs(r - 128) < 24 && g < 80 && b < 80;
      const look = (img) => {
        const clear = share(img, { x: 0, y: 0, width: img.width, height: img.height }, isClear);
        const hues = new Set();
        for (let i = 0; i < img.data.length; i += 4) {
          const [r, g, b] = img.data.subarray(i, i + 3);
          const max = Math.max(r, g, b);
          const min = Math.min(r, g, b);
          if (isClear(r, g, b) || max < 100 || max - min < 80) continue;
          const h = max === r ? (g - b) / (max - min) : max === g ? 2 + (b - r) / (max - min) : 4 + (r - g) / (max - min);
          hues.add(Math.floor(((h + 6) % 6) * 2));
        }
        return { clear, hues: hues.size, ok: clear > 0.5 && clear < 0.95 && hues.size >= 6 };
      };
      // The first frames come once the texture is in (a busy machine: later).
      let first = await shoot();
      for (let i = 0; i < 30 && !look(first).ok; i++) {
        await page.waitForTimeout(500);
        first = await shoot();
      }
      await page.waitForTimeout(1000);
      const img = await shoot();
      fs.mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SCREENSHOTS, 'gl-page-nsg.png') });
      assert.deepEqual([img.width, img.height], [320, 200]);
      const seen = look(img);
      assert.ok(seen.clear > 0.5 && seen.clear < 0.95, `the clear colour around the cube (${seen.clear.toFixed(2)})`);
      assert.ok(seen.hues >= 6, `the cube's faces in many colours (${seen.hues} of 12 hue buckets)`);
      const changed = changedPixels(first, img);
      assert.ok(changed >= 200, `it spins (${changed} pixels changed in 1 s)`);
      assert.deepEqual(page.problems, []);
    } finally {
      await page.closeAll();
      await site.close();
    }
  });

  await t.test('glbench: its page loads it; it sets up, finds none of its data, and ends as the build does', async () => {
    const site = await serveSite({ root: path.join(PPAPI, 'nicolaslangley_glbench27-nacl/site'), tag: 'classic' });
    const page = await newPage(browser);
    try {
      await page.goto(site.url('/projects/nacl/PNaCL%20Make/index.html'));
      await page.waitForFunction(() => document.getElementById('statusField')?.textContent === 'SUCCESS', null, { timeout: 120_000 });
      // The page logs each message to the console: the module mounts its
      // html5fs, makes its GL window and application, finds no test (the
      // data is proprietary), saves, destroys its window — then calls a
      // function whose body is `unreachable` in the pexe (f495: a pure
      // virtual, or the like), which ends it with a crash, as it would have
      // in Chrome.
      await page.waitForFunction(() => document.getElementById('glb_nacl').lastError === 'NaCl module crashed', null, { timeout: 30_000 });
      assert.equal(await page.evaluate(() => document.getElementById('glb_nacl').exitStatus), -1);
      // Console messages reach the test after the page has moved on; the
      // fault line comes after every message the module posted before it.
      await waitForLines(async () => page.logs, (l) => l.some((x) => x.includes('guest fault')), { timeout: 10_000, what: 'the fault line' });
      const logs = page.logs.filter((l) => l.startsWith('log: ')).map((l) => l.slice(5));
      for (const step of ['Init has been called for instance', '0', 'NACLGLWindow has been created', 'GLB Application has been initialized', 'No test exists and now exiting', 'Destroying window']) {
        assert.ok(logs.includes(step), `the module's step "${step}" (${logs.join(' | ')})`);
      }
      assert.deepEqual(page.problems, ['console: pexe: glb_nacl.pexe: guest fault: unreachable in function f495']);
    } finally {
      await page.closeAll();
      await site.close();
    }
  });
});
