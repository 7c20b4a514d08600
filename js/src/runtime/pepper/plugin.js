// The plugin side of Pepper: what runs on the guest's own threads.
//
// - `pepperImports(thread, link)`: the `ppapi` import object of one guest
//   thread. Each PPB function forwards its raw arguments to the browser
//   (browser.js) through `link` — a synchronous call to the host from a
//   Worker, or a direct call when the guest runs on the host — except the
//   few that must run on the calling thread: the clock, IsMainThread,
//   MessageLoop.Run (it executes the loop's items here), and interface
//   lookups (cached per thread).
// - `ppapihook(thread)`: IRT `nacl-irt-ppapihook-0.1`. `ppapi_start` never
//   returns while the plugin lives: it throws `PepperStart`, which unwinds
//   `_start`'s frames (main() and PpapiPluginMain are abandoned; the stack
//   pointer stays below them) and turns the main thread into an event
//   loop: its JS event queue is the main thread's message loop.
// - `PluginMain`: that event loop. It boots the module (PPP_InitializeModule,
//   PPP_GetInterface, DidCreate), then runs each item the browser sends:
//   completion callbacks and PPP calls (DidChangeView, DidChangeFocus,
//   HandleMessage, …), calling the plugin's functions through the table
//   with the pexe calling convention (a struct argument is a pointer to a
//   copy on the thread's own stack).
//
// Threads (pepper/README.md): the main thread only runs guest code when an
// item arrives, so it never blocks and a blocking call there answers
// PP_ERROR_BLOCKS_MAIN_THREAD; other threads may block in Pepper calls
// (their Worker waits for the browser's answer) and in MessageLoop.Run.

import { PPB_FUNCTIONS, PPB_INDEX, PPP_FUNCTIONS, PPP_INTERFACES, ppbAddress } from '../abi.js';
import { GuestFault } from '../faults.js';
import { errno } from '../defs.js';
import { INSTANCE_ID, ITEM, MAIN_TID, MODULE_ID, PP, PP_RECT, PP_START, PP_VAR, PPP_MESSAGE_HANDLER } from './defs.js';
import { ppTime, ppTimeTicks } from './ppb/core.js';
import { varWords } from './vars.js';

/** Thrown by ppapi_start on the main thread: the plugin's start functions. */
export class PepperStart extends Error {
  constructor(funcs) {
    super('the plugin entered its Pepper message loop');
    this.name = 'PepperStart';
    this.funcs = funcs;
  }
}

/** The table address of the browser's PPB_GetInterface. */
export const GET_INTERFACE_ADDRESS = ppbAddress(PPB_INDEX.get('@browser:PPB_GetInterface'));

const PPP_BY_KEY = new Map(PPP_FUNCTIONS.map((f) => [f.key, f]));

/** IRT `nacl-irt-ppapihook-0.1` for one thread. */
export function ppapihook(thread) {
  return {
    ppapi_start(funcs) {
      if (thread.tid !== MAIN_TID || !thread.pepper) return errno.ENOSYS;
      const m = thread.mem;
      m.check(funcs, PP_START.SIZE);
      throw new PepperStart({
        initialize: m.getU32(funcs + PP_START.initialize),
        shutdown: m.getU32(funcs + PP_START.shutdown),
        getInterface: m.getU32(funcs + PP_START.getInterface),
      });
    },
    // The runtime starts threads with IRT thread_create itself (the audio
    // thread included), so the plugin's own creator is not needed.
    ppapi_register_thread_creator() {},
  };
}

/**
 * The `ppapi` imports of `thread`. `link.call(key, args)` runs a browser
 * function and returns its i32 result; `link.f64()` / `link.payload()`
 * read the rest of the last answer.
 */
export function pepperImports(thread, link) {
  const imports = Object.create(null);
  for (const f of PPB_FUNCTIONS) {
    const key = f.key;
    const kind = f.results;
    imports[key] =
      kind === 'd' || kind === 'f'
        ? (...args) => {
            link.call(key, args);
            return link.f64();
          }
        : kind === 'l'
          ? (...args) => {
              link.call(key, args);
              return link.i64();
            }
          : (...args) => link.call(key, args);
  }
  const interfaces = new Map();
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
    'PPB_MessageLoop;1.0:Run'(loop) {
      const r = link.call('$MessageLoop.enter', [loop]);
      if (r !== PP.OK) return r;
      try {
        for (;;) {
          link.call('$MessageLoop.next', [loop]);
          const item = link.payload();
          if (item[0] === ITEM.QUIT) break;
          runItem(thread, link, item);
        }
      } finally {
        link.call('$MessageLoop.exit', [loop]);
      }
      return PP.OK;
    },
  });
  return imports;
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
 * Runs `body(addr)` with `size` bytes reserved on the thread's stack (16-byte
 * aligned), as a C caller would for struct copies.
 */
function withStack(thread, size, body) {
  const ex = thread.exports;
  const sp = ex.__stack_pointer.value >>> 0;
  const addr = (sp - size) & ~15;
  if (addr < (ex.__stack_limit.value >>> 0)) throw new GuestFault('stack overflow (Pepper call arguments)');
  ex.__stack_pointer.value = addr;
  try {
    return body(addr);
  } finally {
    ex.__stack_pointer.value = sp;
  }
}

/** Writes a var (type + 8 value bytes from two words) as a struct PP_Var. */
function writeVarWords(mem, addr, type, lo, hi) {
  mem.setI32(addr + PP_VAR.type, type);
  mem.setI32(addr + 4, 0);
  mem.setI32(addr + PP_VAR.value, lo);
  mem.setI32(addr + PP_VAR.value + 4, hi);
}

function writeVar(mem, addr, v) {
  const dv = mem.view();
  dv.setInt32(addr + PP_VAR.type, v.type, true);
  dv.setInt32(addr + 4, 0, true);
  if (v.type === 4) dv.setFloat64(addr + PP_VAR.value, v.value, true);
  else if (v.type <= 3) dv.setBigInt64(addr + PP_VAR.value, BigInt(v.value | 0), true);
  else dv.setBigInt64(addr + PP_VAR.value, BigInt(v.value), true);
}

/** Runs one loop item on this thread (callbacks, message handler calls). */
export function runItem(thread, link, item) {
  const mem = thread.mem;
  switch (item[0]) {
    case ITEM.CALLBACK: {
      const [, func, userData, result] = item;
      guestFunction(thread, func, 'a completion callback')(userData, result);
      return;
    }
    case ITEM.HANDLER_MESSAGE: {
      const [, handler, userData, type, lo, hi] = item;
      const fn = guestFunction(thread, mem.getU32(handler + PPP_MESSAGE_HANDLER.HandleMessage), 'PPP_MessageHandler');
      withStack(thread, 16, (at) => {
        writeVarWords(mem, at, type, lo, hi);
        fn(INSTANCE_ID, userData, at);
      });
      // The handler's argument is the browser's (const PP_Var*): drop it.
      link.call('$var.release', [type, lo, hi]);
      return;
    }
    case ITEM.HANDLER_BLOCKING: {
      const [, handler, userData, type, lo, hi, replyId] = item;
      const fn = guestFunction(thread, mem.getU32(handler + PPP_MESSAGE_HANDLER.HandleBlockingMessage), 'PPP_MessageHandler');
      withStack(thread, 32, (at) => {
        writeVarWords(mem, at, type, lo, hi);
        writeVarWords(mem, at + 16, 0, 0, 0);
        fn(INSTANCE_ID, userData, at, at + 16);
        link.call('$Messaging.reply', [replyId, at + 16]);
      });
      link.call('$var.release', [type, lo, hi]);
      return;
    }
    case ITEM.HANDLER_DESTROY: {
      const [, handler, userData] = item;
      guestFunction(thread, mem.getU32(handler + PPP_MESSAGE_HANDLER.Destroy), 'PPP_MessageHandler')(INSTANCE_ID, userData);
      return;
    }
    default:
      throw new Error(`runtime bug: unknown loop item ${item[0]}`);
  }
}

// ------------------------------------------------------------ main thread

/**
 * The plugin's main thread after ppapi_start: boots the module, then runs
 * the items the browser sends (`handle`), one at a time.
 */
export class PluginMain {
  constructor(thread, link, funcs) {
    this.thread = thread;
    this.link = link;
    this.funcs = funcs;
    /** PPP interface name → its table address in guest memory (0: none). */
    this.ppp = new Map();
    this.instanceVersion = null;
  }

  /** PPP_GetInterface(name), asked once per name. */
  pluginInterface(name) {
    let addr = this.ppp.get(name);
    if (addr === undefined) {
      const get = guestFunction(this.thread, this.funcs.getInterface, 'PPP_GetInterface');
      addr = withStack(this.thread, name.length + 1, (at) => {
        this.thread.mem.writeCBytes(at, new TextEncoder().encode(name));
        return get(at) >>> 0;
      });
      this.ppp.set(name, addr);
    }
    return addr;
  }

  /** The plugin's function `member` of PPP interface `name`, or null. */
  pluginFunction(name, member) {
    const table = this.pluginInterface(name);
    if (table === 0) return null;
    const keys = PPP_INTERFACES[name];
    const index = keys.findIndex((k) => PPP_BY_KEY.get(k).name === member);
    const ptr = this.thread.mem.getU32(table + 4 * index);
    return ptr === 0 ? null : guestFunction(this.thread, ptr, `${name} ${member}`);
  }

  /** Module and instance start-up, then `created` to the browser. */
  boot() {
    const { thread, link, funcs } = this;
    link.call('$Pepper.started', [funcs.initialize, funcs.shutdown, funcs.getInterface]);
    const init = guestFunction(thread, funcs.initialize, 'PPP_InitializeModule');
    const r = init(MODULE_ID, GET_INTERFACE_ADDRESS) | 0;
    if (r !== PP.OK) {
      link.call('$Pepper.failed', [1, r]);
      return;
    }
    this.instanceVersion = this.pluginInterface('PPP_Instance;1.1') ? 'PPP_Instance;1.1' : 'PPP_Instance;1.0';
    if (this.pluginInterface(this.instanceVersion) === 0) {
      link.call('$Pepper.failed', [2, 0]);
      return;
    }
    const didCreate = this.pluginFunction(this.instanceVersion, 'DidCreate');
    link.call('$Pepper.createArgs', []);
    const [argc, argn, argv] = link.payload();
    const ok = didCreate ? didCreate(INSTANCE_ID, argc, argn, argv) | 0 : 0;
    link.call('$Pepper.created', [ok !== 0 ? 1 : 0]);
  }

  /** Runs one item from the browser. */
  handle(item) {
    if (Array.isArray(item)) {
      runItem(this.thread, this.link, item);
      return;
    }
    switch (item.ppp) {
      case 'DidChangeView':
        return this.didChangeView();
      case 'DidChangeFocus': {
        const f = this.pluginFunction(this.instanceVersion, 'DidChangeFocus');
        f?.(INSTANCE_ID, item.hasFocus ? 1 : 0);
        return;
      }
      case 'HandleMessage': {
        const f = this.pluginFunction('PPP_Messaging;1.0', 'HandleMessage');
        if (!f) {
          this.link.call('$var.release', varArgs(item.var));
          return;
        }
        // The plugin receives a reference (PASS_REF) and releases it.
        withStack(this.thread, 16, (at) => {
          writeVar(this.thread.mem, at, item.var);
          f(INSTANCE_ID, at);
        });
        return;
      }
      case 'call': {
        // Any other PPP call the browser needs (input events, graphics).
        const f = this.pluginFunction(item.iface, item.member);
        const r = f ? f(...item.args) | 0 : (item.missing ?? 0);
        if (item.reply) this.link.call('$Pepper.reply', [item.reply, r]);
        return;
      }
      default:
        throw new Error(`runtime bug: unknown main-thread item ${JSON.stringify(item)}`);
    }
  }

  didChangeView() {
    const { link, thread } = this;
    const view = link.call('$Pepper.viewResource', []);
    try {
      if (this.instanceVersion === 'PPP_Instance;1.1') {
        this.pluginFunction(this.instanceVersion, 'DidChangeView')?.(INSTANCE_ID, view);
      } else {
        const words = link.payload();
        withStack(thread, 2 * PP_RECT.SIZE, (at) => {
          for (let i = 0; i < 8; i++) thread.mem.setI32(at + 4 * i, words[i]);
          this.pluginFunction(this.instanceVersion, 'DidChangeView')?.(INSTANCE_ID, at, at + PP_RECT.SIZE);
        });
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
