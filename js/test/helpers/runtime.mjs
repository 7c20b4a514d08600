// The runtime as the package's Node entry runs it: `run`/`runInWorker` on
// Node's host (internal/node/host.js), without the translator.

import { run as runOn, runInWorker as runInWorkerOn, AbiMismatch } from '../../src/internal/runtime/index.js';
import { nodeHost } from '../../src/internal/node/host.js';

export { AbiMismatch };
export const run = (wasm, options) => runOn(wasm, options, nodeHost);
export const runInWorker = (wasm, options) => runInWorkerOn(wasm, options, nodeHost);
