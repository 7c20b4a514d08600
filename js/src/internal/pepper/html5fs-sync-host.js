// The page's file system helper: a module Worker that answers the
// synchronous file system calls of the page's Workers (html5fs-sync.js)
// on the page's Storage, which it reaches as a plugin's host Worker does
// (storage/page.js connectStorage: OPFS and IndexedDB opened here, with
// OPFS sync access handles; memory through the page). Started by
// ../polyfill/file-system.js on the first bridge.
//
// Messages from the page:
//   { storagePort }   the page's Storage (storage.link()), first and once
//   { bridge }        a Worker's bridge port, to serve

import { syncFileSystemServer } from './html5fs-sync.js';
import { connectStorage } from './storage/page.js';

let server = null;

self.onmessage = (e) => {
  const { storagePort, bridge } = e.data ?? {};
  if (storagePort) {
    server = connectStorage(storagePort).then((storage) => syncFileSystemServer(self, storage));
    server.catch((err) => console.error('pexe: the file system helper could not reach the page\u2019s storage:', err));
  } else if (bridge && server) {
    server.then((s) => s.serve(bridge));
  }
};
