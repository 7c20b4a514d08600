// Cross-origin isolation for static hosts: a service worker that re-serves
// the site's own responses with the headers a static host cannot send.
//
// Guest threads need SharedArrayBuffer, which a page has only when it is
// cross-origin isolated: its response carries
//   Cross-Origin-Opener-Policy: same-origin
//   Cross-Origin-Embedder-Policy: require-corp
// (www/server.mjs sends them; GitHub Pages, S3 and `python3 -m http.server`
// do not). This worker adds them to every same-origin GET response — the
// page, its scripts and the Workers' scripts — so the next load of the page
// is isolated. isolation.js registers it and reloads the page once. The
// approach is the one of the coi-serviceworker project (written anew here).
//
// It must be served from the site's root folder: a service worker controls
// the pages under the folder it is served from. scripts/build-site.sh puts
// it there; the dev server never needs it.
//
// Cross-origin requests pass untouched: under require-corp they load when
// their server allows it (CORS, or Cross-Origin-Resource-Policy), as on any
// isolated page.

self.addEventListener('install', () => {
  // Take over at once: the page reloads as soon as this worker controls it.
  self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  if (new URL(request.url).origin !== self.location.origin) return;
  // A request that may only be answered from the cache cannot be re-fetched.
  if (request.cache === 'only-if-cached' && request.mode !== 'same-origin') return;
  event.respondWith(isolated(request));
});

async function isolated(request) {
  const response = await fetch(request);
  // Opaque answers (status 0) and redirects the page follows itself carry
  // no headers to change.
  if (response.status === 0 || response.type === 'opaque' || response.type === 'opaqueredirect') return response;
  const headers = new Headers(response.headers);
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
  headers.set('Cross-Origin-Resource-Policy', 'same-origin');
  // The body streams through (a large pexe still shows download progress).
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
