// PPB_Messaging;1.0 and 1.2: plugin → page messages, and the message
// handler that takes page → plugin messages on a thread of the plugin's
// choosing.
//
//   void PostMessage(PP_Instance instance, struct PP_Var message)
//   int32_t RegisterMessageHandler(PP_Instance instance, void* user_data,
//       const struct PPP_MessageHandler_0_2* handler, PP_Resource message_loop)   (1.2)
//   void UnregisterMessageHandler(PP_Instance instance)                           (1.2)
//
// PostMessage copies the var (the plugin keeps its reference) and converts
// it to a JS value for the embedder at once, so later changes to an array
// or dictionary do not reach the page. A handler replaces PPP_Messaging
// for every later message; its functions run on its loop's thread
// (plugin.js), never on the main thread's loop (PP_ERROR_WRONG_THREAD).

import { INSTANCE_ID, ITEM, PP } from '../defs.js';
import { VarConversionError } from '../vars.js';

export default (b) => ({
  'PPB_Messaging;1.0:PostMessage'(cx, instance, message) {
    if (instance !== INSTANCE_ID || b.state === 'dead') return;
    let value;
    try {
      value = b.vars.toJs(b.vars.read(message));
    } catch (e) {
      if (!(e instanceof VarConversionError)) throw e;
      b.embedder.log?.('error', 'pexe', `PostMessage: ${e.message}; the message was not sent`);
      return;
    }
    b.embedder.postMessage(value);
  },
  'PPB_Messaging;1.2:RegisterMessageHandler'(cx, instance, userData, handler, loopId) {
    if (instance !== INSTANCE_ID) return PP.ERROR_BADARGUMENT;
    if (handler === 0) return PP.ERROR_BADARGUMENT;
    const loop = b.resources.get(loopId, 'MessageLoop');
    if (!loop || loop.destroyed) return PP.ERROR_BADARGUMENT;
    if (loop.main) return PP.ERROR_WRONG_THREAD;
    const old = b.handler;
    b.handler = { handler, userData, loop };
    if (old) b.enqueue(old.loop, [ITEM.HANDLER_DESTROY, old.handler, old.userData]);
    return PP.OK;
  },
  'PPB_Messaging;1.2:UnregisterMessageHandler'(cx, instance) {
    if (instance !== INSTANCE_ID || !b.handler) return;
    const old = b.handler;
    b.handler = null;
    b.enqueue(old.loop, [ITEM.HANDLER_DESTROY, old.handler, old.userData]);
  },
});
