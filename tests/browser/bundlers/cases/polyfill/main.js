// An app that brings its legacy NaCl page back with the package's polyfill,
// bundled: `import 'pexe/polyfill'` adopts the page's <embed>; the
// polyfill's modules, its translator Worker (with the translator's
// WebAssembly), the plugin's host Worker and the guest threads' Worker
// must all have been emitted by the bundler for the plugin to load.

import 'pexe/polyfill';
