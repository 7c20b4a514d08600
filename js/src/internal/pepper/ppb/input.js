// PPB_InputEvent;1.0 and the event kinds: PPB_MouseInputEvent;1.0/1.1,
// PPB_WheelInputEvent;1.0, PPB_KeyboardInputEvent;1.0/1.2,
// PPB_TouchInputEvent;1.0/1.4, PPB_IMEInputEvent;1.0, and
// PPB_TextInputController;1.0.
//
//   int32_t RequestInputEvents(PP_Instance instance, uint32_t event_classes)
//   int32_t RequestFilteringInputEvents(PP_Instance instance, uint32_t event_classes)
//   void ClearInputEventRequest(PP_Instance instance, uint32_t event_classes)
//   PP_Bool IsInputEvent(PP_Resource resource)
//   PP_InputEvent_Type GetType(PP_Resource event)
//   PP_TimeTicks GetTimeStamp(PP_Resource event)
//   uint32_t GetModifiers(PP_Resource event)
//   Mouse: Create(…), IsMouseInputEvent, GetButton, struct PP_Point GetPosition,
//          GetClickCount, struct PP_Point GetMovement (1.1)
//   Wheel: Create(…), IsWheelInputEvent, struct PP_FloatPoint GetDelta,
//          struct PP_FloatPoint GetTicks, GetScrollByPage
//   Keyboard: Create(…), IsKeyboardInputEvent, GetKeyCode,
//          struct PP_Var GetCharacterText, struct PP_Var GetCode (1.2)
//   Touch: Create(…), AddTouchPoint, IsTouchInputEvent, GetTouchCount,
//          struct PP_TouchPoint GetTouchByIndex / GetTouchById,
//          struct PP_FloatPoint GetTouchTiltByIndex / ById (1.4)
//   IME:   Create(…), IsIMEInputEvent, struct PP_Var GetText, GetSegmentNumber,
//          GetSegmentOffset, GetTargetSegment, GetSelection
//   TextInputController: SetTextInputType, UpdateCaretPosition,
//          CancelCompositionText, UpdateSurroundingText
//
// Events reach the plugin only in the classes it asked for; each one is an
// InputEvent resource handed to PPP_InputEvent.HandleInputEvent on the main
// thread, the browser holding its reference for the duration of the call
// (browser.js inputEvent). Values follow content/renderer/pepper/
// event_conversion.cc: positions in the element's CSS pixels, time stamps in
// seconds on the PP_TimeTicks clock, Windows virtual key codes, the DOM
// `code` string in 1.2.

import { INSTANCE_ID, PP, PP_POINT, VAR } from '../defs.js';
import { makeVar } from '../vars.js';

/** PP_InputEvent_Type. */
export const TYPE = Object.freeze({
  UNDEFINED: -1,
  MOUSEDOWN: 0,
  MOUSEUP: 1,
  MOUSEMOVE: 2,
  MOUSEENTER: 3,
  MOUSELEAVE: 4,
  WHEEL: 5,
  RAWKEYDOWN: 6,
  KEYDOWN: 7,
  KEYUP: 8,
  CHAR: 9,
  CONTEXTMENU: 10,
  IME_COMPOSITION_START: 11,
  IME_COMPOSITION_UPDATE: 12,
  IME_COMPOSITION_END: 13,
  IME_TEXT: 14,
  TOUCHSTART: 15,
  TOUCHMOVE: 16,
  TOUCHEND: 17,
  TOUCHCANCEL: 18,
});

/** PP_InputEvent_Class. */
export const CLASS = Object.freeze({ MOUSE: 1, KEYBOARD: 2, WHEEL: 4, TOUCH: 8, IME: 16 });

/** The class of an event type. */
export function classOf(type) {
  if (type <= TYPE.MOUSELEAVE || type === TYPE.CONTEXTMENU) return type >= 0 ? CLASS.MOUSE : 0;
  if (type === TYPE.WHEEL) return CLASS.WHEEL;
  if (type <= TYPE.CHAR) return CLASS.KEYBOARD;
  if (type <= TYPE.IME_TEXT) return CLASS.IME;
  if (type <= TYPE.TOUCHCANCEL) return CLASS.TOUCH;
  return 0;
}

const ALL_CLASSES = CLASS.MOUSE | CLASS.KEYBOARD | CLASS.WHEEL | CLASS.TOUCH | CLASS.IME;

/** PP_TouchListType. */
const LIST = Object.freeze({ TOUCHES: 0, CHANGED: 1, TARGET: 2 });
const LIST_KEYS = ['touches', 'changed', 'targets'];
/** struct PP_TouchPoint: id, position (2 f32), radius (2 f32), angle, pressure. */
const TOUCH_POINT = 28;
/** The most touch points an event carries (WebTouchEvent's cap). */
const MAX_TOUCHES = 16;

/** A normalized event (the page's or a plugin-made one) as resource state. */
function eventState(e) {
  return {
    type: e.type | 0,
    timeStamp: Number(e.timeStamp) || 0,
    modifiers: e.modifiers >>> 0,
    button: e.button ?? -1,
    x: e.x | 0,
    y: e.y | 0,
    clickCount: e.clickCount | 0,
    movementX: e.movementX | 0,
    movementY: e.movementY | 0,
    deltaX: Number(e.deltaX) || 0,
    deltaY: Number(e.deltaY) || 0,
    ticksX: Number(e.ticksX) || 0,
    ticksY: Number(e.ticksY) || 0,
    byPage: !!e.byPage,
    keyCode: e.keyCode >>> 0,
    text: typeof e.text === 'string' ? e.text : '',
    code: typeof e.code === 'string' ? e.code : '',
    touches: (e.touches ?? []).slice(0, MAX_TOUCHES),
    changed: (e.changed ?? []).slice(0, MAX_TOUCHES),
    targets: (e.targets ?? []).slice(0, MAX_TOUCHES),
    segments: e.segments ?? [],
    targetSegment: e.targetSegment ?? -1,
    selection: e.selection ?? [0, 0],
  };
}

export default (b) => {
  const { mem, resources, vars } = b;
  const ev = (id, cls) => {
    const r = resources.get(id, 'InputEvent');
    return r && (cls === undefined || classOf(r.type) === cls) ? r : null;
  };
  const writePoint = (ret, x, y, float) => {
    mem.check(ret, 8);
    const dv = mem.view();
    if (float) {
      dv.setFloat32(ret + PP_POINT.x, x, true);
      dv.setFloat32(ret + PP_POINT.y, y, true);
    } else {
      dv.setInt32(ret + PP_POINT.x, x, true);
      dv.setInt32(ret + PP_POINT.y, y, true);
    }
  };
  const readPoint = (ptr, float) => {
    mem.check(ptr, 8);
    const dv = mem.view();
    return float ? [dv.getFloat32(ptr, true), dv.getFloat32(ptr + 4, true)] : [dv.getInt32(ptr, true), dv.getInt32(ptr + 4, true)];
  };
  const writeTouch = (ret, t) => {
    mem.check(ret, TOUCH_POINT);
    const dv = mem.view();
    dv.setUint32(ret, (t?.id ?? 0) >>> 0, true);
    dv.setFloat32(ret + 4, t?.x ?? 0, true);
    dv.setFloat32(ret + 8, t?.y ?? 0, true);
    dv.setFloat32(ret + 12, t?.rx ?? 0, true);
    dv.setFloat32(ret + 16, t?.ry ?? 0, true);
    dv.setFloat32(ret + 20, t?.angle ?? 0, true);
    dv.setFloat32(ret + 24, t?.pressure ?? 0, true);
  };
  const list = (r, which) => r[LIST_KEYS[which]] ?? null;
  const stringVar = (ret, s) => vars.write(ret, vars.string(s));
  const make = (instance, state) => (instance === INSTANCE_ID ? resources.add('InputEvent', eventState(state)) : 0);
  const keyboard = (cx, instance, type, time, modifiers, keyCode, textPtr, codePtr) => {
    if (classOf(type) !== CLASS.KEYBOARD) return 0;
    const text = vars.stringOf(vars.read(textPtr)) ?? '';
    const code = codePtr ? (vars.stringOf(vars.read(codePtr)) ?? '') : '';
    return make(instance, { type, timeStamp: time, modifiers, keyCode, text, code });
  };
  const mouse = (cx, instance, type, time, modifiers, button, position, clickCount, movement) => {
    if (classOf(type) !== CLASS.MOUSE) return 0;
    const [x, y] = readPoint(position, false);
    const [movementX, movementY] = movement ? readPoint(movement, false) : [0, 0];
    return make(instance, { type, timeStamp: time, modifiers, button, x, y, clickCount, movementX, movementY });
  };

  return {
    'PPB_InputEvent;1.0:RequestInputEvents'(cx, instance, classes) {
      if (instance !== INSTANCE_ID) return PP.ERROR_BADARGUMENT;
      b.input.requested |= classes & ALL_CLASSES;
      b.input.filtered &= ~classes;
      b.inputClassesChanged();
      return (classes & ~ALL_CLASSES) === 0 ? PP.OK : PP.ERROR_NOTSUPPORTED;
    },
    'PPB_InputEvent;1.0:RequestFilteringInputEvents'(cx, instance, classes) {
      if (instance !== INSTANCE_ID) return PP.ERROR_BADARGUMENT;
      b.input.filtered |= classes & ALL_CLASSES;
      b.input.requested &= ~classes;
      b.inputClassesChanged();
      return (classes & ~ALL_CLASSES) === 0 ? PP.OK : PP.ERROR_NOTSUPPORTED;
    },
    'PPB_InputEvent;1.0:ClearInputEventRequest'(cx, instance, classes) {
      if (instance !== INSTANCE_ID) return;
      b.input.requested &= ~classes;
      b.input.filtered &= ~classes;
      b.inputClassesChanged();
    },
    'PPB_InputEvent;1.0:IsInputEvent'(cx, id) {
      return ev(id) ? 1 : 0;
    },
    'PPB_InputEvent;1.0:GetType'(cx, id) {
      return ev(id)?.type ?? TYPE.UNDEFINED;
    },
    'PPB_InputEvent;1.0:GetTimeStamp'(cx, id) {
      return ev(id)?.timeStamp ?? 0;
    },
    'PPB_InputEvent;1.0:GetModifiers'(cx, id) {
      return ev(id)?.modifiers ?? 0;
    },

    'PPB_MouseInputEvent;1.0:Create'(cx, instance, type, time, modifiers, button, position, clickCount) {
      return mouse(cx, instance, type, time, modifiers, button, position, clickCount, 0);
    },
    'PPB_MouseInputEvent;1.1:Create': mouse,
    'PPB_MouseInputEvent;1.0:IsMouseInputEvent'(cx, id) {
      return ev(id, CLASS.MOUSE) ? 1 : 0;
    },
    'PPB_MouseInputEvent;1.0:GetButton'(cx, id) {
      return ev(id, CLASS.MOUSE)?.button ?? -1;
    },
    'PPB_MouseInputEvent;1.0:GetPosition'(cx, ret, id) {
      const r = ev(id, CLASS.MOUSE);
      writePoint(ret, r?.x ?? 0, r?.y ?? 0, false);
    },
    'PPB_MouseInputEvent;1.0:GetClickCount'(cx, id) {
      return ev(id, CLASS.MOUSE)?.clickCount ?? 0;
    },
    'PPB_MouseInputEvent;1.1:GetMovement'(cx, ret, id) {
      const r = ev(id, CLASS.MOUSE);
      writePoint(ret, r?.movementX ?? 0, r?.movementY ?? 0, false);
    },

    'PPB_WheelInputEvent;1.0:Create'(cx, instance, time, modifiers, delta, ticks, byPage) {
      const [deltaX, deltaY] = readPoint(delta, true);
      const [ticksX, ticksY] = readPoint(ticks, true);
      return make(instance, { type: TYPE.WHEEL, timeStamp: time, modifiers, deltaX, deltaY, ticksX, ticksY, byPage: byPage !== 0 });
    },
    'PPB_WheelInputEvent;1.0:IsWheelInputEvent'(cx, id) {
      return ev(id, CLASS.WHEEL) ? 1 : 0;
    },
    'PPB_WheelInputEvent;1.0:GetDelta'(cx, ret, id) {
      const r = ev(id, CLASS.WHEEL);
      writePoint(ret, r?.deltaX ?? 0, r?.deltaY ?? 0, true);
    },
    'PPB_WheelInputEvent;1.0:GetTicks'(cx, ret, id) {
      const r = ev(id, CLASS.WHEEL);
      writePoint(ret, r?.ticksX ?? 0, r?.ticksY ?? 0, true);
    },
    'PPB_WheelInputEvent;1.0:GetScrollByPage'(cx, id) {
      return ev(id, CLASS.WHEEL)?.byPage ? 1 : 0;
    },

    'PPB_KeyboardInputEvent;1.0:Create'(cx, instance, type, time, modifiers, keyCode, text) {
      return keyboard(cx, instance, type, time, modifiers, keyCode, text, 0);
    },
    'PPB_KeyboardInputEvent;1.2:Create': keyboard,
    'PPB_KeyboardInputEvent;1.0:IsKeyboardInputEvent'(cx, id) {
      return ev(id, CLASS.KEYBOARD) ? 1 : 0;
    },
    'PPB_KeyboardInputEvent;1.0:GetKeyCode'(cx, id) {
      return ev(id, CLASS.KEYBOARD)?.keyCode ?? 0;
    },
    'PPB_KeyboardInputEvent;1.0:GetCharacterText'(cx, ret, id) {
      const r = ev(id, CLASS.KEYBOARD);
      if (!r || r.type !== TYPE.CHAR) vars.write(ret, makeVar(VAR.UNDEFINED));
      else stringVar(ret, r.text);
    },
    'PPB_KeyboardInputEvent;1.2:GetCode'(cx, ret, id) {
      const r = ev(id, CLASS.KEYBOARD);
      if (!r) vars.write(ret, makeVar(VAR.UNDEFINED));
      else stringVar(ret, r.code);
    },

    'PPB_TouchInputEvent;1.0:Create'(cx, instance, type, time, modifiers) {
      if (classOf(type) !== CLASS.TOUCH) return 0;
      return make(instance, { type, timeStamp: time, modifiers });
    },
    'PPB_TouchInputEvent;1.0:AddTouchPoint'(cx, id, which, point) {
      const r = ev(id, CLASS.TOUCH);
      const l = r && list(r, which);
      if (!l || l.length >= MAX_TOUCHES) return;
      mem.check(point, TOUCH_POINT);
      const dv = mem.view();
      l.push({
        id: dv.getUint32(point, true),
        x: dv.getFloat32(point + 4, true),
        y: dv.getFloat32(point + 8, true),
        rx: dv.getFloat32(point + 12, true),
        ry: dv.getFloat32(point + 16, true),
        angle: dv.getFloat32(point + 20, true),
        pressure: dv.getFloat32(point + 24, true),
      });
    },
    'PPB_TouchInputEvent;1.0:IsTouchInputEvent'(cx, id) {
      return ev(id, CLASS.TOUCH) ? 1 : 0;
    },
    'PPB_TouchInputEvent;1.0:GetTouchCount'(cx, id, which) {
      const r = ev(id, CLASS.TOUCH);
      return (r && list(r, which)?.length) ?? 0;
    },
    'PPB_TouchInputEvent;1.0:GetTouchByIndex'(cx, ret, id, which, index) {
      const r = ev(id, CLASS.TOUCH);
      writeTouch(ret, r ? list(r, which)?.[index >>> 0] : null);
    },
    'PPB_TouchInputEvent;1.0:GetTouchById'(cx, ret, id, which, touchId) {
      const r = ev(id, CLASS.TOUCH);
      writeTouch(ret, r ? list(r, which)?.find((t) => t.id >>> 0 === touchId >>> 0) : null);
    },
    'PPB_TouchInputEvent;1.4:GetTouchTiltByIndex'(cx, ret, id, which, index) {
      const r = ev(id, CLASS.TOUCH);
      const t = r ? list(r, which)?.[index >>> 0] : null;
      writePoint(ret, t?.tiltX ?? 0, t?.tiltY ?? 0, true);
    },
    'PPB_TouchInputEvent;1.4:GetTouchTiltById'(cx, ret, id, which, touchId) {
      const r = ev(id, CLASS.TOUCH);
      const t = r ? list(r, which)?.find((p) => p.id >>> 0 === touchId >>> 0) : null;
      writePoint(ret, t?.tiltX ?? 0, t?.tiltY ?? 0, true);
    },

    'PPB_IMEInputEvent;1.0:Create'(cx, instance, type, time, text, segmentNumber, offsets, targetSegment, selStart, selEnd) {
      if (classOf(type) !== CLASS.IME) return 0;
      const n = Math.min(segmentNumber >>> 0, 1024);
      const segments = [];
      for (let i = 0; i <= n && offsets !== 0; i++) segments.push(mem.getU32(offsets + 4 * i));
      const s = vars.stringOf(vars.read(text)) ?? '';
      return make(instance, { type, timeStamp: time, text: s, segments, targetSegment, selection: [selStart >>> 0, selEnd >>> 0] });
    },
    'PPB_IMEInputEvent;1.0:IsIMEInputEvent'(cx, id) {
      return ev(id, CLASS.IME) ? 1 : 0;
    },
    'PPB_IMEInputEvent;1.0:GetText'(cx, ret, id) {
      const r = ev(id, CLASS.IME);
      if (!r) vars.write(ret, makeVar(VAR.UNDEFINED));
      else stringVar(ret, r.text);
    },
    'PPB_IMEInputEvent;1.0:GetSegmentNumber'(cx, id) {
      const r = ev(id, CLASS.IME);
      return r ? Math.max(0, r.segments.length - 1) : 0;
    },
    'PPB_IMEInputEvent;1.0:GetSegmentOffset'(cx, id, index) {
      return ev(id, CLASS.IME)?.segments[index >>> 0] ?? 0;
    },
    'PPB_IMEInputEvent;1.0:GetTargetSegment'(cx, id) {
      return ev(id, CLASS.IME)?.targetSegment ?? -1;
    },
    'PPB_IMEInputEvent;1.0:GetSelection'(cx, id, start, end) {
      const r = ev(id, CLASS.IME);
      if (start !== 0) mem.setU32(start, r?.selection[0] ?? 0);
      if (end !== 0) mem.setU32(end, r?.selection[1] ?? 0);
    },

    // The page's text input follows what the plugin says it expects.
    'PPB_TextInputController;1.0:SetTextInputType'(cx, instance, type) {
      if (instance === INSTANCE_ID) b.embedder.textInput?.({ type });
    },
    'PPB_TextInputController;1.0:UpdateCaretPosition'(cx, instance, caret) {
      if (instance !== INSTANCE_ID) return;
      mem.check(caret, 16);
      b.embedder.textInput?.({ caret: { x: mem.getI32(caret), y: mem.getI32(caret + 4), width: mem.getI32(caret + 8), height: mem.getI32(caret + 12) } });
    },
    'PPB_TextInputController;1.0:CancelCompositionText'(cx, instance) {
      if (instance === INSTANCE_ID) b.embedder.textInput?.({ cancel: true });
    },
    'PPB_TextInputController;1.0:UpdateSurroundingText'(cx, instance, text, caret, anchor) {
      if (instance !== INSTANCE_ID) return;
      b.embedder.textInput?.({ surrounding: vars.stringOf(vars.read(text)) ?? '', caret, anchor });
    },
  };
};

export { eventState };
