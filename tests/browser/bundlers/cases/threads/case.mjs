// Case "threads": the app runs res/thread.pexe, whose main thread starts a
// pthread that sets `data` and returns 42. Its expected stdout is the
// corpus's thread.txt; it is only printed when thread_create succeeded,
// that is when the guest's threads ran in Workers the bundle emitted.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const TEST = 'cli/binji_pnacl_c/test';

/** Files the server adds to the build (URL path → file). */
export function files({ corpus }) {
  return { '/thread.pexe': path.join(corpus, TEST, 'res/thread.pexe') };
}

/** The STDOUT section of a corpus test description (`# STDOUT:` to the end). */
function expectedStdout(corpus) {
  const text = fs.readFileSync(path.join(corpus, TEST, 'thread.txt'), 'utf8');
  const at = text.indexOf('# STDOUT:\n');
  assert.ok(at >= 0, 'thread.txt has no # STDOUT: section');
  return text.slice(at + '# STDOUT:\n'.length);
}

/** Checks the page the build serves; returns a line for the test's output. */
export async function check(page, { corpus }) {
  await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 120_000 });
  const r = await page.evaluate(() => window.__result);
  assert.equal(r.error, undefined, r.error);
  assert.equal(r.isolated, true, 'the page is not cross-origin isolated');
  assert.equal(r.valid, true);
  assert.deepEqual({ exitCode: r.exitCode, fault: r.fault, stdout: r.stdout }, { exitCode: 0, fault: undefined, stdout: expectedStdout(corpus) });
  return `pexe ${r.version}: exit ${r.exitCode}, stdout ${JSON.stringify(r.stdout)}`;
}
