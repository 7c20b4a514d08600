// The `pexe` package in browsers and bundlers (the "default" condition of
// package.json's exports): read, check, translate and run PNaCl programs.
//
//   import { inspect, disassemble, translate, run, Translator } from 'pexe';
//
// Importing it loads the translator's WebAssembly (top-level await), so
// every function is ready once the import resolves. Nothing reachable from
// here imports a `node:` module; guest threads run in module Workers that
// bundlers find (internal/runtime/threads/platform.js). Node gets node.js.
// The public API is in public/, its types in index.d.ts; internal/ is not API.

import { browserHost } from './internal/runtime/threads/platform.js';
import { loadTranslator } from './internal/translator/browser.js';
import { packageVersion } from './public/translate.js';
import { runners } from './public/run.js';

export * from './public/index.js';

await loadTranslator();

/** The package version. */
export const version = packageVersion();

export const { run, runInWorker } = runners(browserHost);
