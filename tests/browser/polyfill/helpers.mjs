// What the polyfill tests share: the corpus sites, a page opened the way
// a visitor would (other hosts unreachable, as in CI), the page's problems
// collected, the trap plugin assembled, and a look at which Workers of the
// page's renderer are busy (per-thread CPU time from /proc).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CORPUS, REPO, skipReason } from '../helpers.mjs';

export const PPAPI = path.join(CORPUS, 'ppapi');
export const PEXE_BIN = path.join(REPO, 'target', 'release', 'pexe');
export const HERE = path.dirname(new URL(import.meta.url).pathname);

/** Why these tests cannot run here (skipReason's, plus the pexe binary), or false. */
export function polyfillSkipReason() {
  const base = skipReason({ corpus: true });
  if (base) return base;
  if (!fs.existsSync(path.join(REPO, 'pkg', 'polyfill.js'))) return 'pkg/ has no polyfill.js (scripts/build-pkg.sh)';
  if (!fs.existsSync(PEXE_BIN)) return `no ${PEXE_BIN} (cargo build --release)`;
  return false;
}

/**
 * A new page (in its own browser context unless `context` is given) with
 * requests to other hosts failed at once, and `page.problems` collecting
 * uncaught errors and console errors; `page.logs` every console line.
 */
export async function newPage(browser, { context = null, viewport = { width: 1024, height: 768 } } = {}) {
  const ctx = context ?? (await browser.newContext({ viewport }));
  const page = await ctx.newPage();
  page.problems = [];
  page.logs = [];
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    page.logs.push(`${m.type()}: ${m.text()}`);
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) page.problems.push(`console: ${m.text()}`);
  });
  await page.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
  page.closeAll = async () => {
    await page.close().catch(() => {});
    if (!context) await ctx.close().catch(() => {});
  };
  return page;
}

/** Assembles `name`.records (this folder) with `pexe as`; returns the pexe's path. */
export function assemble(name) {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pexe-polyfill-')), `${name}.pexe`);
  const r = spawnSync(PEXE_BIN, ['as', path.join(HERE, `${name}.records`), '-o', out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`pexe as ${name}.records failed:\n${r.stderr}`);
  return out;
}

// ------------------------------------------------------------ busy Workers

const TICK_MS = 1000 / 100; // USER_HZ: /proc reports CPU time in 1/100 s on Linux

/** The renderer processes' pids (CDP SystemInfo.getProcessInfo). */
async function rendererPids(browser) {
  const cdp = await browser.newBrowserCDPSession();
  try {
    const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
    return processInfo.filter((p) => p.type === 'renderer').map((p) => p.id);
  } finally {
    await cdp.detach().catch(() => {});
  }
}

/** CPU ticks of every thread of `pid`: Map "pid/tid" → { name, ticks }. */
function threadTicks(pid) {
  const out = new Map();
  let tids = [];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      // Fields after the ")" of the command: state is field 3; utime, stime are 14, 15.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(`${pid}/${tid}`, { name, ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/**
 * Samples the renderers' Worker threads; `await sampler.busy()` later gives
 * the Worker threads that used at least `share` of one core since, as
 * [{ name, ms }] (busiest first), and the wall time.
 */
export async function workerCpuSampler(browser) {
  if (!fs.existsSync('/proc/self/task')) throw new Error('measuring Worker threads needs Linux /proc');
  const pids = await rendererPids(browser);
  const before = new Map();
  for (const pid of pids) for (const [k, v] of threadTicks(pid)) before.set(k, v);
  const t0 = performance.now();
  return {
    busy(share = 0.3) {
      const wall = performance.now() - t0;
      const threads = [];
      for (const pid of pids) {
        for (const [k, v] of threadTicks(pid)) {
          if (!process.env.ALLTHREADS && !/Worker/i.test(v.name)) continue;
          const ms = (v.ticks - (before.get(k)?.ticks ?? 0)) * TICK_MS;
          threads.push({ name: v.name, ms });
        }
      }
      threads.sort((a, b) => b.ms - a.ms);
      return { wall, workers: threads, busy: threads.filter((t) => t.ms >= share * wall) };
    },
  };
}

/** Waits until `predicate(lines)` holds for the lines `read()` returns. */
export async function waitForLines(read, predicate, { timeout = 60_000, what = 'lines' } = {}) {
  const deadline = Date.now() + timeout;
  let lines = [];
  while (Date.now() < deadline) {
    lines = await read();
    if (predicate(lines)) return lines;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}; last lines:\n${lines.slice(-15).join('\n')}`);
}
