// The element's events, made and timed as Chrome's NaCl plugin did
// (nacl-embed-facts.md §1, §3):
//
// - `loadstart`, `progress`, `load`, `loadend`, `error`, `abort`, `crash`
//   are ProgressEvents (lengthComputable, loaded, total); those Chrome sent
//   with a URL carry it as `event.url` (its ResourceProgressEvent);
// - `message` is a MessageEvent (data; origin "", source null, no ports);
// - none bubbles, none is cancelable: listeners on ancestors see them in
//   the capture phase only (where the NaCl SDK's pages listen);
// - each is dispatched in a task of its own, after the state change it
//   reports (readyState, lastError, exitStatus are set first), and never
//   once the element has left the document. Tasks run in the order they
//   were queued, all instances sharing one queue, as Chrome's main thread
//   ran them.
//
// Dispatching with dispatchEvent sets the legacy `window.event` for the
// listener's duration, so handlers that read it (exoticorn's) work.

const queue = [];
let channel = null;
let scheduled = false;

function drain() {
  scheduled = false;
  // One task per event: run the first, reschedule for the rest.
  const job = queue.shift();
  if (queue.length > 0) schedule();
  job?.();
}

function schedule() {
  if (scheduled) return;
  scheduled = true;
  if (!channel && typeof MessageChannel === 'function') {
    channel = new MessageChannel();
    channel.port1.onmessage = drain;
  }
  if (channel) channel.port2.postMessage(null);
  else setTimeout(drain, 0);
}

/** Runs `job` in a task of its own, after every job queued before it. */
export function queueTask(job) {
  queue.push(job);
  schedule();
}

/** A NaCl progress event; `url` only when Chrome's had one. */
export function progressEvent(type, { url, lengthComputable = false, loaded = 0, total = 0 } = {}) {
  const e = new ProgressEvent(type, { bubbles: false, cancelable: false, lengthComputable, loaded, total });
  if (url !== undefined) Object.defineProperty(e, 'url', { value: String(url), enumerable: true });
  return e;
}

/** A plugin → page message. */
export function messageEvent(data) {
  return new MessageEvent('message', { bubbles: false, cancelable: false, data, origin: '', lastEventId: '', source: null, ports: [] });
}
