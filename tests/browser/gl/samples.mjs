// What each Oryol sample of the corpus shows, for the GL tests on the
// test page (../gl.test.mjs) and on the samples' own pages through the
// polyfill (../gl-pages.test.mjs): its size after its "resize" message,
// checks on its pixels, and how far a screenshot may drift from the
// reference in ./reference/ (the share of 4×-reduced pixels that may
// differ, from how much the sample changes by itself between two frames).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { HERE, decodePng, diffShare, downscale, pixelStats, share } from './harness.mjs';

export const REFERENCES = path.join(HERE, 'reference');

export const full = (img) => ({ x: 0, y: 0, width: img.width, height: img.height });
export const near = (r, g, b, [R, G, B], t = 12) => Math.abs(r - R) <= t && Math.abs(g - G) <= t && Math.abs(b - B) <= t;

/** Sample name → { size: [w, h], tolerance, check(img) }. */
export const SAMPLES = {
  Fractal: {
    size: [800, 512],
    tolerance: 0.03,
    check(img) {
      const stats = pixelStats(img);
      assert.ok(stats.colors >= 20, `many colours (${stats.colors})`);
      assert.ok(pixelStats(img, { x: 420, y: 0, width: 380, height: 512 }).colors >= 6, 'colours on the right');
      assert.ok(pixelStats(img, { x: 0, y: 256, width: 400, height: 256 }).colors >= 6, 'colours on the bottom left');
      const black = share(img, full(img), (r, g, b) => r < 20 && g < 20 && b < 20);
      assert.ok(black > 0.03 && black < 0.3, `the Mandelbrot set's black interior (${black.toFixed(3)})`);
      const title = pixelStats(img, { x: 20, y: 8, width: 250, height: 12 });
      assert.ok(title.backgroundShare > 0.8 && title.brightness > 100 && title.brightness < 200, 'the ImGui "Controls" title bar');
    },
  },
  ImGuiDemo: {
    size: [1024, 700],
    tolerance: 0.02,
    check(img) {
      const clear = share(img, full(img), (r, g, b) => near(r, g, b, [114, 144, 154], 10));
      assert.ok(clear > 0.15, `the clear colour around the windows (${clear.toFixed(3)})`);
      for (const [what, r] of [
        ['"Debug"', { x: 90, y: 62, width: 300, height: 14 }],
        ['"ImGui Demo"', { x: 560, y: 22, width: 400, height: 14 }],
      ]) {
        const bar = share(img, r, (R, G, B) => B > R + 40 && B > G + 40);
        assert.ok(bar > 0.8, `the ${what} window's title bar (${bar.toFixed(2)})`);
      }
      const body = share(img, { x: 500, y: 300, width: 400, height: 300 }, (r, g, b) => r < 50 && g < 50 && b < 50);
      assert.ok(body > 0.8, `a window's dark body (${body.toFixed(2)})`);
    },
  },
  'KC85-3': {
    size: [800, 512],
    tolerance: 0.2,
    // Once booted the emulated screen stands still (seen under load, when
    // the boot ends before the first screenshot): then its frames change
    // when keys are typed, which the emulated machine echoes on its TV.
    async interact(page, box) {
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      await page.keyboard.type('HELLO', { delay: 100 });
    },
    check(img) {
      const sky = share(img, full(img), (r, g, b) => b > 170 && r < 130 && g > 120 && g < 180);
      const red = share(img, full(img), (r, g, b) => r > 170 && g < 60 && b < 80);
      const yellow = share(img, full(img), (r, g, b) => r > 200 && g > 200 && b < 90);
      assert.ok(sky > 0.3 && sky < 0.85, `the blue background (${sky.toFixed(3)})`);
      assert.ok(red > 0.002, `the red TV set (${red.toFixed(4)})`);
      assert.ok(yellow > 0.03, `the yellow table (${yellow.toFixed(3)})`);
      assert.ok(pixelStats(img).colors >= 50, 'a shaded 3D scene');
    },
  },
  BulletPhysicsBasic: {
    size: [800, 600],
    tolerance: 0.06,
    check(img) {
      const sky = share(img, { x: 0, y: 80, width: 800, height: 60 }, (r, g, b) => b > r + 60);
      const plane = share(img, { x: 0, y: 350, width: 800, height: 250 }, (r, g, b) => Math.abs(r - g) < 12 && Math.abs(g - b) < 12 && r > 110 && r < 210);
      const bodies = share(img, { x: 200, y: 100, width: 400, height: 300 }, (r, g, b) => Math.max(r, g, b) - Math.min(r, g, b) > 40 && !(b > r + 60));
      const text = share(img, { x: 10, y: 5, width: 300, height: 70 }, (r, g, b) => r > 200 && g > 200 && b < 80);
      assert.ok(sky > 0.9, `the sky (${sky.toFixed(2)})`);
      assert.ok(plane > 0.9, `the ground plane (${plane.toFixed(2)})`);
      assert.ok(bodies > 0.002, `coloured bodies (${bodies.toFixed(4)})`);
      assert.ok(text > 0.05, `the yellow debug text (${text.toFixed(3)})`);
    },
  },
  StbVoxelDemo: {
    size: [800, 600],
    tolerance: 0.3,
    // The landscape stands still once its chunks are built ("pending
    // chunks: 0"), on a fast machine before the first screenshot: then its
    // frames change when the camera moves, as a user moves it (left button
    // held, mouse moved).
    async interact(page, box) {
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.waitForTimeout(200);
      for (let i = 1; i <= 10; i++) {
        await page.mouse.move(box.x + box.width / 2 + 12 * i, box.y + box.height / 2 + 6 * i);
        await page.waitForTimeout(80);
      }
      await page.waitForTimeout(500);
      await page.mouse.up();
    },
    check(img) {
      const skyColour = (r, g, b) => near(r, g, b, [48, 48, 128], 12);
      const sky = share(img, { x: 0, y: 80, width: 800, height: 200 }, skyColour);
      const ground = share(img, { x: 0, y: 420, width: 800, height: 180 }, skyColour);
      const colours = pixelStats(img, { x: 0, y: 420, width: 800, height: 180 }).colors;
      assert.ok(sky > 0.9, `the sky above (${sky.toFixed(2)})`);
      assert.ok(ground < 0.3 && colours >= 30, `the landscape below (${colours} colours, sky ${ground.toFixed(2)})`);
    },
  },
};

/**
 * Screenshots `name`'s element (`shoot`) until the sample looks as it should
 * (its size, its checks, within its tolerance of the reference when there is
 * one) or `within` ms have passed; resolves the last screenshot, and the
 * caller's assertions say what is still wrong. A fixed wait is not enough: on
 * a busy two-core machine SwiftShader builds StbVoxelDemo's landscape chunks
 * for well over five seconds.
 */
export async function settle(page, shoot, name, { within = 60_000, step = 500 } = {}) {
  const sample = SAMPLES[name];
  const refPath = path.join(REFERENCES, `${name}.png`);
  const ref = fs.existsSync(refPath) ? decodePng(fs.readFileSync(refPath)) : null;
  const looksRight = (img) => {
    if (img.width !== sample.size[0] || img.height !== sample.size[1]) return false;
    try {
      sample.check(img);
    } catch {
      return false;
    }
    return !ref || diffShare(ref, downscale(img, 4), 40) <= sample.tolerance;
  };
  const start = Date.now();
  for (;;) {
    await page.waitForTimeout(step);
    const img = await shoot();
    if (looksRight(img) || Date.now() - start >= within) return img;
  }
}

/**
 * Drags ImGuiDemo's "Debug" window by its title bar 150 px right and 200 px
 * down inside `element` (a locator of the plugin's box), and checks that it
 * moved there. ImGui samples the mouse once a frame, so the press and the
 * last position are each held for a few frames.
 */
export async function dragImGuiDebugWindow(page, element, shoot) {
  const titleBar = (img, r) => share(img, r, (R, G, B) => B > R + 40 && B > G + 40);
  const before = await shoot();
  assert.ok(titleBar(before, { x: 90, y: 62, width: 300, height: 14 }) > 0.8, 'the "Debug" window where it starts');
  const box = await element.boundingBox();
  await page.mouse.move(box.x + 200, box.y + 69);
  await page.mouse.down();
  await page.waitForTimeout(300);
  for (let i = 1; i <= 10; i++) {
    await page.mouse.move(box.x + 200 + 15 * i, box.y + 69 + 20 * i);
    await page.waitForTimeout(80);
  }
  await page.waitForTimeout(800);
  await page.mouse.up();
  await page.waitForTimeout(1000);
  const after = await shoot();
  assert.ok(titleBar(after, { x: 90, y: 62, width: 300, height: 14 }) < 0.2, 'it left');
  // Its title bar (the rows left of the other window that are title-bar
  // blue) is now about 200 px lower; it started at x = 60, its left edge is
  // now near 210.
  const rows = [];
  for (let y = 150; y < 400; y++) if (titleBar(after, { x: 260, y, width: 180, height: 1 }) > 0.8) rows.push(y);
  const top = rows.length ? rows[0] : -1;
  assert.ok(rows.length >= 10 && Math.abs(top - 262) <= 12, `its title bar is 200 px down (rows ${rows[0]}–${rows.at(-1)})`);
  const edge = [...Array(80).keys()].map((i) => 170 + i).find((x) => titleBar(after, { x, y: top + 5, width: 1, height: 4 }) > 0.8);
  assert.ok(Math.abs(edge - 210) <= 12, `and 150 px right (its left edge at ${edge})`);
  return after;
}
