// Page side of the translator Worker (translate-worker.js): one
// translation, fed as the pexe downloads.
//
//   const t = new WorkerTranslation({ onProgress });
//   t.feed(chunk) …;  const wasm = await t.finish();   // or t.terminate()
//   t.failure   // a Promise that rejects as soon as the pexe is known bad
//
// Errors are `TranslationError`s carrying the translator's PexeError
// fields (kind, diagnostics with byte:bit positions).

export { TRANSLATOR_BUILD } from '../translator/wasm/build.js';

export class TranslationError extends Error {
  constructor({ message, kind, diagnostics }) {
    super(message);
    this.name = 'TranslationError';
    this.kind = kind;
    this.diagnostics = diagnostics ?? [];
  }
}

export class WorkerTranslation {
  constructor({ onProgress } = {}) {
    // Written out in full so that bundlers emit the Worker's script.
    this.worker = new Worker(new URL('./translate-worker.js', import.meta.url), { type: 'module', name: 'pexe translator' });
    this.ended = false;
    let rejectFailure;
    this.failure = new Promise((_, reject) => (rejectFailure = reject));
    this.failure.catch(() => {});
    this.result = new Promise((resolve, reject) => {
      this.worker.addEventListener('message', (e) => {
        const msg = e.data;
        if (msg?.type === 'progress') onProgress?.(msg);
        else if (msg?.type === 'done') resolve(msg.wasm);
        else if (msg?.type === 'error') {
          const err = new TranslationError(msg);
          rejectFailure(err);
          reject(err);
        }
      });
      this.worker.addEventListener('error', (e) => {
        e.preventDefault?.();
        const err = new TranslationError({ message: `the translator Worker failed: ${e.message || 'it could not start'}`, kind: 'bug' });
        rejectFailure(err);
        reject(err);
      });
    });
    this.result.catch(() => {});
  }

  /** Sends a chunk of the pexe (copied: the caller keeps its bytes). */
  feed(chunk) {
    if (!this.ended) this.worker.postMessage({ type: 'feed', chunk });
  }

  /** The translated module's bytes, once every chunk is in. */
  async finish() {
    this.worker.postMessage({ type: 'finish' });
    try {
      return await this.result;
    } finally {
      this.terminate();
    }
  }

  terminate() {
    this.ended = true;
    this.worker.terminate();
  }
}
