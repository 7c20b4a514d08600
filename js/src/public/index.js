// The package's API, the same from both entries (../index.js for browsers
// and bundlers, ../node.js for Node), which add what depends on the host:
// `run`, `runInWorker` and `version` (once the WebAssembly is loaded).
// Types and documentation: ../index.d.ts.

export { PexeError } from './errors.js';
export { AbiMismatch } from '../internal/runtime/abi.js';
export {
  inspect,
  disassemble,
  translate,
  stats,
  functionWat,
  loadWatPrinter,
  loadNativeTranslator,
  nativeRuntimeArchive,
  nativeRuntimeFileName,
  nativeLinkCommand,
  pnaclVersion,
  __panicForTests,
} from './translate.js';
export { Translator, Inspector, translateStreaming, inspectStreaming } from './stream.js';
export { embed, PexePlugin } from './embed.js';
export { OutputRing } from './output.js';
