// A static server for a legacy page as it was published: a corpus
// `site/` folder served as it is, with one change made at serve time — the
// polyfill's tag added to its HTML pages — and the package (pkg/) under
// /pexe/. Used by the polyfill tests (../polyfill-*.test.mjs).
//
//   const site = await serveSite({ root, tag: 'classic' | 'module' | null, isolation: true });
//   site.url('/nacl/index.html');  site.requests;  await site.close();
//
// Options:
// - `tag`: how the polyfill is added: 'classic' (`<script src>`) or
//   'module' (`<script type="module" src>`), as the first thing in <head>
//   (a page without a <head> gets one from the parser, as browsers do);
//   null adds nothing;
// - `config`: an object written as `window.PexeConfig = …` before the tag
//   (what a page author writes to set options), or null;
// - `isolation`: send COOP/COEP (cross-origin isolated pages), default true;
// - `routes`: extra URL paths → a file, a folder (keys ending in '/'), or a
//   function (req, res) handling the request itself;
// - `pkg`: the package folder (default: the repository's pkg/).
//
// Like the static hosts these pages lived on: the query string is ignored
// (niklasf's .nmf asks for stockfish.pexe?v=19), files carry
// Content-Length, ETag and Last-Modified and answer If-None-Match with 304.
// Every request is recorded in `requests` ({ method, path, url, headers }).

import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { REPO } from '../helpers.mjs';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.nmf': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.pexe': 'application/x-pnacl',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.gif': 'image/gif',
  '.txt': 'text/plain; charset=utf-8',
};

export const PKG = path.join(REPO, 'pkg');

/** The tag(s) a page author adds: the options, then the polyfill. */
export function polyfillTag(tag, config) {
  const options = config ? `<script>window.PexeConfig = ${JSON.stringify(config)};</script>` : '';
  const script = tag === 'module' ? '<script type="module" src="/pexe/polyfill.js"></script>' : '<script src="/pexe/polyfill.js"></script>';
  return options + script;
}

/** `html` with `insert` as the first content of its <head> (or where the parser would put one). */
export function injectIntoHead(html, insert) {
  const head = /<head(\s[^>]*)?>/i.exec(html);
  if (head) return html.slice(0, head.index + head[0].length) + insert + html.slice(head.index + head[0].length);
  const root = /<html(\s[^>]*)?>/i.exec(html);
  if (root) return html.slice(0, root.index + root[0].length) + insert + html.slice(root.index + root[0].length);
  const doctype = /^\s*<!doctype[^>]*>/i.exec(html);
  const at = doctype ? doctype[0].length : 0;
  return html.slice(0, at) + insert + html.slice(at);
}

export async function serveSite({ root, tag = 'classic', config = null, isolation = true, routes = {}, pkg = PKG } = {}) {
  const requests = [];
  const mounts = [['/pexe/', pkg], ...Object.entries(routes)].sort((a, b) => b[0].length - a[0].length);
  const baseHeaders = isolation
    ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' }
    : {};
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://localhost');
    let pathname;
    try {
      pathname = decodeURIComponent(u.pathname);
    } catch {
      pathname = u.pathname;
    }
    requests.push({ method: req.method, path: pathname, url: req.url, headers: req.headers });
    const send = (status, headers = {}, body = null) => {
      res.writeHead(status, { ...baseHeaders, ...headers });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    let file = null;
    for (const [prefix, target] of mounts) {
      if (typeof target === 'function' && pathname === prefix) return target(req, res, baseHeaders);
      if (prefix.endsWith('/') && pathname.startsWith(prefix) && typeof target === 'string') {
        file = path.join(target, pathname.slice(prefix.length));
        if (!file.startsWith(path.resolve(target))) return send(403);
        break;
      }
      if (pathname === prefix && typeof target === 'string') {
        file = target;
        break;
      }
    }
    if (file === null && root) {
      file = path.join(root, pathname);
      if (!file.startsWith(path.resolve(root))) return send(403);
    }
    if (file && fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    if (!file || !fs.existsSync(file) || !fs.statSync(file).isFile()) return send(404, { 'Content-Type': 'text/plain' }, 'not found\n');
    const ext = path.extname(file).toLowerCase();
    let body = fs.readFileSync(file);
    const isPage = (ext === '.html' || ext === '.htm') && !file.startsWith(path.resolve(pkg));
    if (isPage && tag) body = Buffer.from(injectIntoHead(body.toString('utf8'), polyfillTag(tag, config)));
    const stat = fs.statSync(file);
    const etag = `"${crypto.createHash('sha1').update(body).digest('hex').slice(0, 16)}"`;
    const headers = {
      'Content-Type': MIME[ext] ?? 'application/octet-stream',
      'Cache-Control': 'no-cache',
      ETag: etag,
      'Last-Modified': stat.mtime.toUTCString(),
    };
    if (req.headers['if-none-match'] === etag) return send(304, headers);
    send(200, { ...headers, 'Content-Length': String(body.length) }, body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    origin,
    requests,
    url: (p) => origin + p,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
