// The browser's PPB implementations, one file per interface family, merged
// into one table keyed by the function keys of abi.gen.js (`Interface;ver:
// Member`, shared by the versions that declare the member identically).
// Keys starting with `$` are the browser halves of functions that run on
// the calling thread (plugin.js): not in any interface table.
//
// The merge rejects a key defined twice and a key the ABI list does not
// know, so two files cannot silently disagree about one function.

import { PPB_FUNCTIONS } from '../../runtime/abi.js';
import audio from './audio.js';
import browserFns from './browser-fns.js';
import console from './console.js';
import core from './core.js';
import graphics2d from './graphics-2d.js';
import input from './input.js';
import instance from './instance.js';
import lifecycle from './lifecycle.js';
import messageLoop from './message-loop.js';
import messaging from './messaging.js';
import pageControls from './page-controls.js';
import sockets from './sockets.js';
import url from './url.js';
import varContainers from './var-containers.js';
import vars from './var.js';
import view from './view.js';
import websocket from './websocket.js';

/** Every family, in the order their files are read. */
export const FAMILIES = Object.freeze({
  'browser-fns': browserFns,
  lifecycle,
  core,
  var: vars,
  'var-containers': varContainers,
  messaging,
  console,
  instance,
  view,
  'message-loop': messageLoop,
  url,
  'graphics-2d': graphics2d,
  input,
  audio,
  'page-controls': pageControls,
  websocket,
  sockets,
});

const KNOWN = new Set(PPB_FUNCTIONS.map((f) => f.key));

/** The implementations for browser `b`: key → (cx, ...args) => result. */
export function ppbImplementations(b) {
  return mergeImplementations(FAMILIES, b);
}

/**
 * Merges `families` (name → (b) => { key: fn }) into one table; throws on
 * a key defined twice or unknown to the ABI list.
 */
export function mergeImplementations(families, b) {
  const out = Object.create(null);
  for (const [family, make] of Object.entries(families)) {
    for (const [key, fn] of Object.entries(make(b))) {
      if (!key.startsWith('$') && !KNOWN.has(key)) {
        throw new Error(`runtime bug: ppb/${family}.js implements ${key}, which src/abi/ppapi.h does not declare`);
      }
      if (key in out) throw new Error(`runtime bug: ${key} is implemented twice (ppb/${family}.js)`);
      out[key] = fn;
    }
  }
  return out;
}
