// Streaming: push a pexe in chunks as it downloads (Translator, Inspector),
// or hand over a Response / ReadableStream / iterable / the bytes
// (translateStreaming, inspectStreaming). Progress is read between chunks.
// translateStreaming translates the bodies on a pool of Workers
// (../internal/translator/pool.js) unless `threads: 0`.

import { bytesOf, glue, guarded, isBytes } from '../internal/translator/index.js';
import { poolSize, translateOnPool } from '../internal/translator/pool.js';
import { withUnsupported } from './translate.js';

class Stream {
  #raw;
  constructor(raw) {
    this.#raw = raw;
  }
  feed(chunk) {
    const input = bytesOf(chunk, 'a chunk');
    return guarded(() => this.#raw.feed(input));
  }
  finish() {
    return guarded(() => this.#raw.finish());
  }
  get progress() {
    return guarded(() => this.#raw.progress);
  }
  get bytesRead() {
    return this.progress.bytesRead;
  }
  get functionsDecoded() {
    return this.progress.functionsDecoded;
  }
  get functionsTranslated() {
    return this.progress.functionsTranslated;
  }
  get functionsTotal() {
    return this.progress.functionsTotal;
  }
  free() {
    this.#raw?.free();
    this.#raw = null;
  }
}

/** Push translator: `feed(chunk)` as bytes arrive, then `finish()` for the module. */
export class Translator extends Stream {
  constructor(options) {
    super(guarded(() => new glue.Translator(options)));
  }
}

/** Push inspector: `feed(chunk)` as bytes arrive, then `finish()` for the summary. */
export class Inspector extends Stream {
  constructor(options) {
    super(guarded(() => new glue.Inspector(options)));
  }
  finish() {
    return withUnsupported(super.finish());
  }
}

/** With threads 'auto', bytes handed over whole below this size are translated on the calling thread. */
const AUTO_MIN_BYTES = 256 * 1024;

// The chunks of a fetch() Response, a ReadableStream, an (async) iterable,
// or the bytes themselves (one chunk).
async function* chunksOf(source) {
  source = await source;
  if (isBytes(source)) {
    yield bytesOf(source);
    return;
  }
  if (source && typeof source.arrayBuffer === 'function' && 'body' in source && 'ok' in source) {
    if (!source.ok) throw new Error(`fetching ${source.url || 'the pexe'}: HTTP ${source.status} ${source.statusText}`.trim());
    source = source.body;
    if (source === null) return;
  }
  if (source && typeof source.getReader === 'function') {
    const reader = source.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield value;
      }
    } finally {
      reader.releaseLock();
    }
  }
  if (source && (Symbol.asyncIterator in source || Symbol.iterator in source)) {
    yield* source;
    return;
  }
  throw new TypeError('expected a Response, a ReadableStream or an iterable of chunks');
}

async function feedAll(stream, source) {
  try {
    for await (const chunk of chunksOf(source)) stream.feed(chunk);
    return stream.finish();
  } finally {
    stream.free();
  }
}

/**
 * Translates a pexe as it downloads: `await translateStreaming(fetch(url), { onProgress })`;
 * function bodies on `threads` Workers (default: the hardware's threads, capped), or on
 * this thread with `threads: 0`.
 */
export async function translateStreaming(source, options) {
  source = await source;
  let workers = poolSize(options?.threads);
  // 'auto' and a small pexe at hand: starting Workers would take longer.
  const auto = options?.threads === undefined || options?.threads === 'auto';
  if (auto && isBytes(source) && source.byteLength < AUTO_MIN_BYTES) workers = 0;
  if (workers === 0) return feedAll(new Translator(options), source);
  return translateOnPool(chunksOf(source), options, workers);
}

/** Inspects a pexe as it downloads. */
export function inspectStreaming(source, options) {
  return feedAll(new Inspector(options), source);
}
