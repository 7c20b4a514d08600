// The page side of Pepper input: DOM events on the plugin's box, turned
// into the normalized events the browser side makes InputEvent resources
// of (ppb/input.js), as content/renderer/pepper/event_conversion.cc did.
//
// - Mouse (pointer events of a mouse or pen): MOUSEDOWN/UP/MOVE with the
//   button, position in the box's CSS pixels, click count and movement;
//   MOUSEENTER/LEAVE; CONTEXTMENU.
// - Wheel: delta in pixels (lines and pages converted as Chrome did, 40 px
//   a line), ticks (one per 120 units of a notched wheel, fractional
//   otherwise), scroll-by-page.
// - Keyboard: KEYDOWN (Chrome sent its plugins key-down events; SDL and the
//   SDK's examples key on KEYDOWN), one CHAR per character a key produces,
//   KEYUP; Windows virtual key codes; the DOM `code` for 1.2.
// - Touch: TOUCHSTART/MOVE/END/CANCEL with the active, changed and target
//   lists.
// The box takes keyboard focus when clicked. Default actions (scrolling,
// text selection, the context menu) are stopped for the classes the plugin
// asked for.

import { CLASS, TYPE, classOf } from './ppb/input.js';

/** PP_InputEvent_Modifier bits. */
const MOD = Object.freeze({
  SHIFT: 1,
  CONTROL: 2,
  ALT: 4,
  META: 8,
  KEYPAD: 16,
  AUTOREPEAT: 32,
  LEFT: 64,
  MIDDLE: 128,
  RIGHT: 256,
  CAPSLOCK: 512,
  NUMLOCK: 1024,
  ISLEFT: 2048,
  ISRIGHT: 4096,
});

/** Pixels per wheel line (Chrome's scroll step for a notched wheel). */
const LINE_PX = 40;

function modifiers(e) {
  let m = 0;
  if (e.shiftKey) m |= MOD.SHIFT;
  if (e.ctrlKey) m |= MOD.CONTROL;
  if (e.altKey) m |= MOD.ALT;
  if (e.metaKey) m |= MOD.META;
  if (e.repeat) m |= MOD.AUTOREPEAT;
  if (e.buttons !== undefined) {
    if (e.buttons & 1) m |= MOD.LEFT;
    if (e.buttons & 4) m |= MOD.MIDDLE;
    if (e.buttons & 2) m |= MOD.RIGHT;
  }
  if (e.getModifierState?.('CapsLock')) m |= MOD.CAPSLOCK;
  if (e.getModifierState?.('NumLock')) m |= MOD.NUMLOCK;
  if (e.location === 3) m |= MOD.KEYPAD;
  if (e.location === 1) m |= MOD.ISLEFT;
  if (e.location === 2) m |= MOD.ISRIGHT;
  return m;
}

/** PP_TimeTicks seconds of a DOM event (the clock ppb/core.js uses). */
const ticks = (e) => (performance.timeOrigin + e.timeStamp) / 1000;

/**
 * Listens on `element` and sends normalized events with `send(event)`.
 * Returns { setClasses(requested, filtered), detach() }.
 */
export function captureInput(element, sendAny) {
  let classes = 0;
  const wants = (cls) => (classes & cls) !== 0;
  // Only what the plugin asked for crosses to the host.
  const send = (event) => {
    if (wants(classOf(event.type))) sendAny(event);
  };
  const box = () => element.getBoundingClientRect();
  const pos = (e) => {
    const r = box();
    return { x: Math.floor(e.clientX - r.left), y: Math.floor(e.clientY - r.top) };
  };
  if (!element.hasAttribute('tabindex')) element.tabIndex = 0;

  const listeners = [];
  const on = (type, fn, opts) => {
    element.addEventListener(type, fn, opts);
    listeners.push([type, fn, opts]);
  };

  const mouse = (type) => (e) => {
    if (e.pointerType === 'touch') return;
    if (type === TYPE.MOUSEDOWN) element.focus({ preventScroll: true });
    const p = pos(e);
    const button = type === TYPE.MOUSEMOVE ? (e.buttons & 1 ? 0 : e.buttons & 4 ? 1 : e.buttons & 2 ? 2 : -1) : e.button;
    send({
      type,
      timeStamp: ticks(e),
      modifiers: modifiers(e),
      button: type === TYPE.MOUSEENTER || type === TYPE.MOUSELEAVE ? -1 : button,
      x: p.x,
      y: p.y,
      clickCount: type === TYPE.MOUSEDOWN || type === TYPE.MOUSEUP ? Math.max(1, e.detail | 0) : 0,
      movementX: e.movementX | 0,
      movementY: e.movementY | 0,
    });
    if (wants(CLASS.MOUSE) && type === TYPE.MOUSEDOWN) e.preventDefault();
  };
  on('pointerdown', (e) => {
    if (e.pointerType !== 'touch') element.setPointerCapture?.(e.pointerId);
    mouse(TYPE.MOUSEDOWN)(e);
  });
  on('pointerup', mouse(TYPE.MOUSEUP));
  on('pointermove', mouse(TYPE.MOUSEMOVE));
  on('pointerenter', mouse(TYPE.MOUSEENTER));
  on('pointerleave', mouse(TYPE.MOUSELEAVE));
  on('contextmenu', (e) => {
    mouse(TYPE.CONTEXTMENU)(e);
    if (wants(CLASS.MOUSE)) e.preventDefault();
  });
  on(
    'wheel',
    (e) => {
      const scale = e.deltaMode === 1 ? LINE_PX : e.deltaMode === 2 ? box().height : 1;
      // DOM deltas point the scroll direction; Pepper's the wheel's (down = negative y).
      const dx = -e.deltaX * scale;
      const dy = -e.deltaY * scale;
      send({
        type: TYPE.WHEEL,
        timeStamp: ticks(e),
        modifiers: modifiers(e),
        deltaX: dx,
        deltaY: dy,
        ticksX: dx / LINE_PX / (e.deltaMode === 2 ? 1 : 3),
        ticksY: dy / LINE_PX / (e.deltaMode === 2 ? 1 : 3),
        byPage: e.deltaMode === 2,
      });
      if (wants(CLASS.WHEEL)) e.preventDefault();
    },
    { passive: false },
  );
  const key = (type) => (e) => {
    const base = { timeStamp: ticks(e), modifiers: modifiers(e), keyCode: e.keyCode >>> 0, code: e.code ?? '' };
    send({ type, ...base });
    if (type === TYPE.KEYDOWN && e.key && [...e.key].length === 1 && !e.ctrlKey && !e.metaKey) {
      send({ type: TYPE.CHAR, ...base, text: e.key });
    }
    if (type === TYPE.KEYDOWN && e.key === 'Enter') send({ type: TYPE.CHAR, ...base, text: '\r' });
    if (wants(CLASS.KEYBOARD) && !(e.key === 'Tab' && !e.ctrlKey)) e.preventDefault();
  };
  on('keydown', key(TYPE.KEYDOWN));
  on('keyup', key(TYPE.KEYUP));
  const touch = (type) => (e) => {
    const r = box();
    const point = (t) => ({
      id: t.identifier,
      x: t.clientX - r.left,
      y: t.clientY - r.top,
      rx: t.radiusX ?? 0,
      ry: t.radiusY ?? 0,
      angle: t.rotationAngle ?? 0,
      pressure: t.force ?? 0,
    });
    send({
      type,
      timeStamp: ticks(e),
      modifiers: modifiers(e),
      touches: [...e.touches].map(point),
      changed: [...e.changedTouches].map(point),
      targets: [...e.targetTouches].map(point),
    });
    if (wants(CLASS.TOUCH)) e.preventDefault();
  };
  on('touchstart', touch(TYPE.TOUCHSTART), { passive: false });
  on('touchmove', touch(TYPE.TOUCHMOVE), { passive: false });
  on('touchend', touch(TYPE.TOUCHEND), { passive: false });
  on('touchcancel', touch(TYPE.TOUCHCANCEL), { passive: false });

  return {
    setClasses(requested, filtered) {
      classes = requested | filtered;
      element.style.touchAction = wants(CLASS.TOUCH) ? 'none' : '';
    },
    detach() {
      for (const [type, fn, opts] of listeners) element.removeEventListener(type, fn, opts);
    },
  };
}
