// The GL layer on its own (js/src/internal/pepper/gl/, local.js), in
// headless Chromium's WebGL2 (SwiftShader): gl/layer-cases.js calls the
// thread-served Graphics3D and OpenGLES2 functions directly, with raw
// arguments and guest pointers as a plugin would, and checks what WebGL
// drew and what landed in guest memory.

import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { CHROMIUM, hasPlaywright, launchChromium, testNeeding } from './helpers.mjs';
import { startGlServer } from './gl/harness.mjs';

const missing = !hasPlaywright()
  ? 'playwright-core is not installed (npm ci in tests/browser)'
  : !fs.existsSync(CHROMIUM)
    ? `no Chromium at ${CHROMIUM}`
    : false;

testNeeding(missing, 'GL layer cases', { timeout: 300_000 }, async (t) => {
  const server = await startGlServer();
  const browser = await launchChromium();
  t.after(async () => {
    await browser.close();
    await server.close();
  });
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(`${server.url}layer.html`);
  await page.waitForFunction(() => window.ready === true);
  const cases = await page.evaluate(() => window.cases);
  assert.ok(cases.length >= 10, 'the cases loaded');
  for (const name of cases) {
    await t.test(name, async () => {
      const failures = await page.evaluate((n) => window.runCase(n), name);
      assert.deepEqual(failures, [], failures.join('\n'));
    });
  }
  assert.deepEqual(problems, []);
});
