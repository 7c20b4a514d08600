// The Worker that translates one pexe while it downloads, so the page
// never stalls: the package's streaming Translator (public/stream.js),
// fed chunk by chunk; it decodes and verifies function bodies as their
// bytes arrive, and translates in `finish`. translate.js starts it.
//
//   page → here   {type: 'feed', chunk}   {type: 'finish'}
//   here → page   {type: 'progress', phase, functionsTranslated, functionsTotal}
//                 {type: 'done', wasm}    (transferred)
//                 {type: 'error', message, kind, diagnostics}
//
// After an error the Worker ignores everything; the page terminates it.

import { loadTranslator } from '../translator/browser.js';
import { Translator } from '../../public/stream.js';

const ready = loadTranslator();
let translator = null;
let failed = false;
let lastProgress = 0;

function fail(e) {
  failed = true;
  translator?.free();
  translator = null;
  self.postMessage({
    type: 'error',
    message: String(e?.message ?? e),
    kind: e?.kind ?? 'translate',
    diagnostics: Array.isArray(e?.diagnostics) ? e.diagnostics.map((d) => ({ ...d })) : [],
  });
}

function onProgress(p) {
  const now = performance.now();
  if (p.phase !== 'translate' || now - lastProgress < 50) return;
  lastProgress = now;
  self.postMessage({ type: 'progress', phase: p.phase, functionsTranslated: p.functionsTranslated, functionsTotal: p.functionsTotal });
}

// Messages are handled strictly in order, each after the translator loaded.
let chain = ready.catch((e) => fail(new Error(`the translator could not load: ${e?.message ?? e}`)));
self.addEventListener('message', (e) => {
  const msg = e.data;
  chain = chain.then(() => {
    if (failed) return;
    try {
      translator ??= new Translator({ onProgress });
      if (msg?.type === 'feed') {
        translator.feed(msg.chunk);
      } else if (msg?.type === 'finish') {
        const wasm = translator.finish();
        translator.free();
        translator = null;
        self.postMessage({ type: 'done', wasm }, [wasm.buffer]);
      }
    } catch (err) {
      fail(err);
    }
  });
});
