// Case "polyfill": the page embeds the corpus's hello_tutorial plugin the
// way its original page did (an <embed type="application/x-pnacl"> inside
// a listener div); the bundled app only imports 'pexe/polyfill'. The
// plugin greets from its constructor, loads, and answers a number with
// the primes below it (an ArrayBuffer of int32).

import assert from 'node:assert/strict';
import path from 'node:path';

const DIR = 'ppapi/cptaffe_pnacl-test';

/** Files the server adds to the build (URL path → file). */
export function files({ corpus }) {
  return {
    '/hello_tutorial.nmf': path.join(corpus, DIR, 'hello_tutorial.nmf'),
    '/hello_tutorial.pexe': path.join(corpus, DIR, 'hello_tutorial.pexe'),
  };
}

/** Checks the page the build serves; returns a line for the test's output. */
export async function check(page) {
  await page.waitForFunction(() => window.__log.some((e) => e.type !== 'message'), null, { timeout: 120_000 });
  await page.evaluate(() => document.getElementById('hello').postMessage(20));
  await page.waitForFunction(() => window.__log.some((e) => Array.isArray(e.data)), null, { timeout: 60_000 });
  const log = await page.evaluate(() => window.__log);
  assert.deepEqual(log.slice(0, 2), [{ type: 'message', data: 'C++ program online.' }, { type: 'load', lastError: '' }]);
  const primes = log.find((e) => Array.isArray(e.data)).data;
  assert.ok(primes.length >= 4, JSON.stringify(primes));
  assert.deepEqual(primes, [2, 3, 5, 7, 11, 13, 17, 19].slice(0, primes.length));
  assert.equal(await page.evaluate(() => crossOriginIsolated), true);
  return `loaded; primes below 20: ${primes.join(', ')}`;
}
