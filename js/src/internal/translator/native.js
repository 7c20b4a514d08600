// The native translator module (pexe_native_bg.wasm, src/web_native.rs:
// the native back end, Cranelift), loaded the first time translate() is
// asked for an x86-64 or AArch64 Linux object, or ahead of it by
// loadNativeTranslator(); and the native runtime archives
// (../../native/libpexe_runtime-<target>.a) an object is linked with.
// How bytes are read depends on the host, so the entry registers a source
// (browser.js, node.js):
//
//   source.load()              a Promise of what wasm-bindgen's init takes (a URL, bytes)
//   source.loadSync()          the bytes, synchronously (Node reads the file; a browser
//                              makes a synchronous request)
//   source.archive(target)     a Promise of the runtime archive's bytes

import initNative, {
  initSync as initNativeSync,
  translateNative,
  objectIsPepperPlugin,
  takePanicMessage,
} from './wasm/pexe_native.js';
import { wrapError } from './index.js';
import { PexeError } from '../../public/errors.js';

/** The native targets: what translate's `target` names, and the runtime each links with. */
export const NATIVE_TARGETS = Object.freeze(['x86_64-linux', 'aarch64-linux']);

let source = null;
let loaded = false;
let loading = null;

/** Where the module's and the archives' bytes come from (called once by the entry). */
export function setNativeSource(s) {
  source = s;
}

function needSource() {
  if (!source) throw new Error('the native translator has no source (import the package through its entry)');
}

/** Loads the native translator in the background; resolves when translate needs no loading for native targets. */
export function loadNativeTranslator() {
  if (loaded) return Promise.resolve();
  if (!loading) {
    loading = (async () => {
      needSource();
      await initNative({ module_or_path: await source.load() });
      loaded = true;
    })();
    loading.catch(() => {
      loading = null;
    });
  }
  return loading;
}

function ensureLoaded() {
  if (loaded) return;
  needSource();
  initNativeSync({ module: source.loadSync() });
  loaded = true;
}

/** The ELF relocatable object for `target` (one of NATIVE_TARGETS), loading the module if needed. */
export function translateToObject(input, target) {
  ensureLoaded();
  try {
    return translateNative(input, target);
  } catch (e) {
    throw wrapError(e, takePanicMessage);
  }
}

/** Whether an object translateToObject made is a Pepper plugin (which does not link). */
export function isPepperObject(object) {
  ensureLoaded();
  return objectIsPepperPlugin(object);
}

function checkTarget(target, what) {
  if (!NATIVE_TARGETS.includes(target)) {
    throw new PexeError(`${what}: unknown native target ${JSON.stringify(target)} (one of 'x86_64-linux', 'aarch64-linux')`, {
      kind: 'options',
    });
  }
}

/** The file name of the runtime archive for `target`, as the package holds it (native/). */
export function nativeRuntimeFileName(target) {
  checkTarget(target, 'nativeRuntimeFileName');
  return `libpexe_runtime-${target}.a`;
}

/** The runtime archive's bytes for `target`. */
export async function nativeRuntimeArchive(target) {
  checkTarget(target, 'nativeRuntimeArchive');
  needSource();
  return source.archive(target);
}

// The C compiler driver `pexe build` links with (src/bin/pexe/native.rs,
// `linker`): `cc` on a machine of the target's architecture, Debian's
// cross compiler otherwise.
function defaultCompiler(target) {
  const hostArch = globalThis.process?.versions?.node ? globalThis.process.arch : null;
  if (target === 'x86_64-linux') return hostArch === null || hostArch === 'x64' ? 'cc' : 'x86_64-linux-gnu-gcc';
  return hostArch === 'arm64' ? 'cc' : 'aarch64-linux-gnu-gcc';
}

// A word as a POSIX shell reads it: as it is when it is plain, else quoted.
function shellWord(s) {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The one-line command that links an object with the runtime archive into
 * a static executable: the command `pexe build` runs
 * (`cc -static -Wl,--gc-sections -o OUT OBJ ARCHIVE`).
 */
export function nativeLinkCommand(target, options = {}) {
  checkTarget(target, 'nativeLinkCommand');
  if (options === null || typeof options !== 'object') {
    throw new PexeError('nativeLinkCommand options must be an object', { kind: 'options' });
  }
  const cc = options.cc ?? defaultCompiler(target);
  const output = options.output ?? 'app';
  const object = options.object ?? `${output}.o`;
  const archive = options.archive ?? nativeRuntimeFileName(target);
  for (const [k, v] of Object.entries({ cc, output, object, archive })) {
    if (typeof v !== 'string' || v === '') throw new PexeError(`option '${k}' must be a non-empty string`, { kind: 'options' });
  }
  return [cc, '-static', '-Wl,--gc-sections', '-o', output, object, archive].map(shellWord).join(' ');
}
