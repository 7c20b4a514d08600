// Standard input, output and error: hooks given by the embedder (bytes or
// a function for input, a function receiving `Uint8Array` copies for
// output), or, in Node, the host's own fds 0/1/2 passed through byte for
// byte (`'inherit'`). hostReadSync/hostWriteSync are also the fast path
// of guest threads in Workers (threads/passthrough.js).

import { O, S } from '../defs.js';
import { Description } from './descriptors.js';
import { fromHostError } from './errors.js';
import { hostStat } from './host-node.js';
import { BLKSIZE, now } from './memory.js';

/** A stream's stat: a character device for a terminal, a FIFO otherwise. */
function streamStat(tty, ino) {
  const t = now();
  return {
    dev: 2,
    ino,
    mode: (tty ? S.IFCHR : S.IFIFO) | 0o600,
    nlink: 1,
    uid: 0,
    gid: 0,
    rdev: 0,
    size: 0,
    blksize: BLKSIZE,
    blocks: 0,
    atimeMs: t,
    mtimeMs: t,
    ctimeMs: t,
  };
}

/**
 * How long to back off when a non-blocking host fd says EAGAIN. Sleeping
 * needs Atomics.wait, which a page's main thread cannot do: it spins.
 */
function backoff(ms) {
  try {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  } catch {
    const end = performance.now() + ms;
    while (performance.now() < end);
  }
}

/** Reads from a host fd (stdin passthrough), retrying on EAGAIN. */
export function hostReadSync(nodeFs, fd, len) {
  const buf = new Uint8Array(len);
  for (;;) {
    try {
      const n = nodeFs.readSync(fd, buf, 0, len, null);
      return buf.subarray(0, n);
    } catch (e) {
      if (e?.code === 'EAGAIN') backoff(1);
      else if (e?.code === 'EOF') return buf.subarray(0, 0);
      else throw fromHostError(e);
    }
  }
}

/** Writes all of `bytes` to a host fd (stdout passthrough), retrying on EAGAIN. */
export function hostWriteSync(nodeFs, fd, bytes) {
  let done = 0;
  while (done < bytes.length) {
    try {
      done += nodeFs.writeSync(fd, bytes, done, bytes.length - done);
    } catch (e) {
      if (e?.code === 'EAGAIN') backoff(1);
      else throw fromHostError(e);
    }
  }
  return bytes.length;
}

/**
 * Standard input: `source` is a Uint8Array (read to its end, then EOF), a
 * function returning the next chunk (a Uint8Array; null or empty = EOF),
 * `'inherit'` (the host's fd 0, Node only), or undefined (empty).
 */
export class StdinDescription extends Description {
  constructor(source, { nodeFs, tty, ino }) {
    super(O.RDONLY);
    this.source = typeof source === 'string' ? new TextEncoder().encode(source) : source;
    this.position = 0;
    this.pending = null;
    this.nodeFs = nodeFs;
    this.tty = tty;
    this.ino = ino;
  }

  get hostFd() {
    return this.source === 'inherit' ? 0 : -1;
  }

  read(len) {
    const src = this.source;
    if (src === 'inherit') return hostReadSync(this.nodeFs, 0, len);
    if (src instanceof Uint8Array) {
      const bytes = src.slice(this.position, this.position + len);
      this.position += bytes.length;
      return bytes;
    }
    if (typeof src === 'function') {
      if (!this.pending || this.pending.length === 0) this.pending = src() ?? null;
      if (!this.pending) return new Uint8Array(0);
      const bytes = this.pending.slice(0, len);
      this.pending = this.pending.subarray(bytes.length);
      return bytes;
    }
    return new Uint8Array(0);
  }

  stat() {
    if (this.source === 'inherit') {
      try {
        return hostStat(this.nodeFs.fstatSync(0));
      } catch (e) {
        throw fromHostError(e);
      }
    }
    return streamStat(this.tty, this.ino);
  }

  isatty() {
    return this.tty;
  }
}

/**
 * stdout/stderr: `sink` is a function receiving Uint8Array copies,
 * `'inherit'` (the host fd `hostFd`, Node only), `{ ring, stream }` (an
 * OutputRingWriter of the embedder's output ring, threads/output-ring.js,
 * and the stream, 0 or 1, to write as there), or undefined (discarded).
 */
export class OutputDescription extends Description {
  constructor(sink, hostFd, { nodeFs, tty, ino }) {
    super(O.WRONLY);
    this.sink = sink;
    this.inheritFd = hostFd;
    /** The embedder's ring, written here and by guest threads in Workers (nobody on this side drains it). */
    this.ring = sink?.ring ?? null;
    /**
     * Which stream of the output ring (threads/output-ring.js) guest
     * threads write this sink through, or -1 (calls come to the host).
     */
    this.ringStream = this.ring ? sink.stream : -1;
    /** write() takes a view of guest memory (it copies what it keeps): fdio spares a copy. */
    this.takesViews = this.ring !== null;
    /** Empties the ring first (set by the host while a ring carries this stream). */
    this.drainRing = null;
    /** Write-behind (`startWriteBehind`): the buffer, or null when writes go out at once. */
    this.held = null;
    this.heldBytes = 0;
    this.failure = null;
    this.nodeFs = nodeFs;
    this.tty = tty;
    this.ino = ino;
  }

  get hostFd() {
    return this.sink === 'inherit' ? this.inheritFd : -1;
  }

  /** Whether writes go nowhere (no sink): a guest thread in a Worker then drops them itself. */
  get discards() {
    return this.sink == null && this.ring === null;
  }

  /**
   * `bytes` is a copy the caller gives away (fdio copies guest memory for
   * it), or for the embedder's ring a view of guest memory (`takesViews`),
   * copied into the ring.
   */
  write(bytes) {
    if (this.ring) {
      this.ring.write(this.ringStream, bytes);
      return bytes.length;
    }
    this.drainRing?.();
    if (this.held !== null) return this.writeBehind(bytes);
    return this.writeHost(bytes);
  }

  /**
   * Write-behind, for an inherited host fd that is not a terminal while the
   * only guest thread runs on the host's thread: writes gather in a buffer
   * of `size` bytes that goes out when full or on `flush()`, which the
   * runtime calls before every other IRT call and at exit (index.js
   * runInline). A guest writing line by line (newlib line-buffers stdout
   * to anything it takes for a device) then costs a copy per line, not a
   * system call. Returns whether it started.
   */
  startWriteBehind(size) {
    if (this.sink !== 'inherit' || !this.nodeFs || this.tty) return false;
    this.held = new Uint8Array(size);
    this.heldBytes = 0;
    return true;
  }

  writeBehind(bytes) {
    if (this.failure) {
      // A flush between two writes failed: this write reports it.
      const e = this.failure;
      this.failure = null;
      throw e;
    }
    if (this.heldBytes + bytes.length > this.held.length) this.flushHeld();
    if (bytes.length >= this.held.length) return this.writeHost(bytes);
    this.held.set(bytes, this.heldBytes);
    this.heldBytes += bytes.length;
    return bytes.length;
  }

  /** Sends out what write-behind holds; a failure waits for the next write. */
  flush() {
    try {
      this.flushHeld();
    } catch (e) {
      this.failure = e;
    }
  }

  flushHeld() {
    const n = this.heldBytes;
    if (n === 0) return;
    this.heldBytes = 0;
    this.writeHost(this.held.subarray(0, n));
  }

  /** Writes to the sink now (the ring's drain delivers through this). */
  writeHost(bytes) {
    if (this.sink === 'inherit') return hostWriteSync(this.nodeFs, this.inheritFd, bytes);
    // Already a copy of its own (see write): the sink may keep it.
    if (typeof this.sink === 'function') this.sink(bytes);
    return bytes.length;
  }

  stat() {
    if (this.sink === 'inherit') {
      try {
        return hostStat(this.nodeFs.fstatSync(this.inheritFd));
      } catch (e) {
        throw fromHostError(e);
      }
    }
    return streamStat(this.tty, this.ino);
  }

  isatty() {
    return this.tty;
  }
}
