// Builds the app in APP_DIR into OUT_DIR with webpack 5, configured as a
// user of the package would: production mode and nothing else (webpack 5
// follows `new URL(…, import.meta.url)` and `new Worker(new URL(…))` and
// allows top-level await by default; it stubs no Node module, so a `node:`
// import reachable from the browser entry fails the build). The bundle
// size hint is off: the translator's WebAssembly is 1.6 MB by design.
//
//   node webpack.mjs APP_DIR OUT_DIR   (run from the tools folder, where webpack is installed)
//
// The page: the app's index.html with its module script (Vite's entry
// convention) replaced by the bundle, as html-webpack-plugin would do.

import fs from 'node:fs';
import path from 'node:path';
import webpack from 'webpack';

const [root, outDir] = process.argv.slice(2);

const compiler = webpack({
  mode: 'production',
  context: path.resolve(root),
  entry: './main.js',
  output: { path: path.resolve(outDir), filename: 'main.js', clean: true },
  performance: { hints: false },
});

const stats = await new Promise((resolve, reject) => {
  compiler.run((err, result) => (err ? reject(err) : resolve(result)));
});
await new Promise((resolve) => compiler.close(resolve));
console.log(stats.toString({ colors: false, modules: false }));
if (stats.hasErrors() || stats.hasWarnings()) {
  console.error('webpack: the build has errors or warnings');
  process.exit(1);
}

const html = fs.readFileSync(path.join(root, 'index.html'), 'utf8');
const page = html.replace(/<script type="module" src="\.\/main\.js"><\/script>/, '<script src="./main.js"></script>');
if (page === html) throw new Error('index.html has no <script type="module" src="./main.js"></script> to replace');
fs.writeFileSync(path.join(outDir, 'index.html'), page);
