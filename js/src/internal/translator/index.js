// The Rust library compiled to WebAssembly, as two modules that
// scripts/build-pkg.sh writes to ./wasm/ (not in the repository):
//
//   pexe.js, pexe_bg.wasm           the translator (src/web.rs): everything the API
//                                   calls; the entries load it once, at import
//   pexe_wat.js, pexe_wat_bg.wasm   the WAT printer, disassemble and stats
//                                   (src/web_wat.rs), as large as the translator and
//                                   only for the page's views: loaded the first time
//                                   one of them is called (./wat.js)
//
// The entries compile the translator themselves (browser.js fetches it,
// node.js reads the file) and keep the WebAssembly.Module: the pool of
// translation Workers (./pool.js) instantiates the same one.
//
// Also the two things every call into it needs: any BufferSource as a
// Uint8Array, and errors from Rust (or a Rust panic, which traps) as the
// package's PexeError.

import initGlue, * as glue from './wasm/pexe.js';
import { PexeError } from '../../public/errors.js';

export { glue };

let compiled = null;

/** Instantiates the translator from its compiled WebAssembly.Module. */
export async function initTranslator(module) {
  compiled = module;
  await initGlue({ module_or_path: module });
}

/** The translator's WebAssembly.Module (for Workers), once loaded. */
export function translatorModule() {
  return compiled;
}

/** Compiles a fetch() Response of a .wasm file, streaming when the server says it is wasm. */
export async function compileResponse(response) {
  if (!response.ok) throw new Error(`fetching ${response.url}: HTTP ${response.status} ${response.statusText}`.trim());
  if (typeof WebAssembly.compileStreaming === 'function' && response.headers.get('Content-Type') === 'application/wasm') {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

// What Rust threw, as the package's error. A trap is a panic when the hook
// left a message (console_error_panic_hook has printed it and the stack).
export function wrapError(e, takePanicMessage = glue.takePanicMessage) {
  if (e instanceof PexeError) return e;
  if (e instanceof WebAssembly.RuntimeError) {
    const message = takePanicMessage();
    if (message !== undefined) {
      return new PexeError(`pexe panicked (a bug; please report it): ${message}`, { kind: 'panic', cause: e });
    }
    return e;
  }
  if (e instanceof Error && e.name === 'PexeError' && typeof e.kind === 'string') {
    return new PexeError(e.message, { kind: e.kind, diagnostics: e.diagnostics ?? [], listing: e.listing });
  }
  return e;
}

/** Runs `f` (a call into Rust), rethrowing what it throws as wrapError says. */
export function guarded(f) {
  try {
    return f();
  } catch (e) {
    throw wrapError(e);
  }
}

/** A Uint8Array over any BufferSource (no copy). */
export function bytesOf(input, what = 'a pexe') {
  if (input instanceof Uint8Array) return input;
  if (input instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && input instanceof SharedArrayBuffer)) {
    return new Uint8Array(input);
  }
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  throw new TypeError(`expected the bytes of ${what} (a Uint8Array, ArrayBuffer or other ArrayBufferView)`);
}

/** Whether `input` is a BufferSource (what bytesOf takes). */
export function isBytes(input) {
  return (
    input instanceof ArrayBuffer ||
    (typeof SharedArrayBuffer !== 'undefined' && input instanceof SharedArrayBuffer) ||
    ArrayBuffer.isView(input)
  );
}
