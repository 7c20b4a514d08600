// Loads the translator in Node (the package's `node` entry): fetch() cannot
// read file: URLs, so the bytes are read here and compiled from memory.
// Translation Workers run in worker_threads (./node-worker.js).

import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { initTranslator } from './index.js';
import { setPoolHost } from './pool.js';
import { setWatSource } from './wat.js';
import { setNativeSource } from './native.js';

export async function loadTranslator() {
  await initTranslator(await WebAssembly.compile(await readFile(new URL('./wasm/pexe_bg.wasm', import.meta.url))));
  setPoolHost(poolHost);
  setWatSource(watSource);
  setNativeSource(nativeSource);
}

const watUrl = new URL('./wasm/pexe_wat_bg.wasm', import.meta.url);

const watSource = {
  load: () => readFile(watUrl),
  loadSync: () => readFileSync(watUrl),
};

const nativeUrl = new URL('./wasm/pexe_native_bg.wasm', import.meta.url);

const nativeSource = {
  load: () => readFile(nativeUrl),
  loadSync: () => readFileSync(nativeUrl),
  async archive(target) {
    const url = new URL(`../../native/libpexe_runtime-${target}.a`, import.meta.url);
    try {
      return new Uint8Array(await readFile(url));
    } catch (e) {
      if (e.code !== 'ENOENT') throw e;
      throw new Error(`this build of the package has no native runtime for ${target} (${url.pathname} is missing: scripts/build-pkg.sh copies it when the Rust target is installed)`);
    }
  },
};

const poolHost = {
  concurrency: () => availableParallelism(),
  workersAvailable: () => true,
  createWorker() {
    const w = new Worker(new URL('./node-worker.js', import.meta.url));
    return {
      post: (msg, transfer) => w.postMessage(msg, transfer ?? []),
      onMessage: (fn) => w.on('message', fn),
      onError: (fn) => w.on('error', fn),
      onExit: (fn) => w.on('exit', fn),
      terminate: () => void w.terminate().catch(() => {}),
      ref: () => w.ref(),
      unref: () => w.unref(),
    };
  },
};
