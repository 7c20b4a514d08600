// The browser side of Pepper: what Chrome's renderer was to a NaCl plugin.
//
// One `Browser` per guest process (Chrome ran one process per instance),
// living with the process-wide state (the Process: memory, page allocator,
// file system) on the thread that never runs guest code — the "host":
// Node's main thread, or the runtime's kernel Worker in a page. Guest
// threads reach it with synchronous calls (threads/rpc.js) that may be
// answered later (a blocking Pepper call parks its thread until the
// answer), or directly when the guest runs on the host thread.
//
// It owns:
// - vars and resources (vars.js, resources.js), exact reference counts;
// - the PPB implementations (ppb/*.js), keyed by the function keys of
//   abi.gen.js, and the interface tables (arrays of table addresses) that
//   PPB_GetInterface hands the plugin, built in guest memory on first use;
// - message loops and completion callbacks: a callback runs on the thread
//   that made the call, through that thread's loop (the main thread's loop
//   is the main thread's JS event queue, see plugin.js);
// - the instance: its attributes (DidCreate's argn/argv), view, focus,
//   messages queued before the module is ready, and the embedder — the
//   page element, Node's stdio, or a test — that messages and logs go to.
//
// Life cycle (docs/ARCHITECTURE.md, "Pepper"): the guest's main thread
// calls ppapi_start, reports `started`, runs PPP_InitializeModule and
// DidCreate itself (plugin.js) and reports `created`; then the browser
// delivers the first DidChangeView, focus and queued messages, and tells
// the embedder the module has loaded.

import { PPB_INDEX, PPB_INTERFACES, ppbAddress } from '../runtime/abi.js';
import { GuestFault } from '../runtime/faults.js';
import { MemoryFault, utf8 } from '../runtime/memory.js';
import { GuestHeap } from './heap.js';
import { CALLBACK_FLAG, INSTANCE_ID, ITEM, MAIN_TID, PP, PP_CALLBACK, PP_FALSE, PP_TRUE } from './defs.js';
import { classOf, eventState } from './ppb/input.js';
import { ResourceTable } from './resources.js';
import { VarStore, varWords } from './vars.js';
import { ppbImplementations } from './ppb/index.js';

/** Interface families that need something of the embedder. */
const NEEDS = Object.freeze({
  PPB_Graphics2D: (b) => b.canvas2d !== null,
  PPB_Audio: (b) => !!b.embedder.audio,
  PPB_AudioConfig: (b) => !!b.embedder.audio,
  PPB_MouseCursor: (b) => !!b.embedder.setCursor,
  PPB_MouseLock: (b) => !!b.embedder.lockMouse,
  PPB_Fullscreen: (b) => !!b.embedder.setFullscreen,
  PPB_Gamepad: (b) => !!b.embedder.gamepads,
  PPB_WebSocket: (b) => typeof (b.embedder.WebSocket ?? globalThis.WebSocket) === 'function',
});

/** The view an instance starts with when the embedder gives none. */
export const DEFAULT_VIEW = Object.freeze({
  rect: { x: 0, y: 0, width: 0, height: 0 },
  clip: { x: 0, y: 0, width: 0, height: 0 },
  fullscreen: false,
  visible: true,
  pageVisible: true,
  deviceScale: 1,
  cssScale: 1,
  scroll: { x: 0, y: 0 },
});

export class Browser {
  /**
   * @param {object} o
   * @param {{ mem: import('../runtime/memory.js').GuestMemory, pages: import('../runtime/irt/memory.js').PageAllocator }} o.proc
   * @param {object} o.embedder   the page side (see `embedder` in README.md)
   * @param {Array<[string, string]>} [o.attributes]  DidCreate's argn/argv, in order
   * @param {object} [o.view]     initial view (DEFAULT_VIEW's shape)
   * @param {object} o.transport  { toMain(item) }: posts an item to the main thread's queue
   */
  constructor({ proc, embedder, attributes = [], view, transport, fetch, baseUrl, canvas2d = null }) {
    this.proc = proc;
    this.mem = proc.mem;
    this.heap = new GuestHeap(proc.pages, proc.mem);
    this.resources = new ResourceTable();
    this.vars = new VarStore({
      mem: proc.mem,
      heap: this.heap,
      onResourceRelease: (id) => this.resources.release(id),
      onResourceAddRef: (id) => this.resources.addRef(id),
    });
    this.embedder = embedder;
    /** The page's 2D surface (an OffscreenCanvas), or null without a page. */
    this.canvas2d = canvas2d;
    this.transport = transport;
    this.fetch = fetch ?? globalThis.fetch?.bind(globalThis);
    /** The embedding document's URL: relative URLs resolve against it. */
    this.baseUrl = baseUrl ?? globalThis.location?.href ?? 'file:///';
    this.attributes = attributes.map(([n, v]) => [String(n), String(v)]);
    this.view = { ...DEFAULT_VIEW, ...(view ?? {}) };
    this.focus = false;
    /** Start functions the plugin gave ppapi_start, once it has. */
    this.start = null;
    /** The plugin's PP_ThreadFunctions { create, join }, once registered. */
    this.threadCreator = null;
    /** 'starting' → 'created' (DidCreate said yes) → 'dead' */
    this.state = 'starting';
    /** Page → plugin messages that arrived before DidCreate. */
    this.pending = [];
    /** Interface name → address of its table in guest memory. */
    this.tables = new Map();
    /** Interface names asked for and not answered (listed once). */
    this.missing = new Set();
    /** tid → message loop resource attached to that thread. */
    this.threadLoops = new Map();
    /** The message handler registered with PPB_Messaging 1.2, or null. */
    this.handler = null;
    /** Blocking messages waiting for their response: id → resolve. */
    this.replies = new Map();
    /** …and how to fail them if the plugin goes away first. */
    this.blockingRejects = new Map();
    this.nextReply = 1;
    /** Input event classes the plugin asked for (PPB_InputEvent). */
    this.input = { requested: 0, filtered: 0 };
    this.impl = ppbImplementations(this);
    this.mainLoop = this.resources.add('MessageLoop', {
      tid: MAIN_TID,
      main: true,
      queue: [],
      waiter: null,
      running: false,
      destroyed: false,
    });
  }

  // ------------------------------------------------------------ dispatching

  /**
   * Runs PPB function `key` for guest thread `tid`. Returns a number, a
   * BigInt, `{ value, payload }`, or a Promise of one (the caller's thread
   * waits for it).
   */
  call(key, tid, args) {
    const fn = this.impl[key];
    if (!fn) throw new Error(`runtime bug: no browser implementation of ${key}`);
    try {
      return fn({ tid, b: this }, ...args);
    } catch (e) {
      // A pointer the plugin passed does not point into its memory.
      if (e instanceof MemoryFault) throw new GuestFault(`${key} was given a bad pointer (${e.message})`);
      throw e;
    }
  }

  /**
   * Whether interface `name` is offered: every function implemented here,
   * and what it needs of the embedder present (a 2D surface for
   * Graphics2D, a player for audio: Node has neither).
   */
  supports(name) {
    const keys = PPB_INTERFACES[name];
    if (!keys || name.startsWith('@')) return false;
    const family = name.split(';')[0];
    const needs = NEEDS[family];
    if (needs && !needs(this)) return false;
    return keys.every((k) => typeof this.impl[k] === 'function');
  }

  /**
   * PPB_GetInterface: the address of `name`'s function table in guest
   * memory (built once), or 0 for an interface this runtime does not
   * provide (reported to the embedder once per name).
   */
  getInterface(name) {
    const have = this.tables.get(name);
    if (have !== undefined) return have;
    if (!this.supports(name)) {
      if (!this.missing.has(name)) {
        this.missing.add(name);
        this.embedder.missingInterface?.(name);
      }
      return 0;
    }
    const keys = PPB_INTERFACES[name];
    const table = this.heap.alloc(4 * keys.length);
    if (table === 0) return 0;
    keys.forEach((key, i) => this.mem.setU32(table + 4 * i, ppbAddress(PPB_INDEX.get(key))));
    this.tables.set(name, table);
    return table;
  }

  // ------------------------------------------------------ callbacks, loops

  /**
   * Reads the PP_CompletionCallback at `ptr` for a call from thread `tid`
   * and decides how the call completes (pepper-facts.md §7):
   * - blocking (func 0): not on the main thread (PP_ERROR_BLOCKS_MAIN_THREAD);
   *   the call's answer waits for the result;
   * - required / optional: the callback runs later on the caller's loop
   *   (none attached: PP_ERROR_NO_MESSAGE_LOOP); the call answers
   *   PP_OK_COMPLETIONPENDING (an optional callback with a result at hand
   *   is not called: the call answers the result).
   * Returns `{ error }` or `{ finish(resultOrPromise) }`.
   */
  completion(tid, ptr) {
    this.mem.check(ptr, PP_CALLBACK.SIZE);
    const func = this.mem.getU32(ptr + PP_CALLBACK.func);
    const userData = this.mem.getU32(ptr + PP_CALLBACK.user_data);
    const flags = this.mem.getI32(ptr + PP_CALLBACK.flags);
    if (func === 0) {
      if (tid === MAIN_TID) return { error: PP.ERROR_BLOCKS_MAIN_THREAD };
      return { blocking: true, finish: (r) => r };
    }
    if (tid !== MAIN_TID && !this.threadLoops.has(tid)) return { error: PP.ERROR_NO_MESSAGE_LOOP };
    const optional = (flags & CALLBACK_FLAG.OPTIONAL) !== 0;
    return {
      blocking: false,
      finish: (r) => {
        if (typeof r === 'number') {
          if (optional) return r;
          this.schedule(tid, [ITEM.CALLBACK, func, userData, r]);
          return PP.OK_COMPLETIONPENDING;
        }
        Promise.resolve(r).then(
          (result) => this.schedule(tid, [ITEM.CALLBACK, func, userData, result | 0]),
          () => this.schedule(tid, [ITEM.CALLBACK, func, userData, PP.ERROR_FAILED]),
        );
        return PP.OK_COMPLETIONPENDING;
      },
    };
  }

  /** Queues `item` (ITEM words) on thread `tid`'s loop. */
  schedule(tid, item) {
    if (this.state === 'dead') return;
    if (tid === MAIN_TID) {
      this.transport.toMain(item);
      return;
    }
    const loop = this.resources.get(this.threadLoops.get(tid), 'MessageLoop');
    if (loop) this.enqueue(loop, item);
  }

  /** Adds `item` to a (non-main) loop and wakes its Run. */
  enqueue(loop, item) {
    if (loop.main) {
      this.transport.toMain(item);
      return;
    }
    if (loop.waiter) {
      const wake = loop.waiter;
      loop.waiter = null;
      wake(item);
    } else {
      loop.queue.push(item);
    }
  }

  // --------------------------------------------------------------- instance

  /** The guest's main thread entered Pepper: ppapi_start(funcs). */
  started(funcs) {
    this.start = funcs;
  }

  /**
   * DidCreate's arguments in guest memory: `{ argc, argn, argv }` (two
   * arrays of C string pointers).
   */
  createArgs() {
    const n = this.attributes.length;
    const argn = this.heap.alloc(4 * Math.max(1, n));
    const argv = this.heap.alloc(4 * Math.max(1, n));
    this.attributes.forEach(([name, value], i) => {
      this.mem.setU32(argn + 4 * i, this.heap.allocBytes(utf8(name), 1));
      this.mem.setU32(argv + 4 * i, this.heap.allocBytes(utf8(value), 1));
    });
    return { argc: n, argn, argv };
  }

  /** A new View resource with the current view (one reference for the receiver). */
  viewResource() {
    return this.resources.add('View', { ...structuredClone(this.view) });
  }

  /** The main thread reports DidCreate's answer. */
  created(ok) {
    if (this.state !== 'starting') return;
    if (!ok) {
      this.state = 'dead';
      this.embedder.loadFailed?.('could not create instance.');
      return;
    }
    this.state = 'created';
    this.transport.toMain({ ppp: 'DidChangeView' });
    if (this.focus) this.transport.toMain({ ppp: 'DidChangeFocus', hasFocus: true });
    const queued = this.pending;
    this.pending = [];
    for (const value of queued) this.deliverMessage(value);
    this.embedder.loaded?.();
  }

  /** InitializeModule failed, or the plugin has no PPP_Instance. */
  initFailed(message) {
    this.state = 'dead';
    this.embedder.loadFailed?.(message);
  }

  /** Page → plugin: `element.postMessage(value)`. Queued until DidCreate. */
  postMessage(value) {
    if (this.state === 'dead') return;
    if (this.state === 'starting') {
      this.pending.push(value);
      return;
    }
    this.deliverMessage(value);
  }

  deliverMessage(value) {
    let v;
    try {
      v = this.vars.fromJs(value);
    } catch (e) {
      this.embedder.log?.('error', 'pexe', `a message could not be converted for the plugin: ${e.message}`);
      return;
    }
    if (this.handler) {
      const { loop, handler, userData } = this.handler;
      const [lo, hi] = varWords(v);
      this.enqueue(loop, [ITEM.HANDLER_MESSAGE, handler, userData, v.type, lo, hi]);
    } else {
      // PPP_Messaging.HandleMessage takes the reference (PASS_REF).
      this.transport.toMain({ ppp: 'HandleMessage', var: v });
    }
  }

  /**
   * Page → plugin, waiting for the answer (postMessageAndAwaitResponse):
   * the registered handler's HandleBlockingMessage runs on its loop's
   * thread; resolves with its response, rejects with Chrome's exception
   * texts when there is no loaded plugin or no handler.
   */
  postBlockingMessage(value) {
    if (this.state !== 'created') {
      return Promise.reject(new Error('Attempted to call a synchronous method on a plugin that was not yet loaded.'));
    }
    if (!this.handler) {
      return Promise.reject(
        new Error(
          'The plugin has not registered a handler for synchronous messages. See the documentation for PPB_Messaging::RegisterMessageHandler and PPP_MessageHandler.',
        ),
      );
    }
    let v;
    try {
      v = this.vars.fromJs(value);
    } catch (e) {
      return Promise.reject(e);
    }
    const { loop, handler, userData } = this.handler;
    const id = this.nextReply++;
    const [lo, hi] = varWords(v);
    return new Promise((resolve, reject) => {
      this.replies.set(id, resolve);
      this.blockingRejects.set(id, reject);
      this.enqueue(loop, [ITEM.HANDLER_BLOCKING, handler, userData, v.type, lo, hi, id]);
    }).finally(() => this.blockingRejects.delete(id));
  }

  /** The page ended the pointer lock: PPP_MouseLock.MouseLockLost on the main thread. */
  mouseLockLost() {
    if (!this.mouseLocked) return;
    this.mouseLocked = false;
    if (this.state === 'created') {
      this.transport.toMain({ ppp: 'call', iface: 'PPP_MouseLock;1.0', member: 'MouseLockLost', args: [INSTANCE_ID] });
    }
  }

  /** Tells the embedder which input classes the plugin wants (it stops their default actions). */
  inputClassesChanged() {
    this.embedder.inputClasses?.(this.input.requested, this.input.filtered);
  }

  /**
   * An input event from the page (a normalized event: ppb/input.js
   * eventState). Delivered to PPP_InputEvent.HandleInputEvent on the main
   * thread if the plugin asked for its class; the browser holds the event
   * resource's reference for the duration of the call. Resolves whether
   * the plugin handled it (meaningful for filtered classes), false when
   * it was not delivered.
   */
  inputEvent(event) {
    if (this.state !== 'created') return Promise.resolve(false);
    const cls = classOf(event.type);
    if (!cls || !((this.input.requested | this.input.filtered) & cls)) return Promise.resolve(false);
    const id = this.resources.add('InputEvent', eventState(event));
    const reply = this.nextReply++;
    return new Promise((resolve) => {
      this.replies.set(reply, (handled) => {
        this.resources.release(id);
        resolve(handled !== 0 || !(this.input.filtered & cls));
      });
      this.transport.toMain({ ppp: 'call', iface: 'PPP_InputEvent;0.1', member: 'HandleInputEvent', args: [INSTANCE_ID, id], reply, missing: 0 });
    });
  }

  /** The embedder's view changed (size, visibility, scale, …). */
  setView(view) {
    Object.assign(this.view, view);
    if (this.state === 'created') this.transport.toMain({ ppp: 'DidChangeView' });
  }

  setFocus(hasFocus) {
    const changed = this.focus !== !!hasFocus;
    this.focus = !!hasFocus;
    if (changed && this.state === 'created') this.transport.toMain({ ppp: 'DidChangeFocus', hasFocus: this.focus });
  }

  /** The process is ending: abort everything pending. */
  shutdown() {
    this.state = 'dead';
    for (const reject of this.blockingRejects.values()) reject(new Error('the plugin has ended'));
    this.blockingRejects.clear();
    for (const r of this.resources.items.values()) {
      if (r.kind === 'MessageLoop' && r.waiter) {
        const wake = r.waiter;
        r.waiter = null;
        wake([ITEM.QUIT]);
      }
    }
    this.resources.clear();
  }

  /**
   * `url` resolved against the document, through the embedder's rewrite
   * map (archived apps whose hosts are gone); null when it is not a URL.
   */
  resolveUrl(url) {
    let href;
    try {
      href = new URL(url, this.baseUrl).href;
    } catch {
      return null;
    }
    return this.embedder.rewriteUrl?.(href) ?? href;
  }

  /** Whether `url` is of another origin than the document. */
  isCrossOrigin(url) {
    const a = new URL(url);
    const d = new URL(this.baseUrl);
    if (a.protocol === 'file:' && d.protocol === 'file:') return false;
    return a.origin !== d.origin;
  }

  /** Bool helpers for implementations. */
  static bool(b) {
    return b ? PP_TRUE : PP_FALSE;
  }
}

