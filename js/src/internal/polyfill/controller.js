// One NaCl element (an `<embed>` or `<object>` of type
// application/x-pnacl) brought to life: the instance Chrome's NaCl plugin
// made for it, with the same life cycle as seen from the page
// (nacl-embed-facts.md; docs/ARCHITECTURE.md, "Polyfill life cycle"):
//
//   start()   argn/argv from the attributes; the manifest URL from `src`
//             (or <object data>), resolved against the document:
//             readyState 1, `loadstart`;
//             the manifest fetched and checked (manifest.js): readyState 3,
//             `progress`;
//             the pexe streamed into the translator Worker (translate.js),
//             `progress` with url/loaded/total as bytes go in — or, when
//             the translation cache (cache.js) has this pexe, no
//             translation at all;
//             the module started in its host Worker (pepper/page.js),
//             drawing into a box kept over the element (surface.js),
//             messages posted meanwhile delivered after DidCreate:
//             readyState 4, `load`, `loadend`.
//   failure   readyState 4, lastError "NaCl module load failed: <detail>",
//             `error` (`abort` for an aborted fetch), `loadend`; an error
//             panel over the element.
//   after     plugin → page messages are `message` events; an exit or a
//             fault is a `crash` (lastError "NaCl module crashed",
//             exitStatus the exit code, or -1 for a fault).
//   stop()    the instance ends silently (element removed, src changed).
//
// Every event is queued as its own task (events.js) after the state it
// reports is set; events of an instance that was stopped, or of an
// element out of the document, are dropped.

import { startPluginInPage } from '../pepper/page.js';
import { sharedPageStorage } from './file-system.js';
import { TranslationCache } from './cache.js';
import { createLogger, rewriteUrl } from './config.js';
import { CONVERSION_FAILED, ConversionError, convertForPlugin } from './convert.js';
import { messageEvent, progressEvent, queueTask } from './events.js';
import { ManifestError, fetchManifest, parseManifest } from './manifest.js';
import { Overlay } from './overlay.js';
import { sha256Hex } from './sha256.js';
import { Surface } from './surface.js';
import { TRANSLATOR_BUILD, WorkerTranslation } from './translate.js';
import { ViewTracker } from './view.js';

export const PNACL_TYPE = 'application/x-pnacl';

/** readyState values (PP_NaClReadyState). */
export const READY = Object.freeze({ OPENED: 1, LOADING: 3, DONE: 4 });

/** `total` of a progress event whose size is unknown: Chrome's -1 through a uint64_t. */
const UNKNOWN_TOTAL = 2 ** 64 - 1;

/** kProgressEventSlopPct: no progress event while less than this share is left. */
const SLOP = 0.05;

/** How many verifier diagnostics the error panel lists. */
const PANEL_DIAGNOSTICS = 12;

/** Whether `el` is a NaCl element of the portable kind. */
export function isPnaclElement(el) {
  const name = el?.localName;
  if (name !== 'embed' && name !== 'object') return false;
  return (el.getAttribute('type') ?? '').trim().toLowerCase() === PNACL_TYPE;
}

/**
 * DidCreate's argn/argv: every attribute of an `<embed>` in order; for an
 * `<object>`, its `<param>`s, then the attributes no param overrides,
 * then `src` = `data` when there is no src (nacl-embed-facts.md §5).
 */
export function pluginAttributes(el) {
  const attrs = [...el.attributes].map((a) => [a.name, a.value]);
  if (el.localName !== 'object') return attrs;
  const params = [];
  for (const child of el.children) {
    if (child.localName !== 'param') continue;
    const name = child.getAttribute('name');
    if (name) params.push([name, child.getAttribute('value') ?? '']);
  }
  const overridden = new Set(params.map(([n]) => n.toLowerCase()));
  const out = [...params, ...attrs.filter(([n]) => !overridden.has(n.toLowerCase()))];
  const hasSrc = out.some(([n]) => n.toLowerCase() === 'src');
  const data = out.find(([n]) => n.toLowerCase() === 'data');
  if (!hasSrc && data) out.push(['src', data[1]]);
  return out;
}

/** The manifest URL as Chrome read it: the raw `src` argument. */
function srcOf(attributes) {
  let src = '';
  for (const [n, v] of attributes) if (n.toLowerCase() === 'src') src = v;
  return src;
}

const baseName = (url) => {
  try {
    const path = new URL(url).pathname;
    return decodeURIComponent(path.slice(path.lastIndexOf('/') + 1)) || url;
  } catch {
    return String(url);
  }
};

/** The text of a Uint8Array of output (plugin stdout/stderr). */
const decoder = new TextDecoder();

export class PluginController {
  /**
   * @param {Element} element
   * @param {object} o
   * @param {object} o.config          normalized (config.js)
   * @param {object} [o.direct]        embed() only: `{ url }` of a pexe to run without a manifest
   * @param {Array<[string,string]>} [o.extraAttributes]  embed() only: appended to argn/argv
   * @param {(level: string, text: string) => void} [o.onLog]  embed() only: every log line, whatever the level
   */
  constructor(element, { config, direct = null, extraAttributes = [], onLog = null }) {
    this.element = element;
    this.config = config;
    this.log = createLogger(config.logLevel, onLog);
    this.direct = direct;
    this.extraAttributes = extraAttributes;
    this.urlMap = Object.fromEntries(
      Object.entries(config.urlMap).map(([from, to]) => [from, new URL(to, document.baseURI).href]),
    );
    this.generation = 0;
    this.reset();
  }

  /** The state of a fresh instance. */
  reset() {
    this.readyState = undefined;
    this.lastError = '';
    this.exitStatus = -1;
    this.loaded = false;
    this.ended = false;
    this.queue = [];
    this.plugin = null;
    this.abort = null;
    this.translation = null;
    this.tracker?.stop();
    this.tracker = null;
    this.surface?.destroy();
    this.surface = null;
    this.overlay?.hide();
    this.overlay = null;
  }

  rewrite(href) {
    return rewriteUrl(this.urlMap, href);
  }

  /** Dispatches `makeEvent()` on the element in a task of its own, if this instance still lives there. */
  fire(makeEvent) {
    const gen = this.generation;
    queueTask(() => {
      if (gen !== this.generation || !this.element.isConnected) return;
      this.element.dispatchEvent(makeEvent());
    });
  }

  // ------------------------------------------------------------ life cycle

  /** Starts a new instance from the element's current attributes. */
  start() {
    this.stop();
    const gen = this.generation;
    const attributes = [...pluginAttributes(this.element), ...this.extraAttributes];
    this.attributes = attributes;
    const src = this.direct ? this.direct.url : srcOf(attributes);
    // No src: Chrome's instance never asked for a manifest; nothing happens.
    if (!src) return;
    let url;
    try {
      url = new URL(src, document.URL).href;
    } catch {
      this.fail(`could not resolve URL "${src}" relative to "${document.URL}".`);
      return;
    }
    this.readyState = READY.OPENED;
    this.fire(() => progressEvent('loadstart'));
    this.name = baseName(url);
    if (this.config.ui) {
      this.overlay = new Overlay(this.element, this.name);
      this.overlay.progress(null, 'Reading the manifest');
    }
    this.abort = new AbortController();
    this.load(url, gen).catch((e) => {
      if (gen !== this.generation) return;
      // The manifest's fetch aborted by the browser, not by us: Chrome's
      // ReportLoadAbort (the only way a PNaCl element gets `abort`).
      if (e?.name === 'AbortError') {
        this.fail('user aborted', { abort: true });
        return;
      }
      this.log.error('pexe: the polyfill failed (a bug, please report it):', e);
      this.fail(`ServiceRuntime: failed to start (${e?.message ?? e})`);
    });
  }

  /** Ends the current instance silently (removal, or a new src). */
  stop() {
    this.generation++;
    this.abort?.abort();
    this.translation?.terminate();
    this.plugin?.destroy();
    this.reset();
  }

  /** The load pipeline of instance `gen`, from the resolved manifest (or pexe) URL. */
  async load(url, gen) {
    const live = () => gen === this.generation;
    const signal = this.abort.signal;
    let programUrl;
    if (this.direct) {
      programUrl = url;
    } else {
      let program;
      try {
        const bytes = await fetchManifest(this.rewrite(url), { signal });
        if (!live()) return;
        program = parseManifest(bytes, url);
      } catch (e) {
        if (!live()) return;
        if (e instanceof ManifestError) {
          this.fail(e.message, { detail: e.status ? `${url}: HTTP ${e.status}` : null });
          return;
        }
        throw e;
      }
      programUrl = program.programUrl;
    }
    this.programUrl = programUrl;
    this.name = baseName(programUrl);
    if (this.overlay) this.overlay.name = this.name;
    this.stage('manifest read');
    this.readyState = READY.LOADING;
    this.fire(() => progressEvent('progress'));

    const wasm = await this.translatePexe(programUrl, gen, signal);
    if (!live() || wasm === null) return;
    this.overlay?.progress(0.97, 'Starting');
    this.startModule(wasm, gen);
  }

  /**
   * The translated module of the pexe at `programUrl`: streamed into the
   * translator as it downloads, or taken from the cache. null when the
   * load failed (already reported) or was stopped.
   */
  async translatePexe(programUrl, gen, signal) {
    const live = () => gen === this.generation;
    const fetchUrl = this.rewrite(programUrl);
    let response;
    try {
      response = await fetch(fetchUrl, { signal, credentials: 'same-origin' });
    } catch (e) {
      if (live()) this.pexeFailed(e, programUrl);
      return null;
    }
    if (!live()) return null;
    if (!response.ok) {
      this.fail('PnaclCoordinator: pexe load failed (pp_error=-2).', { detail: `${programUrl}: HTTP ${response.status} ${response.statusText}`.trim() });
      return null;
    }
    const lengthHeader = response.headers.get('Content-Length');
    const encoded = response.headers.get('Content-Encoding');
    const total = lengthHeader !== null && !encoded ? Number(lengthHeader) : -1;
    const known = total >= 0;
    const cache = this.config.cache ? await TranslationCache.open(TRANSLATOR_BUILD) : null;
    const expected = cache ? await cache.expected(programUrl, response.headers) : null;
    if (!live()) return null;
    this.log.debug(`pexe: ${this.name}: ${expected ? 'expecting a cached translation' : 'translating while downloading'}`);

    let translation = null;
    const startTranslation = () => {
      translation = new WorkerTranslation({
        onProgress: (p) => {
          if (!live() || !p.functionsTotal) return;
          this.overlay?.progress(0.5 + 0.45 * (p.functionsTranslated / p.functionsTotal), `Translating: ${p.functionsTranslated} of ${p.functionsTotal} functions`);
        },
      });
      this.translation = translation;
      return translation;
    };
    let sent = 0;
    const sentToTranslator = (n) => {
      sent += n;
      // Chrome held events back while less than 5% was left.
      if (known && total - sent < SLOP * total && sent < total) return;
      this.fire(() =>
        progressEvent('progress', { url: programUrl, lengthComputable: known, loaded: sent, total: known ? total : UNKNOWN_TOTAL }),
      );
    };

    // Read the pexe; feed the translator as it comes, unless the cache
    // says it already has this one.
    const chunks = [];
    let size = 0;
    if (!response.body) {
      this.fail('PnaclCoordinator: pexe load failed (pp_error=-2).', { detail: `${programUrl}: the response has no body` });
      return null;
    }
    const reader = response.body.getReader();
    if (!expected) startTranslation();
    let failure = null;
    translation?.failure.catch((e) => {
      failure = e;
      reader.cancel().catch(() => {});
    });
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (!live()) return null;
        if (done || failure) break;
        chunks.push(value);
        size += value.length;
        this.overlay?.progress(known ? 0.5 * (size / total) : null, Overlay.downloadDetail(size, known ? total : 0));
        if (translation) {
          translation.feed(value);
          sentToTranslator(value.length);
        }
      }
    } catch (e) {
      if (!live()) return null;
      if (!failure) {
        translation?.terminate();
        this.pexeFailed(e, programUrl);
        return null;
      }
    }
    if (failure) return this.translationFailed(failure, translation);

    const bytes = concat(chunks, size);
    this.stage('pexe read');
    const sha = await sha256Hex(bytes);
    if (!live()) return null;
    const cached = cache ? await cache.get(sha) : null;
    if (!live()) return null;
    this.stage(cached ? 'cache hit' : 'cache miss');
    if (cached) {
      translation?.terminate();
      this.fromCache = true;
      this.pexeSize = 0;
      this.log.debug(`pexe: ${this.name}: translation cache hit (sha256 ${sha})`);
      if (!expected) cache.remember(programUrl, response.headers, sha);
      return cached;
    }
    if (!translation) {
      // The cache expected this pexe and did not have it after all.
      startTranslation();
      translation.failure.catch(() => {});
      translation.feed(bytes);
      sentToTranslator(bytes.length);
    }
    this.overlay?.progress(0.5, 'Translating');
    let wasm;
    try {
      wasm = await translation.finish();
    } catch (e) {
      if (!live()) return null;
      return this.translationFailed(e, translation);
    }
    if (!live()) return null;
    this.translation = null;
    this.fromCache = false;
    this.pexeSize = size;
    if (known) {
      this.fire(() => progressEvent('progress', { url: programUrl, lengthComputable: true, loaded: size, total: size }));
    }
    if (cache) {
      const copy = wasm.slice();
      cache.put(sha, copy).then(() => cache.remember(programUrl, response.headers, sha));
    }
    return wasm;
  }

  /**
   * The pexe could not be read: PP_ERROR_FAILED (-2) for network errors,
   * PP_ERROR_ABORTED (-3) for an aborted fetch — for PNaCl, Chrome
   * reported both as errors, not as `abort` (BitcodeStreamDidFinish).
   */
  pexeFailed(e, programUrl) {
    const code = e?.name === 'AbortError' ? -3 : -2;
    this.fail(`PnaclCoordinator: pexe load failed (pp_error=${code}).`, { detail: `${programUrl}: ${e?.message ?? e}` });
  }

  translationFailed(e, translation) {
    translation?.terminate();
    const lines = (e.diagnostics ?? []).map((d) => d.text ?? `${d.pos}: ${d.message}`);
    const shown = lines.slice(0, PANEL_DIAGNOSTICS);
    if (lines.length > shown.length) shown.push(`… and ${lines.length - shown.length} more`);
    const first = e.diagnostics?.[0];
    // The first problem, with its position, is the one lastError names.
    const what = first && !e.message.includes(first.pos) ? `${e.message} (${first.text ?? `${first.pos}: ${first.message}`})` : e.message;
    this.fail(`PnaclCoordinator: ${what}`, { lines: shown });
    return null;
  }

  /** Logs (at debug level) how long since the page started each step took. */
  stage(what) {
    this.log.debug(`pexe: ${this.name}: ${what} at ${Math.round(performance.now())} ms`);
  }

  /** Starts the translated module in its host Worker. */
  startModule(wasm, gen) {
    this.stage('starting');
    const live = () => gen === this.generation;
    // The plugin's box (its canvases, input and focus) over the element.
    this.surface = new Surface(this.element);
    const tracker = new ViewTracker(this.element, (view) => this.plugin?.setView(view), this.surface.box);
    this.tracker = tracker;
    const embedder = {
      postMessage: (value) => {
        if (!live() || this.ended) return;
        this.fire(() => messageEvent(value));
      },
      log: (level, source, text) => {
        const line = source ? `${source}: ${text}` : text;
        if (level === 'error') this.log.error(line);
        else if (level === 'warning' || level === 'warn') this.log.warn(line);
        else if (level === 'debug' || level === 'tip') this.log.debug(line);
        else this.log.info(line);
      },
      loaded: () => {
        if (!live() || this.ended) return;
        this.stage('loaded');
        this.loaded = true;
        this.readyState = READY.DONE;
        this.overlay?.hide();
        const size = this.fromCache ? 0 : this.pexeSize;
        const init = { url: this.programUrl, lengthComputable: true, loaded: size, total: size };
        this.fire(() => progressEvent('load', init));
        this.fire(() => progressEvent('loadend', init));
      },
      loadFailed: (message) => {
        if (!live()) return;
        this.fail(message);
      },
      missingInterface: (name) => this.log.warn(`pexe: ${this.name} asked for ${name}, which this runtime does not provide (it gets NULL)`),
      output: (fd, bytes) => {
        for (const line of decoder.decode(bytes).split('\n')) if (line) this.log.debug(`${this.name} ${fd === 2 ? 'stderr' : 'stdout'}: ${line}`);
      },
      threadRefused: (reason) => {
        if (!live()) return;
        this.log.warn(`pexe: ${reason}`);
        if (this.loaded) this.crash({ reason });
        else this.fail(reason);
      },
      bug: (err) => {
        if (!live()) return;
        this.log.error(`pexe: ${err.message}`);
      },
    };
    const plugin = startPluginInPage(
      wasm,
      {
        args: [this.name],
        attributes: this.attributes,
        view: tracker.current(),
        baseUrl: document.URL,
        urlMap: this.urlMap,
        cooperative: this.config.cooperativeThreads,
        storage: sharedPageStorage(this.config.fileSystem === false ? 'auto' : this.config.fileSystem),
        ...(this.config.socketRelay ? { socketRelay: this.config.socketRelay } : {}),
      },
      embedder,
      this.surface.box,
    );
    this.plugin = plugin;
    for (const value of this.queue.splice(0)) plugin.postMessage(value);
    // The end is handled behind the events already queued, so the page
    // sees every message the module posted before it ended (as in Chrome)
    // before lastError and exitStatus change.
    plugin.exited.then((result) => {
      if (!live() || result?.destroyed) return;
      queueTask(() => live() && this.exited(result));
    });
  }

  /** The module ended on its own: an exit, a fault, or a runtime failure. */
  exited(result) {
    if (this.ended) return;
    const fault = result.fault ?? (result.bug ? `runtime bug: ${result.bug}` : null);
    if (!this.loaded) {
      if (!fault) this.exitStatus = result.exitCode;
      this.fail('Nexe crashed during startup', { detail: fault ?? `exit status ${result.exitCode}` });
      return;
    }
    this.crash({ exitCode: fault ? null : result.exitCode, fault });
  }

  /** After load: the instance is gone (Chrome's ReportDeadNexe). */
  crash({ exitCode = null, fault = null, reason = null }) {
    if (this.ended) return;
    this.ended = true;
    if (exitCode !== null) this.exitStatus = exitCode;
    this.lastError = reason ? `NaCl module crashed: ${reason}` : 'NaCl module crashed';
    this.log.info('NativeClient: NaCl module crashed');
    if (fault) this.log.error(`pexe: ${this.name}: ${fault}`);
    this.plugin?.destroy();
    this.tracker?.stop();
    this.surface?.destroy();
    this.surface = null;
    if (this.config.ui) {
      this.overlay ??= new Overlay(this.element, this.name);
      const detail = reason ?? fault ?? (exitCode !== null ? `It exited with status ${exitCode}.` : null);
      this.overlay.crash(this.lastError, detail);
    }
    this.fire(() => progressEvent('crash'));
  }

  /** A load failure: lastError, the error panel, `error` (or `abort`) and `loadend`. */
  fail(message, { abort = false, detail = null, lines = [] } = {}) {
    if (this.ended) return;
    this.ended = true;
    this.readyState = READY.DONE;
    this.lastError = `NaCl module load failed: ${message}`;
    this.log.info(`NativeClient: ${this.lastError}`);
    if (detail) this.log.info(`pexe: ${detail}`);
    this.abort?.abort();
    this.translation?.terminate();
    this.plugin?.destroy();
    this.tracker?.stop();
    this.surface?.destroy();
    this.surface = null;
    this.queue = [];
    if (this.config.ui) {
      this.overlay ??= new Overlay(this.element, this.name ?? 'NaCl module');
      this.overlay.error(`${this.name ?? 'The NaCl module'} could not load`, this.lastError, detail ? [detail, ...lines] : lines);
    }
    this.fire(() => progressEvent(abort ? 'abort' : 'error'));
    this.fire(() => progressEvent('loadend'));
  }

  // ------------------------------------------------------------ the element's members

  /** element.postMessage(message), its one argument already counted. */
  postMessage(message) {
    let converted;
    try {
      converted = convertForPlugin(message);
    } catch (e) {
      if (e instanceof ConversionError) {
        console.error(CONVERSION_FAILED);
        return;
      }
      throw e;
    }
    if (!converted.ok || this.ended) return;
    if (this.plugin) this.plugin.postMessage(converted.value);
    else this.queue.push(converted.value);
  }

  /** element.postMessageAndAwaitResponse(message): the answer, or Chrome's exceptions. */
  postMessageAndAwaitResponse(message) {
    if (!this.loaded || this.ended || !this.plugin) {
      throw new Error('Attempted to call a synchronous method on a plugin that was not yet loaded.');
    }
    let converted;
    try {
      converted = convertForPlugin(message);
    } catch (e) {
      if (e instanceof ConversionError) throw new Error(CONVERSION_FAILED);
      throw e;
    }
    return this.plugin.postMessageAndAwaitResponse(converted.ok ? converted.value : undefined);
  }
}

function concat(chunks, size) {
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
