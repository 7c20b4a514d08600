// Public entry of the pexe JavaScript package: run translated pexes.
// Everything else under src/ is internal.

export { run, runInWorker, AbiMismatch } from './runtime/index.js';
