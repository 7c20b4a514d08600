// Threads: the dev server's COOP/COEP headers make the page cross-origin
// isolated, so a pthreads program (res/thread.pexe: IRT thread_create,
// futexes, atomics) runs with its threads in Workers. Without isolation
// (server --no-isolation) the page says so and still runs one-thread
// programs, in a Worker, without blocking the page.

import assert from 'node:assert/strict';
import { launch, openPage, screenshot, skipReason, testNeeding, waitRun } from './helpers.mjs';

const skip = skipReason({ corpus: true });
const THREAD = '/corpus/cli/binji_pnacl_c/test/res/thread.pexe';
const SEM = '/corpus/cli/binji_pnacl_c/test/res/sem.pexe';
const BINARYTREES = '/corpus/cli/binji_pnacl_c/test/benchmark/res/binarytrees.pexe';

testNeeding(skip, 'isolated page: a threaded corpus program runs', { timeout: 300_000 }, async (t) => {
  const env = await launch({ isolation: true });
  t.after(() => env.close());
  const page = await openPage(env, `?url=${encodeURIComponent(THREAD)}`);
  assert.equal(await page.evaluate(() => crossOriginIsolated), true);
  assert.match(await page.textContent('#iso-badge'), /isolated · threads/);
  await page.click('#run-btn');
  const run = await waitRun(page);
  assert.equal(run.error, null);
  assert.equal(run.exitCode, 0, run.fault ?? '');
  assert.equal(run.stdout, 'data = 10\nretval = 0x2a\n');
  assert.match(await page.textContent('#terminal'), /data = 10/);
  await screenshot(page, 'thread-isolated');

  // Four threads, semaphores and __sync_add_and_fetch.
  await page.fill('#url-input', SEM);
  await page.press('#url-input', 'Enter');
  await page.waitForFunction(() => window.pexeApp.fileName === 'sem.pexe' && window.pexeApp.summary);
  await page.click('#clear-btn');
  await page.click('#run-btn');
  const sem = await waitRun(page);
  assert.equal(sem.exitCode, 0, sem.fault ?? '');
  assert.equal(sem.stdout, 'total = 5050\n');

  // A long run stops with `s` (the run's Worker is terminated), and the next run works.
  await page.fill('#url-input', BINARYTREES);
  await page.press('#url-input', 'Enter');
  await page.waitForFunction(() => window.pexeApp.fileName === 'binarytrees.pexe' && window.pexeApp.summary);
  await page.fill('#args-input', '22');
  await page.click('#run-btn');
  await page.waitForFunction(() => window.__pexeLastRun?.phase === 'run', null, { timeout: 60_000 });
  await page.waitForTimeout(500);
  await page.locator('#terminal').focus();
  await page.keyboard.press('s');
  await page.waitForFunction(() => window.__pexeLastRun?.stopped === true);
  assert.match(await page.textContent('#run-status'), /stopped/);
  assert.equal(await page.isDisabled('#run-btn'), false);
  await page.fill('#args-input', '6');
  await page.click('#run-btn');
  const bt = await waitRun(page);
  assert.equal(bt.exitCode, 0);
  assert.match(bt.stdout, /^stretch tree of depth 7\t check: -1\n/);

  assert.deepEqual(page.problems, []);
  await page.close();
});

testNeeding(skip, 'page without isolation: one guest thread, still off the main thread', { timeout: 300_000 }, async (t) => {
  const env = await launch({ isolation: false });
  t.after(() => env.close());
  const page = await openPage(env, '?sample=hello');
  assert.equal(await page.evaluate(() => crossOriginIsolated), false);
  assert.match(await page.textContent('#iso-badge'), /not isolated/);
  await page.click('#run-btn');
  const run = await waitRun(page);
  assert.equal(run.exitCode, 0);
  assert.equal(run.stdout, 'Hello from pexe!\n');
  await screenshot(page, 'hello-not-isolated');
  assert.deepEqual(page.problems, []);
  await page.close();
});
