// The printer module (pexe_wat_bg.wasm, src/web_wat.rs): the WAT printer,
// and disassemble and stats, which only the page's views ask for. Loaded
// the first time one of them is called, or ahead of it by
// loadWatPrinter(). How its bytes are read depends on the host, so the
// entry registers a source (browser.js, node.js):
//
//   source.load()       a Promise of what wasm-bindgen's init takes (a URL, bytes)
//   source.loadSync()   the bytes, synchronously (Node reads the file; a browser
//                       makes a synchronous request), for a call that
//                       nobody prepared

import initWat, {
  initSync as initWatSync,
  printFunction,
  disassemble as disassembleIn,
  stats as statsIn,
  takePanicMessage,
} from './wasm/pexe_wat.js';
import { wrapError } from './index.js';

let source = null;
let loaded = false;
let loading = null;

/** Where the printer's bytes come from (called once by the entry). */
export function setWatSource(s) {
  source = s;
}

/** Loads the printer in the background; resolves when functionWat, disassemble and stats can run without waiting. */
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

/** Runs `f` (a call into the printer), loading the printer first if needed. */
function inPrinter(f) {
  if (!loaded) {
    if (!source) throw new Error('the WAT printer has no source (import the package through its entry)');
    initWatSync({ module: source.loadSync() });
    loaded = true;
  }
  try {
    return f();
  } catch (e) {
    throw wrapError(e, takePanicMessage);
  }
}

/** The text of function `index` of `module` (functionWasm's answer). */
export function printWat(module, index) {
  return inPrinter(() => printFunction(module, index));
}

/** The pnacl-bcdis listing of the pexe `bytes` (a Uint8Array). */
export function disassembleWith(bytes, options) {
  return inPrinter(() => disassembleIn(bytes, options));
}

/** `pexe stats` as data for the pexe `bytes` (a Uint8Array). */
export function statsWith(bytes) {
  return inPrinter(() => statsIn(bytes));
}
