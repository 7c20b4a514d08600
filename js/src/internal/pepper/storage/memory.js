// The in-memory store: Node's file systems (temporary always, persistent
// without `--storage`), and the page's when it has neither OPFS nor
// IndexedDB (a page then serves it to the plugin's host Worker over a
// MessagePort, remote.js). A tree of nodes; a file's bytes grow in place.

import { CODE, fail } from './errors.js';
import { baseName, components, join, within } from './paths.js';
import { Store } from './store.js';

/** Largest in-memory file (bytes): beyond it a write fails with NO_SPACE. */
export const MAX_MEMORY_FILE = 1 << 30;

class Node {
  constructor(type) {
    this.type = type;
    this.atime = this.mtime = this.ctime = Date.now();
    if (type === 'directory') {
      this.children = new Map();
    } else {
      this.data = new Uint8Array(0);
      this.size = 0;
    }
    /** False once removed from the tree (its handles keep it). */
    this.linked = true;
  }

  stat() {
    return { type: this.type, size: this.type === 'file' ? this.size : 0, atime: this.atime, mtime: this.mtime, ctime: this.ctime };
  }
}

/** Bytes of file data under `node`. */
function treeSize(node) {
  if (node.type === 'file') return node.size;
  let n = 0;
  for (const child of node.children.values()) n += treeSize(child);
  return n;
}

function unlinkTree(node) {
  node.linked = false;
  if (node.type === 'directory') for (const c of node.children.values()) unlinkTree(c);
}

function cloneTree(node) {
  const copy = new Node(node.type);
  if (node.type === 'file') {
    copy.data = node.data.slice(0, node.size);
    copy.size = node.size;
  } else {
    for (const [name, child] of node.children) copy.children.set(name, cloneTree(child));
  }
  copy.mtime = node.mtime;
  return copy;
}

export class MemoryStore extends Store {
  constructor(options) {
    super(options);
    this.kind = 'memory';
    this.root = new Node('directory');
  }

  /** The node at `parts`, or null; a file on the way is NOT_A_DIRECTORY. */
  lookup(parts) {
    let node = this.root;
    for (const name of parts) {
      if (node.type !== 'directory') fail(CODE.NOT_A_DIRECTORY);
      node = node.children.get(name);
      if (!node) return null;
    }
    return node;
  }

  /** The directory that holds `parts`' last component (NOT_FOUND if missing). */
  parentDir(parts) {
    const dir = this.lookup(parts.slice(0, -1));
    if (!dir) fail(CODE.NOT_FOUND);
    if (dir.type !== 'directory') fail(CODE.NOT_A_DIRECTORY);
    return dir;
  }

  existing(path) {
    const node = this.lookup(components(path));
    if (!node) fail(CODE.NOT_FOUND, `${path} does not exist`);
    return node;
  }

  async stat(path) {
    return this.existing(path).stat();
  }

  async readdir(path) {
    const node = this.existing(path);
    if (node.type !== 'directory') fail(CODE.NOT_A_DIRECTORY);
    return [...node.children].map(([name, c]) => ({ name, type: c.type })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async mkdir(path, { recursive = false, exclusive = false } = {}) {
    const parts = components(path);
    const found = this.lookup(parts);
    if (found) {
      if (exclusive) fail(CODE.EXISTS);
      if (found.type !== 'directory') fail(CODE.NOT_A_DIRECTORY);
      return;
    }
    let dir = this.root;
    for (let i = 0; i < parts.length; i++) {
      let next = dir.children.get(parts[i]);
      if (!next) {
        if (!recursive && i < parts.length - 1) fail(CODE.NOT_FOUND);
        next = new Node('directory');
        dir.children.set(parts[i], next);
        dir.mtime = Date.now();
      } else if (next.type !== 'directory') {
        fail(CODE.NOT_A_DIRECTORY);
      }
      dir = next;
    }
  }

  async remove(path, { recursive = false } = {}) {
    const parts = components(path);
    if (parts.length === 0) fail(CODE.INVALID_OPERATION, 'the root cannot be removed');
    const dir = this.parentDir(parts);
    const node = dir.children.get(parts.at(-1));
    if (!node) fail(CODE.NOT_FOUND);
    if (node.type === 'directory' && node.children.size > 0 && !recursive) fail(CODE.NOT_EMPTY);
    const freed = treeSize(node);
    dir.children.delete(parts.at(-1));
    dir.mtime = Date.now();
    unlinkTree(node);
    this.charge(-freed);
  }

  /** Checks a move or copy from `from` to `to` (Chrome's rules); returns what it needs. */
  transfer(from, to) {
    const src = components(from);
    const dst = components(to);
    if (src.length === 0 || dst.length === 0) fail(CODE.INVALID_OPERATION, 'the root cannot be moved or replaced');
    const srcDir = this.parentDir(src);
    const node = srcDir.children.get(src.at(-1));
    if (!node) fail(CODE.NOT_FOUND);
    const same = join(src) === join(dst);
    if (!same && within(join(dst), join(src))) fail(CODE.INVALID_OPERATION, 'a directory cannot go inside itself');
    const dstDir = this.parentDir(dst);
    const old = dstDir.children.get(dst.at(-1));
    if (old && !same) {
      if (old.type !== node.type) fail(CODE.INVALID_OPERATION, 'a file and a directory cannot replace each other');
      if (old.type === 'directory' && old.children.size > 0) fail(CODE.NOT_EMPTY);
    }
    return { srcDir, srcName: src.at(-1), node, dstDir, dstName: dst.at(-1), old, same };
  }

  async rename(from, to) {
    const t = this.transfer(from, to);
    if (t.same) return;
    if (t.old) {
      unlinkTree(t.old);
      this.charge(-treeSize(t.old));
    }
    t.srcDir.children.delete(t.srcName);
    t.dstDir.children.set(t.dstName, t.node);
    t.srcDir.mtime = t.dstDir.mtime = Date.now();
  }

  async copy(from, to) {
    const t = this.transfer(from, to);
    if (t.same) fail(CODE.INVALID_OPERATION, 'a copy onto itself');
    const size = treeSize(t.node);
    const freed = t.old ? treeSize(t.old) : 0;
    this.charge(size - freed);
    if (t.old) unlinkTree(t.old);
    t.dstDir.children.set(t.dstName, cloneTree(t.node));
    t.dstDir.mtime = Date.now();
  }

  async touch(path, atime, mtime) {
    const node = this.existing(path);
    node.atime = atime;
    node.mtime = mtime;
  }

  async open(path, flags) {
    const mode = Store.openMode(flags);
    const parts = components(path);
    if (parts.length === 0) fail(CODE.NOT_A_FILE);
    const dir = this.parentDir(parts);
    const name = parts.at(-1);
    let node = dir.children.get(name);
    if (node) {
      if (mode.create && mode.exclusive) fail(CODE.EXISTS);
      if (node.type !== 'file') fail(CODE.NOT_A_FILE);
      if (mode.truncate && node.size > 0) {
        this.charge(-node.size);
        node.data = new Uint8Array(0);
        node.size = 0;
        node.mtime = Date.now();
      }
    } else {
      if (!mode.create) fail(CODE.NOT_FOUND);
      node = new Node('file');
      dir.children.set(name, node);
      dir.mtime = Date.now();
    }
    return this.handles.add({ node, mode, name: baseName(path) });
  }

  async read(h, offset, length) {
    const { node, mode } = this.handles.get(h);
    if (!mode.read) fail(CODE.ACCESS, 'not open for reading');
    Store.span(offset, length);
    if (offset >= node.size) return new Uint8Array(0);
    node.atime = Date.now();
    return node.data.slice(offset, Math.min(node.size, offset + length));
  }

  /** Makes `node` hold `size` bytes (new bytes are zero), charging the quota. */
  resize(node, size) {
    const delta = size - node.size;
    if (node.linked) this.charge(delta);
    if (size > MAX_MEMORY_FILE) {
      if (node.linked) this.charge(-delta);
      fail(CODE.NO_SPACE, `in-memory files are limited to ${MAX_MEMORY_FILE} bytes`);
    }
    if (size > node.data.length) {
      const grown = new Uint8Array(Math.min(MAX_MEMORY_FILE, Math.max(size, node.data.length * 2, 4096)));
      grown.set(node.data.subarray(0, node.size));
      node.data = grown;
    } else if (size < node.size) {
      node.data.fill(0, size, node.size);
    }
    node.size = size;
  }

  async write(h, offset, bytes) {
    const { node, mode } = this.handles.get(h);
    if (!mode.write) fail(CODE.ACCESS, 'not open for writing');
    const at = mode.append ? node.size : offset;
    Store.span(at, bytes.length);
    if (at + bytes.length > node.size) this.resize(node, at + bytes.length);
    node.data.set(bytes, at);
    node.mtime = Date.now();
    return bytes.length;
  }

  async setLength(h, length) {
    const { node, mode } = this.handles.get(h);
    if (!mode.write) fail(CODE.ACCESS, 'not open for writing');
    Store.span(length, 0);
    this.resize(node, length);
    node.mtime = Date.now();
  }

  async fstat(h) {
    return this.handles.get(h).node.stat();
  }

  async ftouch(h, atime, mtime) {
    const { node } = this.handles.get(h);
    node.atime = atime;
    node.mtime = mtime;
  }

  async flush(h) {
    this.handles.get(h);
  }

  async close(h) {
    this.handles.get(h);
    this.handles.delete(h);
  }
}
