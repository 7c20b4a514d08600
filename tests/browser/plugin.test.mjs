// The runner's Plugin view: a Pepper pexe runs in a box on the page and
// talks through the message console. Corpus plugins come from the dev
// server's /corpus/: Stockfish answers UCI (uci → uciok, isready →
// readyok), part2 answers "hello"; the project's own pepper sample echoes
// and, sent "exit", ends in `crash` with exitStatus 3; Oryol's Fractal draws
// in its box (its 3D surface); a pexe that is no plugin ends in `error` with
// Chrome's lastError; Stop ends a running plugin. Keyboard only, as a user
// without a mouse would.

import assert from 'node:assert/strict';
import { decodePng, pixelStats } from './gl/harness.mjs';
import { launch, openPage, screenshot, skipReason, testNeeding } from './helpers.mjs';

const skip = skipReason({ corpus: true });
const STOCKFISH = '/corpus/ppapi/niklasf_stockfish_pexe/stockfish.pexe';
const PART2 = '/corpus/ppapi/lpdevs_PNaCl-examples/part2.pexe';
const FRACTAL = '/corpus/ppapi/floooh_oryol-samples/Fractal.pexe';

/** The console's lines, as [kind, text] (kind: in, out, event, err, log, stdout, stderr). */
const consoleLines = (page) =>
  page.locator('#console-log li').evaluateAll((lis) =>
    lis.map((li) => [li.className.replace(/^c-/, ''), li.lastChild?.textContent ?? '']),
  );

/** Types a line in the console (m focuses it) and posts it (Enter). */
async function say(page, line) {
  await page.locator('body').press('m');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'console-input');
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}

async function startPlugin(page) {
  await page.locator('body').press('r');
  await page.waitForFunction(() => window.__pexePlugin?.loaded === true || window.__pexePlugin?.done === true, null, { timeout: 120_000 });
  return page.evaluate(() => window.__pexePlugin);
}

testNeeding(skip, 'plugin view', { timeout: 300_000 }, async (t) => {
  const env = await launch({ isolation: true });
  t.after(() => env.close());

  await t.test('Stockfish answers uci with uciok, isready with readyok; s stops it', async () => {
    const page = await openPage(env, `?url=${encodeURIComponent(STOCKFISH)}`);
    // A Pepper pexe opens in the Plugin view.
    assert.equal(await page.evaluate(() => window.pexeApp.mode), 'plugin');
    assert.equal(await page.getAttribute('#mode-plugin', 'aria-selected'), 'true');
    assert.equal(await page.isVisible('#plugin-view'), true);
    assert.equal(await page.isVisible('#terminal'), false);
    assert.equal(await page.isDisabled('#console-input'), true, 'nothing to talk to before it runs');

    const state = await startPlugin(page);
    assert.equal(state.loaded, true, JSON.stringify(state));
    assert.deepEqual(state.events.filter((e) => ['loadstart', 'load', 'loadend'].includes(e.type)).map((e) => e.type), ['loadstart', 'load', 'loadend']);
    assert.equal(await page.getAttribute('#plugin-box', 'data-state'), 'running');
    assert.match(await page.textContent('#run-status'), /running/);

    await say(page, 'uci');
    await page.waitForFunction(() => window.__pexePlugin.messages.includes('uciok'), null, { timeout: 60_000 });
    let lines = await consoleLines(page);
    assert.ok(lines.some(([k, text]) => k === 'out' && text === 'uci'), 'the sent line is listed');
    const uciok = lines.findIndex(([k, text]) => k === 'in' && text === 'uciok');
    assert.ok(uciok > 0, `uciok in the console: ${JSON.stringify(lines.slice(-5))}`);
    assert.ok(lines.slice(0, uciok).some(([k, text]) => k === 'in' && /^id name Stockfish/.test(text)), 'the engine named itself first');

    await page.keyboard.type('isready');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.__pexePlugin.messages.includes('readyok'), null, { timeout: 60_000 });
    // ↑ recalls the last line sent.
    await page.keyboard.press('ArrowUp');
    assert.equal(await page.inputValue('#console-input'), 'isready');
    await screenshot(page, 'plugin-stockfish');

    // Esc leaves the field; s stops the plugin.
    await page.keyboard.press('Escape');
    await page.keyboard.press('s');
    await page.waitForFunction(() => window.__pexePlugin.stopped === true);
    assert.equal(await page.getAttribute('#plugin-box', 'data-state'), 'stopped');
    assert.equal(await page.isDisabled('#console-input'), true);
    assert.equal(await page.isDisabled('#run-btn'), false);
    lines = await consoleLines(page);
    assert.deepEqual(lines.at(-1), ['event', 'stopped by the user']);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  await t.test('part2 answers hello with "hello from NaCl"', async () => {
    const page = await openPage(env, `?url=${encodeURIComponent(PART2)}`);
    const state = await startPlugin(page);
    assert.equal(state.loaded, true, JSON.stringify(state));
    await say(page, 'hello');
    await page.waitForFunction(() => window.__pexePlugin.messages.length > 0, null, { timeout: 30_000 });
    assert.deepEqual(await page.evaluate(() => window.__pexePlugin.messages), ['hello from NaCl']);
    const lines = await consoleLines(page);
    assert.deepEqual(lines.filter(([k]) => k === 'in' || k === 'out'), [['out', 'hello'], ['in', 'hello from NaCl']]);
    await screenshot(page, 'plugin-part2');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  await t.test('the bundled pepper sample: ready, echoes, and "exit" crashes it with exitStatus 3', async () => {
    const page = await openPage(env, '?sample=pepper');
    assert.equal(await page.evaluate(() => window.pexeApp.mode), 'plugin');
    const state = await startPlugin(page);
    assert.equal(state.loaded, true, JSON.stringify(state));
    await page.waitForFunction(() => window.__pexePlugin.messages.includes('ready'));
    await say(page, 'two words');
    // Each echo before the next line, so the console's order is fixed.
    await page.waitForFunction(() => window.__pexePlugin.messages.length === 2);
    await page.keyboard.type('[1, {"a": 2}]');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.__pexePlugin.messages.length === 3);
    assert.deepEqual(await page.evaluate(() => window.__pexePlugin.messages), ['ready', 'two words', '[1, {"a": 2}]']);
    await page.keyboard.type('exit');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.__pexePlugin.done === true, null, { timeout: 30_000 });
    const end = await page.evaluate(() => window.__pexePlugin);
    // exit() is a crash, as in Chrome: no loadend after it (that came with load).
    assert.equal(end.exitStatus, 3);
    assert.equal(end.lastError, 'NaCl module crashed');
    assert.deepEqual(end.events.filter((e) => ['loadstart', 'load', 'error', 'crash', 'loadend'].includes(e.type)), [
      { type: 'loadstart' },
      { type: 'load' },
      { type: 'loadend' },
      { type: 'crash', lastError: 'NaCl module crashed', exitStatus: 3 },
    ]);
    const lines = await consoleLines(page);
    assert.deepEqual(lines.filter(([k]) => k === 'in' || k === 'out'), [
      ['in', 'ready'],
      ['out', 'two words'],
      ['in', 'two words'],
      ['out', '[1, {"a": 2}]'],
      ['in', '[1, {"a": 2}]'],
      ['out', 'exit'],
    ]);
    assert.deepEqual(lines.at(-1), ['err', 'NaCl module crashed · exitStatus 3']);
    assert.equal(await page.getAttribute('#plugin-box', 'data-state'), 'crashed');
    assert.match(await page.textContent('#run-status'), /crashed · exit 3/);
    assert.equal(await page.isDisabled('#console-input'), true);
    await screenshot(page, 'plugin-pepper-sample');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  await t.test('Oryol’s Fractal starts and draws in its box (OpenGL ES over WebGL2)', async () => {
    const page = await openPage(env, `?url=${encodeURIComponent(FRACTAL)}`);
    // The overview lists the browser interfaces it asks for; OpenGL ES is offered in a page.
    const chips = await page.locator('#pepper-interfaces .chip').evaluateAll((els) => els.map((e) => [e.textContent, e.classList.contains('off')]));
    assert.ok(chips.some(([n, off]) => n === 'PPB_OpenGLES2;1.0' && !off), JSON.stringify(chips));
    const state = await startPlugin(page);
    assert.equal(state.loaded, true, JSON.stringify(state));
    const types = state.events.map((e) => e.type).filter((t) => ['loadstart', 'load', 'error', 'crash', 'loadend'].includes(t));
    assert.deepEqual(types, ['loadstart', 'load', 'loadend']);
    assert.equal(await page.getAttribute('#plugin-box', 'data-state'), 'running');
    // The box shows the plugin's 3D surface, and what it draws: many colours.
    await page.waitForTimeout(3000);
    assert.equal(await page.locator('#plugin-box canvas.pexe-surface-3d').isVisible(), true);
    const img = decodePng(await page.locator('#plugin-box').screenshot());
    const colours = pixelStats(img).colors;
    assert.ok(colours >= 20, `the Mandelbrot set in the box (${colours} colours)`);
    await screenshot(page, 'plugin-fractal');
    await page.keyboard.press('s');
    await page.waitForFunction(() => window.__pexePlugin.stopped === true);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  await t.test('a program that is no plugin, started in the Plugin view: error, and the terminal still runs it', async () => {
    const page = await openPage(env, '?sample=hello');
    assert.equal(await page.evaluate(() => window.pexeApp.mode), 'program');
    await page.locator('body').press('p');
    assert.equal(await page.evaluate(() => window.pexeApp.mode), 'plugin');
    const state = await startPlugin(page);
    assert.equal(state.loaded, false);
    assert.match(state.lastError, /^NaCl module load failed: .*not a Pepper plugin/);
    assert.equal(await page.getAttribute('#plugin-box', 'data-state'), 'error');
    // p again: the terminal, where it runs.
    await page.locator('body').press('p');
    assert.equal(await page.isVisible('#terminal'), true);
    await page.locator('body').press('r');
    await page.waitForFunction(() => window.__pexeLastRun?.done === true, null, { timeout: 60_000 });
    assert.equal(await page.evaluate(() => window.__pexeLastRun.stdout), 'Hello from pexe!\n');
    await page.close();
  });
});
