// The `pexe` package in Node >= 20 (the "node" condition of package.json's
// exports): the same API as index.js, with the translator's WebAssembly
// read from disk and the runtime on Node's host (worker_threads, the host
// file system for `hostFs`, stdio passthrough for `'inherit'`).

import { nodeHost } from './internal/node/host.js';
import { loadTranslator } from './internal/translator/node.js';
import { packageVersion } from './public/translate.js';
import { runners } from './public/run.js';

export * from './public/index.js';

await loadTranslator();

/** The package version. */
export const version = packageVersion();

export const { run, runInWorker } = runners(nodeHost);
