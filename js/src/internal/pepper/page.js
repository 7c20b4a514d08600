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
// view, baseUrl, urlMap, threads…); `embedder` receives postMessage(value),
// log(level, source, text), loaded(), loadFailed(message),
// missingInterface(name), output(fd, bytes), threadRefused(reason) when
// the plugin asks for a thread that cannot run here (once), and
// bug(error) when the runtime itself fails.

import { createReplyBuffer, decodeValue, replyReady, resetReply, REPLY } from './value-codec.js';

/** How long postMessageAndAwaitResponse waits before giving up (ms). */
export const BLOCKING_TIMEOUT_MS = 60_000;

export function startPluginInPage(module, options, embedder) {
  const worker = new Worker(new URL('./host-worker.js', import.meta.url), { type: 'module', name: 'pexe plugin host' });
  const reply = globalThis.crossOriginIsolated ? createReplyBuffer() : null;
  let settle;
  const exited = new Promise((resolve) => (settle = resolve));
  let done = false;
  const end = (result) => {
    if (done) return;
    done = true;
    settle(result);
    worker.terminate();
  };
  worker.addEventListener('message', (e) => {
    const msg = e.data;
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
    const err = new Error(`runtime bug: the plugin's host Worker failed: ${e.message ?? e}`);
    embedder.bug?.(err);
    end({ exitCode: 70, bug: err.message });
  });
  worker.postMessage({ type: 'start', module, options, reply });

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
