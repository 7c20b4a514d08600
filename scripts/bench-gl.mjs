#!/usr/bin/env node
// Speed of the Pepper 3D layer (js/src/internal/pepper/gl/) on the corpus's
// Oryol samples in headless Chromium (WebGL2 through SwiftShader): frames
// per second, and the time per frame spent in the GL layer — the
// thread-served Graphics3D/OpenGLES2 calls — split into WebGL's own calls
// and the layer's translation around them. A benchmark, not a test.
//
//   node scripts/bench-gl.mjs [--seconds N] [--warmup N] [Sample ...]
//
// Default: Fractal and BulletPhysicsBasic (the cube-heavy sample), 20 s
// each after 5 s of warm-up. The numbers come from the layer's profile mode
// (startPlugin option glProfile: every call timed, a JSON line every 2 s),
// whose own timing cost is included; SwiftShader renders on the CPU, so the
// frame rate is bound by rendering, not by the layer. Needs what
// tests/browser/run.sh sets up (target/release/pexe, playwright-core in
// tests/browser/node_modules, Chromium).

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');
const require = createRequire(path.join(repo, 'tests/browser/package.json'));
const { chromium } = require('playwright-core');
const { openDemo, startGlServer, state, translateOryol, ORYOL_DEMOS } = await import(path.join(repo, 'tests/browser/gl/harness.mjs'));

const args = process.argv.slice(2);
let seconds = 20;
let warmup = 5;
const samples = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--seconds') seconds = Number(args[++i]);
  else if (args[i] === '--warmup') warmup = Number(args[++i]);
  else if (ORYOL_DEMOS.includes(args[i])) samples.push(args[i]);
  else {
    console.error(`usage: bench-gl.mjs [--seconds N] [--warmup N] [${ORYOL_DEMOS.join('|')} ...]`);
    process.exit(2);
  }
}
if (!samples.length) samples.push('Fractal', 'BulletPhysicsBasic');

translateOryol();
const server = await startGlServer();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const results = [];
try {
  for (const name of samples) {
    const page = await openDemo(browser, server.url, name, { profile: true });
    await page.waitForTimeout(warmup * 1000);
    const skip = (await state(page)).logs.filter((l) => l.source === 'pexe-gl-profile').length;
    await page.waitForTimeout(seconds * 1000);
    const lines = (await state(page)).logs
      .filter((l) => l.source === 'pexe-gl-profile')
      .slice(skip)
      .map((l) => JSON.parse(l.text.replace(/^profile /, '')));
    await page.close();
    if (!lines.length) throw new Error(`${name}: no profile lines (did it draw?)`);
    const frames = lines.reduce((a, l) => a + l.frames, 0);
    const weighted = (k) => lines.reduce((a, l) => a + l[k] * l.frames, 0) / frames;
    const r = {
      sample: name,
      fps: mean(lines.map((l) => l.fps)),
      layerMs: weighted('layerMsPerFrame'),
      webglMs: weighted('webglMsPerFrame'),
      ownMs: weighted('ownMsPerFrame'),
      calls: weighted('callsPerFrame'),
      frameCpuMs: weighted('frameCpuMs'),
      frames,
    };
    results.push(r);
    console.log(
      `# GL ${name}: ${r.fps.toFixed(1)} fps; GL layer ${r.layerMs.toFixed(3)} ms/frame ` +
        `(WebGL calls ${r.webglMs.toFixed(3)} ms, translation ${r.ownMs.toFixed(3)} ms), ` +
        `${r.calls.toFixed(0)} calls/frame; main thread busy ${r.frameCpuMs.toFixed(2)} ms/frame; ${frames} frames`,
    );
  }
} finally {
  await browser.close();
  await server.close();
}
const worst = Math.max(...results.map((r) => r.ownMs));
console.log(`# GL goal: the layer's translation under 1 ms per frame: ${worst < 1 ? 'met' : 'NOT met'} (worst ${worst.toFixed(3)} ms)`);
