// The entry script of a translation Worker in Node (node.js
// starts it in worker_threads): the port is `parentPort`.

import { parentPort } from 'node:worker_threads';
import { serveTranslator } from './pool-worker-core.js';

serveTranslator({
  post: (msg, transfer) => parentPort.postMessage(msg, transfer ?? []),
  onMessage: (fn) => parentPort.on('message', fn),
});
