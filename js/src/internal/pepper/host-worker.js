// The Worker that hosts one plugin for a page: the "host thread" of the
// runtime (the Process, the Pepper browser side, the guest threads'
// Workers) moved off the page's main thread, so that the page never
// blocks, never slows the plugin's calls, and can wait synchronously for
// postMessageAndAwaitResponse while this thread keeps serving the plugin.
//
// page.js starts it and speaks this protocol over postMessage:
//   page → here   {type: 'start', module, options, reply}   reply: a growable
//                 SharedArrayBuffer for blocking answers (or null)
//                 {type: 'message', value} {type: 'view', view}
//                 {type: 'focus', hasFocus} {type: 'input', event} {type: 'destroy'}
//                 {type: 'blocking', value}  (answer written to `reply`)
//   here → page   {type: 'message', value} {type: 'log', level, source, text}
//                 {type: 'loaded'} {type: 'loadFailed', message}
//                 {type: 'missing', name} {type: 'output', fd, chunk}
//                 {type: 'exited', result} {type: 'bug', message, stack}
//                 {type: 'bound', kind} {type: 'inputClasses', requested, filtered}

import { startPlugin } from '../runtime/index.js';
import { browserHost } from '../runtime/threads/platform.js';
import { createRing, RingWriter } from './audio-ring.js';
import { encodeValue, REPLY } from './value-codec.js';

let plugin = null;
let reply = null;
/** Chunk-mode audio: the page played this many frames. */
let audioConsumed = null;
/** The page's latest Gamepad API snapshot, and its screen size. */
let gamepads = [];
let screenSize = null;
/** Questions to the page waiting for their answer: id → resolve. */
const asked = new Map();
let nextQuestion = 1;

/** Asks the page something (pointer lock) and resolves with its answer. */
function ask(msg) {
  const id = nextQuestion++;
  return new Promise((resolve) => {
    asked.set(id, resolve);
    post({ ...msg, question: id });
  });
}
const pending = [];

const post = (msg, transfer) => self.postMessage(msg, transfer ?? []);

self.addEventListener('message', (e) => {
  const msg = e.data;
  if (msg?.type === 'start') {
    start(msg).catch((err) => post({ type: 'bug', message: String(err?.message ?? err), stack: String(err?.stack ?? '') }));
    return;
  }
  if (!plugin) pending.push(msg);
  else handle(msg);
});

function handle(msg) {
  switch (msg?.type) {
    case 'message':
      plugin.postMessage(msg.value);
      break;
    case 'view':
      plugin.setView(msg.view);
      break;
    case 'focus':
      plugin.setFocus(msg.hasFocus);
      break;
    case 'input':
      plugin.inputEvent(msg.event);
      break;
    case 'audio-consumed':
      audioConsumed?.(msg.frames);
      break;
    case 'answer':
      asked.get(msg.question)?.(msg.value);
      asked.delete(msg.question);
      break;
    case 'gamepads':
      gamepads = msg.pads;
      break;
    case 'screen':
      screenSize = msg.size;
      break;
    case 'mouseLockLost':
      plugin.mouseLockLost();
      break;
    case 'blocking':
      plugin.postBlockingMessage(msg.value).then(
        (value) => answer(REPLY.OK, value),
        (err) => answer(REPLY.ERROR, String(err?.message ?? err)),
      );
      break;
    case 'destroy':
      plugin.destroy();
      break;
    default:
      break;
  }
}

/** Writes a blocking message's answer where the waiting page reads it. */
function answer(status, value) {
  if (!reply) return;
  encodeValue(reply, status, value);
}

async function start({ module, options, reply: replyBuffer, surfaces }) {
  reply = replyBuffer;
  const output = (fd) => (chunk) => post({ type: 'output', fd, chunk });
  plugin = await startPlugin(module, {
    ...options,
    surfaces,
    stdout: output(1),
    stderr: output(2),
    embedder: {
      postMessage: (value) => post({ type: 'message', value }),
      log: (level, source, text) => post({ type: 'log', level, source, text }),
      loaded: () => post({ type: 'loaded' }),
      loadFailed: (message) => post({ type: 'loadFailed', message }),
      missingInterface: (name) => post({ type: 'missing', name }),
      audio: surfaces ? audioSink() : undefined,
      ...(surfaces
        ? {
            setCursor: (cursor) => post({ type: 'cursor', cursor }),
            lockMouse: () => ask({ type: 'lockMouse' }),
            unlockMouse: () => post({ type: 'unlockMouse' }),
            setFullscreen: (on) => post({ type: 'fullscreen', on }),
            screen: () => screenSize,
            gamepads: () => gamepads,
          }
        : {}),
      rewriteUrl: options.urlMap ? (href) => rewrite(options.urlMap, href) : undefined,
      inputClasses: (requested, filtered) => post({ type: 'inputClasses', requested, filtered }),
      bindGraphics: (device) => post({ type: 'bound', kind: device?.kind === 'Graphics2D' ? '2d' : device?.kind === 'Graphics3D' ? '3d' : null }),
    },
  }, browserHost);
  for (const msg of pending.splice(0)) handle(msg);
  const result = await plugin.exited;
  post({ type: 'exited', result });
}

/**
 * The plugin's audio output (ppb/audio.js `embedder.audio`): a ring shared
 * with the page's AudioWorklet when memory can be shared, else chunks
 * posted through the page, paced by what the page reports played.
 */
function audioSink() {
  return {
    sampleRate: 48000,
    open({ sampleRate, channels, frames }) {
      if (globalThis.crossOriginIsolated) {
        const ring = createRing(frames, channels);
        const writer = new RingWriter(ring);
        post({ type: 'audio', op: 'open', sampleRate, channels, ring });
        return {
          waitForSpace: (n, cancelled) => writer.waitForSpace(n, cancelled),
          write: (samples) => writer.write(samples),
          fill: () => writer.fill(),
          close: () => post({ type: 'audio', op: 'close' }),
        };
      }
      let queued = 0;
      let wake = null;
      audioConsumed = (played) => {
        queued = Math.max(0, queued - played);
        wake?.();
      };
      post({ type: 'audio', op: 'open', sampleRate, channels, ring: null });
      return {
        async waitForSpace(n, cancelled) {
          while (queued + n > frames) {
            if (cancelled()) return false;
            await new Promise((resolve) => {
              wake = resolve;
              setTimeout(resolve, 50);
            });
          }
          return !cancelled();
        },
        write(samples) {
          queued += samples.length / channels;
          post({ type: 'audio', op: 'data', samples }, [samples.buffer]);
          return samples.length / channels;
        },
        fill: () => queued,
        close: () => post({ type: 'audio', op: 'close' }),
      };
    },
  };
}

/** The URL rewrite map: the longest prefix that matches wins. */
export function rewrite(map, href) {
  let best = null;
  for (const from of Object.keys(map)) {
    if (href.startsWith(from) && (best === null || from.length > best.length)) best = from;
  }
  return best === null ? href : map[best] + href.slice(best.length);
}
