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
//
// stdin, stdout and stderr are the host's fds 0/1/2, byte for byte. The
// exit status is the guest's; a guest fault prints
// "pexe: guest fault: <message> in function <name>" and exits 134.

import { readFileSync, statSync, writeSync } from 'node:fs';
import { run } from '../runtime/index.js';
import { nodeHost } from './host.js';

const USAGE = 'usage: node run.mjs [--argv0 NAME] [--env K=V]... [--dir DIR]... [--trace] [--stack-size N] MODULE.wasm [--] [ARGS...]';

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
  const opts = { env: [], dirs: [], trace: false, stackSize: undefined, argv0: undefined, threads: true };
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
    else if (a === '--help' || a === '-h') {
      writeSync(1, `${USAGE}\n`);
      process.exit(0);
    } else if (a.startsWith('--') && a !== '--') die(`unknown option ${a}\n${USAGE}`);
    else break;
  }
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
  let bytes;
  try {
    bytes = readFileSync(opts.module);
  } catch (e) {
    die(`cannot read ${opts.module}: ${e.message}`, 1);
  }
  let result;
  try {
    result = await run(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
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

await main();
