// The .nmf manifest, as Chrome's PNaCl loader read it
// (components/nacl/renderer/{manifest_downloader,json_manifest}.cc;
// ../shared/reference/nacl-embed-facts.md §2 and §4): fetched (HTTP 200,
// at most 1 MiB), parsed as JSON (json.js), validated against the schema
// for the "portable" ISA, and the program's URL taken from
// program.portable["pnacl-translate"].url, resolved against the manifest's
// URL. Every failure is a `ManifestError` whose message is Chrome's detail
// text: the element's lastError is "NaCl module load failed: " + it.
//
// What PNaCl ignored is ignored here too: unknown top-level keys, unknown
// ISA keys (which must still be URL specs), `pnacl-debug` (only read with
// Chrome's debug flag) and `files` entries (PNaCl modules could not open
// them; they are still validated, as Chrome did).

import { describe, JsonError, parseJson } from './json.js';

/** kNaClManifestMaxFileBytes. */
export const MAX_MANIFEST_BYTES = 1024 * 1024;

export class ManifestError extends Error {
  constructor(message, { status } = {}) {
    super(message);
    this.name = 'ManifestError';
    if (status !== undefined) this.status = status;
  }
}

/**
 * The manifest's bytes from `url` (already resolved and rewritten). A
 * network failure, a status other than 200, or a bad data: URL is "could
 * not load manifest url."; a scheme fetch() may not read is "access to
 * manifest url was denied.".
 */
export async function fetchManifest(url, { signal, fetchFn = globalThis.fetch } = {}) {
  const scheme = new URL(url).protocol;
  if (!['http:', 'https:', 'data:', 'blob:', 'file:'].includes(scheme)) {
    throw new ManifestError('access to manifest url was denied.');
  }
  let response;
  try {
    response = await fetchFn(url, { signal, credentials: 'same-origin' });
  } catch (e) {
    if (e?.name === 'AbortError') throw e;
    throw new ManifestError('could not load manifest url.', { status: 0 });
  }
  if (response.status !== 200 && !(scheme === 'data:' && response.ok)) {
    throw new ManifestError('could not load manifest url.', { status: response.status });
  }
  const length = Number(response.headers.get('Content-Length'));
  if (Number.isFinite(length) && length > MAX_MANIFEST_BYTES) {
    await response.body?.cancel().catch(() => {});
    throw new ManifestError('manifest file too large.');
  }
  // Read at most one byte past the limit.
  const chunks = [];
  let size = 0;
  const reader = response.body?.getReader();
  if (reader) {
    for (;;) {
      let step;
      try {
        step = await reader.read();
      } catch (e) {
        if (e?.name === 'AbortError') throw e;
        throw new ManifestError('could not load manifest url.', { status: 0 });
      }
      if (step.done) break;
      chunks.push(step.value);
      size += step.value.length;
      if (size > MAX_MANIFEST_BYTES) {
        await reader.cancel().catch(() => {});
        throw new ManifestError('manifest file too large.');
      }
    }
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return bytes;
}

const PORTABLE = 'portable';
const PNACL_TRANSLATE = 'pnacl-translate';
const PNACL_DEBUG = 'pnacl-debug';

/** IsValidUrlSpec for the portable ISA. */
function checkUrlSpec(spec, containerKey, parentKey) {
  if (spec.type !== 'dict') {
    throw new ManifestError(`manifest: ${parentKey} property '${containerKey}' is non-dictionary value '${describe(spec)}'.`);
  }
  const url = spec.value.get('url');
  if (!url) throw new ManifestError(`manifest: ${parentKey} property '${containerKey}' does not have required key: 'url'.`);
  if (url.type !== 'string') {
    throw new ManifestError(`manifest: ${parentKey} property '${containerKey}' has non-string value '${describe(url)}' for key 'url'.`);
  }
  const opt = spec.value.get('optlevel');
  if (opt && opt.type !== 'int') {
    throw new ManifestError(`manifest: ${parentKey} property '${containerKey}' has non-numeric value '${describe(opt)}' for key 'optlevel'.`);
  }
}

/** IsValidPnaclTranslateSpec: { "pnacl-translate": URLSpec, "pnacl-debug"?: … }. */
function checkPnaclSpec(spec, containerKey, parentKey) {
  if (spec.type !== 'dict') {
    throw new ManifestError(`manifest: ${parentKey} property '${containerKey}' is non-dictionary value '${describe(spec)}'.`);
  }
  const translate = spec.value.get(PNACL_TRANSLATE);
  if (!translate) {
    throw new ManifestError(`manifest: ${parentKey} property '${containerKey}' does not have required key: '${PNACL_TRANSLATE}'.`);
  }
  checkUrlSpec(translate, PNACL_TRANSLATE, containerKey);
}

/** IsValidISADictionary for the portable ISA. */
function checkIsaDictionary(parent, key, { program }) {
  const dict = parent.value.get(key);
  if (!dict || dict.type !== 'dict') {
    throw new ManifestError(`manifest: ${key} property is not an ISA to URL dictionary`);
  }
  for (const [isa, value] of dict.value) {
    if (isa === PORTABLE && program) checkPnaclSpec(value, isa, key);
    else checkUrlSpec(value, isa, key);
  }
  if (!dict.value.has(PORTABLE)) throw new ManifestError(`manifest: no version of ${key} given for ${PORTABLE}.`);
}

/**
 * Checks manifest bytes and picks the program: `{ programUrl, optLevel }`,
 * the URL resolved against `manifestUrl`. Throws ManifestError.
 */
export function parseManifest(bytes, manifestUrl) {
  let root;
  try {
    root = parseJson(bytes);
  } catch (e) {
    if (e instanceof JsonError) throw new ManifestError(`manifest JSON parsing failed: ${e.message}`);
    throw e;
  }
  if (root.type !== 'dict') throw new ManifestError('manifest: is not a json dictionary.');
  if (!root.value.has('program')) throw new ManifestError("manifest: missing 'program' section.");
  checkIsaDictionary(root, 'program', { program: true });
  if (root.value.has('interpreter')) checkIsaDictionary(root, 'interpreter', { program: false });
  const files = root.value.get('files');
  if (files) {
    if (files.type !== 'dict') throw new ManifestError("manifest: 'files' is not a dictionary.");
    // Entries need no portable version at validation time, but must be URL specs.
    for (const [name, entry] of files.value) {
      if (entry.type !== 'dict') throw new ManifestError(`manifest: ${name} property is not an ISA to URL dictionary`);
      for (const [isa, value] of entry.value) checkUrlSpec(value, isa, name);
    }
  }
  const spec = root.value.get('program').value.get(PORTABLE).value.get(PNACL_TRANSLATE);
  const url = spec.value.get('url').value;
  const opt = spec.value.get('optlevel');
  let programUrl;
  try {
    programUrl = new URL(url, manifestUrl).href;
  } catch {
    throw new ManifestError(`could not resolve url '${url}' relative to manifest base url '${manifestUrl}'.`);
  }
  return { programUrl, optLevel: opt ? (opt.value <= 0 ? 0 : 2) : 2, debugUrl: debugUrl(root, manifestUrl) };
}

/** pnacl-debug's URL, for the record (only Chrome's debug flag used it). */
function debugUrl(root, manifestUrl) {
  const spec = root.value.get('program').value.get(PORTABLE).value.get(PNACL_DEBUG);
  const url = spec?.type === 'dict' ? spec.value.get('url') : null;
  if (url?.type !== 'string') return null;
  try {
    return new URL(url.value, manifestUrl).href;
  } catch {
    return null;
  }
}
