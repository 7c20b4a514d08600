// The Oryol samples on their own pages (floooh_oryol-samples/site/pnacl/
// *.html, with ../pnacl.js), served as they were published with only the
// polyfill's tag added (polyfill/site-server.mjs), in headless Chromium:
// the page's own script grows the <embed> from 256×256 when the module asks
// ({"msg":"resize"}) and writes the module's log lines into its textarea.
// On each page the sample draws in the element as on the GL test page (the
// same per-sample checks and reference screenshots, gl/samples.mjs) and
// changes between frames; a drag on ImGuiDemo's element moves its window;
// the KC85/3 emulator boots to its HC-CAOS screen.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { SCREENSHOTS, launchChromium, testNeeding } from './helpers.mjs';
import { changedPixels, decodePng, diffShare, downscale, share } from './gl/harness.mjs';
import { REFERENCES, SAMPLES, dragImGuiDebugWindow } from './gl/samples.mjs';
import { PPAPI, newPage, polyfillSkipReason } from './polyfill/helpers.mjs';
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
      const { page, shoot } = await openSample(browser, site, name);
      tt.after(() => page.closeAll());
      await page.waitForTimeout(5000);
      const first = await shoot();
      await page.waitForTimeout(1500);
      const img = await shoot();
      fs.mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SCREENSHOTS, `gl-page-${name}.png`) });
      assert.deepEqual([img.width, img.height], sample.size, 'the element has the size the sample asked for');
      sample.check(img);
      const changed = changedPixels(first, img);
      assert.ok(changed >= 20, `frames change (${changed} pixels in 1.5 s)`);
      const d = diffShare(decodePng(fs.readFileSync(path.join(REFERENCES, `${name}.png`))), downscale(img, 4), 40);
      tt.diagnostic(`${name}: ${(100 * d).toFixed(1)}% of pixels differ from the reference; ${changed} changed in 1.5 s`);
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
