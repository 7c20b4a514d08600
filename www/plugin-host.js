// How the page starts a Pepper plugin in a box: one small adapter, so the
// Plugin view (plugin.js) does not depend on which package API runs it.
//
//   const instance = await startPlugin(box, { pexe, name, attributes, translate }, (event) => …);
//   instance.postMessage('uci');   instance.destroy();   await instance.exited;
//
// `box` is the element the plugin lives in: the package draws its 2D/3D
// devices on canvases it puts there, takes its input and focus, plays its
// audio; the box's size is the plugin's view. `pexe` the pexe's bytes; `attributes` the
// element's attributes as [name, value] pairs (DidCreate's argn/argv);
// `translate()` resolves the WebAssembly the translator makes of the pexe
// (the page translates in its analysis Worker, off the main thread).
//
// Events, named and shaped as the `<embed>` element's were in Chrome
// (../shared/reference/nacl-embed-facts.md): {type: 'loadstart'},
// {type: 'progress', phase}, {type: 'load'}, {type: 'loadend'},
// {type: 'message', data}, {type: 'error', lastError, exitStatus?, fault?},
// {type: 'crash', lastError, exitStatus, fault} (lastError and the order as
// Chrome had them: "NaCl module load failed: …" then `loadend`; after
// `load`, "NaCl module crashed" without one), and the page's own: {type: 'log',
// level, text} (PPB_Console), {type: 'output', fd, text} (stdout/stderr),
// {type: 'missing', name} (an interface the runtime does not provide),
// {type: 'ended'} (stopped by the page).
//
// Today this runs on the package's `startPluginInPage` (a host Worker per
// plugin, internal/pepper/page.js). When the package exports `embed(element,
// { src, … })`, this file is the one place to switch over.

import { startPluginInPage } from './pkg/internal/pepper/page.js';

/** Chrome's prefix of `lastError` when a module cannot start. */
const LOAD_FAILED = 'NaCl module load failed: ';

export async function startPlugin(box, { pexe, name, attributes = [], translate }, emit) {
  let loaded = false;
  let over = false;
  // The last event: `error` then `loadend` while loading, `crash` (no
  // `loadend`: that came with `load`) after.
  const finish = (event) => {
    if (over) return;
    over = true;
    emit(event);
    if (event.type === 'error') emit({ type: 'loadend' });
  };
  emit({ type: 'loadstart' });

  let module;
  try {
    emit({ type: 'progress', phase: 'translate' });
    const wasm = await translate(pexe);
    emit({ type: 'progress', phase: 'compile' });
    module = await WebAssembly.compile(wasm);
  } catch (e) {
    const detail = e?.diagnostics?.[0]?.text ?? e?.message ?? String(e);
    finish({ type: 'error', lastError: LOAD_FAILED + detail });
    return { postMessage() {}, destroy() {}, exited: Promise.resolve({ exitCode: 1 }) };
  }

  emit({ type: 'progress', phase: 'start' });
  const rect = () => {
    const r = box.getBoundingClientRect();
    return { x: 0, y: 0, width: Math.round(r.width), height: Math.round(r.height) };
  };
  const view = () => ({ rect: rect(), clip: rect(), visible: true, pageVisible: !document.hidden, deviceScale: devicePixelRatio });
  const decoders = { 1: new TextDecoder(), 2: new TextDecoder() };
  // A previous instance's canvases and notices go.
  box.querySelectorAll(':scope > .pexe-surface, :scope > .pexe-notice').forEach((el) => el.remove());
  const plugin = startPluginInPage(
    module,
    {
      args: [name],
      env: {},
      attributes,
      view: view(),
      baseUrl: location.href,
      threads: globalThis.crossOriginIsolated === true,
    },
    {
      postMessage: (data) => emit({ type: 'message', data }),
      log: (level, source, text) => emit({ type: 'log', level, text: source ? `${source}: ${text}` : text }),
      loaded: () => {
        loaded = true;
        emit({ type: 'load' });
        emit({ type: 'loadend' });
      },
      loadFailed: (message) => finish({ type: 'error', lastError: LOAD_FAILED + message }),
      missingInterface: (iface) => emit({ type: 'missing', name: iface }),
      output: (fd, chunk) => emit({ type: 'output', fd, text: decoders[fd]?.decode(chunk, { stream: true }) ?? '' }),
      bug: (err) => emit({ type: 'log', level: 'error', text: err.message }),
    },
    box,
  );

  // The box's size is the plugin's view.
  const resize = new ResizeObserver(() => plugin.setView(view()));
  resize.observe(box);

  let destroyed = false;
  const exited = plugin.exited.then((result) => {
    resize.disconnect();
    const fault = result.fault ?? result.bug ?? null;
    if (destroyed || result.destroyed) finish({ type: 'ended' });
    // exit() counts as a crash, as in Chrome; exitStatus is its status.
    else if (loaded) finish({ type: 'crash', lastError: 'NaCl module crashed', exitStatus: result.exitCode, fault });
    else if (result.bug) finish({ type: 'error', lastError: LOAD_FAILED + result.bug });
    else finish({ type: 'error', lastError: LOAD_FAILED + 'Nexe crashed during startup', exitStatus: result.exitCode, fault });
    return result;
  });
  return {
    postMessage: (value) => plugin.postMessage(value),
    destroy() {
      destroyed = true;
      plugin.destroy();
    },
    exited,
  };
}
