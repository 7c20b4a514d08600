// The Rust library (src/web.rs) compiled to WebAssembly: wasm-bindgen's
// `--target web` glue and module, which scripts/build-pkg.sh writes to
// ./wasm/ (pexe.js, pexe_bg.wasm; not in the repository). The entries load
// the module once, at import: browser.js fetches it, node.js reads the file.
//
// Also the two things every call into it needs: any BufferSource as a
// Uint8Array, and errors from Rust (or a Rust panic, which traps) as the
// package's PexeError.

import initGlue, * as glue from './wasm/pexe.js';
import { PexeError } from '../../public/errors.js';

export { glue };

/** Instantiates the module from its URL, bytes or compiled WebAssembly.Module. */
export async function initTranslator(moduleOrPath) {
  await initGlue({ module_or_path: moduleOrPath });
}

// What Rust threw, as the package's error. A trap is a panic when the hook
// left a message (console_error_panic_hook has printed it and the stack).
function wrapError(e) {
  if (e instanceof PexeError) return e;
  if (e instanceof WebAssembly.RuntimeError) {
    const message = glue.takePanicMessage();
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
