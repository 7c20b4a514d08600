// PPB_MessageLoop;1.0: message loops for the plugin's own threads.
//
//   PP_Resource Create(PP_Instance instance)
//   PP_Resource GetForMainThread(void)
//   PP_Resource GetCurrent(void)
//   int32_t AttachToCurrentThread(PP_Resource message_loop)
//   int32_t Run(PP_Resource message_loop)
//   int32_t PostWork(PP_Resource message_loop, struct PP_CompletionCallback callback, int64_t delay_ms)
//   int32_t PostQuit(PP_Resource message_loop, PP_Bool should_destroy)
//
// A loop is a queue of items (browser.js ITEM). `Run` executes on the
// calling thread (plugin.js): it enters here, then takes one item at a
// time with `$MessageLoop.next`, whose answer waits until there is one,
// so a thread blocked in Run costs nothing. The main thread's loop is the
// main thread's JS event queue: Run and PostQuit on it are errors, and
// work posted to it is delivered there. GetForMainThread and GetCurrent
// return a new reference (the C++ wrapper takes it with PASS_REF).

import { INSTANCE_ID, ITEM, MAIN_TID, PP, PP_CALLBACK } from '../defs.js';

export default (b) => {
  const loop = (id) => b.resources.get(id, 'MessageLoop');
  return {
    'PPB_MessageLoop;1.0:Create'(cx, instance) {
      if (instance !== INSTANCE_ID) return 0;
      return b.resources.add('MessageLoop', {
        tid: -1,
        main: false,
        queue: [],
        waiter: null,
        running: false,
        quitting: false,
        destroyAfterRun: false,
        destroyed: false,
      });
    },
    'PPB_MessageLoop;1.0:GetForMainThread'() {
      b.resources.addRef(b.mainLoop);
      return b.mainLoop;
    },
    'PPB_MessageLoop;1.0:GetCurrent'(cx) {
      const id = cx.tid === MAIN_TID ? b.mainLoop : b.threadLoops.get(cx.tid);
      if (!id || !b.resources.addRef(id)) return 0;
      return id;
    },
    'PPB_MessageLoop;1.0:AttachToCurrentThread'(cx, id) {
      const l = loop(id);
      if (!l || l.destroyed) return PP.ERROR_BADRESOURCE;
      if (cx.tid === MAIN_TID || b.threadLoops.has(cx.tid) || l.tid !== -1) return PP.ERROR_INPROGRESS;
      if (cx.audio) return PP.ERROR_WRONG_THREAD;
      l.tid = cx.tid;
      // The thread holds a reference until the loop is destroyed by PostQuit.
      b.resources.addRef(id);
      b.threadLoops.set(cx.tid, id);
      return PP.OK;
    },
    'PPB_MessageLoop;1.0:Run'() {
      throw new Error('runtime bug: MessageLoop.Run runs on the guest thread (plugin.js)');
    },
    'PPB_MessageLoop;1.0:PostWork'(cx, id, callback, delay) {
      const l = loop(id);
      if (!l || l.destroyed) return PP.ERROR_FAILED;
      const func = b.mem.getU32(callback + PP_CALLBACK.func);
      const userData = b.mem.getU32(callback + PP_CALLBACK.user_data);
      if (func === 0) return PP.ERROR_BADARGUMENT;
      const item = [ITEM.CALLBACK, func, userData, PP.OK];
      const ms = Number(BigInt.asIntN(64, BigInt(delay)));
      if (ms > 0) setTimeout(() => !l.destroyed && b.enqueue(l, item), Math.min(ms, 2 ** 31 - 1));
      else b.enqueue(l, item);
      return PP.OK;
    },
    'PPB_MessageLoop;1.0:PostQuit'(cx, id, shouldDestroy) {
      const l = loop(id);
      if (!l || l.destroyed) return PP.ERROR_BADRESOURCE;
      if (l.main) return PP.ERROR_WRONG_THREAD;
      if (shouldDestroy) l.destroyAfterRun = true;
      b.enqueue(l, [ITEM.QUIT]);
      return PP.OK;
    },

    // Run's browser half (internal: not in any interface table).
    '$MessageLoop.enter'(cx, id) {
      const l = loop(id);
      if (!l || l.destroyed) return PP.ERROR_BADRESOURCE;
      if (l.main) return PP.ERROR_INPROGRESS;
      if (l.tid !== cx.tid) return PP.ERROR_WRONG_THREAD;
      if (l.running) return PP.ERROR_INPROGRESS;
      l.running = true;
      return PP.OK;
    },
    '$MessageLoop.next'(cx, id) {
      const l = loop(id);
      if (!l || l.destroyed || b.state === 'dead') return { value: 0, payload: [ITEM.QUIT] };
      if (l.queue.length) return { value: 0, payload: l.queue.shift() };
      return new Promise((resolve) => {
        l.waiter = (item) => resolve({ value: 0, payload: item });
      });
    },
    '$MessageLoop.exit'(cx, id) {
      const l = loop(id);
      if (!l) return PP.OK;
      l.running = false;
      if (l.destroyAfterRun) {
        l.destroyed = true;
        b.threadLoops.delete(l.tid);
        b.resources.release(id);
      }
      return PP.OK;
    },
  };
};
