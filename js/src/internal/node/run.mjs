#!/usr/bin/env node
// Runs a translated pexe in Node: the runtime behind `pexe run`.
//
//   node run.mjs [OPTIONS] MODULE.wasm [--] [ARGS...]
//
// Options:
//   --argv0 NAME       the guest's argv[0] (default: MODULE.wasm as given)
//   --env K=V          add a guest environment variable (repeatable; the
//                      environment is otherwise empty)
//   --dir HOST_DIR     expose a host directory, read-write, at its own path
//                      (repeatable; otherwise the guest sees no host files)
//   --trace            log every IRT call to stderr
//   --stack-size N     bytes of the main thread's stack (k/m suffixes)
//   --no-threads       run on one thread (thread_create fails)
//   --idle-timeout MS  Pepper plugins: end this long after stdin's end once
//                      the plugin has gone quiet (default 2000)
//   --attr NAME=VALUE  Pepper plugins: an <embed> attribute for DidCreate
//                      (repeatable; in order)
//   --base-url URL     Pepper plugins: what the plugin's URLs resolve
//                      against (default: the current directory)
//   --verbose          report on stderr where a command-line program runs
//                      (main thread or Workers) and a Pepper plugin's life
//                      cycle
//   --storage DIR      Pepper plugins: keep the persistent file system
//                      (PPB_FileSystem LOCALPERSISTENT) in host directory
//                      DIR, confined to it (default: in memory, like the
//                      temporary one)
//   --net PATTERN      Pepper plugins: the plugin's sockets reach what
//                      PATTERN names (net.js allowList; repeatable) through
//                      Node's own sockets (default: nothing, NOACCESS)
//   --socket-relay URL Pepper plugins: the plugin's sockets go through the
//                      socket relay at URL (relay.mjs, docs/relay.md)
//
// A command-line program: stdin, stdout and stderr are the host's fds
// 0/1/2, byte for byte. A Pepper plugin (a module importing the PPB
// functions) runs headless: each message it posts is one line on stdout
// (a string as is, other values as JSON), each line of stdin is posted to
// it as a string, and its own stdout/stderr go to stderr. The run ends
// when the plugin exits, or after stdin's end once it has posted nothing
// for the idle timeout, or on SIGINT/SIGTERM. The exit status is the
// guest's; a guest fault prints "pexe: guest fault: <message> in function
// <name>" and exits 134.

import { run, startPlugin } from '../runtime/index.js';
import { moduleInfo } from '../runtime/module-info.js';
import { WORKER_STACK_MB, builtin, nodeHost } from './host.js';

const { readFileSync, statSync, writeSync } = builtin('node:fs');
const { pathToFileURL, fileURLToPath } = builtin('node:url');

const USAGE =
  'usage: node run.mjs [--argv0 NAME] [--env K=V]... [--dir DIR]... [--trace] [--stack-size N] [--storage DIR] ' +
  '[--net PATTERN]... [--socket-relay URL] MODULE.wasm [--] [ARGS...]';

/** The least --stack-size (KiB) with which a guest may run on Node's main thread. */
const MAIN_THREAD_MIN_STACK_KB = WORKER_STACK_MB * 1024 - 1024;

/** V8's stack limit for this thread in KiB, as given by --stack-size (0 when not given). */
function mainStackKb() {
  let kb = 0;
  for (const a of process.execArgv) {
    const m = /^--stack[-_]size=(\d+)$/.exec(a);
    if (m) kb = Number(m[1]);
  }
  return kb;
}

function die(message, status = 2) {
  writeSync(2, `pexe: ${message}\n`);
  process.exit(status);
}

function parseSize(text) {
  const m = /^(\d+)([kKmM]?)$/.exec(text);
  if (!m) die(`bad size ${JSON.stringify(text)} (a number of bytes, optionally with k or m)`);
  const scale = { '': 1, k: 1024, K: 1024, m: 1 << 20, M: 1 << 20 }[m[2]];
  return Number(m[1]) * scale;
}

export function parseArgs(argv) {
  const opts = {
    env: [],
    dirs: [],
    trace: false,
    stackSize: undefined,
    argv0: undefined,
    threads: true,
    idleTimeout: 2000,
    attrs: [],
    baseUrl: undefined,
    verbose: false,
    storage: null,
    net: [],
    socketRelay: null,
  };
  let i = 0;
  const value = (flag) => {
    if (i + 1 >= argv.length) die(`${flag} needs a value\n${USAGE}`);
    return argv[++i];
  };
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--argv0') opts.argv0 = value(a);
    else if (a === '--env') {
      const kv = value(a);
      if (!kv.includes('=')) die(`--env takes K=V, got ${JSON.stringify(kv)}`);
      opts.env.push(kv);
    } else if (a === '--dir') opts.dirs.push(value(a));
    else if (a === '--trace') opts.trace = true;
    else if (a === '--stack-size') opts.stackSize = parseSize(value(a));
    else if (a === '--no-threads') opts.threads = false;
    else if (a === '--idle-timeout') {
      opts.idleTimeout = Number(value(a));
      if (!Number.isFinite(opts.idleTimeout) || opts.idleTimeout < 0) die('--idle-timeout takes milliseconds');
    } else if (a === '--attr') {
      const kv = value(a);
      const at = kv.indexOf('=');
      if (at <= 0) die(`--attr takes NAME=VALUE, got ${JSON.stringify(kv)}`);
      opts.attrs.push([kv.slice(0, at), kv.slice(at + 1)]);
    } else if (a === '--base-url') opts.baseUrl = value(a);
    else if (a === '--verbose' || a === '-v') opts.verbose = true;
    else if (a === '--storage') opts.storage = value(a);
    else if (a === '--net') opts.net.push(value(a));
    else if (a === '--socket-relay') opts.socketRelay = value(a);
    else if (a === '--help' || a === '-h') {
      writeSync(1, `${USAGE}\n`);
      process.exit(0);
    } else if (a.startsWith('--') && a !== '--') die(`unknown option ${a}\n${USAGE}`);
    else break;
  }
  if (opts.net.length && opts.socketRelay) die('--net and --socket-relay exclude each other');
  if (opts.socketRelay !== null && !/^wss?:\/\//.test(opts.socketRelay)) die(`--socket-relay takes a ws:// URL, got ${JSON.stringify(opts.socketRelay)}`);
  if (i >= argv.length) die(USAGE);
  opts.module = argv[i++];
  if (argv[i] === '--') i++;
  opts.args = argv.slice(i);
  return opts;
}

async function main() {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 20) die(`Node.js 20 or newer is needed (this is ${process.versions.node})`, 1);
  const opts = parseArgs(process.argv.slice(2));
  for (const dir of opts.dirs) {
    let isDir = false;
    try {
      isDir = statSync(dir).isDirectory();
    } catch {
      // reported below
    }
    if (!isDir) die(`--dir ${dir}: not a directory`, 2);
  }
  if (opts.storage !== null) {
    let isDir = false;
    try {
      isDir = statSync(opts.storage).isDirectory();
    } catch {
      // reported below
    }
    if (!isDir) die(`--storage ${opts.storage}: not a directory`, 2);
  }
  let bytes;
  try {
    bytes = readFileSync(opts.module);
  } catch (e) {
    die(`cannot read ${opts.module}: ${e.message}`, 1);
  }
  // Sockets and storage are Pepper's: loaded only when asked for.
  opts.network = null;
  if (opts.net.length) {
    const { allowList, nodeNetwork } = await import('./net.js');
    let allow;
    try {
      allow = allowList(opts.net);
    } catch (e) {
      die(`--net: ${e.message}`);
    }
    opts.network = nodeNetwork({ allow });
  }
  const wasm = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pepper = false;
  let singleThreaded = false;
  try {
    ({ pepper, singleThreaded } = moduleInfo(wasm));
  } catch {
    // run() reports what is wrong with the module
  }
  // A module that can never start a thread runs on this thread: a Worker
  // would only add a second JavaScript engine's start-up (~0.1 s of CPU)
  // and a hop for every write. Only when Node was given a stack as deep as
  // a Worker's (`pexe run` passes --stack-size), so deep recursion behaves
  // the same on either path.
  const inline = !pepper && singleThreaded && opts.threads && mainStackKb() >= MAIN_THREAD_MIN_STACK_KB;
  if (inline) {
    opts.threads = false;
    if (opts.verbose) writeSync(2, 'pexe: single-threaded module: running on the main thread\n');
  }
  let result;
  try {
    if (pepper) result = await runPlugin(wasm, opts);
    else
      result = await run(wasm, {
      args: [opts.argv0 ?? opts.module, ...opts.args],
      env: opts.env,
      stdin: 'inherit',
      stdout: 'inherit',
      stderr: 'inherit',
      hostFs: opts.dirs.length > 0 ? opts.dirs : false,
      stackSize: opts.stackSize,
      trace: opts.trace,
      threads: opts.threads,
    }, nodeHost);
  } catch (e) {
    if (e?.name === 'AbiMismatch') die(`${opts.module}: the module does not follow the runtime ABI: ${e.message}`, 1);
    // Anything else is a bug of the runtime: say so, with where it happened.
    die(`${e?.stack ?? e}`, 70);
  }
  if (result.fault) writeSync(2, `pexe: ${result.fault}\n`);
  process.exit(result.exitCode & 0xff);
}

/** A plugin message as one line of text. */
function messageLine(value) {
  if (typeof value === 'string') return value;
  return JSON.stringify(value, (key, v) =>
    v instanceof ArrayBuffer ? { arrayBuffer: Buffer.from(v).toString('base64') } : v,
  ) ?? 'undefined';
}

/** fetch() that also reads file: URLs (Node's cannot): GET, and HEAD (nacl_io's httpfs asks sizes with it). */
async function fetchWithFiles(url, init) {
  const u = new URL(url);
  if (u.protocol !== 'file:') return fetch(url, init);
  const method = (init?.method ?? 'GET').toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') throw new TypeError('only GET and HEAD read files');
  const { readFile } = await import('node:fs/promises');
  let body;
  try {
    body = await readFile(fileURLToPath(u));
  } catch {
    return new Response(null, { status: 404, statusText: 'Not Found' });
  }
  const headers = { 'content-length': String(body.length) };
  return new Response(method === 'HEAD' ? null : body, { status: 200, statusText: 'OK', headers });
}

/** Runs a Pepper plugin headless: stdin lines in, messages out. */
async function runPlugin(wasm, opts) {
  const { nodeStorage } = await import('../pepper/storage/index.js');
  const { createInterface } = await import('node:readline');
  await nodeHost.preparePepper();
  const out = (chunk) => writeSync(2, chunk);
  let failed = false;
  let idle = null;
  let inputDone = false;
  let loaded = false;
  // The grace period counts from the plugin's last message, once it has
  // loaded and stdin has ended.
  const armIdle = () => {
    clearTimeout(idle);
    if (inputDone && loaded) idle = setTimeout(() => plugin.destroy(), opts.idleTimeout);
  };
  const plugin = await startPlugin(wasm, {
    args: [opts.argv0 ?? opts.module, ...opts.args],
    env: opts.env,
    stdin: null,
    stdout: out,
    stderr: out,
    hostFs: opts.dirs.length > 0 ? opts.dirs : false,
    stackSize: opts.stackSize,
    trace: opts.trace,
    threads: opts.threads,
    attributes: opts.attrs,
    baseUrl: opts.baseUrl ?? pathToFileURL(`${process.cwd()}/`).href,
    fetch: fetchWithFiles,
    storage: nodeStorage(nodeHost.node, { dir: opts.storage }),
    network: opts.network,
    socketRelay: opts.socketRelay,
    embedder: {
      WebSocket: nodeHost.WebSocket,
      postMessage(value) {
        writeSync(1, `${messageLine(value)}\n`);
        armIdle();
      },
      log(level, source, text) {
        writeSync(2, `${source ? `${source}: ` : ''}${text}\n`);
      },
      loaded() {
        if (opts.verbose) writeSync(2, 'pexe: the plugin has loaded (DidCreate returned true)\n');
        loaded = true;
        armIdle();
      },
      loadFailed(message) {
        writeSync(2, `pexe: NaCl module load failed: ${message}\n`);
        plugin.destroy();
        failed = true;
      },
      missingInterface(name) {
        writeSync(2, `pexe: the plugin asked for ${name}, which this runtime does not provide\n`);
      },
    },
  }, nodeHost);
  let signal = 0;
  const stop = (signo) => () => {
    signal = signo;
    plugin.destroy();
  };
  process.once('SIGINT', stop(2));
  process.once('SIGTERM', stop(15));
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on('line', (line) => plugin.postMessage(line));
  lines.on('close', () => {
    inputDone = true;
    armIdle();
  });
  const result = await plugin.exited;
  clearTimeout(idle);
  lines.close();
  process.stdin.destroy();
  if (result.destroyed) return { exitCode: failed ? 1 : signal ? 128 + signal : 0 };
  return result;
}

await main();
