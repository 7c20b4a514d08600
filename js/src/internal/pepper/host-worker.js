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
//                 {type: 'focus', hasFocus} {type: 'destroy'}
//                 {type: 'blocking', value}  (answer written to `reply`)
//   here → page   {type: 'message', value} {type: 'log', level, source, text}
//                 {type: 'loaded'} {type: 'loadFailed', message}
//                 {type: 'missing', name} {type: 'output', fd, chunk}
//                 {type: 'threadRefused', reason}
//                 {type: 'exited', result} {type: 'bug', message, stack}

import { startPlugin } from '../runtime/index.js';
import { browserHost } from '../runtime/threads/platform.js';
import { encodeValue, REPLY } from './value-codec.js';

let plugin = null;
let reply = null;
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

async function start({ module, options, reply: replyBuffer }) {
  reply = replyBuffer;
  const output = (fd) => (chunk) => post({ type: 'output', fd, chunk });
  plugin = await startPlugin(module, {
    ...options,
    stdout: output(1),
    stderr: output(2),
    embedder: {
      postMessage: (value) => post({ type: 'message', value }),
      log: (level, source, text) => post({ type: 'log', level, source, text }),
      loaded: () => post({ type: 'loaded' }),
      loadFailed: (message) => post({ type: 'loadFailed', message }),
      missingInterface: (name) => post({ type: 'missing', name }),
      threadRefused: (reason) => post({ type: 'threadRefused', reason }),
      rewriteUrl: options.urlMap ? (href) => rewrite(options.urlMap, href) : undefined,
    },
  }, browserHost);
  for (const msg of pending.splice(0)) handle(msg);
  const result = await plugin.exited;
  post({ type: 'exited', result });
}

/** The URL rewrite map: the longest prefix that matches wins. */
export function rewrite(map, href) {
  let best = null;
  for (const from of Object.keys(map)) {
    if (href.startsWith(from) && (best === null || from.length > best.length)) best = from;
  }
  return best === null ? href : map[best] + href.slice(best.length);
}
