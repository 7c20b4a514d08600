// The polyfill's options: `window.PexeConfig = { … }` set before the
// polyfill's script, or the options of `embed(element, { … })`
// (js/README.md, "The polyfill", lists them for page authors).
//
//   urlMap              { 'https://gone.example/': '/mirror/' }: every URL the
//                       element and its plugin fetch (manifest, pexe, URL
//                       loader requests) that starts with a key is fetched
//                       from the replacement instead (longest key wins)
//   logLevel            'none' | 'error' | 'warn' | 'info' (default) | 'debug'
//   serviceWorker       false (default) | true | 'url' | { url, coep }:
//                       cross-origin isolation for static hosts (sw.js)
//   cooperativeThreads  true (default): without cross-origin isolation,
//                       run the plugin's threads one at a time (JSPI);
//                       false: a plugin that needs a thread fails, saying why
//   cache               true (default): keep translations in IndexedDB
//   ui                  true (default): draw the loading and error states
//                       over the element
//   fileSystem          'auto' (default) | 'opfs' | 'idb' | 'memory': where the
//                       page's file systems live (PPB_FileSystem and the page's
//                       legacy webkitRequestFileSystem share them; 'auto' takes
//                       OPFS, else IndexedDB, else memory); false: plugins get
//                       them, but the browser's own legacy API is left alone
//   socketRelay         null (default) | 'ws://…' | 'wss://…': a socket relay
//                       (docs/relay.md, `pexe relay`) through which plugins'
//                       TCPSocket, UDPSocket and HostResolver reach the
//                       network; without one they answer PP_ERROR_NOACCESS,
//                       as Chrome answered pages

const LEVELS = ['none', 'error', 'warn', 'info', 'debug'];

export const DEFAULTS = Object.freeze({
  urlMap: Object.freeze({}),
  logLevel: 'info',
  serviceWorker: false,
  cooperativeThreads: true,
  cache: true,
  ui: true,
  fileSystem: 'auto',
  socketRelay: null,
});

/** A complete, checked configuration from what a page gave (unknown keys are reported). */
export function normalizeConfig(raw, warn = () => {}) {
  const c = { ...DEFAULTS };
  if (raw === undefined || raw === null) return Object.freeze(c);
  if (typeof raw !== 'object') {
    warn(`PexeConfig must be an object, not ${typeof raw}; using the defaults`);
    return Object.freeze(c);
  }
  for (const [key, value] of Object.entries(raw)) {
    switch (key) {
      case 'urlMap':
        if (value && typeof value === 'object') {
          c.urlMap = Object.freeze(Object.fromEntries(Object.entries(value).map(([k, v]) => [String(k), String(v)])));
        } else if (value != null) {
          warn('PexeConfig.urlMap must be an object mapping URL prefixes to replacements');
        }
        break;
      case 'logLevel':
        if (LEVELS.includes(value)) c.logLevel = value;
        else warn(`PexeConfig.logLevel must be one of ${LEVELS.join(', ')}`);
        break;
      case 'serviceWorker':
        c.serviceWorker = value;
        break;
      case 'cooperativeThreads':
      case 'cache':
      case 'ui':
        c[key] = value !== false;
        break;
      case 'fileSystem':
        if (value === false || value === true || ['auto', 'opfs', 'idb', 'memory'].includes(value)) c.fileSystem = value === true ? 'auto' : value;
        else warn("PexeConfig.fileSystem must be 'auto', 'opfs', 'idb', 'memory' or false");
        break;
      case 'socketRelay':
        if (value === null || value === false) c.socketRelay = null;
        else if (typeof value === 'string' && /^wss?:\/\//.test(value)) c.socketRelay = value;
        else warn('PexeConfig.socketRelay must be a ws:// or wss:// URL (or null)');
        break;
      default:
        warn(`PexeConfig.${key} is not an option (known: ${Object.keys(DEFAULTS).join(', ')})`);
    }
  }
  return Object.freeze(c);
}

/** `href` through the rewrite map: the longest matching prefix wins. */
export function rewriteUrl(map, href) {
  let best = null;
  for (const from of Object.keys(map)) {
    if (href.startsWith(from) && (best === null || from.length > best.length)) best = from;
  }
  if (best === null) return href;
  const to = map[best] + href.slice(best.length);
  try {
    // A relative replacement is relative to the document.
    return new URL(to, globalThis.document?.baseURI ?? undefined).href;
  } catch {
    return to;
  }
}

/**
 * A console logger at `level`: Chrome's own lines ("NativeClient: …") at
 * info, the polyfill's explanations at warn/debug. `onLog(level, text)`,
 * when given, receives every line whatever the level (embed()'s option).
 */
export function createLogger(level, onLog = null) {
  const at = LEVELS.indexOf(level);
  const on = (l) => LEVELS.indexOf(l) <= at && at > 0;
  const line = (l, print) => (...a) => {
    if (onLog) {
      try {
        onLog(l, a.map((x) => (x instanceof Error ? x.message : String(x))).join(' '));
      } catch {
        // the page's callback must not break the plugin
      }
    }
    if (on(l)) print(...a);
  };
  return {
    error: line('error', console.error),
    warn: line('warn', console.warn),
    info: line('info', console.info),
    debug: line('debug', console.debug),
    level,
  };
}
