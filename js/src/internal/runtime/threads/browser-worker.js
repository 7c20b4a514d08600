// The entry script of a guest thread's Worker in browsers (browserHost in
// platform.js starts it): the port is the Worker's global scope.

import { browserHost } from './platform.js';
import { serveThread } from './worker.js';

serveThread(
  {
    post: (msg) => self.postMessage(msg),
    onMessage: (fn) => self.addEventListener('message', (e) => fn(e.data)),
  },
  { loadPepper: browserHost.loadPepper },
);
