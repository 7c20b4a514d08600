// Maelstrom on its own page (darinf_maelstrom_web/site/pnacl/maelstrom.html),
// served as published with only the polyfill's tag added, in headless
// Chromium. The page's script writes the game's data files into the
// temporary HTML5 file system (webkitRequestFileSystem, polyfilled over the
// store the plugin shares) before it inserts the <embed>; the module reads
// them back through PPB_FileSystem/FileIO, draws with Graphics2D, and plays
// through PPB_Audio (silent until a gesture, its clock running). Checks: the
// loading splash, then the title screen (menu, high scores — compared with a
// reference screenshot), then keys: `a` opens The Story, another key closes it, and from
// the title `p` starts a game, whose frames move and whose sound reaches
// the AudioWorklet (not silent).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { SCREENSHOTS, launchChromium, testNeeding } from './helpers.mjs';
import { changedPixels, decodePng, diffShare, downscale, encodePng, share } from './gl/harness.mjs';
import { PPAPI, newPage, polyfillSkipReason } from './polyfill/helpers.mjs';
import { serveSite } from './polyfill/site-server.mjs';

const missing = polyfillSkipReason();
const SITE = path.join(PPAPI, 'darinf_maelstrom_web/site');
const REFERENCE = path.join(path.dirname(new URL(import.meta.url).pathname), 'maelstrom', 'title.png');

// The title screen's right-hand panel: the menu, yellow text on black. On
// the loading splash the same rectangle is the orange swirl.
const MENU = { x: 370, y: 60, width: 200, height: 230 };
const black = (r, g, b) => r < 30 && g < 30 && b < 30;
const yellow = (r, g, b) => r > 200 && g > 200 && b < 100;
const isTitle = (img) => share(img, MENU, black) > 0.6 && share(img, MENU, yellow) > 0.02;

/** Polls `shoot()` until `pred(img)` holds or `ms` pass; returns the last image. */
async function waitForImage(page, shoot, pred, ms) {
  const end = Date.now() + ms;
  let img = await shoot();
  while (!pred(img) && Date.now() < end) {
    await page.waitForTimeout(500);
    img = await shoot();
  }
  return img;
}

testNeeding(missing, 'Maelstrom on its own page (polyfill)', { timeout: 300_000 }, async (t) => {
  const browser = await launchChromium();
  const site = await serveSite({ root: SITE, tag: 'classic' });
  const page = await newPage(browser);
  t.after(async () => {
    await page.closeAll();
    await site.close();
    await browser.close();
  });
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const save = (name) => page.screenshot({ path: path.join(SCREENSHOTS, `maelstrom-${name}.png`) });

  await page.goto(site.url('/pnacl/maelstrom.html'));
  await page.waitForFunction(() => document.querySelector('embed')?.readyState === 4, null, { timeout: 120_000 });
  const embed = page.locator('embed');
  const box = await embed.boundingBox();
  assert.deepEqual([box.width, box.height], [640, 480], 'the element as the page sized it');
  // The plugin's canvas lies over the element (an <embed> holds no
  // children); a screenshot of the element's rectangle is what a user sees.
  const shoot = async () => decodePng(await page.screenshot({ clip: box }));

  const title = await waitForImage(page, shoot, isTitle, 60_000);
  await save('title');
  assert.ok(isTitle(title), `the title screen's menu (black ${share(title, MENU, black).toFixed(2)}, yellow ${share(title, MENU, yellow).toFixed(3)})`);
  const small = downscale(title, 4);
  if (process.env.BLESS === '1') fs.writeFileSync(REFERENCE, encodePng(small));
  const d = diffShare(decodePng(fs.readFileSync(REFERENCE)), small, 40);
  t.diagnostic(`maelstrom: title screen ${(100 * d).toFixed(1)}% of pixels differ from the reference`);
  assert.ok(d <= 0.05, `the title screen is like the reference (${(100 * d).toFixed(1)}% differ, 5% allowed)`);

  // Keys go to the focused plugin: a click gives it focus (and the audio
  // its gesture).
  await page.mouse.click(box.x + box.width / 2, box.y + box.height - 20);
  await page.waitForTimeout(500);
  await page.keyboard.press('a');
  const left = (img) => !isTitle(img) && diffShare(title, img) > 0.15;
  const about = await waitForImage(page, shoot, left, 10_000);
  await save('about');
  assert.ok(left(about), `"a" leaves the title screen for The Story (${(100 * diffShare(title, about)).toFixed(1)}% changed)`);
  // The Story: red text on black in the blue frame.
  const red = share(about, { x: 70, y: 90, width: 500, height: 300 }, (r, g, b) => r > 150 && g < 80 && b < 80);
  assert.ok(red > 0.03, `The Story's red text (${red.toFixed(3)} of its box)`);

  // Any key but Return leaves About for the title screen.
  let back = about;
  for (let i = 0; i < 3 && !isTitle(back); i++) {
    await page.keyboard.press('Space');
    back = await waitForImage(page, shoot, isTitle, 3000);
  }
  assert.ok(isTitle(back), 'a key leaves About for the title screen');

  await page.keyboard.press('p');
  const game = await waitForImage(page, shoot, left, 10_000);
  await page.waitForTimeout(2000);
  const later = await shoot();
  await save('game');
  assert.ok(!isTitle(game), '"p" starts a game');
  const moved = changedPixels(game, later);
  t.diagnostic(`maelstrom: ${moved} pixels changed in the game's first 2 s`);
  assert.ok(moved > 200, `the game's frames move (${moved} pixels changed in 2 s)`);

  // The audio callback runs on its guest thread and fills the ring the
  // AudioWorklet plays; the worklet keeps the peak of what it read.
  const audio = () =>
    page.evaluate(() => {
      const el = document.querySelector('embed');
      return window[Symbol.for('pexe.polyfill')].controllerFor(el)?.plugin?.audioStats();
    });
  let sound = await audio();
  for (let i = 0; i < 20 && !(sound?.peak > 0.01); i++) {
    await page.waitForTimeout(250);
    sound = await audio();
  }
  t.diagnostic(`maelstrom: audio ${JSON.stringify(sound)}`);
  assert.equal(sound?.state, 'running', 'the click started the AudioContext');
  assert.ok(sound.played > 0 && sound.peak > 0.01, `the worklet played non-silent samples (${JSON.stringify(sound)})`);

  const st = await page.evaluate(() => {
    const e = document.querySelector('embed');
    return { readyState: e.readyState, lastError: e.lastError };
  });
  assert.deepEqual(st, { readyState: 4, lastError: '' });
  assert.deepEqual(page.problems, []);
});
