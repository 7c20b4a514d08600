// The entry script of a guest thread's Worker in Node (nodeHost in host.js
// starts it in worker_threads): the port is `parentPort`, and the thread
// may write inherited stdio and trace lines straight to the host's fds.

import * as fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { serveThread } from '../runtime/threads/worker.js';
import { nodeHost } from './host.js';

serveThread(
  { post: (msg) => parentPort.postMessage(msg), onMessage: (fn) => parentPort.on('message', fn) },
  { nodeFs: fs, loadPepper: nodeHost.loadPepper },
);
