// Loads the translator in browsers and bundles (the package's default
// entry). The URL is written in the form bundlers recognise, so the
// WebAssembly file is emitted with the bundle and the URL rewritten to it.

import { initTranslator } from './index.js';

export function loadTranslator() {
  return initTranslator(new URL('./wasm/pexe_bg.wasm', import.meta.url));
}
