#!/usr/bin/env node
// The page's development server: Node.js 20+, no dependencies.
//
//   node www/server.mjs [--port N] [--no-isolation] [--corpus DIR] [--quiet]
//
// Serves, from the repository, read-only:
//   /            www/        (the page; www/samples/ holds the bundled samples)
//   /pkg/        pkg/        (the npm package the page imports as ../pkg/index.js)
//   /corpus/     DIR         (only with --corpus: tests load real pexes from ../shared/corpus)
//
// Every response carries Cross-Origin-Opener-Policy: same-origin,
// Cross-Origin-Embedder-Policy: require-corp and Cross-Origin-Resource-Policy:
// same-origin, which make the page cross-origin isolated: shared memory can
// reach Workers, so guest threads run. `--no-isolation` leaves the first two
// out (the page then runs guests with one thread; the fallback test uses it).
// It binds 127.0.0.1 only: it is a development tool, not a web server.
//
// Also usable from tests: `const s = await startServer({ port: 0 }); s.url; await s.close();`

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WWW = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.dirname(WWW);

/** MIME types by extension; wasm and JavaScript must be exact for streaming compile and module scripts. */
const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.md': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.records': 'text/plain; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.pexe': 'application/x-pnacl',
  '.nmf': 'application/json; charset=utf-8',
};

/**
 * Starts the server. Options: `port` (0 = any free port; default 8000),
 * `isolation` (default true), `corpus` (a directory served under /corpus/,
 * or null), `log` (a function for request lines, or null).
 * Resolves `{ url, port, server, close() }`.
 */
export function startServer({ port = 8000, isolation = true, corpus = null, log = null } = {}) {
  const mounts = [
    ['/pkg/', path.join(REPO, 'pkg')],
    ...(corpus ? [['/corpus/', path.resolve(corpus)]] : []),
    ['/', WWW],
  ];
  const baseHeaders = {
    'Cross-Origin-Resource-Policy': 'same-origin',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-cache',
    ...(isolation
      ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' }
      : {}),
  };

  const server = http.createServer((req, res) => {
    const done = (status, headers = {}, body = '') => {
      res.writeHead(status, { ...baseHeaders, ...headers });
      res.end(req.method === 'HEAD' ? undefined : body);
      log?.(`${status} ${req.method} ${req.url}`);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return done(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' }, 'method not allowed\n');
    }
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    } catch {
      return done(400, { 'Content-Type': 'text/plain' }, 'bad request\n');
    }
    if (pathname.includes('\0')) return done(400, { 'Content-Type': 'text/plain' }, 'bad request\n');
    const mount = mounts.find(([prefix]) => pathname.startsWith(prefix) || pathname + '/' === prefix);
    const [prefix, root] = mount;
    if (pathname + '/' === prefix) return done(301, { Location: prefix });
    let file = path.join(root, path.normalize(pathname.slice(prefix.length)));
    // path.normalize + join cannot climb above root, but check anyway (symlinks aside).
    if (file !== root && !file.startsWith(root + path.sep)) return done(403, { 'Content-Type': 'text/plain' }, 'forbidden\n');
    let stat;
    try {
      stat = fs.statSync(file);
      if (stat.isDirectory()) {
        if (!pathname.endsWith('/')) return done(301, { Location: pathname + '/' });
        file = path.join(file, 'index.html');
        stat = fs.statSync(file);
      }
    } catch {
      return done(404, { 'Content-Type': 'text/plain' }, `not found: ${pathname}\n`);
    }
    if (!stat.isFile()) return done(404, { 'Content-Type': 'text/plain' }, `not found: ${pathname}\n`);
    const headers = {
      ...baseHeaders,
      'Content-Type': MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': stat.size,
      'Last-Modified': stat.mtime.toUTCString(),
    };
    res.writeHead(200, headers);
    log?.(`200 ${req.method} ${req.url}`);
    if (req.method === 'HEAD') return res.end();
    // Streamed, so a large pexe arrives in chunks (the page shows download progress).
    const stream = fs.createReadStream(file);
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const actual = server.address().port;
      resolve({
        url: `http://127.0.0.1:${actual}/`,
        port: actual,
        server,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}

function usage(message) {
  if (message) process.stderr.write(`server.mjs: ${message}\n`);
  process.stderr.write(
    'usage: node www/server.mjs [--port N] [--no-isolation] [--corpus DIR] [--quiet]\n' +
      '  --port N        listen on 127.0.0.1:N (default 8000; 0 = any free port)\n' +
      '  --no-isolation  leave out COOP/COEP (the page is not cross-origin isolated: one guest thread)\n' +
      '  --corpus DIR    also serve DIR read-only under /corpus/ (for tests)\n' +
      '  --quiet         do not log requests\n',
  );
  process.exit(2);
}

async function main(argv) {
  const opts = { port: 8000, isolation: true, corpus: null, log: (line) => console.log(line) };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--port') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 0 || n > 65535) usage(`bad port: ${argv[i]}`);
      opts.port = n;
    } else if (a === '--no-isolation') opts.isolation = false;
    else if (a === '--corpus') {
      opts.corpus = argv[++i];
      if (!opts.corpus || !fs.existsSync(opts.corpus)) usage(`no such directory: ${opts.corpus}`);
    } else if (a === '--quiet') opts.log = null;
    else if (a === '-h' || a === '--help') usage();
    else usage(`unknown argument: ${a}`);
  }
  let s;
  try {
    s = await startServer(opts);
  } catch (e) {
    process.stderr.write(`server.mjs: cannot listen on 127.0.0.1:${opts.port}: ${e.message}\n`);
    process.exit(1);
  }
  const mode = opts.isolation ? 'cross-origin isolated (threads)' : 'not isolated (one guest thread)';
  console.log(`pexe page: ${s.url}  [${mode}]`);
  if (!fs.existsSync(path.join(REPO, 'pkg', 'index.js'))) {
    console.log('note: pkg/index.js is missing; build it with scripts/build-pkg.sh');
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2));
}
