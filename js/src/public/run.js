// Running: a pexe is translated first, a WebAssembly module (or its bytes)
// runs as it is, through the runtime (internal/runtime/) on the entry's
// host (browserHost or nodeHost).

import { run as runModule, runInWorker as runModuleInWorker } from '../internal/runtime/index.js';
import { bytesOf } from '../internal/translator/index.js';
import { translate } from './translate.js';

const PEXE_MAGIC = [0x50, 0x45, 0x58, 0x45]; // "PEXE"
const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d]; // "\0asm"

function startsWith(bytes, magic) {
  return bytes.length >= magic.length && magic.every((b, i) => bytes[i] === b);
}

// What the runtime runs: a compiled module, or the bytes of one (a pexe is
// translated first; anything else that is not wasm goes to the translator
// too, which says what is wrong with it).
function programOf(program) {
  if (program instanceof WebAssembly.Module) return program;
  const bytes = bytesOf(program, 'a pexe or WebAssembly module');
  if (startsWith(bytes, WASM_MAGIC) && !startsWith(bytes, PEXE_MAGIC)) return bytes;
  return translate(bytes);
}

function runOptions(options) {
  return { ...options, args: options?.args ?? ['pexe'] };
}

/** `run` and `runInWorker` on `host`; the entries export them. */
export function runners(host) {
  return {
    /** Runs a pexe (or a module `translate` made). Resolves `{ exitCode, fault? }`. */
    async run(program, options = {}) {
      return runModule(programOf(program), runOptions(options), host);
    },
    /** `run` for pages: the guest's main thread always runs in a Worker. */
    async runInWorker(program, options = {}) {
      return runModuleInWorker(programOf(program), runOptions(options), host);
    },
  };
}
