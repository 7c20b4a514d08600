// PPB_VideoDecoder (js/src/internal/pepper/gl/video-decoder.js) with the
// corpus's H.264 player, bp2008_pnacl_player, in headless Chromium through
// the polyfill. Its original page (UI3, the Blue Iris web client) starts
// the module only after talking to a Blue Iris server, so this page does
// what UI3's player does with the element and nothing else: an
// `<embed src="…/pnacl_player.nmf" hwaccel="0">` in a div listening in the
// capture phase, then for each H.264 frame the string `"f <timestamp>"`
// and an ArrayBuffer with the frame (PAGES.md). The clip is made here with
// ffmpeg (testsrc, libx264, Annex B) and decoded by ffmpeg too: what the
// element shows must look like one of ffmpeg's frames, and change while
// the clip plays. The player reports each frame it paints ("rf {…}", with
// the size it painted at) and a picture size unlike the element's ("vr").
// The page's "reset" message resets the decoder mid-stream; playing goes
// on from the next key frame. With hwaccel="2" (hardware only) on this
// GPU-less Chromium, Initialize fails with PP_ERROR_NOTSUPPORTED and one
// log line.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SCREENSHOTS, launchChromium, testNeeding } from './helpers.mjs';
import { changedPixels, decodePng, diffShare } from './gl/harness.mjs';
import { PPAPI, newPage, polyfillSkipReason } from './polyfill/helpers.mjs';
import { serveSite } from './polyfill/site-server.mjs';

const PLAYER = path.join(PPAPI, 'bp2008_pnacl_player');
const WIDTH = 320;
const HEIGHT = 240;
const FPS = 10;
const SECONDS = 3;

function ffmpegMissing() {
  const r = spawnSync('ffmpeg', ['-version'], { encoding: 'utf8' });
  return r.status === 0 ? false : 'no ffmpeg (apt-get install ffmpeg; scripts/setup.sh installs it)';
}

const missing = polyfillSkipReason() || ffmpegMissing();

function ffmpeg(args) {
  const r = spawnSync('ffmpeg', ['-loglevel', 'error', '-y', ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ffmpeg ${args.join(' ')} failed:\n${r.stderr}`);
}

/** The clip as its frames (one access unit each), and ffmpeg's decoding of it as RGBA images. */
function makeClip(dir) {
  const clip = path.join(dir, 'testsrc.h264');
  ffmpeg([
    '-f', 'lavfi', '-i', `testsrc=size=${WIDTH}x${HEIGHT}:rate=${FPS}`, '-t', String(SECONDS),
    '-c:v', 'libx264', '-profile:v', 'high', '-pix_fmt', 'yuv420p', '-bf', '0',
    '-bsf:v', 'h264_mp4toannexb', '-f', 'h264', clip,
  ]);
  ffmpeg(['-i', clip, path.join(dir, 'frame-%03d.png')]);
  const data = fs.readFileSync(clip);
  // Cut at NAL units: a slice with first_mb_in_slice 0 or a parameter set
  // after a slice starts the next frame.
  const starts = [];
  for (let i = 0; i + 3 < data.length; i++) {
    if (data[i] === 0 && data[i + 1] === 0 && data[i + 2] === 1) {
      starts.push({ at: i > 0 && data[i - 1] === 0 ? i - 1 : i, type: data[i + 3] & 0x1f, firstMb0: (data[i + 4] & 0x80) !== 0 });
      i += 2;
    }
  }
  const frames = [];
  let begin = 0;
  let slice = false;
  for (const s of starts) {
    const isSlice = s.type === 1 || s.type === 5;
    if (slice && ((isSlice && s.firstMb0) || s.type === 7 || s.type === 9 || s.type === 6)) {
      frames.push(data.subarray(begin, s.at));
      begin = s.at;
      slice = false;
    }
    if (isSlice) slice = true;
  }
  frames.push(data.subarray(begin));
  const decoded = fs
    .readdirSync(dir)
    .filter((f) => f.startsWith('frame-'))
    .sort()
    .map((f) => decodePng(fs.readFileSync(path.join(dir, f))));
  return { frames, decoded };
}

const playerPage = (hwaccel) => `<!doctype html>
<html>
<head><meta charset="utf-8"><title>pnacl_player</title></head>
<body style="margin:0">
  <div id="pnacl_wrapper"></div>
  <script>
    window.received = [];
    var wrapper = document.getElementById('pnacl_wrapper');
    ['load', 'message', 'error', 'crash'].forEach(function (type) {
      wrapper.addEventListener(type, function (e) {
        if (type === 'message') received.push(e.data);
        else received.push('event ' + type);
      }, true);
    });
    var embed = document.createElement('embed');
    embed.id = 'pnacl_player_module';
    embed.setAttribute('src', '/pnacl/pnacl_player.nmf');
    embed.setAttribute('type', 'application/x-pnacl');
    embed.setAttribute('hwaccel', '${hwaccel}');
    embed.setAttribute('width', '${WIDTH}');
    embed.setAttribute('height', '${HEIGHT}');
    wrapper.appendChild(embed);
    // Plays the frames in a loop, as a camera stream: "f <timestamp>" then the frame.
    window.play = function (frames, fps) {
      var i = 0;
      var t = 0;
      window.posted = 0;
      window.timer = setInterval(function () {
        embed.postMessage('f ' + t);
        embed.postMessage(frames[i].slice(0));
        posted++;
        i = (i + 1) % frames.length;
        t += 1000 / fps;
      }, 1000 / fps);
    };
  </script>
</body>
</html>
`;

testNeeding(missing, 'pnacl_player plays an H.264 clip through PPB_VideoDecoder (WebCodecs)', { timeout: 300_000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pexe-video-'));
  const { frames, decoded } = makeClip(dir);
  assert.equal(frames.length, FPS * SECONDS, 'the clip cut into its frames');
  assert.equal(decoded.length, FPS * SECONDS);
  const root = path.join(dir, 'site');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'index.html'), playerPage(0));
  fs.writeFileSync(path.join(root, 'hw-only.html'), playerPage(2));

  const browser = await launchChromium();
  const site = await serveSite({ root, tag: 'classic', routes: { '/pnacl/': PLAYER } });
  const page = await newPage(browser, { viewport: { width: 640, height: 480 } });
  const hwOnly = await newPage(browser);
  t.after(async () => {
    await page.closeAll();
    await hwOnly.closeAll();
    await site.close();
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  await page.goto(site.url('/index.html'));
  await page.waitForFunction(() => window.received.some((m) => typeof m === 'string' && /initialized/.test(m)), null, { timeout: 120_000 });
  const before = await page.evaluate(() => window.received.slice());
  t.diagnostic(`before playing: ${JSON.stringify(before)}`);
  assert.ok(before.includes('PP_HARDWAREACCELERATION_NONE'), 'hwaccel="0" read by the module');

  await page.evaluate(
    ([frames, fps]) => window.play(frames.map((f) => new Uint8Array(f).buffer), fps),
    [frames.map((f) => [...f]), FPS],
  );
  const element = page.locator('#pnacl_player_module');
  const shoot = async () => decodePng(await element.screenshot());
  /** The closest of ffmpeg's frames to `img`: [index, share of pixels that differ]. */
  const closest = (img) => {
    let best = [-1, 1];
    decoded.forEach((ref, i) => {
      const d = diffShare(ref, img, 40);
      if (d < best[1]) best = [i, d];
    });
    return best;
  };

  await page.waitForFunction(() => window.received.filter((m) => typeof m === 'string' && m.startsWith('rf ')).length >= 5, null, { timeout: 60_000 });
  const a = await shoot();
  await page.waitForTimeout(700);
  const b = await shoot();
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'video-pnacl-player.png') });

  // "reset" resets the decoder (pending Decode and GetPicture aborted, then
  // Reset's callback); the stream goes on, painted again from its next key
  // frame (the loop's first frame).
  const paintedBefore = await page.evaluate(() => {
    document.getElementById('pnacl_player_module').postMessage('reset');
    return window.received.filter((m) => typeof m === 'string' && m.startsWith('rf ')).length;
  });
  await page.waitForFunction((n) => window.received.filter((m) => typeof m === 'string' && m.startsWith('rf ')).length >= n + 5, paintedBefore, { timeout: 60_000 });
  const c = await shoot();
  const [ic, dc] = closest(c);
  t.diagnostic(`after the reset: like ffmpeg's frame ${ic} (${(100 * dc).toFixed(1)}% differ)`);
  assert.ok(dc <= 0.05, `after a reset the element shows frames of the clip again (${(100 * dc).toFixed(1)}% differ)`);
  await page.evaluate(() => clearInterval(window.timer));
  const messages = await page.evaluate(() => window.received.filter((m) => typeof m === 'string'));
  const rendered = messages.filter((m) => m.startsWith('rf '));
  t.diagnostic(`${rendered.length} frames painted; last messages: ${JSON.stringify(messages.slice(-3))}`);

  assert.deepEqual([a.width, a.height], [WIDTH, HEIGHT]);
  // The player resizes to a picture's texture_size when it differs from
  // the element's ("vr {…}"), and reports the size it painted at.
  assert.ok(!messages.some((m) => m.startsWith('vr ')), 'texture_size is the clip\'s size, the element\'s');
  assert.ok(rendered.every((m) => m.startsWith(`rf {"w":${WIDTH},"h":${HEIGHT},`)), 'frames painted at the clip\'s size');
  const [ia, da] = closest(a);
  const [ib, db] = closest(b);
  t.diagnostic(`first shot like ffmpeg's frame ${ia} (${(100 * da).toFixed(1)}% differ), second like frame ${ib} (${(100 * db).toFixed(1)}% differ)`);
  assert.ok(da <= 0.05, `the element shows a frame of the clip (${(100 * da).toFixed(1)}% of pixels differ from ffmpeg's closest)`);
  assert.ok(db <= 0.05, `the element shows a frame of the clip (${(100 * db).toFixed(1)}% of pixels differ from ffmpeg's closest)`);
  const changed = changedPixels(a, b);
  assert.ok(ia !== ib && changed >= 200, `frames change (${changed} pixels in 0.7 s; frames ${ia} → ${ib})`);
  assert.ok(!messages.some((m) => m.startsWith('not yet ready')), 'the decoder was ready for every frame');
  assert.deepEqual(page.problems, []);

  // hwaccel="2" asks for PP_HARDWAREACCELERATION_ONLY; this Chromium runs
  // without a GPU (--disable-gpu), so WebCodecs has no hardware decoder:
  // Initialize completes with PP_ERROR_NOTSUPPORTED and one log line says why.
  await hwOnly.goto(site.url('/hw-only.html'));
  await hwOnly.waitForFunction(() => window.received.includes('PP_HARDWAREACCELERATION_ONLY'), null, { timeout: 120_000 });
  await hwOnly.waitForFunction(() => window.received.includes('event crash'), null, { timeout: 60_000 });
  const told = hwOnly.logs.filter((l) => /PPB_VideoDecoder/.test(l));
  const got = await hwOnly.evaluate(() => window.received.slice());
  t.diagnostic(`hwaccel=2: ${JSON.stringify(got)}; log: ${JSON.stringify(told)}`);
  assert.equal(told.length, 1, 'one log line');
  assert.match(told[0], /^error: .*PPB_VideoDecoder\.Initialize: PP_VIDEOPROFILE_H264HIGH with PP_HARDWAREACCELERATION_ONLY .*"prefer-hardware".* is not supported .*PP_ERROR_NOTSUPPORTED/);
  // The player asserts that Initialize succeeded (Decoder::InitializeDone),
  // as it did in Chrome on a machine without a hardware decoder.
  assert.ok(!got.includes('decoder initialized'));
});

