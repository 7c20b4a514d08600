// The browser halves of the plugin's start-up and of the calls the main
// thread makes on the browser's behalf (plugin.js PluginMain). Internal
// (`$` keys): none is in an interface table.

import { varFromWords } from '../vars.js';

export default (b) => ({
  /** ppapi_start ran: the plugin's start functions. */
  '$Pepper.started'(cx, initialize, shutdown, getInterface, threadCreate, threadJoin) {
    b.started({ initialize, shutdown, getInterface });
    // The plugin's thread creator (ppapi_register_thread_creator), which
    // starts the audio thread.
    if (threadCreate) b.threadCreator = { create: threadCreate, join: threadJoin };
    return 0;
  },
  /** Start-up failed: 1 = PPP_InitializeModule returned `code`, 2 = no PPP_Instance. */
  '$Pepper.failed'(cx, stage, code) {
    b.initFailed(stage === 1 ? 'could not initialize module.' : 'could not create instance.');
    if (stage === 1) b.embedder.log?.('error', 'NativeClient', `PPP_InitializeModule returned ${code}`);
    return 0;
  },
  /** DidCreate's arguments: payload [argc, argn, argv]. */
  '$Pepper.createArgs'() {
    const { argc, argn, argv } = b.createArgs();
    return { value: 0, payload: [argc, argn, argv] };
  },
  '$Pepper.created'(cx, ok) {
    b.created(ok !== 0);
    return 0;
  },
  /**
   * A new View resource for DidChangeView (released by the caller after
   * the call); payload: position and clip rects for PPP_Instance 1.0.
   */
  '$Pepper.viewResource'() {
    const id = b.viewResource();
    const { rect, clip } = b.view;
    const words = [rect.x, rect.y, rect.width, rect.height, clip.x, clip.y, clip.width, clip.height].map((n) => Math.round(n) | 0);
    return { value: id, payload: words };
  },
  /** The answer of a PPP call the browser asked the main thread to make. */
  '$Pepper.reply'(cx, id, result) {
    const resolve = b.replies.get(id);
    b.replies.delete(id);
    resolve?.(result);
    return 0;
  },
  /** Drops a reference the browser handed a thread (a message var). */
  '$var.release'(cx, type, lo, hi) {
    b.vars.release(varFromWords(type, lo, hi));
    return 0;
  },
  /** HandleBlockingMessage's response (at `ptr`), for the waiting page. */
  '$Messaging.reply'(cx, id, ptr) {
    const v = b.vars.read(ptr);
    let value;
    try {
      value = b.vars.toJs(v);
    } catch {
      value = undefined;
    }
    b.vars.release(v);
    const resolve = b.replies.get(id);
    b.replies.delete(id);
    resolve?.(value);
    return 0;
  },
});
