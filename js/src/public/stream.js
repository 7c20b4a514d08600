// Streaming: push a pexe in chunks as it downloads (Translator, Inspector),
// or hand over a Response / ReadableStream / iterable (translateStreaming,
// inspectStreaming). Progress is read between chunks.

import { bytesOf, glue, guarded } from '../internal/translator/index.js';
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

// The chunks of a fetch() Response, a ReadableStream, or an (async) iterable.
async function* chunksOf(source) {
  source = await source;
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

/** Translates a pexe as it downloads: `await translateStreaming(fetch(url), { onProgress })`. */
export function translateStreaming(source, options) {
  return feedAll(new Translator(options), source);
}

/** Inspects a pexe as it downloads. */
export function inspectStreaming(source, options) {
  return feedAll(new Inspector(options), source);
}
