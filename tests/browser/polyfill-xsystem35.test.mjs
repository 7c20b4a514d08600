// kichikuou's "鬼畜王 on Chrome" pages under the polyfill, end to end, in
// headless Chromium: install.html installs a game with its own installer
// (its Worker writes the PERSISTENT file system with the synchronous API),
// then play.html runs xsystem35.pexe on it (nacl_io's html5fs over
// PPB_FileSystem reads the game and writes the save) — all of it one store.
//
// The site is served as it is (polyfill/site-server.mjs), cross-origin
// isolated, with only the polyfill's tag added at serve time. The game
// and its CD image are made up here (polyfill/xsystem35-game.mjs): an ISO
// 9660 data track with GAMEDATA/TESTSA.ALD, whose one scenario page plays
// CD track 2, shows a line of text and waits for a click, saves to slot 1
// and quits; and a one-second audio track 2.
//
// The visitor's part is done as a visitor would: the CD image's two files
// are given to install.html's own file input (Playwright's setInputFiles);
// play.html is clicked once the text shows.
//
// Why not `install.html?advanced`: at this commit the "advanced" installer
// (AdvancedInstaller in js/installer-worker.js, any .ald files rather than
// a CD image) is selected by the *Worker's* location.search, and
// install.html's own script starts the Worker without a query — the page
// that did (Chromeﾆｲﾚﾙｿﾞ.html) is not in the corpus. So the test takes the
// page's standard path, a CD image, which also runs the Worker's
// importScripts('cdimage.js') and FileReaderSync, and extracts the audio
// track (track2.wav) that play.html plays.
//
// Pure CSS: both pages hide their state blocks with Pure 0.6.0's
// `.hidden { display: none !important }` from cdnjs.cloudflare.com, which
// a test cannot reach (PAGES.md). The test answers that one URL itself
// with just that rule, standing in for the CDN (with
// Cross-Origin-Resource-Policy, which a cross-origin style sheet needs
// under COEP); every other host stays unreachable. Without it every block
// of the page shows at once, and the page still works, but what a visitor
// sees could not be checked.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium, testNeeding, screenshot } from './helpers.mjs';
import { PPAPI, newPage, polyfillSkipReason } from './polyfill/helpers.mjs';
import { serveSite } from './polyfill/site-server.mjs';
import { CMD, SJIS_TEST, aldArchive, cdImage, scenario, tone } from './polyfill/xsystem35-game.mjs';

const missing = polyfillSkipReason();
const SITE = path.join(PPAPI, 'kichikuou_kichikuou_github_io/site');
const PURE_CSS = 'http://cdnjs.cloudflare.com/ajax/libs/pure/0.6.0/pure-min.css';

/** Stands in for cdnjs's Pure CSS: only the rule the pages need. */
async function routePureCss(page) {
  await page.route(PURE_CSS, (route) =>
    route.fulfill({
      status: 200,
      headers: { 'Content-Type': 'text/css', 'Cross-Origin-Resource-Policy': 'cross-origin', 'Access-Control-Allow-Origin': '*' },
      body: '.hidden, [hidden] { display: none !important; }\n',
    }),
  );
}

/** Records what the plugin posts to the page (a capturing listener on the document: observation only). */
function recordMessages(page) {
  return page.addInitScript(() => {
    window.__naclMessages = [];
    document.addEventListener(
      'message',
      (e) => {
        if (e.target?.localName === 'embed') window.__naclMessages.push(e.data instanceof ArrayBuffer ? { arrayBuffer: e.data.byteLength } : e.data);
      },
      true,
    );
  });
}

const messages = (page) => page.evaluate(() => window.__naclMessages);

/** Pixels brighter than mid-grey in the plugin's 2D canvas (over the element): what the game drew. */
const brightPixels = (page) =>
  page.evaluate(async () => {
    const canvas = document.querySelector('[data-pexe-surface] canvas');
    if (!canvas || canvas.width === 0) return 0;
    const bitmap = await createImageBitmap(canvas);
    const copy = new OffscreenCanvas(bitmap.width, bitmap.height).getContext('2d');
    copy.drawImage(bitmap, 0, 0);
    const { data } = copy.getImageData(0, 0, bitmap.width, bitmap.height);
    let n = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] + data[i + 1] + data[i + 2] > 384) n++;
    return n;
  });
const visible = (page, selector) => page.evaluate((s) => !document.querySelector(s).classList.contains('hidden') && getComputedStyle(document.querySelector(s)).display !== 'none', selector);

/** The PERSISTENT file system through the page's own API (common.js requestFileSystem): path → size or 'dir'. */
const pageTree = (page) =>
  page.evaluate(async () => {
    const fs = await requestFileSystem();
    const cb = (fn) => new Promise((ok, ko) => fn(ok, ko));
    const out = {};
    const walk = async (dir) => {
      for (const e of await cb((ok, ko) => dir.createReader().readEntries(ok, ko))) {
        if (e.isDirectory) {
          out[e.fullPath] = 'dir';
          await walk(e);
        } else out[e.fullPath] = (await cb((ok, ko) => e.getMetadata(ok, ko))).size;
      }
    };
    await walk(fs.root);
    return out;
  });

/** The save file's first bytes and size, through the page's own API. */
const saveFile = (page) =>
  page.evaluate(async () => {
    const fs = await requestFileSystem();
    const cb = (fn) => new Promise((ok, ko) => fn(ok, ko));
    const entry = await cb((ok, ko) => fs.root.getFile('save/testsa.asd', {}, ok, ko));
    const file = await cb((ok, ko) => entry.file(ok, ko));
    return { size: file.size, head: new TextDecoder('latin1').decode(new Uint8Array(await file.slice(0, 18).arrayBuffer())) };
  });

/** Waits for `predicate()` in the page (polled), with what to say on a timeout. */
async function until(page, predicate, arg, { timeout = 180_000, what }) {
  try {
    await page.waitForFunction(predicate, arg, { timeout, polling: 100 });
  } catch (e) {
    const logs = page.logs.slice(-30).join('\n');
    throw new Error(`timed out waiting for ${what}\n${logs}`);
  }
}

for (const backend of ['opfs', 'idb']) {
  testNeeding(missing, `polyfill: xsystem35 on kichikuou\u2019s pages (${backend})`, { timeout: 1_200_000 }, async (t) => {
    const browser = await launchChromium();
    // PexeConfig.fileSystem picks the store (each server is an origin of its own).
    const site = await serveSite({ root: SITE, tag: 'classic', config: { fileSystem: backend } });
    const context = await browser.newContext({ viewport: { width: 1024, height: 900 } });
    const game = aldArchive('test.sco', scenario([CMD.music(1), CMD.text(SJIS_TEST), CMD.waitKey(), CMD.save(1), CMD.quit(0)]));
    const audio = tone(1, 440);
    const { img, cue } = cdImage({ files: [{ name: 'TESTSA.ALD', data: game }], audio });
    const font = fs.statSync(path.join(SITE, 'xsystem35/fonts/MTLc3m.ttf')).size;
    // The xsystem35.gr the installer writes for a CD whose GAMEDATA holds TESTSA.ALD: the
    // scenario archive, and save slots A…Z (GameResourceGenerator in js/installer-worker.js).
    const letters = Array.from({ length: 26 }, (_, i) => String.fromCharCode(97 + i));
    const gameResources = ['ScenarioA gamedata/testsa.ald', ...letters.map((l) => `Save${l.toUpperCase()} gamedata/save/tests${l}.asd`)].join('\n') + '\n';
    try {
      await t.test('install.html: the page\u2019s installer Worker copies the CD image\u2019s game and the font into the PERSISTENT file system', async () => {
        const page = await newPage(browser, { context });
        await routePureCss(page);
        try {
          const t0 = Date.now();
          await page.goto(site.url('/install.html'));
          assert.equal(await page.evaluate(() => crossOriginIsolated), true);
          // The polyfill's module loads after the page's scripts; its store exists once it has started.
          await until(page, () => window[Symbol.for('pexe.pageStorage')] !== undefined, null, { timeout: 30_000, what: 'the polyfill to start' });
          assert.equal(await page.evaluate(async () => (await window[Symbol.for('pexe.pageStorage')].backendInfo()).backend), backend);
          // Not installed yet: the page offers its file input.
          await until(page, () => !document.querySelector('.files').classList.contains('hidden'), null, { what: 'the file input (state "files")' });
          assert.equal(await visible(page, '.installed'), false);
          await page.setInputFiles('#fileselect', [
            { name: 'TESTGAME.img', mimeType: 'application/octet-stream', buffer: img },
            { name: 'TESTGAME.cue', mimeType: 'application/octet-stream', buffer: Buffer.from(cue) },
          ]);
          await until(page, () => !document.querySelector('.installed').classList.contains('hidden') || !document.querySelector('.install-failed').classList.contains('hidden'), null, {
            what: 'the end of the installation',
          });
          assert.equal(await visible(page, '.install-failed'), false, await page.evaluate(() => document.querySelector('.install-failed').textContent));
          assert.equal(await visible(page, '.installed'), true);
          assert.deepEqual(await page.evaluate(() => [document.querySelector('#imgReady code').textContent, document.querySelector('#cueReady code').textContent]), ['TESTGAME.img', 'TESTGAME.cue']);
          console.log(`# RESULT install.html (${backend}): installed in ${Date.now() - t0} ms (page load, the module's warm-up, the Worker's copy, the font)`);
          // What the Worker wrote, the page's own asynchronous API sees.
          assert.deepEqual(await pageTree(page), {
            '/fonts': 'dir',
            '/fonts/MTLc3m.ttf': font,
            '/save': 'dir',
            '/testsa.ald': game.length,
            '/track2.wav': 44 + audio.length,
            '/xsystem35.gr': Buffer.byteLength(gameResources),
          });
          const gr = await page.evaluate(async () => {
            const fs = await requestFileSystem();
            const entry = await new Promise((ok, ko) => fs.root.getFile('xsystem35.gr', {}, ok, ko));
            return (await new Promise((ok, ko) => entry.file(ok, ko))).text();
          });
          assert.equal(gr, gameResources);
          await screenshot(page, `polyfill-xsystem35-installed-${backend}`);
          // install.html's warm-up embed sets no PS_VERBOSITY: ppapi_simple then logs its view
          // changes to stderr, which it points at /dev/console3 (PPB_Console, level ERROR) — the
          // console error Chrome showed on this page too. Nothing else may go wrong.
          assert.deepEqual(
            page.problems.filter((p) => !/^console: ps: Got View change: 1,1\n$/.test(p)),
            [],
          );
        } finally {
          await page.close();
        }
      });

      await t.test('play.html: xsystem35 reads the game, shows its text, waits for a click, saves and quits', async () => {
        const page = await newPage(browser, { context });
        await routePureCss(page);
        await recordMessages(page);
        try {
          await page.goto(site.url('/play.html'));
          // Installed: the page shows the game, not "not installed".
          await until(page, () => !document.getElementById('contents').classList.contains('hidden'), null, { what: 'the game (#contents) to show' });
          assert.equal(await visible(page, '.notInstalled'), false);
          await until(page, () => window.__naclMessages.some((m) => m?.command === 'ready'), null, { what: 'ready' });
          await until(page, () => window.__naclMessages.some((m) => m?.command === 'cd_play'), null, { timeout: 30_000, what: 'cd_play' });
          // CD track 2: the page's <audio src="filesystem:…/persistent/track2.wav"> plays the
          // track the installer extracted (the polyfill hands it a blob: URL of the file).
          await until(page, () => (document.querySelector('#contents audio')?.currentTime ?? 0) > 0, null, { timeout: 30_000, what: 'the CD track to play' });
          const track = await page.evaluate(() => {
            const a = document.querySelector('#contents audio');
            return { src: a.src.slice(0, 5), duration: a.duration, loop: a.loop, paused: a.paused, error: a.error?.code ?? null, status: document.querySelector('.pnacl-status').textContent };
          });
          assert.deepEqual({ ...track, duration: Math.round(track.duration * 100) / 100 }, { src: 'blob:', duration: 1, loop: true, paused: false, error: null, status: '\u3000' });
          // The text: white glyphs drawn by the game (FreeType, the installed font) in its message window.
          const deadline = Date.now() + 30_000;
          let bright = 0;
          while ((bright = await brightPixels(page)) < 50 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
          console.log(`# RESULT play.html (${backend}): the game's text drew ${bright} bright pixels`);
          assert.ok(bright >= 50 && bright < 20_000, `${bright} bright pixels`);
          await screenshot(page, `polyfill-xsystem35-waiting-${backend}`);
          // Waiting for the click: no exit yet.
          await new Promise((r) => setTimeout(r, 1000));
          assert.ok(!(await messages(page)).some((m) => m?.command === 'exit'), 'it did not wait');
          // A click where the game is (the plugin's surface lies over the element, as Chrome's plugin
          // did), held a moment: xsystem35 polls the button's state every frame or so.
          const box = await page.locator('#nacl_module').boundingBox();
          await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
          await page.mouse.down();
          await new Promise((r) => setTimeout(r, 300));
          await page.mouse.up();
          await until(page, () => window.__naclMessages.some((m) => m?.command === 'exit'), null, { timeout: 60_000, what: 'exit after the click' });
          const got = (await messages(page)).filter((m) => typeof m === 'object' && m?.command !== 'cd_getposition');
          console.log(`# messages: ${JSON.stringify(got)}`);
          assert.deepEqual(
            got.filter((m) => ['set_window_size', 'ready', 'exit'].includes(m.command)),
            [{ command: 'set_window_size', width: 640, height: 480 }, { command: 'ready' }, { command: 'exit', code: 1 }],
          );
          assert.ok(page.logs.includes('log: exit code: 1'), 'the page\u2019s own handler saw exit');
          const save = await saveFile(page);
          assert.equal(save.head, 'System3.5 SavaData');
          assert.ok(save.size > 1000, `${save.size} bytes`);
          assert.deepEqual(page.problems, []);
        } finally {
          await page.close();
        }
      });

      await t.test('play.html again (a reload): the game and the save are still there', async () => {
        const page = await newPage(browser, { context });
        await routePureCss(page);
        await recordMessages(page);
        try {
          await page.goto(site.url('/play.html'));
          await until(page, () => !document.getElementById('contents').classList.contains('hidden'), null, { what: 'the game (#contents) to show' });
          // What the installer and the game wrote is still in the store…
          const tree = await pageTree(page);
          assert.equal(tree['/testsa.ald'], game.length);
          assert.equal(tree['/xsystem35.gr'], Buffer.byteLength(gameResources));
          const save = await saveFile(page);
          assert.equal(save.head, 'System3.5 SavaData');
          // …and the game starts from it again: its scenario's first command asks for the CD track.
          await until(page, () => window.__naclMessages.some((m) => m?.command === 'ready'), null, { what: 'ready' });
          await until(page, () => window.__naclMessages.some((m) => m?.command === 'cd_play'), null, { timeout: 30_000, what: 'cd_play' });
          assert.deepEqual(page.problems, []);
        } finally {
          await page.close();
        }
      });
    } finally {
      await context.close();
      await browser.close();
      await site.close();
    }
  });
}
