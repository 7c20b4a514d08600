// A plugin for a page: its runtime in a host Worker (host-worker.js), its
// embedder here on the page's main thread. This is what the polyfill and
// the package's `embed()` build on.
//
//   const plugin = startPluginInPage(module, options, embedder);
//   plugin.postMessage('uci');
//   plugin.postMessageAndAwaitResponse(value)   // synchronous, isolated pages only
//   plugin.setView({ rect: { x, y, width, height }, … });  plugin.setFocus(true);
//   plugin.destroy();  await plugin.exited;     // { exitCode, fault?, destroyed? }
//
// `module` is a compiled WebAssembly.Module of a translated plugin;
// `options` are startPlugin's serializable ones (args, env, attributes,
// view, baseUrl, urlMap, threads…), and `storage`, the page's file systems
// (storage/page.js pageStorage(): the same ones the page's legacy
// FileSystem API uses; without it the host Worker opens the origin's own,
// html5fs-page.js then seeing them only when both pick OPFS or IndexedDB);
// `embedder` receives postMessage(value),
// log(level, source, text), loaded(), loadFailed(message),
// missingInterface(name), output(fd, bytes), threadRefused(reason) when
// the plugin asks for a thread that cannot run here (once), and
// bug(error) when the runtime itself fails.

import { createPlayer } from './page-audio.js';
import { pageControls } from './page-controls.js';
import { captureInput } from './page-input.js';
import { createReplyBuffer, decodeValue, replyReady, resetReply, REPLY } from './value-codec.js';

/**
 * The plugin's drawing surfaces inside `element` (the box the page gives
 * it): a canvas for 2D devices, drawn by the host Worker, and one for 3D,
 * drawn by the plugin's main thread. Both fill the box; the bound device's
 * canvas is shown.
 */
function createSurfaces(element) {
  const make = (name) => {
    const c = document.createElement('canvas');
    c.className = `pexe-surface pexe-surface-${name}`;
    c.hidden = true;
    c.style.cssText = 'position:absolute;inset:0;width:100%;height:100%;display:block';
    const box = element.getBoundingClientRect();
    c.width = Math.max(1, Math.round(box.width));
    c.height = Math.max(1, Math.round(box.height));
    element.appendChild(c);
    return c;
  };
  const canvas2d = make('2d');
  const canvas3d = make('3d');
  return {
    canvas2d,
    canvas3d,
    offscreen2d: canvas2d.transferControlToOffscreen(),
    offscreen3d: canvas3d.transferControlToOffscreen(),
  };
}

/** Shows `text` over the plugin's box (or clears it). */
function showNotice(element, text) {
  let el = element.querySelector(':scope > .pexe-notice');
  if (!text) {
    el?.remove();
    return;
  }
  if (!el) {
    el = document.createElement('div');
    el.className = 'pexe-notice';
    el.style.cssText =
      'position:absolute;left:0;right:0;bottom:0;padding:4px 8px;font:12px system-ui,sans-serif;' +
      'background:rgba(0,0,0,.7);color:#fff;pointer-events:none;z-index:1';
    element.appendChild(el);
  }
  el.textContent = text;
}

/**
 * How long the host Worker lives on after its plugin ended (ms). A guest
 * thread's Worker is the host Worker's child, and a browser that has to
 * force a child to end (it runs guest code) times that on the parent's
 * thread, 2 s after the parent asked (Chromium's WorkerThread): a host
 * Worker ended sooner would leave that child, and itself, running.
 */
export const HOST_END_GRACE_MS = 3000;

/** How long postMessageAndAwaitResponse waits before giving up (ms). */
export const BLOCKING_TIMEOUT_MS = 60_000;

export function startPluginInPage(module, options, embedder, surface = null) {
  const worker = new Worker(new URL('./host-worker.js', import.meta.url), { type: 'module', name: 'pexe plugin host' });
  const canvases = surface ? createSurfaces(surface) : null;
  // Input and focus on the plugin's box reach the plugin.
  const input = surface ? captureInput(surface, (event) => worker.postMessage({ type: 'input', event })) : null;
  const focus = (hasFocus) => () => worker.postMessage({ type: 'focus', hasFocus });
  const controls = surface ? pageControls(surface, (msg) => worker.postMessage(msg)) : null;
  const player = surface
    ? createPlayer({ sendToHost: (msg) => worker.postMessage(msg), notice: (text) => showNotice(surface, text) })
    : null;
  surface?.addEventListener('focus', focus(true));
  surface?.addEventListener('blur', focus(false));
  // The page's visibility is part of the plugin's view (PPB_View
  // IsPageVisible); a hidden page also stops 3D frames (pepper/gl/).
  const visibility = () => worker.postMessage({ type: 'view', view: { pageVisible: !document.hidden } });
  document.addEventListener('visibilitychange', visibility);
  const reply = globalThis.crossOriginIsolated ? createReplyBuffer() : null;
  let settle;
  const exited = new Promise((resolve) => (settle = resolve));
  let done = false;
  const end = (result) => {
    if (done) return;
    done = true;
    input?.detach();
    controls?.detach();
    document.removeEventListener('visibilitychange', visibility);
    player?.destroy();
    settle(result);
    setTimeout(() => worker.terminate(), HOST_END_GRACE_MS);
  };
  worker.addEventListener('message', (e) => {
    // Once ended, the host Worker's last words are not the page's business.
    if (done) return;
    const msg = e.data;
    if (controls?.handle(msg)) return;
    switch (msg?.type) {
      case 'message':
        embedder.postMessage?.(msg.value);
        break;
      case 'log':
        embedder.log?.(msg.level, msg.source, msg.text);
        break;
      case 'loaded':
        embedder.loaded?.();
        break;
      case 'loadFailed':
        embedder.loadFailed?.(msg.message);
        break;
      case 'missing':
        embedder.missingInterface?.(msg.name);
        break;
      case 'output':
        embedder.output?.(msg.fd, msg.chunk);
        break;
      case 'threadRefused':
        embedder.threadRefused?.(msg.reason);
        break;
      case 'exited':
        end(msg.result);
        break;
      case 'audio':
        if (msg.op === 'open') player?.open(msg).catch((e) => embedder.log?.('error', 'pexe', `audio: ${e.message}`));
        else if (msg.op === 'data') player?.data(msg.samples);
        else if (msg.op === 'close') player?.close();
        break;
      case 'inputClasses':
        input?.setClasses(msg.requested, msg.filtered);
        break;
      case 'bound':
        // Show the canvas of the device the plugin bound (BindGraphics).
        if (canvases) {
          canvases.canvas2d.hidden = msg.kind !== '2d';
          canvases.canvas3d.hidden = msg.kind !== '3d';
        }
        break;
      case 'bug': {
        const err = new Error(`runtime bug: ${msg.message}`);
        err.stack = msg.stack;
        embedder.bug?.(err);
        end({ exitCode: 70, bug: msg.message });
        break;
      }
      default:
        break;
    }
  });
  worker.addEventListener('error', (e) => {
    if (done) return;
    const err = new Error(`runtime bug: the plugin's host Worker failed: ${e.message ?? e}`);
    embedder.bug?.(err);
    end({ exitCode: 70, bug: err.message });
  });
  const transfer = canvases ? [canvases.offscreen2d, canvases.offscreen3d] : [];
  // The page's file systems (storage/page.js): the host Worker reaches them through a port.
  let startOptions = options;
  if (options?.storage && typeof options.storage.link === 'function') {
    const link = options.storage.link();
    const { storage: _page, ...rest } = options;
    startOptions = { ...rest, storagePort: link.port };
    transfer.push(...link.transfer);
  }
  worker.postMessage(
    {
      type: 'start',
      module,
      options: startOptions,
      reply,
      surfaces: canvases ? { canvas2d: canvases.offscreen2d, canvas3d: canvases.offscreen3d } : null,
    },
    transfer,
  );
  if (document.hidden) visibility();

  return {
    exited,
    postMessage(value) {
      if (!done) worker.postMessage({ type: 'message', value });
    },
    /**
     * Posts `value` to the plugin's message handler and returns its answer,
     * blocking this thread meanwhile (Chrome's postMessageAndAwaitResponse).
     */
    postMessageAndAwaitResponse(value) {
      if (done) throw new Error('The plugin has ended.');
      if (!reply) {
        throw new Error('postMessageAndAwaitResponse needs a cross-origin isolated page (shared memory), which this page is not.');
      }
      resetReply(reply);
      worker.postMessage({ type: 'blocking', value });
      const deadline = performance.now() + BLOCKING_TIMEOUT_MS;
      // The page's main thread may not Atomics.wait: spin on the flag.
      while (!replyReady(reply)) {
        if (performance.now() > deadline) throw new Error('The plugin did not answer the synchronous message in time.');
      }
      const { status, value: answer } = decodeValue(reply);
      if (status === REPLY.ERROR) throw new Error(answer);
      return answer;
    },
    /** What the audio player played (tests, meters): { underruns, peak, played, state }. */
    audioStats() {
      return player?.stats() ?? null;
    },
    setView(view) {
      if (!done) worker.postMessage({ type: 'view', view });
    },
    setFocus(hasFocus) {
      if (!done) worker.postMessage({ type: 'focus', hasFocus });
    },
    destroy() {
      if (done) return;
      worker.postMessage({ type: 'destroy' });
      // If the host is stuck, do not wait for it.
      setTimeout(() => end({ exitCode: 0, destroyed: true }), 1000);
    },
  };
}
