// The inside of a translation Worker (./pool.js is the outside): an
// instance of the translator that turns body jobs into translated bodies.
// The entry scripts give it a port: pool-worker.js in browsers,
// ../node/translator-worker.js in Node.
//
// Messages in (in this order for each translation):
//   { module }               the translator's compiled WebAssembly.Module (once)
//   { gen, prefix, options } a new translation: BodyTranslator(prefix, options)
//   { gen, batch, headers, bytes, base }  jobs to translate in order: their headers
//                            (BodySplitter's) end to end, and the file's bytes from
//                            byte `base` on through the last one's body
// Messages out (`gen` says which translation they belong to):
//   { gen, batch, results, ends }                    the translated bodies, packed the same way
//                                                    (transferred); a batch is one call of
//                                                    BodyTranslator.translateBatch
//   { gen, batch, error: { message, kind, panic } }  the first problem; the pool then
//                                               translates on its own thread for the
//                                               exact report, and drops this Worker
//                                               if it panicked

import { initSync, BodyTranslator, takePanicMessage } from './wasm/pexe.js';

export function serveTranslator(port) {
  let translator = null;
  let failed = null;
  let gen = 0;
  port.onMessage((msg) => {
    if (msg.module) {
      initSync({ module: msg.module });
      return;
    }
    if (msg.prefix) {
      translator?.free();
      translator = null;
      failed = null;
      gen = msg.gen;
      try {
        translator = new BodyTranslator(msg.prefix, msg.options);
      } catch (e) {
        failed = describe(e);
      }
      return;
    }
    if (msg.headers) {
      if (failed) {
        port.post({ gen, batch: msg.batch, error: failed });
        return;
      }
      let results;
      let ends;
      try {
        results = translator.translateBatch(msg.headers, msg.bytes, msg.base);
        ends = translator.ends;
      } catch (e) {
        failed = describe(e);
        port.post({ gen, batch: msg.batch, error: failed });
        return;
      }
      port.post({ gen, batch: msg.batch, results, ends }, [results.buffer, ends.buffer]);
    }
  });
}

function describe(e) {
  const panic = e instanceof WebAssembly.RuntimeError;
  const message = panic ? (takePanicMessage() ?? String(e.message)) : String(e?.message ?? e);
  return { message, kind: e?.kind ?? null, panic };
}
