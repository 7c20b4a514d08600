// The page's part of what a plugin asks of its surroundings (ppb/
// page-controls.js): the cursor over its box, Pointer Lock, the Fullscreen
// API and Gamepad API snapshots, and the screen size.

import { CURSORS } from './ppb/page-controls.js';

/** PP_ERROR values the page answers LockMouse with. */
const OK = 0;
const FAILED = -2;
const NO_USER_GESTURE = -41;

/**
 * Serves `element`'s plugin. `send(msg)` reaches the host Worker. Returns
 * { handle(msg) → bool (whether the message was one of these), detach() }.
 */
export function pageControls(element, send) {
  const cleanups = [];
  const listen = (target, type, fn) => {
    target.addEventListener(type, fn);
    cleanups.push(() => target.removeEventListener(type, fn));
  };
  let locked = false;
  listen(document, 'pointerlockchange', () => {
    const now = document.pointerLockElement === element;
    if (locked && !now) send({ type: 'mouseLockLost' });
    locked = now;
  });
  listen(document, 'fullscreenchange', () => {
    send({ type: 'view', view: { fullscreen: document.fullscreenElement === element } });
  });
  send({ type: 'screen', size: { width: screen.width, height: screen.height } });

  // Gamepads: snapshots while any is connected, posted when they change.
  let polling = 0;
  let last = '';
  const poll = () => {
    const pads = [...(navigator.getGamepads?.() ?? [])].map((p) =>
      p ? { id: p.id, connected: p.connected, timestamp: p.timestamp, axes: [...p.axes], buttons: p.buttons.map((x) => x.value) } : null,
    );
    const key = JSON.stringify(pads);
    if (key !== last) {
      last = key;
      send({ type: 'gamepads', pads });
    }
    polling = pads.some(Boolean) ? requestAnimationFrame(poll) : 0;
  };
  listen(window, 'gamepadconnected', () => {
    if (!polling) polling = requestAnimationFrame(poll);
  });

  const cursorCss = async (cursor) => {
    if (cursor.css) return cursor.css;
    const { width, height, stride, bgra, pixels } = cursor.image;
    const img = new ImageData(width, height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const s = y * stride + x * 4;
        const d = (y * width + x) * 4;
        const a = pixels[s + 3];
        const un = (v) => (a === 0 ? 0 : Math.min(255, Math.round((v * 255) / a)));
        img.data[d] = un(bgra ? pixels[s + 2] : pixels[s]);
        img.data[d + 1] = un(pixels[s + 1]);
        img.data[d + 2] = un(bgra ? pixels[s] : pixels[s + 2]);
        img.data[d + 3] = a;
      }
    }
    const canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = height;
    canvas.getContext('2d').putImageData(img, 0, 0);
    return `url(${canvas.toDataURL()}) ${cursor.hotSpot.x} ${cursor.hotSpot.y}, auto`;
  };

  return {
    handle(msg) {
      switch (msg.type) {
        case 'cursor':
          cursorCss(msg.cursor).then((css) => {
            element.style.cursor = css;
          });
          return true;
        case 'lockMouse': {
          const answer = (value) => send({ type: 'answer', question: msg.question, value });
          try {
            Promise.resolve(element.requestPointerLock())
              .then(() => answer(OK))
              .catch((e) => answer(e?.name === 'NotAllowedError' ? NO_USER_GESTURE : FAILED));
          } catch {
            answer(FAILED);
          }
          return true;
        }
        case 'unlockMouse':
          if (document.pointerLockElement === element) document.exitPointerLock();
          return true;
        case 'fullscreen':
          if (msg.on) element.requestFullscreen?.().catch(() => {});
          else if (document.fullscreenElement === element) document.exitFullscreen().catch(() => {});
          return true;
        default:
          return false;
      }
    },
    detach() {
      cancelAnimationFrame(polling);
      for (const c of cleanups) c();
    },
  };
}

export { CURSORS };
