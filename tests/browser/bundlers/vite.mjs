// Builds the app in APP_DIR into OUT_DIR with Vite 5, configured as a user
// of the package would: the one setting it needs is a build target with
// top-level await (the package awaits its WebAssembly at import; Vite 5's
// default target, `modules`, is ES2020). No Node stubs, no polyfills, no
// plugins. Fails when Vite had to stub a Node module for the browser.
//
//   node vite.mjs APP_DIR OUT_DIR      (run from the tools folder, where vite is installed)

import { build, createLogger } from 'vite';

const [root, outDir] = process.argv.slice(2);
const logger = createLogger('info');
const problems = [];
const warn = logger.warn;
logger.warn = (msg, options) => {
  // "Module "node:fs" has been externalized for browser compatibility…"
  if (/externalized for browser compatibility|node:/.test(msg)) problems.push(msg);
  warn(msg, options);
};
logger.warnOnce = logger.warn;

await build({
  root,
  configFile: false,
  customLogger: logger,
  build: { target: 'es2022', outDir, emptyOutDir: true },
});
if (problems.length) {
  console.error(`vite: the browser build reached Node modules:\n${problems.join('\n')}`);
  process.exit(1);
}
