#!/usr/bin/env node
// `pexe` from the npm package (`npx pexe …`): the Rust CLI's commands that
// need no native build, over the package's own API (the library compiled to
// WebAssembly, and the JavaScript runtime).
//
//   pexe run [OPTIONS] FILE [--] [ARGS...]   translate a pexe (or take a .wasm) and run it
//   pexe translate FILE [-o OUT] [--no-names]
//   pexe dis FILE [-o OUT] [--records | --asm] [--function N]
//   pexe verify [-q] FILE...
//   pexe inspect FILE                         the module summary as JSON
//
// Outputs and exit codes follow the Rust `pexe`: listings and diagnostics
// are byte for byte the same; 0 success, 1 input rejected (or unreadable),
// 2 usage error; `run` exits with the guest's status (134 after a fault).
// `-` reads standard input.

import { readFileSync, writeFileSync, writeSync, statSync } from 'node:fs';

const USAGE = `usage: pexe <command> [options]

Commands:
  run [--argv0 NAME] [--env K=V]... [--dir DIR]... [--trace] [--stack-size N] [--no-threads] FILE [--] [ARGS...]
                     translate FILE (a .pexe, or a .wasm pexe translate made) and run it; the
                     guest's stdio are this command's and its exit status is this command's
  translate FILE [-o OUT] [--no-names]
                     the WebAssembly module (refuses to write binary to a terminal)
  dis FILE [-o OUT] [--records | --asm] [--function N]
                     the pnacl-bcdis listing
  verify [-q] FILE...
                     PNaCl ABI check: FILE:BYTE:BIT: error: ... per problem
  inspect FILE       the module summary (header, functions, globals, IRT use) as JSON
  help               this text

FILE may be - for standard input.`;

class Usage extends Error {}

function out(fd, text) {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  let at = 0;
  while (at < bytes.length) {
    try {
      at += writeSync(fd, bytes, at);
    } catch (e) {
      if (e.code === 'EAGAIN') continue;
      if (e.code === 'EPIPE') return; // `pexe dis x.pexe | head`
      throw e;
    }
  }
}

function readInput(path) {
  return new Uint8Array(readFileSync(path === '-' ? 0 : path));
}

const displayName = (path) => (path === '-' ? '<stdin>' : path);

function writeOutput(path, data) {
  if (path !== undefined && path !== '-') writeFileSync(path, data);
  else out(1, data);
}

// A tiny option parser: flags, flags with a value, positional arguments.
function parse(argv, { flags = [], values = [], stopAtPositional = false }) {
  const opts = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      opts['--'] = argv.slice(i + 1);
      break;
    }
    if (a.startsWith('-') && a !== '-') {
      const [name, inline] = a.includes('=') && a.startsWith('--') ? a.split(/=(.*)/s) : [a, undefined];
      if (flags.includes(name)) opts[name] = true;
      else if (values.includes(name)) {
        const v = inline ?? argv[++i];
        if (v === undefined) throw new Usage(`${name} needs a value`);
        (opts[name] ??= []).push(v);
      } else throw new Usage(`unknown option ${a}`);
      continue;
    }
    opts._.push(a);
    if (stopAtPositional) {
      opts['--'] = argv[i + 1] === '--' ? argv.slice(i + 2) : argv.slice(i + 1);
      break;
    }
  }
  return opts;
}

const last = (list) => (list ? list[list.length - 1] : undefined);

function one(opts, what) {
  if (opts._.length !== 1) throw new Usage(`expected one ${what}`);
  return opts._[0];
}

function parseSize(text) {
  const m = /^(\d+)([kKmM]?)$/.exec(text);
  if (!m) throw new Usage(`bad size ${JSON.stringify(text)} (a number of bytes, optionally with k or m)`);
  return Number(m[1]) * { '': 1, k: 1024, K: 1024, m: 1 << 20, M: 1 << 20 }[m[2]];
}

function fail(message) {
  out(2, `error: ${message}\n`);
  return 1;
}

// The API loads the WebAssembly; `help` and usage errors do not need it.
const api = () => import('../node.js');

async function cmdRun(argv) {
  const opts = parse(argv, {
    flags: ['--trace', '--no-threads'],
    values: ['--argv0', '--env', '--dir', '--stack-size'],
    stopAtPositional: true,
  });
  const file = one(opts, 'FILE to run');
  for (const kv of opts['--env'] ?? []) if (!kv.includes('=')) throw new Usage(`--env takes K=V, got ${JSON.stringify(kv)}`);
  for (const dir of opts['--dir'] ?? []) {
    let isDir = false;
    try {
      isDir = statSync(dir).isDirectory();
    } catch {
      // reported below
    }
    if (!isDir) throw new Usage(`--dir ${dir}: not a directory`);
  }
  const stackSize = opts['--stack-size'] ? parseSize(last(opts['--stack-size'])) : undefined;
  let bytes;
  try {
    bytes = readInput(file);
  } catch (e) {
    return fail(`${displayName(file)}: ${e.message}`);
  }
  const { run, PexeError, AbiMismatch } = await api();
  let result;
  try {
    result = await run(bytes, {
      args: [last(opts['--argv0']) ?? file, ...(opts['--'] ?? [])],
      env: opts['--env'] ?? [],
      stdin: 'inherit',
      stdout: 'inherit',
      stderr: 'inherit',
      hostFs: opts['--dir']?.length ? opts['--dir'] : false,
      stackSize,
      trace: !!opts['--trace'],
      threads: !opts['--no-threads'],
    });
  } catch (e) {
    if (e instanceof PexeError) {
      if (e.diagnostics.length) {
        for (const d of e.diagnostics) out(2, `${displayName(file)}:${d.text}\n`);
        return 1;
      }
      return fail(`${displayName(file)}: ${e.message}`);
    }
    if (e instanceof AbiMismatch) return fail(`${displayName(file)}: the module does not follow the runtime ABI: ${e.message}`);
    throw e;
  }
  if (result.fault) out(2, `pexe: ${result.fault}\n`);
  return result.exitCode & 0xff;
}

async function cmdTranslate(argv) {
  const opts = parse(argv, { flags: ['--no-names'], values: ['-o', '--output'] });
  const file = one(opts, 'FILE to translate');
  const output = last(opts['-o'] ?? opts['--output']);
  if ((output === undefined || output === '-') && process.stdout.isTTY) {
    return fail('refusing to write a binary module to a terminal: use -o FILE');
  }
  let bytes;
  try {
    bytes = readInput(file);
  } catch (e) {
    return fail(`${displayName(file)}: ${e.message}`);
  }
  const { translate, PexeError } = await api();
  let module;
  try {
    module = translate(bytes, { target: 'wasm32', names: !opts['--no-names'] });
  } catch (e) {
    if (!(e instanceof PexeError)) throw e;
    if (e.diagnostics.length) {
      for (const d of e.diagnostics) out(2, `${displayName(file)}:${d.text}\n`);
      return 1;
    }
    return fail(`${displayName(file)}: ${e.message}`);
  }
  writeOutput(output, module);
  return 0;
}

async function cmdDis(argv) {
  const opts = parse(argv, { flags: ['--records', '--asm'], values: ['-o', '--output', '--function'] });
  const file = one(opts, 'FILE to disassemble');
  if (opts['--records'] && opts['--asm']) throw new Usage('--records and --asm exclude each other');
  const mode = opts['--records'] ? 'records' : opts['--asm'] ? 'asm' : 'full';
  const fn = last(opts['--function']);
  if (fn !== undefined && !/^\d+$/.test(fn)) throw new Usage(`--function takes a function id N (of @fN), got ${JSON.stringify(fn)}`);
  let bytes;
  try {
    bytes = readInput(file);
  } catch (e) {
    return fail(`${displayName(file)}: ${e.message}`);
  }
  const { disassemble, PexeError } = await api();
  const output = last(opts['-o'] ?? opts['--output']);
  try {
    writeOutput(output, disassemble(bytes, { mode, function: fn === undefined ? undefined : Number(fn) }));
    return 0;
  } catch (e) {
    if (!(e instanceof PexeError)) throw e;
    // Like `pexe dis`: the listing up to the record at fault, then the error.
    writeOutput(output, e.listing ?? '');
    for (const d of e.diagnostics) out(2, `${displayName(file)}:${d.text}\n`);
    return 1;
  }
}

async function cmdVerify(argv) {
  const opts = parse(argv, { flags: ['-q', '--quiet'], values: [] });
  if (opts._.length === 0) throw new Usage('expected at least one FILE to verify');
  const quiet = opts['-q'] || opts['--quiet'];
  const { inspect } = await api();
  let allValid = true;
  for (const file of opts._) {
    let bytes;
    try {
      bytes = readInput(file);
    } catch (e) {
      allValid = false;
      if (!quiet) out(1, `${displayName(file)}: error: ${e.message}\n`);
      continue;
    }
    const { diagnostics } = inspect(bytes);
    if (diagnostics.length) allValid = false;
    if (!quiet) for (const d of diagnostics) out(1, `${displayName(file)}:${d.text}\n`);
  }
  return allValid ? 0 : 1;
}

async function cmdInspect(argv) {
  const opts = parse(argv, { flags: [], values: [] });
  const file = one(opts, 'FILE to inspect');
  let bytes;
  try {
    bytes = readInput(file);
  } catch (e) {
    return fail(`${displayName(file)}: ${e.message}`);
  }
  const { inspect } = await api();
  const summary = inspect(bytes);
  out(1, `${JSON.stringify(summary, null, 2)}\n`);
  return summary.valid ? 0 : 1;
}

const COMMANDS = { run: cmdRun, translate: cmdTranslate, dis: cmdDis, verify: cmdVerify, inspect: cmdInspect };

async function main(argv) {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 20) return fail(`Node.js 20 or newer is needed (this is ${process.versions.node})`);
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    out(command === undefined ? 2 : 1, `${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  if (command === '--version' || command === '-V') {
    const { version } = await api();
    out(1, `pexe ${version}\n`);
    return 0;
  }
  const cmd = COMMANDS[command];
  if (!cmd) {
    out(2, `error: unknown command ${JSON.stringify(command)}\n\n${USAGE}\n`);
    return 2;
  }
  try {
    return await cmd(rest);
  } catch (e) {
    if (e instanceof Usage) {
      out(2, `error: ${e.message}\n\n${USAGE}\n`);
      return 2;
    }
    throw e;
  }
}

// Output went out with writeSync; exit at once (a finished guest may leave
// idle Workers behind).
process.exit(await main(process.argv.slice(2)));
