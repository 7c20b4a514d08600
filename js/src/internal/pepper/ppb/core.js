// PPB_Core;1.0: resource reference counts, time, CallOnMainThread.
//
//   void AddRefResource(PP_Resource resource)
//   void ReleaseResource(PP_Resource resource)
//   PP_Time GetTime(void)
//   PP_TimeTicks GetTimeTicks(void)
//   void CallOnMainThread(int32_t delay_in_milliseconds, struct PP_CompletionCallback callback, int32_t result)
//   PP_Bool IsMainThread(void)

import { ITEM, MAIN_TID, PP_CALLBACK } from '../defs.js';

/** Seconds since the epoch (PP_Time). */
export function ppTime() {
  return Date.now() / 1000;
}

/**
 * PP_TimeTicks: seconds on a monotonic clock with the same origin in every
 * thread (each Worker's performance.now() starts at its own origin).
 */
export function ppTimeTicks() {
  return (performance.timeOrigin + performance.now()) / 1000;
}

export default (b) => ({
  'PPB_Core;1.0:AddRefResource'(cx, resource) {
    b.resources.addRef(resource);
  },
  'PPB_Core;1.0:ReleaseResource'(cx, resource) {
    b.resources.release(resource);
  },
  'PPB_Core;1.0:GetTime'() {
    return ppTime();
  },
  'PPB_Core;1.0:GetTimeTicks'() {
    return ppTimeTicks();
  },
  'PPB_Core;1.0:CallOnMainThread'(cx, delay, callback, result) {
    const func = b.mem.getU32(callback + PP_CALLBACK.func);
    const userData = b.mem.getU32(callback + PP_CALLBACK.user_data);
    if (func === 0) return;
    // Never synchronously, even with delay 0 (ppb_core.h).
    setTimeout(() => b.schedule(MAIN_TID, [ITEM.CALLBACK, func, userData, result | 0]), Math.max(0, delay | 0));
  },
  'PPB_Core;1.0:IsMainThread'(cx) {
    return cx.tid === MAIN_TID ? 1 : 0;
  },
});
