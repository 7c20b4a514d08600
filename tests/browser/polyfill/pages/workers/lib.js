// Loaded by sync-classic.js with importScripts('lib.js'): relative to the Worker's script.
self.libLoaded = 'lib.js';
