// The entry script of a translation Worker in browsers (browser.js starts
// it): the port is the Worker's global scope.

import { serveTranslator } from './pool-worker-core.js';

serveTranslator({
  post: (msg, transfer) => self.postMessage(msg, transfer ?? []),
  onMessage: (fn) => self.addEventListener('message', (e) => fn(e.data)),
});
