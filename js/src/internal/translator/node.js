// Loads the translator in Node (the package's `node` entry): fetch() cannot
// read file: URLs, so the bytes are read here and compiled from memory.

import { readFile } from 'node:fs/promises';
import { initTranslator } from './index.js';

export async function loadTranslator() {
  return initTranslator(await readFile(new URL('./wasm/pexe_bg.wasm', import.meta.url)));
}
