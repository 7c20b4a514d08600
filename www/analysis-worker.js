// The inspector's worker: holds the open pexe and does every heavy job off
// the page's main thread (streaming decode, the listing, per-function text,
// statistics, translation for downloads).
//
// Protocol: the page posts `{ id, op, ...args }`; the worker answers
// `{ id, ok: true, result }` or `{ id, ok: false, error }` (error: a plain
// PexeError-like object), and posts `{ progress }` while a load streams.
//
// ops:
//   open-url {url}         fetch + Inspector.feed per chunk → {summary, bytes}
//   open-bytes {bytes}     inspect → {summary}
//   listing                full listing → {text, lineStarts, linePos, blocks}
//   function {id}          {asm, wat, watError}  (pkg.disassemble, pkg.functionWat)
//   stats                  record/abbreviation statistics (pkg.stats)
//   records                the records-only listing (what `pexe as` reads)
//   translate              {wasm, ms}  (pkg.translateStreaming: bodies on Workers)
//   native {target}        {bytes, ms}  an ELF object (pkg.translate with a native target;
//                          the native translator module loads on first use)
//   runtime {target}       {bytes, name}  the runtime archive it links with (pkg.nativeRuntimeArchive)
//   link-command {target, base}   the one-line link command (pkg.nativeLinkCommand)

import * as pkg from './pkg/index.js';

let bytes = null;
let summary = null;
let listing = null; // cached { text, ... } of the open file
const functionCache = new Map();

const post = (msg, transfer) => self.postMessage(msg, transfer ?? []);

function errorObject(e) {
  return {
    name: e?.name ?? 'Error',
    kind: e?.kind ?? null,
    message: String(e?.message ?? e),
    diagnostics: Array.isArray(e?.diagnostics) ? e.diagnostics : [],
    listing: typeof e?.listing === 'string' ? e.listing : null,
  };
}

function reset(newBytes) {
  bytes = newBytes;
  summary = null;
  listing = null;
  functionCache.clear();
}

/** Streams `url` into an Inspector, reporting progress; keeps the bytes. */
async function openUrl(url) {
  const t0 = performance.now();
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status} ${response.statusText}`);
  const total = Number(response.headers.get('Content-Length')) || null;
  const inspector = new pkg.Inspector();
  const chunks = [];
  let received = 0;
  let last = 0;
  let lastBytes = 0;
  try {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      received += value.byteLength;
      const p = inspector.feed(value);
      // At most ~30 updates a second (and at least one per MB).
      const now = performance.now();
      if (now - last > 30 || received - lastBytes >= 1 << 20) {
        last = now;
        lastBytes = received;
        post({ progress: { ...plainProgress(p), total, phase: 'download' } });
      }
    }
    post({ progress: { bytesRead: received, total, phase: 'finish' } });
    summary = inspector.finish();
  } finally {
    inspector.free?.();
  }
  const all = new Uint8Array(received);
  let off = 0;
  for (const c of chunks) {
    all.set(c, off);
    off += c.byteLength;
  }
  reset(all);
  summary = summary ?? pkg.inspect(all);
  const ms = performance.now() - t0;
  // The page keeps its own copy (runner, downloads).
  return { summary: cacheSummary(summary), bytes: all.slice(), ms };
}

function plainProgress(p) {
  return {
    bytesRead: p.bytesRead,
    functionsTotal: p.functionsTotal,
    functionsDecoded: p.functionsDecoded,
    diagnostics: p.diagnostics,
  };
}

function cacheSummary(s) {
  summary = s;
  return s;
}

function openBytes(b) {
  const t0 = performance.now();
  reset(b);
  const s = pkg.inspect(b);
  return { summary: cacheSummary(s), ms: performance.now() - t0 };
}

const BLOCK_NAMES = { 0: 'abbreviations', 8: 'module', 11: 'constants', 12: 'function', 14: 'valuesymtab', 17: 'types', 19: 'globals' };

/**
 * Line index of the listing: where each line starts, the bit position of
 * each line (continuation lines carry the position of their record, -1
 * before the first position), and the block tree read from the records
 * column (`1: <65535, id, w>` enters a block, `0: <65534>` leaves it).
 */
function indexListing(text) {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  if (text.endsWith('\n')) n--;
  const lineStarts = new Uint32Array(n + 1);
  const linePos = new Float64Array(n);
  const blocks = []; // {id, name, depth, line, endLine, bit, endBit, parent, fn}
  const stack = [];
  let line = 0;
  let start = 0;
  let pos = -1;
  let functionBlock = 0;
  const definedIds = (summary?.functions ?? []).filter((f) => f.defined).map((f) => f.id);
  while (line < n) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    lineStarts[line] = start;
    const bar = text.indexOf('|', start);
    if (bar !== -1 && bar < end) {
      // Position column: "   123:4" or blank.
      let p = start;
      while (p < bar && text.charCodeAt(p) === 32) p++;
      if (p < bar) {
        const colon = text.indexOf(':', p);
        if (colon !== -1 && colon < bar) {
          const byte = Number(text.slice(p, colon));
          const bit = Number(text.slice(colon + 1, bar));
          if (Number.isFinite(byte) && Number.isFinite(bit)) pos = byte * 8 + bit;
        }
      }
      // Records column: enter/exit.
      let r = bar + 1;
      while (r < end && text.charCodeAt(r) === 32) r++;
      const c = text.charCodeAt(r);
      if (c >= 48 && c <= 57) {
        const lt = text.indexOf('<', r);
        if (lt !== -1 && lt < end && lt - r < 8) {
          if (text.startsWith('65535,', lt + 1)) {
            const id = parseInt(text.slice(lt + 7, lt + 14), 10);
            const b = {
              id,
              name: BLOCK_NAMES[id] ?? `block ${id}`,
              depth: stack.length,
              line,
              endLine: line,
              bit: pos,
              endBit: pos,
              parent: stack.length ? stack[stack.length - 1] : -1,
              fn: null,
            };
            if (id === 12) {
              b.fn = definedIds[functionBlock] ?? null;
              functionBlock++;
            }
            blocks.push(b);
            stack.push(blocks.length - 1);
          } else if (text.startsWith('65534>', lt + 1) && stack.length) {
            const b = blocks[stack.pop()];
            b.endLine = line;
          }
        }
      }
    }
    linePos[line] = pos;
    line++;
    start = end + 1;
  }
  lineStarts[n] = text.length;
  // End bit of a block: the position of the first positioned line after its exit.
  for (const b of blocks) {
    let l = b.endLine + 1;
    while (l < n && linePos[l] === linePos[b.endLine]) l++;
    b.endBit = l < n ? linePos[l] : summary ? summary.size * 8 : linePos[b.endLine];
  }
  return { lineStarts, linePos, blocks };
}

function getListing() {
  if (listing) return listing;
  const t0 = performance.now();
  let text;
  let error = null;
  try {
    text = pkg.disassemble(bytes);
  } catch (e) {
    error = errorObject(e);
    text = error.listing ?? '';
    error.listing = null;
    // The listing stops before the record at fault; a last line names it
    // at its position, so diagnostics can jump there.
    const d = error.diagnostics[error.diagnostics.length - 1];
    if (d) {
      if (text && !text.endsWith('\n')) text += '\n';
      text += `${d.pos.padStart(10)}|${' '.repeat(29)}|error: ${d.message}\n`;
    }
  }
  const index = indexListing(text);
  listing = { text, ...index, error, ms: performance.now() - t0 };
  return listing;
}

function functionText(id) {
  if (functionCache.has(id)) return functionCache.get(id);
  let asm;
  try {
    asm = pkg.disassemble(bytes, { mode: 'asm', function: id });
  } catch (e) {
    asm = `; ${errorObject(e).message}`;
  }
  let wat = null;
  let watError = null;
  try {
    wat = pkg.functionWat(bytes, { function: id });
  } catch (e) {
    watError = errorObject(e).message;
  }
  const r = { asm, wat, watError };
  functionCache.set(id, r);
  return r;
}

function stats() {
  return pkg.stats(bytes);
}

async function translate() {
  const t0 = performance.now();
  // On the package's pool of translation Workers.
  const wasm = await pkg.translateStreaming(bytes, { target: 'wasm32' });
  return { wasm, ms: performance.now() - t0 };
}

// A native object (x86_64-linux, aarch64-linux): the package's native
// translator module is loaded (asynchronously, once) the first time.
async function translateNative(target) {
  await pkg.loadNativeTranslator();
  const t0 = performance.now();
  const object = pkg.translate(bytes, { target });
  return { bytes: object, ms: performance.now() - t0 };
}

// The link command for the file names the page saves under.
function linkCommand(target, base) {
  const output = `${base}-${target}`;
  return pkg.nativeLinkCommand(target, { output, object: `${output}.o` });
}

const ops = {
  'open-url': ({ url }) => openUrl(url),
  'open-bytes': ({ bytes: b }) => openBytes(b),
  listing: () => {
    const l = getListing();
    // Typed arrays are copied (the worker keeps its own for later requests).
    return { text: l.text, lineStarts: l.lineStarts.slice(), linePos: l.linePos.slice(), blocks: l.blocks, error: l.error, ms: l.ms };
  },
  function: ({ fn }) => functionText(fn),
  stats: () => stats(),
  records: () => pkg.disassemble(bytes, { mode: 'records' }),
  translate: () => translate(),
  native: ({ target }) => translateNative(target),
  runtime: async ({ target }) => ({ bytes: await pkg.nativeRuntimeArchive(target), name: pkg.nativeRuntimeFileName(target) }),
  'link-command': ({ target, base }) => linkCommand(target, base),
  version: () => ({ version: pkg.version, exports: Object.keys(pkg) }),
};

self.onmessage = async (e) => {
  const { id, op, ...args } = e.data;
  try {
    if (!ops[op]) throw new Error(`unknown op ${op}`);
    const needsPexe = !['open-url', 'open-bytes', 'version', 'runtime', 'link-command'].includes(op);
    if (needsPexe && !bytes) throw new Error('no pexe is open');
    const result = await ops[op](args);
    const out = result?.wasm ?? result?.bytes;
    const transfer = out ? [out.buffer] : [];
    post({ id, ok: true, result }, transfer);
  } catch (err) {
    post({ id, ok: false, error: errorObject(err) });
  }
};

post({ ready: true, version: pkg.version ?? null, exports: Object.keys(pkg) });
// The per-function view prints WAT: load its printer while the user reads.
pkg.loadWatPrinter().catch(() => {});
