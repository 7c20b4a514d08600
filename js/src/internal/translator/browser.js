// Loads the translator in browsers and bundles (the package's default
// entry), and says how this host starts translation Workers and reads the
// WAT printer and the native translator. The URLs are written in the form bundlers recognise, so the
// WebAssembly files and the Worker script are emitted with the bundle and
// the URLs rewritten to them.

import { compileResponse, initTranslator } from './index.js';
import { setPoolHost } from './pool.js';
import { setWatSource } from './wat.js';
import { setNativeSource } from './native.js';

export async function loadTranslator() {
  await initTranslator(await compileResponse(await fetch(new URL('./wasm/pexe_bg.wasm', import.meta.url))));
  setPoolHost(poolHost);
  setWatSource(watSource);
  setNativeSource(nativeSource);
}

const watUrl = new URL('./wasm/pexe_wat_bg.wasm', import.meta.url);

const watSource = {
  load: () => watUrl,
  loadSync: () => fetchSync(watUrl),
};

const nativeUrl = new URL('./wasm/pexe_native_bg.wasm', import.meta.url);
const moduleUrl = import.meta.url;

const nativeSource = {
  load: () => nativeUrl,
  loadSync: () => fetchSync(nativeUrl),
  // The archives are not in bundles: next to the package as it is
  // published, in native/. (The base is a variable so that bundlers, which
  // follow `new URL(…, import.meta.url)`, leave this one alone.)
  async archive(target) {
    const file = `../../native/libpexe_runtime-${target}.a`;
    const url = new URL(file, moduleUrl);
    const response = await fetch(url);
    if (!response.ok) {
      throw new Error(`this build of the package has no native runtime for ${target} (${url}: HTTP ${response.status})`);
    }
    return new Uint8Array(await response.arrayBuffer());
  },
};

// A synchronous request: Workers may ask for an ArrayBuffer; a page's main
// thread may not, and gets the bytes as a "x-user-defined" string.
function fetchSync(url) {
  const xhr = new XMLHttpRequest();
  xhr.open('GET', url, false);
  const inWindow = typeof window !== 'undefined';
  if (inWindow) xhr.overrideMimeType('text/plain; charset=x-user-defined');
  else xhr.responseType = 'arraybuffer';
  xhr.send();
  if (xhr.status !== 200 && xhr.status !== 0) throw new Error(`fetching ${url}: HTTP ${xhr.status}`);
  if (!inWindow) return new Uint8Array(xhr.response);
  const text = xhr.responseText;
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
  return bytes;
}

/** Translation Workers in browsers: module Workers, postMessage only (no shared memory needed). */
const poolHost = {
  concurrency: () => globalThis.navigator?.hardwareConcurrency ?? 1,
  workersAvailable: () => typeof Worker === 'function',
  createWorker() {
    // Written out in full, in this form, for bundlers (see runtime/threads/platform.js).
    const w = new Worker(new URL('./pool-worker.js', import.meta.url), { type: 'module' });
    return {
      post: (msg, transfer) => w.postMessage(msg, transfer ?? []),
      onMessage: (fn) => w.addEventListener('message', (e) => fn(e.data)),
      onError: (fn) =>
        w.addEventListener('error', (e) => {
          e.preventDefault?.();
          fn(e.error ?? new Error(e.message || 'worker error'));
        }),
      onExit: () => {},
      terminate: () => w.terminate(),
      ref: () => {},
      unref: () => {},
    };
  },
};
