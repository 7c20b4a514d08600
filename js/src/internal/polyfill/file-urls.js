// `filesystem:` URLs given to media elements: kichikuou's play.html plays
// the CD tracks its installer extracted with
//   audio.setAttribute('src', fs.root.toURL() + 'track2.wav'); audio.load(); audio.play();
// The entries' toURL() makes such URLs (../pepper/html5fs-page.js), but
// the browser cannot load them: Chromium's own `filesystem:` scheme reads
// its own store, other browsers have none. A service worker cannot answer
// them either — it only sees http(s) requests.
//
// So the polyfill resolves them itself, for <audio> and <video>: a
// `filesystem:` URL of this page's origin assigned to a media element's
// `src` (the property, setAttribute, or `new Audio(url)`) is read from
// the page's store into a Blob, and the element gets the Blob's blob: URL
// instead. Until then the element keeps what it had, load() waits, and
// play() returns a promise that plays once the source is in place — the
// page's calls, made at once, work as they did in Chrome. A URL that does
// not resolve (no such file) is handed to the element as it was, which
// then fails the way Chrome's did for a missing file.
//
// Where it falls short: the whole file is read into memory (one Blob per
// file, reused while the file is unchanged); while a source is being read,
// getAttribute('src') and currentSrc show the element's previous source;
// other elements (<img>, <source>, <link>) and fetch()/XHR of
// `filesystem:` URLs are not handled.

import { parseFileSystemUrl } from '../pepper/html5fs-page.js';

/**
 * Installs the rewrite on `win` over the legacy API's operations `ops`
 * (html5fs-page.js legacyFileSystem().ops); returns `{ uninstall() }`.
 */
export function installFileSystemUrls(win, ops) {
  const Media = win.HTMLMediaElement;
  if (!Media) return { uninstall() {} };
  const origin = win.location.origin;
  const proto = Media.prototype;
  const srcDesc = Object.getOwnPropertyDescriptor(proto, 'src');
  const nativeSetAttribute = win.Element.prototype.setAttribute;
  const nativePlay = proto.play;
  const nativeLoad = proto.load;
  const NativeAudio = win.Audio;

  /** url → { key: 'size:mtime', url: blob: URL } for files already read. */
  const blobs = new Map();
  /** element → { token, ready: Promise } while its source is being read. */
  const pending = new WeakMap();

  const isOurs = (value) => {
    if (typeof value !== 'string' || !/^filesystem:/i.test(value)) return false;
    return parseFileSystemUrl(value)?.origin === origin;
  };

  /** The blob: URL for `url`'s file now (read again if it changed); null if it is not a file. */
  async function blobUrlOf(url) {
    let where;
    try {
      where = await ops.resolveURL(url);
    } catch {
      return null;
    }
    if (where.kind !== 'file') return null;
    const info = await ops.fileInfo(where.type, where.path);
    const key = `${info.size}:${info.modificationTime}`;
    const known = blobs.get(url);
    if (known?.key === key) return known.url;
    const bytes = await ops.readAll(where.type, where.path);
    const made = win.URL.createObjectURL(new win.Blob([bytes], { type: info.type }));
    if (known) win.URL.revokeObjectURL(known.url);
    blobs.set(url, { key, url: made });
    return made;
  }

  /** Gives `el` the source `url` once it is read. */
  function assign(el, url) {
    const token = {};
    const ready = blobUrlOf(url)
      .catch((e) => {
        win.console?.warn?.(`pexe: could not read ${url}: ${e?.message ?? e}`);
        return null;
      })
      .then((blobUrl) => {
        if (pending.get(el)?.token !== token) return;
        pending.delete(el);
        nativeSetAttribute.call(el, 'src', blobUrl ?? url);
      });
    pending.set(el, { token, ready });
  }

  Object.defineProperty(proto, 'src', {
    configurable: true,
    enumerable: srcDesc.enumerable,
    get: srcDesc.get,
    set(value) {
      if (isOurs(value)) assign(this, value);
      else {
        pending.delete(this);
        srcDesc.set.call(this, value);
      }
    },
  });
  win.Element.prototype.setAttribute = function setAttribute(name, value) {
    if (this instanceof Media && String(name).toLowerCase() === 'src') {
      if (isOurs(String(value))) {
        assign(this, String(value));
        return undefined;
      }
      pending.delete(this);
    }
    return nativeSetAttribute.apply(this, arguments);
  };
  proto.play = function play() {
    const p = pending.get(this);
    if (p) return p.ready.then(() => nativePlay.call(this));
    return nativePlay.call(this);
  };
  proto.load = function load() {
    // The source, once in place, starts its own load.
    if (pending.has(this)) return undefined;
    return nativeLoad.call(this);
  };
  if (typeof NativeAudio === 'function') {
    win.Audio = new Proxy(NativeAudio, {
      construct(target, args, newTarget) {
        const nt = newTarget === win.Audio ? target : newTarget;
        if (args.length > 0 && isOurs(args[0])) {
          const el = Reflect.construct(target, [], nt);
          el.preload = 'auto';
          assign(el, args[0]);
          return el;
        }
        return Reflect.construct(target, args, nt);
      },
    });
  }

  return {
    uninstall() {
      Object.defineProperty(proto, 'src', srcDesc);
      win.Element.prototype.setAttribute = nativeSetAttribute;
      proto.play = nativePlay;
      proto.load = nativeLoad;
      if (NativeAudio) win.Audio = NativeAudio;
      for (const { url } of blobs.values()) win.URL.revokeObjectURL(url);
      blobs.clear();
    },
  };
}
