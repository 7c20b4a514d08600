#!/usr/bin/env node
// Bundles the Node runner (src/internal/node/run.mjs) for `pexe run`:
//
//   node scripts/bundle-runtime.mjs OUT_DIR
//
// writes OUT_DIR/internal/node/run.bundle.mjs and its chunks
// (OUT_DIR/internal/node/bundle-*.mjs), emptying OUT_DIR first, and prints
// their paths relative to OUT_DIR, one a line. build.rs runs it and embeds
// the files next to the raw runtime; `pexe run` starts Node on the entry.
//
// Why a bundle: Node loads an ES module graph file by file (resolve, read,
// parse, link each), and the runner's start-up graph is some 35 files; as
// three it starts ~18 ms of CPU sooner (`pexe run nbody.pexe -- 1`: 0.86×).
// Why esbuild (a devDependency, pinned in package-lock.json): it splits
// the code at dynamic import()s, so what the runner imports lazily (the
// thread machinery, Pepper, sockets, storage) stays in chunks that load
// only when a run needs them; one file holding all of it (678 KB) starts
// slower than the separate modules. Minifying gained nothing measurable.
//
// Where the files go matters: the runner's host (internal/node/host.js)
// starts guest threads with `new URL('./worker.js', import.meta.url)` and
// builds a require() from import.meta.url, which esbuild leaves as they
// are. So every output file sits in internal/node/ of the runtime's
// folder, next to the raw worker.js, which Workers load (a Worker is a
// separate JavaScript realm, so its raw modules are no second copy of
// the bundle's).
//
// Exit status 3 (and a message on stderr) when esbuild is not installed
// (`npm ci` in js/, which scripts/setup.sh runs): build.rs then embeds
// the raw files only.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** The bundle's entry, relative to the runtime's folder (run.rs starts it). */
export const BUNDLE_ENTRY = 'internal/node/run.bundle.mjs';

/**
 * Bundles the runner into `outDir` (emptied first). Returns each output
 * file, by its path relative to `outDir` (sorted, the entry among them),
 * with the sources it holds (relative to src/) and the files it imports
 * statically (relative to `outDir`).
 */
export async function bundleRuntime(outDir, esbuild) {
  fs.rmSync(outDir, { recursive: true, force: true });
  const dir = path.join(outDir, path.dirname(BUNDLE_ENTRY));
  const result = await esbuild.build({
    entryPoints: { [path.basename(BUNDLE_ENTRY, '.mjs')]: path.join(SRC, 'internal/node/run.mjs') },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    // The runtime's own minimum: no syntax is lowered.
    target: 'node20',
    outdir: dir,
    // .mjs: ES modules whatever package.json is (or is not) beside them.
    outExtension: { '.js': '.mjs' },
    // A prefix no raw file of internal/node/ has.
    chunkNames: 'bundle-[name]-[hash]',
    metafile: true,
    logLevel: 'silent',
  });
  for (const w of result.warnings) process.stderr.write(`bundle-runtime: warning: ${w.text}\n`);
  const rel = (from, f) => path.relative(from, path.resolve(f)).split(path.sep).join('/');
  const outputs = {};
  for (const [file, out] of Object.entries(result.metafile.outputs).sort(([a], [b]) => (a < b ? -1 : 1))) {
    outputs[rel(outDir, file)] = {
      inputs: Object.keys(out.inputs).map((f) => rel(SRC, f)).sort(),
      imports: out.imports.filter((i) => i.kind === 'import-statement' && !i.external).map((i) => rel(outDir, i.path)),
    };
  }
  if (!outputs[BUNDLE_ENTRY]) throw new Error(`esbuild wrote no ${BUNDLE_ENTRY}: ${Object.keys(outputs).join(', ')}`);
  return outputs;
}

/** esbuild, or null when it is not installed. */
export async function loadEsbuild() {
  try {
    return await import('esbuild');
  } catch (e) {
    if (e?.code === 'ERR_MODULE_NOT_FOUND') return null;
    throw e;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const outDir = process.argv[2];
  if (!outDir) {
    process.stderr.write('usage: node scripts/bundle-runtime.mjs OUT_DIR\n');
    process.exit(2);
  }
  const esbuild = await loadEsbuild();
  if (!esbuild) {
    process.stderr.write('bundle-runtime: esbuild is not installed (run `npm ci` in js/, or scripts/setup.sh)\n');
    process.exit(3);
  }
  const outputs = await bundleRuntime(path.resolve(outDir), esbuild);
  process.stdout.write(Object.keys(outputs).map((f) => `${f}\n`).join(''));
}
