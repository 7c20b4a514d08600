// The WAT printer module (pexe_wat_bg.wasm, src/web_wat.rs), loaded the
// first time functionWat prints, or ahead of it by loadWatPrinter(). How
// its bytes are read depends on the host, so the entry registers a source
// (browser.js, node.js):
//
//   source.load()       a Promise of what wasm-bindgen's init takes (a URL, bytes)
//   source.loadSync()   the bytes, synchronously (Node reads the file; a browser
//                       makes a synchronous request), for a functionWat that
//                       nobody prepared

import initWat, { initSync as initWatSync, printFunction, takePanicMessage } from './wasm/pexe_wat.js';
import { wrapError } from './index.js';

let source = null;
let loaded = false;
let loading = null;

/** Where the printer's bytes come from (called once by the entry). */
export function setWatSource(s) {
  source = s;
}

/** Loads the printer in the background; resolves when functionWat can print without waiting. */
export function loadWatPrinter() {
  if (loaded) return Promise.resolve();
  if (!loading) {
    loading = (async () => {
      if (!source) throw new Error('the WAT printer has no source (import the package through its entry)');
      await initWat({ module_or_path: await source.load() });
      loaded = true;
    })();
    loading.catch(() => {
      loading = null;
    });
  }
  return loading;
}

/** The text of function `index` of `module` (functionWasm's answer), loading the printer if needed. */
export function printWat(module, index) {
  if (!loaded) {
    if (!source) throw new Error('the WAT printer has no source (import the package through its entry)');
    initWatSync({ module: source.loadSync() });
    loaded = true;
  }
  try {
    return printFunction(module, index);
  } catch (e) {
    throw wrapError(e, takePanicMessage);
  }
}
