// A service worker that makes a statically hosted page cross-origin
// isolated, for hosts that cannot send headers (GitHub Pages and the
// like): it serves every response of its scope again with
//   Cross-Origin-Opener-Policy: same-origin
//   Cross-Origin-Embedder-Policy: credentialless   (or require-corp)
// so that the page may share memory with Workers and a plugin's threads
// run in parallel. The approach is coi-serviceworker's (a service worker
// cannot change the response that installed it, so the page reloads once
// when the worker takes control: polyfill.js does that).
//
// Enabling it (js/README.md, "Threads on static hosts"):
//   1. copy this file to the site, at or above the pages that use it —
//      a service worker controls only pages under its own folder (its
//      scope), so /pexe-sw.js serves the whole site;
//   2. before the polyfill's tag: window.PexeConfig = { serviceWorker: '/pexe-sw.js' }
//      (or { serviceWorker: { url: '/pexe-sw.js', coep: 'require-corp' } }).
//
// COEP `credentialless` (the default) lets the page keep loading
// cross-origin images, fonts and style sheets (without cookies);
// `require-corp` (?coep=require-corp on this script's URL) blocks those
// that do not opt in. Safari supports only require-corp.

const COEP = new URL(self.location.href).searchParams.get('coep') === 'require-corp' ? 'require-corp' : 'credentialless';

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('fetch', (event) => {
  const request = event.request;
  // Chrome fails these when a service worker answers them for another origin.
  if (request.cache === 'only-if-cached' && request.mode !== 'same-origin') return;
  event.respondWith(isolated(request));
});

async function isolated(request) {
  const crossOrigin = new URL(request.url).origin !== self.location.origin;
  // Under credentialless, cross-origin no-cors loads go without credentials.
  const r = COEP === 'credentialless' && crossOrigin && request.mode === 'no-cors' ? new Request(request, { credentials: 'omit' }) : request;
  let response;
  try {
    response = await fetch(r);
  } catch {
    return Response.error();
  }
  // Opaque responses cannot be rebuilt (and need no headers of their own).
  if (response.status === 0 || response.type === 'opaque' || response.type === 'opaqueredirect') return response;
  const headers = new Headers(response.headers);
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  headers.set('Cross-Origin-Embedder-Policy', COEP);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
