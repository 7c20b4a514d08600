// Reading, checking and translating pexes: the package's synchronous API
// over the Rust library (src/web.rs) compiled to WebAssembly. The entry
// (index.js / node.js) has loaded the WebAssembly before any of this runs.
//
// The wrappers accept any BufferSource, turn errors from Rust into
// PexeError, and turn a Rust panic (a trap) into a PexeError carrying the
// panic message (internal/translator/index.js).

import { IRT_INTERFACES, PPAPI_HOOK } from '../internal/runtime/abi.js';
import { bytesOf, glue, guarded } from '../internal/translator/index.js';
import { disassembleWith, loadWatPrinter, printWat, statsWith } from '../internal/translator/wat.js';
import {
  NATIVE_TARGETS,
  loadNativeTranslator,
  translateToObject,
  nativeRuntimeArchive,
  nativeRuntimeFileName,
  nativeLinkCommand,
} from '../internal/translator/native.js';

export { loadWatPrinter, loadNativeTranslator, nativeRuntimeArchive, nativeRuntimeFileName, nativeLinkCommand };

/** The PNaCl bitcode version the package reads. */
export const pnaclVersion = 2;

/** The package version (the crate's); call once the WebAssembly is loaded. */
export function packageVersion() {
  return glue.version();
}

// Interfaces the runtime answers no version of. libc asks for several versions of
// some (nacl-irt-memory-0.1, -0.2, -0.3) and takes the first answered, so
// one answered version is enough.
const family = (name) => name.replace(/-[0-9][0-9.]*$/, '');
const ANSWERED_FAMILIES = new Set(Object.keys(IRT_INTERFACES).map(family));

/** Adds `irt.unsupported` to a module summary. */
export function withUnsupported(summary) {
  // The Pepper hook is answered to plugins, which is what asking for it makes a pexe.
  summary.irt.unsupported = summary.irt.interfaces.filter(
    (name) => !ANSWERED_FAMILIES.has(family(name)) && !(summary.pepper?.plugin && name === PPAPI_HOOK),
  );
  return summary;
}

/** Summarizes a pexe; never throws for bad input. */
export function inspect(bytes) {
  const input = bytesOf(bytes);
  return withUnsupported(guarded(() => glue.inspect(input)));
}

/**
 * The pnacl-bcdis listing, as `pexe dis` prints it: from the printer
 * module, loaded the first time (internal/translator/wat.js).
 */
export function disassemble(bytes, options) {
  const input = bytesOf(bytes);
  return disassembleWith(input, options);
}

/** Test hook, not API: a Rust panic, to check that it surfaces as a PexeError. */
export function __panicForTests(message) {
  return guarded(() => glue.__panicForTests(String(message)));
}

/**
 * Decodes, verifies and translates a pexe to a WebAssembly module or, for
 * target 'x86_64-linux' / 'aarch64-linux', to an ELF relocatable object:
 * those go to the native translator module, loaded the first time
 * (internal/translator/native.js).
 */
export function translate(bytes, options) {
  const input = bytesOf(bytes);
  const target = options !== null && typeof options === 'object' ? options.target : undefined;
  if (NATIVE_TARGETS.includes(target)) return translateToObject(input, target);
  return guarded(() => glue.translate(input, options));
}

/** `pexe stats` as data, from the printer module as disassemble; never throws for bad input. */
export function stats(bytes) {
  const input = bytesOf(bytes);
  return statsWith(input);
}

/**
 * The WebAssembly text of the function translated from `@fN`. The
 * translator module cuts the function out (functionWasm); the WAT printer
 * module, loaded the first time (internal/translator/wat.js), prints it.
 */
export function functionWat(bytes, options) {
  const input = bytesOf(bytes);
  const { module, index } = guarded(() => glue.functionWasm(input, options));
  return printWat(module, index);
}
