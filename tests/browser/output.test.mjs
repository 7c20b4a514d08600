// Guest output in the page's runner: stdout and stderr interleaved as the
// guest wrote them, to the last bytes (which end without a newline), before
// the exit status or the guest fault — on an isolated page, where the guest
// writes into the package's OutputRing and the page drains it per frame,
// and on a page without isolation, where the run Worker posts the output.
//
// The program is output/interleave.records (written by hand), assembled
// here by the CLI (`pexe as`): it writes its arguments alternately to
// stdout and stderr, then exits 0, or faults when its environment is not
// empty.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { REPO, launch, openPage, screenshot, skipReason, testNeeding, waitRun } from './helpers.mjs';

const CLI = path.join(REPO, 'target', 'release', 'pexe');
const skip = skipReason() || (!fs.existsSync(CLI) && `no ${CLI} (cargo build --release)`);

/** What interleave.pexe writes for `args`: [stdout, stderr, both in order]. */
function expected(args) {
  let out = '';
  let err = '';
  let both = '';
  args.forEach((a, k) => {
    const text = a + (k < args.length - 1 ? '\n' : '');
    if (k % 2 === 0) out += text;
    else err += text;
    both += text;
  });
  return [out, err, both];
}

testNeeding(skip, 'runner output: order and last bytes', { timeout: 300_000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(REPO, 'target', 'output-test-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const pexe = path.join(dir, 'interleave.pexe');
  execFileSync(CLI, ['as', path.join(REPO, 'tests/browser/output/interleave.records'), '-o', pexe]);
  const bytes = fs.readFileSync(pexe);
  // 3000 arguments, 40 KB of output, the last without its newline.
  const args = Array.from({ length: 3000 }, (_, k) => (k === 2999 ? 'the-last-bytes' : `${k % 2 ? 'err' : 'out'}-${k}`));
  const [out, err, both] = expected(args);

  for (const isolation of [true, false]) {
    const where = isolation ? 'isolated page (OutputRing)' : 'page without isolation (messages)';
    await t.test(where, async () => {
      const env = await launch({ isolation });
      try {
        const page = await openPage(env, '?sample=hello');
        await page.context().route((url) => url.pathname.startsWith('/test-output/'), (route) =>
          route.fulfill({ status: 200, body: bytes, headers: { 'content-type': 'application/x-pnacl', 'cross-origin-resource-policy': 'same-origin' } }),
        );
        await page.goto(`${env.server.url}?url=/test-output/interleave.pexe`);
        await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 60_000 });
        assert.equal(await page.textContent('#file-name'), 'interleave.pexe');
        assert.equal(await page.evaluate(() => crossOriginIsolated), isolation);
        await page.fill('#args-input', args.join(' '));

        // Exit: every byte, in order, then the exit status.
        await page.click('#run-btn');
        let run = await waitRun(page);
        assert.equal(run.error, null);
        assert.equal(run.exitCode, 0);
        assert.ok(run.stdout === out, 'stdout, byte for byte');
        assert.ok(run.stderr === err, 'stderr, byte for byte');
        let term = await page.evaluate(() => {
          const el = document.getElementById('terminal');
          return { text: el.textContent, err: [...el.querySelectorAll('.err')].map((e) => e.textContent).join('') };
        });
        const afterCommand = (text) => text.slice(text.indexOf('\n') + 1);
        assert.ok(afterCommand(term.text).startsWith(both), 'the terminal shows stdout and stderr in the order written');
        assert.match(afterCommand(term.text).slice(both.length), /^\nexit status 0 · \d+ ms\n$/);
        assert.ok(term.err === err, 'stderr, and only stderr, in red');
        assert.equal(run.stdout.endsWith('the-last-bytes'), false, 'the last argument went to stderr');
        assert.ok(run.stderr.endsWith('the-last-bytes'));
        await screenshot(page, `output-exit-${isolation ? 'isolated' : 'not-isolated'}`);

        // Fault: the same bytes, then the fault.
        await page.fill('#env-input', 'FAULT=1');
        await page.click('#clear-btn');
        await page.click('#run-btn');
        run = await waitRun(page);
        assert.equal(run.exitCode, 134);
        assert.match(run.fault, /^guest fault: unreachable in function _start$/);
        assert.ok(run.stdout === out && run.stderr === err, 'every byte written before the fault');
        term = await page.evaluate(() => document.getElementById('terminal').textContent);
        assert.ok(afterCommand(term).startsWith(both));
        assert.match(afterCommand(term).slice(both.length), /^\npexe: guest fault: unreachable in function _start\nexit status 134 \(guest fault\) · \d+ ms\n$/);
        assert.deepEqual(page.problems, []);
        await page.close();
      } finally {
        await env.close();
      }
    });
  }
});
