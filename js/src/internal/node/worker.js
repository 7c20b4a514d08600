// The entry script of a guest thread's Worker in Node (nodeHost in host.js
// starts it in worker_threads): the port is `parentPort`, and the thread
// may write inherited stdio and trace lines straight to the host's fds.

import { serveThread } from '../runtime/threads/worker.js';
import { builtin, nodeHost } from './host.js';

const { parentPort } = builtin('node:worker_threads');

serveThread(
  { post: (msg) => parentPort.postMessage(msg), onMessage: (fn) => parentPort.on('message', fn) },
  { nodeFs: nodeHost.node.fs, loadPepper: nodeHost.loadPepper },
);
