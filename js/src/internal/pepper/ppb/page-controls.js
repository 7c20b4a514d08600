// What the plugin asks of the page around it: PPB_MouseCursor;1.0,
// PPB_MouseLock;1.0, PPB_Fullscreen;1.0, PPB_Gamepad;1.0.
//
//   PP_Bool SetCursor(PP_Instance instance, enum PP_MouseCursor_Type type,
//       PP_Resource image, const struct PP_Point* hot_spot)
//   int32_t LockMouse(PP_Instance instance, struct PP_CompletionCallback callback)
//   void UnlockMouse(PP_Instance instance)
//   PP_Bool IsFullscreen(PP_Instance instance)
//   PP_Bool SetFullscreen(PP_Instance instance, PP_Bool fullscreen)
//   PP_Bool GetScreenSize(PP_Instance instance, struct PP_Size* size)
//   void Sample(PP_Instance instance, struct PP_GamepadsSampleData* data)
//
// The embedder does the page's part (page.js: the cursor of the plugin's
// box, Pointer Lock, the Fullscreen API, Gamepad API snapshots); without a
// page (Node) these interfaces are not offered (browser.js NEEDS). Pointer
// lock and fullscreen need a user gesture, as they did in Chrome; losing
// the lock calls PPP_MouseLock.MouseLockLost on the main thread.

import { INSTANCE_ID, PP, PP_FALSE, PP_TRUE } from '../defs.js';

/** PP_MouseCursor_Type → CSS cursor (ppb_mouse_cursor.h order). */
export const CURSORS = Object.freeze([
  'default', 'crosshair', 'pointer', 'text', 'wait', 'help', 'e-resize', 'n-resize', 'ne-resize', 'nw-resize',
  's-resize', 'se-resize', 'sw-resize', 'w-resize', 'ns-resize', 'ew-resize', 'nesw-resize', 'nwse-resize',
  'col-resize', 'row-resize', 'move', 'move', 'move', 'move', 'move', 'move', 'move', 'move', 'move',
  'vertical-text', 'cell', 'context-menu', 'alias', 'progress', 'no-drop', 'copy', 'none', 'not-allowed',
  'zoom-in', 'zoom-out', 'grab', 'grabbing', 'move', 'move',
]);
/** PP_MOUSECURSOR_TYPE_CUSTOM. */
const CUSTOM = -1;
/** A custom cursor image must be smaller than this in each direction. */
const MAX_CURSOR = 32;

/** PP_GamepadsSampleData: length, then 4 × PP_GamepadSampleData of 472 bytes. */
const PAD = Object.freeze({
  LIST: 8,
  SIZE: 472,
  COUNT: 4,
  axesLength: 0,
  axes: 4,
  buttonsLength: 68,
  buttons: 72,
  timestamp: 200,
  id: 208,
  connected: 464,
  TOTAL: 1896,
});

export default (b) => {
  const { mem } = b;
  return {
    'PPB_MouseCursor;1.0:SetCursor'(cx, instance, type, image, hotSpot) {
      if (instance !== INSTANCE_ID) return PP_FALSE;
      if (type !== CUSTOM) {
        const css = CURSORS[type];
        if (css === undefined) return PP_FALSE;
        b.embedder.setCursor?.({ css });
        return PP_TRUE;
      }
      const img = b.resources.get(image, 'ImageData');
      if (!img || img.width >= MAX_CURSOR || img.height >= MAX_CURSOR || hotSpot === 0) return PP_FALSE;
      mem.check(hotSpot, 8);
      const pixels = mem.read(img.ptr, img.stride * img.height);
      b.embedder.setCursor?.({
        image: { width: img.width, height: img.height, stride: img.stride, bgra: img.format === 0, pixels },
        hotSpot: { x: mem.getI32(hotSpot), y: mem.getI32(hotSpot + 4) },
      });
      return PP_TRUE;
    },
    'PPB_MouseLock;1.0:LockMouse'(cx, instance, callback) {
      if (instance !== INSTANCE_ID) return PP.ERROR_BADARGUMENT;
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      if (b.mouseLocked) return PP.ERROR_INPROGRESS;
      const locked = Promise.resolve(b.embedder.lockMouse?.() ?? PP.ERROR_NOTSUPPORTED).then((r) => {
        b.mouseLocked = r === PP.OK;
        return r;
      });
      return c.finish(locked);
    },
    'PPB_MouseLock;1.0:UnlockMouse'(cx, instance) {
      if (instance === INSTANCE_ID) b.embedder.unlockMouse?.();
    },
    'PPB_Fullscreen;1.0:IsFullscreen'(cx, instance) {
      return instance === INSTANCE_ID && b.view.fullscreen ? PP_TRUE : PP_FALSE;
    },
    'PPB_Fullscreen;1.0:SetFullscreen'(cx, instance, on) {
      if (instance !== INSTANCE_ID || !b.embedder.setFullscreen) return PP_FALSE;
      if (!!on === !!b.view.fullscreen) return PP_FALSE;
      b.embedder.setFullscreen(!!on);
      return PP_TRUE;
    },
    'PPB_Fullscreen;1.0:GetScreenSize'(cx, instance, size) {
      const screen = b.embedder.screen?.();
      if (instance !== INSTANCE_ID || !screen) return PP_FALSE;
      mem.check(size, 8);
      mem.setI32(size, screen.width);
      mem.setI32(size + 4, screen.height);
      return PP_TRUE;
    },
    'PPB_Gamepad;1.0:Sample'(cx, instance, data) {
      mem.check(data, PAD.TOTAL);
      mem.fill0(data, PAD.TOTAL);
      if (instance !== INSTANCE_ID) return;
      const pads = (b.embedder.gamepads?.() ?? []).slice(0, PAD.COUNT);
      mem.setU32(data, pads.length);
      const dv = mem.view();
      pads.forEach((p, i) => {
        if (!p) return;
        const at = data + PAD.LIST + i * PAD.SIZE;
        const axes = p.axes.slice(0, 16);
        const buttons = p.buttons.slice(0, 32);
        dv.setUint32(at + PAD.axesLength, axes.length, true);
        axes.forEach((v, k) => dv.setFloat32(at + PAD.axes + 4 * k, v, true));
        dv.setUint32(at + PAD.buttonsLength, buttons.length, true);
        buttons.forEach((v, k) => dv.setFloat32(at + PAD.buttons + 4 * k, v, true));
        dv.setFloat64(at + PAD.timestamp, p.timestamp, true);
        [...String(p.id).slice(0, 127)].forEach((ch, k) => dv.setUint16(at + PAD.id + 2 * k, ch.charCodeAt(0), true));
        dv.setInt32(at + PAD.connected, p.connected ? 1 : 0, true);
      });
    },
  };
};
