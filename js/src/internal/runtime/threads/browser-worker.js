// The entry script of a guest thread's Worker in browsers, for a program
// that is not a Pepper plugin (browserHost in platform.js starts it): the
// port is the Worker's global scope. It reaches none of Pepper's code (65
// modules, most of the runtime), so a command-line program's threads start
// sooner; a plugin's threads run browser-plugin-worker.js.

import { serveThread } from './worker.js';

serveThread(
  {
    post: (msg) => self.postMessage(msg),
    onMessage: (fn) => self.addEventListener('message', (e) => fn(e.data)),
  },
  {
    loadPepper: () => {
      throw new Error('runtime bug: a Pepper plugin thread started in the Worker for other programs');
    },
  },
);
