// The plugin side of Pepper: what runs on the guest's own threads.
//
// - `pepperImports(thread, link, { coop })`: the `ppapi` import object of
//   one guest thread. Each PPB function forwards its raw arguments to the
//   browser (browser.js) through `link` — a synchronous call to the host
//   from a Worker, or a direct call when the guest runs on the host —
//   except the few that must run on the calling thread: the clock,
//   IsMainThread, MessageLoop.Run (it executes the loop's items here), and
//   interface lookups (cached per thread). With cooperative threads
//   (threads/coop.js) every one is `WebAssembly.Suspending`, so a call the
//   browser answers later sets the thread aside instead of blocking.
// - `ppapihook(thread)`: IRT `nacl-irt-ppapihook-0.1`. `ppapi_start` never
//   returns while the plugin lives: it throws `PepperStart`, which unwinds
//   `_start`'s frames (main() and PpapiPluginMain are abandoned; the stack
//   pointer stays below them) and turns the main thread into an event
//   loop: its JS event queue is the main thread's message loop.
// - `PluginMain`: that event loop. It boots the module (PPP_InitializeModule,
//   PPP_GetInterface, DidCreate), then runs each item the browser sends,
//   one after the other: completion callbacks and PPP calls (DidChangeView,
//   DidChangeFocus, HandleMessage, …), calling the plugin's functions
//   through the table with the pexe calling convention (a struct argument
//   is a pointer to a copy on the thread's own stack).
//
// Threads (pepper/README.md): the main thread only runs guest code when an
// item arrives, so it never blocks and a blocking call there answers
// PP_ERROR_BLOCKS_MAIN_THREAD; other threads may block in Pepper calls
// (their Worker waits for the browser's answer) and in MessageLoop.Run.

import { PPB_FUNCTIONS, PPB_INDEX, PPP_FUNCTIONS, PPP_INTERFACES, ppbAddress } from '../runtime/abi.js';
import { GuestFault } from '../runtime/faults.js';
import {
  ARRAY_OUTPUT_FUNCTIONS,
  INSTANCE_ID,
  ITEM,
  MAIN_TID,
  MODULE_ID,
  OUTPUT_WORDS,
  PP,
  PP_RECT,
  PP_VAR,
  PPP_MESSAGE_HANDLER,
} from './defs.js';
import { ppTime, ppTimeTicks } from './ppb/core.js';
import { varWords } from './vars.js';
import { localImplementations } from './local.js';
import { PepperStart, ppapihook } from './start.js';

export { PepperStart, ppapihook };

/** The table address of the browser's PPB_GetInterface. */
export const GET_INTERFACE_ADDRESS = ppbAddress(PPB_INDEX.get('@browser:PPB_GetInterface'));
/** The table address of the audio thread's start routine. */
export const AUDIO_MAIN_ADDRESS = ppbAddress(PPB_INDEX.get('@browser:PPB_AudioThreadMain'));

/** `f(v)`, after `v` settles when it is a Promise (one code path for both executors). */
const then = (v, f) => (v && typeof v.then === 'function' ? v.then(f) : f(v));

const PPP_BY_KEY = new Map(PPP_FUNCTIONS.map((f) => [f.key, f]));

/** Converts a browser answer to the import's result kind. */
function resultOf(link, kind, r) {
  if (kind === 'd' || kind === 'f') return link.f64();
  if (kind === 'l') return link.i64();
  return r;
}

/**
 * The `ppapi` imports of `thread`. `link.call(key, args)` runs a browser
 * function and returns its i32 result; `link.f64()` / `link.i64()` /
 * `link.payload()` read the rest of the last answer; with `coop`,
 * `link.callAsync` may return a Promise.
 */
export function pepperImports(thread, link, { coop = false } = {}) {
  const imports = Object.create(null);
  for (const f of PPB_FUNCTIONS) {
    const key = f.key;
    const kind = f.results;
    imports[key] = coop
      ? (...args) => {
          const r = link.callAsync(key, args);
          return r && typeof r.then === 'function' ? r.then((v) => resultOf(link, kind, v)) : resultOf(link, kind, r);
        }
      : (...args) => resultOf(link, kind, link.call(key, args));
  }
  const interfaces = new Map();
  const exec = coop ? executor(thread, true) : executor(thread, false);
  Object.assign(imports, {
    'PPB_Core;1.0:GetTime': ppTime,
    'PPB_Core;1.0:GetTimeTicks': ppTimeTicks,
    'PPB_Core;1.0:IsMainThread': () => (thread.tid === MAIN_TID ? 1 : 0),
    '@browser:PPB_GetInterface'(name) {
      // Tables never move once built: ask the browser once per name.
      let s;
      try {
        s = thread.mem.readCString(name, 256);
      } catch {
        return 0;
      }
      let addr = interfaces.get(s);
      if (addr === undefined) {
        addr = link.call('@browser:PPB_GetInterface', [name]);
        if (addr !== 0) interfaces.set(s, addr);
      }
      return addr;
    },
    'PPB_MessageLoop;1.0:Run': coop
      ? async (loop) => {
          const r = link.call('$MessageLoop.enter', [loop]);
          if (r !== PP.OK) return r;
          try {
            for (;;) {
              await link.callAsync('$MessageLoop.next', [loop]);
              const item = link.payload();
              if (item[0] === ITEM.QUIT) break;
              await runItem(thread, link, item, exec);
            }
          } finally {
            link.call('$MessageLoop.exit', [loop]);
          }
          return PP.OK;
        }
      : (loop) => {
          const r = link.call('$MessageLoop.enter', [loop]);
          if (r !== PP.OK) return r;
          try {
            for (;;) {
              link.call('$MessageLoop.next', [loop]);
              const item = link.payload();
              if (item[0] === ITEM.QUIT) break;
              runItem(thread, link, item, exec);
            }
          } finally {
            link.call('$MessageLoop.exit', [loop]);
          }
          return PP.OK;
        },
  });
  Object.assign(imports, audioFunctions(thread, link, exec, coop));
  // Calls that fill a PP_ArrayOutput: a blocking one's answer carries the
  // output, which this thread asks the plugin a buffer for before the
  // call returns (callbacks do it in runItem).
  for (const key of ARRAY_OUTPUT_FUNCTIONS) {
    imports[key] = coop
      ? async (...args) => {
          const r = await link.callAsync(key, args);
          const words = link.payload();
          return words.length === OUTPUT_WORDS ? fillOutput(thread, link, exec, words) : r;
        }
      : (...args) => {
          const r = link.call(key, args);
          const words = link.payload();
          return words.length === OUTPUT_WORDS ? fillOutput(thread, link, exec, words) : r;
        };
  }
  if (coop) {
    for (const key of Object.keys(imports)) imports[key] = new WebAssembly.Suspending(imports[key]);
  }
  // On the thread that owns the 3D surface, the 3D interfaces run here
  // (local.js). They never wait, so with cooperative threads they need no
  // Suspending wrapper (which would cost every GL call).
  if (thread.canvas3d) Object.assign(imports, localImplementations(thread, link, thread.glOptions ?? {}));
  return imports;
}

/**
 * PPB_Audio's halves that run on guest threads: StartPlayback starts the
 * audio thread with the plugin's thread creator (a guest call), StopPlayback
 * joins it, and PPB_AudioThreadMain is that thread: it runs the plugin's
 * callback once per period the browser asks for (ppb/audio.js).
 */
function audioFunctions(thread, link, exec, coop) {
  const mem = thread.mem;
  const period = (item) => {
    const [, callback, buffer, bytes, userData, withLatency] = item;
    const fn = guestFunction(thread, callback, 'PPB_Audio');
    const args = withLatency ? [buffer, bytes, link.f64(), userData] : [buffer, bytes, userData];
    return then(exec(fn, args), () => link.call('$Audio.filled', [thread.audioId]));
  };
  return {
    'PPB_Audio;1.0:StartPlayback'(audio) {
      const r = link.call('$Audio.start', [audio]);
      if (r !== 1) return r === 2 ? 1 : 0;
      const [create] = link.payload();
      const fn = guestFunction(thread, create, 'PP_ThreadFunctions thread_create');
      const made = exec(fn, (at) => [at, AUDIO_MAIN_ADDRESS, audio], 16, null, (at, result) => ({
        result: result | 0,
        tid: mem.getU32(at),
      }));
      return then(made, ({ result, tid }) => {
        if (result !== 0) {
          link.call('$Audio.failed', [audio]);
          return 0;
        }
        link.call('$Audio.thread', [audio, tid]);
        return 1;
      });
    },
    'PPB_Audio;1.0:StopPlayback'(audio) {
      if (link.call('$Audio.stop', [audio]) === 0) return 1;
      const [join, tid] = link.payload();
      if (join === 0) return 1;
      // Returns once the audio thread has left its callback and ended.
      return then(exec(guestFunction(thread, join, 'PP_ThreadFunctions thread_join'), [tid]), () => 1);
    },
    '@browser:PPB_AudioThreadMain': coop
      ? async (audio) => {
          thread.audioId = audio;
          for (;;) {
            await link.callAsync('$Audio.wait', [audio]);
            const item = link.payload();
            if (item[0] === 0) return 0;
            await period(item);
          }
        }
      : (audio) => {
          thread.audioId = audio;
          for (;;) {
            link.call('$Audio.wait', [audio]);
            const item = link.payload();
            if (item[0] === 0) return 0;
            period(item);
          }
        },
  };
}

// ------------------------------------------------------------ guest calls

/** The wasm function at table address `ptr`; a guest fault when there is none. */
function guestFunction(thread, ptr, what) {
  let f = null;
  try {
    f = thread.exports.table.get(ptr >>> 0);
  } catch {
    f = null;
  }
  if (typeof f !== 'function') {
    throw new GuestFault(`the plugin gave ${what} a bad function pointer (${ptr >>> 0})`);
  }
  return f;
}

/**
 * How a guest call runs: `exec(fn, args, stackBytes, before, after)` —
 * `stackBytes` reserved on the thread's stack (16-byte aligned) for struct
 * copies, `before(at)` writes them, `args` is an array or `(at) => array`,
 * `after(at, result)` reads results before the stack is released. The
 * plain executor returns the result; the cooperative one (JSPI) a Promise,
 * entering the guest through WebAssembly.promising so it may suspend.
 */
function executor(thread, coop) {
  const promising = new Map();
  const enter = coop
    ? (fn, args) => {
        let p = promising.get(fn);
        if (!p) {
          p = WebAssembly.promising(fn);
          promising.set(fn, p);
        }
        return p(...args);
      }
    : (fn, args) => fn(...args);
  return (fn, args, stackBytes = 0, before = null, after = null) => {
    const ex = thread.exports;
    const sp = ex.__stack_pointer.value >>> 0;
    let at = 0;
    if (stackBytes > 0) {
      at = (sp - stackBytes) & ~15;
      if (at < (ex.__stack_limit.value >>> 0)) throw new GuestFault('stack overflow (Pepper call arguments)');
      ex.__stack_pointer.value = at;
    }
    const restore = () => {
      ex.__stack_pointer.value = sp;
    };
    try {
      before?.(at);
      const r = enter(fn, typeof args === 'function' ? args(at) : args);
      if (!coop) {
        const out = after ? after(at, r) : r;
        restore();
        return out;
      }
      return Promise.resolve(r).then(
        (v) => {
          const out = after ? after(at, v) : v;
          restore();
          return out;
        },
        (e) => {
          restore();
          throw e;
        },
      );
    } catch (e) {
      restore();
      throw e;
    }
  };
}

/** Writes a var (type + 8 value bytes from two words) as a struct PP_Var. */
function writeVarWords(mem, addr, type, lo, hi) {
  mem.setI32(addr + PP_VAR.type, type);
  mem.setI32(addr + 4, 0);
  mem.setI32(addr + PP_VAR.value, lo);
  mem.setI32(addr + PP_VAR.value + 4, hi);
}

/**
 * The thread-side half of a call that fills a PP_ArrayOutput
 * (browser.js completeWithOutput): asks the plugin's GetDataBuffer for a
 * buffer of `count` elements of `size` bytes, here on the calling thread,
 * then has the browser store the data there; returns the call's result
 * (a Promise of it with cooperative threads).
 */
export function fillOutput(thread, link, exec, words) {
  const [id, getDataBuffer, userData, count, size] = words;
  const fn = guestFunction(thread, getDataBuffer, 'PP_ArrayOutput GetDataBuffer');
  const store = (ptr) => link.call('$ArrayOutput.fill', [id, ptr >>> 0]);
  const ptr = exec(fn, [userData, count, size]);
  return ptr && typeof ptr.then === 'function' ? ptr.then(store) : store(ptr);
}

/**
 * Runs one loop item on this thread (callbacks, message handler calls);
 * returns what `exec` returns (a Promise with cooperative threads).
 */
export function runItem(thread, link, item, exec) {
  const mem = thread.mem;
  switch (item[0]) {
    case ITEM.CALLBACK: {
      const [, func, userData, result] = item;
      return exec(guestFunction(thread, func, 'a completion callback'), [userData, result]);
    }
    case ITEM.OUTPUT_CALLBACK: {
      const [, func, userData] = item;
      const callback = guestFunction(thread, func, 'a completion callback');
      const result = fillOutput(thread, link, exec, item.slice(4, 4 + OUTPUT_WORDS));
      const call = (r) => exec(callback, [userData, r]);
      return result && typeof result.then === 'function' ? result.then(call) : call(result);
    }
    case ITEM.HANDLER_MESSAGE: {
      const [, handler, userData, type, lo, hi] = item;
      const fn = guestFunction(thread, mem.getU32(handler + PPP_MESSAGE_HANDLER.HandleMessage), 'PPP_MessageHandler');
      // The handler's argument is the browser's (const PP_Var*): dropped after.
      return exec(fn, (at) => [INSTANCE_ID, userData, at], 16, (at) => writeVarWords(mem, at, type, lo, hi), () => {
        link.call('$var.release', [type, lo, hi]);
      });
    }
    case ITEM.HANDLER_BLOCKING: {
      const [, handler, userData, type, lo, hi, replyId] = item;
      const fn = guestFunction(thread, mem.getU32(handler + PPP_MESSAGE_HANDLER.HandleBlockingMessage), 'PPP_MessageHandler');
      return exec(
        fn,
        (at) => [INSTANCE_ID, userData, at, at + 16],
        32,
        (at) => {
          writeVarWords(mem, at, type, lo, hi);
          writeVarWords(mem, at + 16, 0, 0, 0);
        },
        (at) => {
          link.call('$Messaging.reply', [replyId, at + 16]);
          link.call('$var.release', [type, lo, hi]);
        },
      );
    }
    case ITEM.HANDLER_DESTROY: {
      const [, handler, userData] = item;
      return exec(guestFunction(thread, mem.getU32(handler + PPP_MESSAGE_HANDLER.Destroy), 'PPP_MessageHandler'), [
        INSTANCE_ID,
        userData,
      ]);
    }
    default:
      throw new Error(`runtime bug: unknown loop item ${item[0]}`);
  }
}

// ------------------------------------------------------------ main thread

/**
 * The plugin's main thread after ppapi_start: boots the module, then runs
 * the items the browser sends (`handle`). Callers run one item at a time:
 * each returned Promise settles before the next item starts.
 */
export class PluginMain {
  constructor(thread, link, funcs, { coop = false } = {}) {
    this.thread = thread;
    this.link = link;
    this.funcs = funcs;
    this.exec = executor(thread, coop);
    /** PPP interface name → its table address in guest memory (0: none). */
    this.ppp = new Map();
    this.instanceVersion = null;
  }

  /** PPP_GetInterface(name), asked once per name. */
  async pluginInterface(name) {
    let addr = this.ppp.get(name);
    if (addr === undefined) {
      const get = guestFunction(this.thread, this.funcs.getInterface, 'PPP_GetInterface');
      const bytes = new TextEncoder().encode(name);
      addr = (await this.exec(get, (at) => [at], bytes.length + 1, (at) => this.thread.mem.writeCBytes(at, bytes))) >>> 0;
      this.ppp.set(name, addr);
    }
    return addr;
  }

  /** The plugin's function `member` of PPP interface `name`, or null. */
  async pluginFunction(name, member) {
    const table = await this.pluginInterface(name);
    if (table === 0) return null;
    const keys = PPP_INTERFACES[name];
    const index = keys.findIndex((k) => PPP_BY_KEY.get(k).name === member);
    const ptr = this.thread.mem.getU32(table + 4 * index);
    return ptr === 0 ? null : guestFunction(this.thread, ptr, `${name} ${member}`);
  }

  /** Module and instance start-up, then `created` to the browser. */
  async boot() {
    const { thread, link, funcs } = this;
    const creator = thread.threadCreator ?? { create: 0, join: 0 };
    link.call('$Pepper.started', [funcs.initialize, funcs.shutdown, funcs.getInterface, creator.create, creator.join]);
    const init = guestFunction(thread, funcs.initialize, 'PPP_InitializeModule');
    const r = (await this.exec(init, [MODULE_ID, GET_INTERFACE_ADDRESS])) | 0;
    if (r !== PP.OK) {
      link.call('$Pepper.failed', [1, r]);
      return;
    }
    this.instanceVersion = (await this.pluginInterface('PPP_Instance;1.1')) ? 'PPP_Instance;1.1' : 'PPP_Instance;1.0';
    if ((await this.pluginInterface(this.instanceVersion)) === 0) {
      link.call('$Pepper.failed', [2, 0]);
      return;
    }
    const didCreate = await this.pluginFunction(this.instanceVersion, 'DidCreate');
    link.call('$Pepper.createArgs', []);
    const [argc, argn, argv] = link.payload();
    const ok = didCreate ? (await this.exec(didCreate, [INSTANCE_ID, argc, argn, argv])) | 0 : 0;
    link.call('$Pepper.created', [ok !== 0 ? 1 : 0]);
  }

  /** Runs one item from the browser. */
  async handle(item) {
    if (Array.isArray(item)) {
      await runItem(this.thread, this.link, item, this.exec);
      return;
    }
    if (item.local) {
      // For this thread's own Pepper state (local.js), not the plugin.
      if (!this.thread.local?.handle(item)) throw new Error(`runtime bug: unknown local item ${JSON.stringify(item)}`);
      return;
    }
    switch (item.ppp) {
      case 'DidChangeView':
        await this.didChangeView();
        return;
      case 'DidChangeFocus': {
        const f = await this.pluginFunction(this.instanceVersion, 'DidChangeFocus');
        if (f) await this.exec(f, [INSTANCE_ID, item.hasFocus ? 1 : 0]);
        return;
      }
      case 'HandleMessage': {
        const f = await this.pluginFunction('PPP_Messaging;1.0', 'HandleMessage');
        if (!f) {
          this.link.call('$var.release', varArgs(item.var));
          return;
        }
        // The plugin receives a reference (PASS_REF) and releases it.
        const [type, lo, hi] = varArgs(item.var);
        await this.exec(f, (at) => [INSTANCE_ID, at], 16, (at) => writeVarWords(this.thread.mem, at, type, lo, hi));
        return;
      }
      case 'call': {
        // Any other PPP call the browser needs (input events, graphics).
        let r = item.missing ?? 0;
        try {
          const f = await this.pluginFunction(item.iface, item.member);
          if (f) r = (await this.exec(f, item.args)) | 0;
        } finally {
          // Answered even when the call faults, so the browser drops its references.
          if (item.reply) this.link.call('$Pepper.reply', [item.reply, r]);
        }
        return;
      }
      default:
        throw new Error(`runtime bug: unknown main-thread item ${JSON.stringify(item)}`);
    }
  }

  async didChangeView() {
    const { link, thread } = this;
    const view = link.call('$Pepper.viewResource', []);
    const words = link.payload();
    try {
      const f = await this.pluginFunction(this.instanceVersion, 'DidChangeView');
      if (!f) return;
      if (this.instanceVersion === 'PPP_Instance;1.1') {
        await this.exec(f, [INSTANCE_ID, view]);
      } else {
        await this.exec(
          f,
          (at) => [INSTANCE_ID, at, at + PP_RECT.SIZE],
          2 * PP_RECT.SIZE,
          (at) => words.forEach((w, i) => thread.mem.setI32(at + 4 * i, w)),
        );
      }
    } finally {
      link.call('PPB_Core;1.0:ReleaseResource', [view]);
    }
  }
}

/** A var as the three words `$var.release` takes. */
export function varArgs(v) {
  return [v.type, ...varWords(v)];
}
