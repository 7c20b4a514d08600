// The entry script of a Pepper plugin's guest thread's Worker in browsers
// (browserHost in platform.js starts it): the port is the Worker's global
// scope. Pepper's code is imported statically: bundlers cannot split a
// Worker's code (pepper/load.js).

import { PEPPER } from '../../pepper/modules.js';
import { serveThread } from './worker.js';

serveThread(
  {
    post: (msg) => self.postMessage(msg),
    onMessage: (fn) => self.addEventListener('message', (e) => fn(e.data)),
  },
  { loadPepper: () => PEPPER },
);
