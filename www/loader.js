// Opening pexes: from a dropped/picked file, a bundled sample, or a URL
// (streamed: the analysis worker decodes chunks as they arrive and reports
// progress). Talks to analysis-worker.js with a small request/response RPC.

export class Analysis {
  constructor() {
    this.worker = new Worker(new URL('./analysis-worker.js', import.meta.url), { type: 'module' });
    this.pending = new Map();
    this.nextId = 1;
    this.onProgress = null;
    this.ready = new Promise((resolve, reject) => {
      this.worker.addEventListener('error', (e) => {
        e.preventDefault();
        const err = new Error(
          'the inspector worker could not start: is pkg/ built? (scripts/build-pkg.sh)' + (e.message ? ` — ${e.message}` : ''),
        );
        reject(err);
        for (const p of this.pending.values()) p.reject(err);
        this.pending.clear();
      });
      this.worker.addEventListener('message', (e) => {
        const m = e.data;
        if (m.ready) {
          this.pkgVersion = m.version;
          this.pkgExports = m.exports;
          resolve(m);
          return;
        }
        if (m.progress) {
          this.onProgress?.(m.progress);
          return;
        }
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (m.ok) p.resolve(m.result);
        else p.reject(Object.assign(new Error(m.error.message), m.error));
      });
    });
  }

  async call(op, args = {}, transfer = []) {
    await this.ready;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, op, ...args }, transfer);
    });
  }

  /** Opens bytes the page already has (file, sample). Resolves `{summary, bytes}`. */
  async openBytes(bytes) {
    const copy = bytes.slice();
    const r = await this.call('open-bytes', { bytes: copy }, [copy.buffer]);
    return { summary: r.summary, bytes, ms: r.ms };
  }

  /** Streams a URL through the worker's Inspector. Resolves `{summary, bytes}`. */
  openUrl(url) {
    const abs = new URL(url, location.href).href;
    return this.call('open-url', { url: abs });
  }

  listing() {
    return this.call('listing');
  }

  functionText(fn) {
    return this.call('function', { fn });
  }

  stats() {
    return this.call('stats');
  }

  translate() {
    return this.call('translate');
  }
}

/** Reads a File (drop or picker). */
export async function readFile(file) {
  return new Uint8Array(await file.arrayBuffer());
}

/** The bundled samples (www/samples/index.json, made by scripts/build-samples.sh). */
export async function listSamples() {
  try {
    const r = await fetch('samples/index.json', { cache: 'no-cache' });
    if (!r.ok) return [];
    return await r.json();
  } catch {
    return [];
  }
}

/** Fetches a small file whole (samples). */
export async function fetchBytes(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

export function formatBytes(n) {
  if (n == null) return '—';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10240 ? 1 : 0)} KB`;
  return `${(n / 1024 / 1024).toFixed(2)} MB`;
}
