// The other end of the Workers' synchronous legacy FileSystem API
// (html5fs-sync-worker.js): it does each call a Worker posts over its
// bridge with html5fs-page.js's operations, on the page's stores, and
// writes the answer into the Worker's shared buffer, which wakes it.
//
//   const server = syncFileSystemServer(self, storage);   // storage/index.js Storage
//   server.serve(port);                                   // one bridge per Worker
//
// It runs wherever the Storage is: in the polyfill, a helper Worker of the
// page (html5fs-sync-host.js, which reaches the page's Storage as the
// plugins' host Workers do, and opens OPFS files with sync access handles
// — the page's main thread could only rewrite a whole file for each
// write); in the Node tests, the main thread.
//
// What a Worker sends is checked before anything is done with it: the
// shared buffer's size against LIMITS, the file system types, the paths
// (by the stores, storage/paths.js), positions and lengths (Store.span).
// Reads are cut to the shared buffer's data area, and long answers are
// kept here and handed out in pieces; nothing is allocated by a size a
// Worker names.

import { CODE } from './storage/errors.js';
import { legacyFileSystem } from './html5fs-page.js';
import './html5fs-sync-worker.js';

const { LIMITS, HEADER, ANSWER } = globalThis[Symbol.for('pexe.html5fsSync')];

export { LIMITS };

const TYPES = ['temporary', 'persistent'];

/** `type`, if it names a file system; else a TypeError (a Worker's bug, reported as InvalidStateError). */
function fsType(type) {
  if (!TYPES.includes(type)) throw new TypeError(`no file system ${JSON.stringify(type)}`);
  return type;
}

/** `n`, if it is a position or length; else a TypeError. */
function whole(n, what) {
  if (!Number.isSafeInteger(n) || n < 0) throw new TypeError(`${what} must be a non-negative integer, not ${JSON.stringify(n)}`);
  return n;
}

/**
 * A server of bridges over `storage`, for Workers of `win`'s origin
 * (the origin names the file systems and their URLs).
 */
export function syncFileSystemServer(win, storage) {
  const { ops, errorOf } = legacyFileSystem(win, storage);

  /** Each op: `(args, message, beat) → value` (JSON) or a Uint8Array (bytes). */
  const handlers = {
    async fileSystem([type]) {
      const fs = await ops.fileSystem(type);
      return { type: fs.type, name: fs.name, root: ops.url(fs.type, '/') };
    },
    resolveURL: ([url]) => ops.resolveURL(String(url)),
    lookup: ([type, base, path, options, kind]) =>
      ops.lookup(fsType(type), String(base), String(path), { create: !!options?.create, exclusive: !!options?.exclusive }, kind === 'directory' ? 'directory' : 'file'),
    metadata: ([type, path]) => ops.metadata(fsType(type), String(path)),
    async remove([type, path, recursive]) {
      await ops.remove(fsType(type), String(path), !!recursive);
      return null;
    },
    transfer: ([move, type, path, isDirectory, parentType, parentPath, name]) =>
      ops.transfer(!!move, fsType(type), String(path), !!isDirectory, fsType(parentType), String(parentPath), name === '' ? null : String(name)),
    list: ([type, path]) => ops.list(fsType(type), String(path)),
    writerLength: ([type, path]) => ops.writerLength(fsType(type), String(path)),
    async write([type, path, position], message, beat) {
      const blob = message.blob;
      if (!(blob instanceof (win.Blob ?? globalThis.Blob))) throw new TypeError('write without a Blob');
      return ops.write(fsType(type), String(path), whole(position, 'position'), blob, { chunk: LIMITS.writeSliceBytes, progress: beat });
    },
    async truncate([type, path, length]) {
      await ops.truncate(fsType(type), String(path), whole(length, 'length'));
      return null;
    },
    fileInfo: ([type, path]) => ops.fileInfo(fsType(type), String(path)),
    /** Part of a file() read: cut to the data area, refused (InvalidStateError) if the file changed since fileInfo. */
    async read([type, path, offset, length, size, modificationTime], message, beat, room) {
      const now = await ops.metadata(fsType(type), String(path));
      if (now.size !== size || now.modificationTime !== modificationTime) throw new DOMException('', 'InvalidStateError');
      const n = Number.isInteger(length) && length > 0 ? Math.min(length, room) : 0;
      return ops.read(type, String(path), whole(offset, 'offset'), n);
    },
    url: ([type, path]) => ops.url(fsType(type), String(path)),
  };

  /** Serves one Worker's bridge on `port`. */
  function serve(port) {
    let shared = null;
    /** What is left of the last answer: { of, bytes }. */
    let pending = null;
    let queue = Promise.resolve();
    const encoder = new TextEncoder();

    const beat = () => {
      if (shared) Atomics.add(shared.header, HEADER.BEAT, 1);
    };

    /** Writes (the first piece of) an answer and wakes the Worker. */
    const answer = (seq, kind, bytes) => {
      const { header, data } = shared;
      const n = Math.min(bytes.length, data.length);
      data.set(bytes.subarray(0, n));
      pending = n < bytes.length ? { of: seq, bytes: bytes.subarray(n) } : null;
      header[HEADER.KIND] = kind;
      header[HEADER.LENGTH] = n;
      header[HEADER.MORE] = pending ? 1 : 0;
      header[HEADER.SEQ] = seq;
      Atomics.store(header, HEADER.STATE, 1);
      Atomics.notify(header, HEADER.STATE);
    };
    const json = (value) => encoder.encode(JSON.stringify(value ?? null));
    const error = (e) => {
      const d = e instanceof TypeError ? new DOMException(`pexe: a bad file system call from a Worker: ${e.message}`, 'InvalidStateError') : errorOf(e);
      return json({ name: d.name, message: d.message });
    };

    const handle = async (message) => {
      const { seq, op, args } = message;
      if (!Number.isInteger(seq)) return;
      if (op === 'more') {
        const rest = pending;
        if (!rest || rest.of !== message.of) {
          answer(seq, ANSWER.ERROR, error(new TypeError('no answer has more pieces')));
          return;
        }
        // The rest keeps the kind of the answer it belongs to.
        const kind = shared.header[HEADER.KIND];
        answer(seq, kind, rest.bytes);
        return;
      }
      pending = null;
      const handler = Object.hasOwn(handlers, op) ? handlers[op] : null;
      try {
        if (!handler) throw new TypeError(`unknown op ${JSON.stringify(op)}`);
        if (!Array.isArray(args)) throw new TypeError(`${op}: arguments must be an array`);
        const value = await handler(args, message, beat, shared.data.length);
        if (value instanceof Uint8Array) answer(seq, ANSWER.BYTES, value);
        else answer(seq, ANSWER.JSON, json(value));
      } catch (e) {
        if (e?.code === CODE.FAILED) globalThis.console?.error?.('pexe: a Worker\u2019s file system call failed:', e);
        answer(seq, ANSWER.ERROR, error(e));
      }
    };

    port.onmessage = (e) => {
      const message = e.data;
      if (!message || typeof message !== 'object') return;
      if (message.op === 'attach') {
        const sab = message.sab;
        const size = sab instanceof SharedArrayBuffer ? sab.byteLength - HEADER.BYTES : -1;
        if (shared || size < LIMITS.minSharedBytes || size > LIMITS.sharedBytes) {
          globalThis.console?.error?.(`pexe: refused a Worker's file system bridge (a shared buffer of ${sab?.byteLength} bytes)`);
          port.close();
          return;
        }
        shared = { header: new Int32Array(sab, 0, HEADER.SLOTS), data: new Uint8Array(sab, HEADER.BYTES) };
        return;
      }
      if (!shared) return;
      queue = queue.then(() => handle(message));
    };
    port.start?.();
  }

  return { serve };
}
