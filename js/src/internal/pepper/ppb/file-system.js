// PPB_FileSystem;1.0: the plugin's handle on the page's temporary or
// persistent file system (storage/: the same stores the page's legacy
// HTML5 FileSystem API uses, ../html5fs-page.js).
//
//   PP_Resource Create(PP_Instance instance, PP_FileSystemType type)
//   PP_Bool IsFileSystem(PP_Resource resource)
//   int32_t Open(PP_Resource file_system, int64_t expected_size, struct PP_CompletionCallback callback)
//   PP_FileSystemType GetType(PP_Resource file_system)
//
// Chrome's behaviour (ppapi/proxy/file_system_resource.cc and
// content/browser/renderer_host/pepper/pepper_file_system_browser_host.cc):
// Create accepts any known type but only LOCALTEMPORARY and
// LOCALPERSISTENT open (EXTERNAL and ISOLATED were for Chrome's own
// plugins: PP_ERROR_FAILED); a second Open fails; `expected_size` is not
// a reservation (quota is checked when files grow). Until Open completes,
// FileRef and FileIO calls on the file system fail.
//
// Every call with a completion callback completes through
// Browser.completion's `finish` — also its early errors — so a required
// callback always runs (later) with the result, as Chrome's
// EnterBase::SetResult did. This file also holds what the three file
// families share: error mapping, pending operations that Close (or the
// last release) aborts, PP_FileInfo.

import { FILE_SYSTEM, FILE_TYPE, INSTANCE_ID, PP, PP_FILE_INFO } from '../defs.js';
import { CODE } from '../storage/errors.js';

/** Store error codes → PP_Error (Chrome's FileErrorToPepperError). */
const PP_OF = {
  [CODE.NOT_FOUND]: PP.ERROR_FILENOTFOUND,
  [CODE.EXISTS]: PP.ERROR_FILEEXISTS,
  [CODE.NOT_A_DIRECTORY]: PP.ERROR_FAILED,
  [CODE.NOT_A_FILE]: PP.ERROR_NOTAFILE,
  [CODE.NOT_EMPTY]: PP.ERROR_FAILED,
  [CODE.INVALID_OPERATION]: PP.ERROR_FAILED,
  [CODE.QUOTA]: PP.ERROR_NOQUOTA,
  [CODE.NO_SPACE]: PP.ERROR_NOSPACE,
  [CODE.ACCESS]: PP.ERROR_NOACCESS,
  [CODE.INVALID_PATH]: PP.ERROR_FAILED,
  [CODE.BAD_HANDLE]: PP.ERROR_FAILED,
  [CODE.FAILED]: PP.ERROR_FAILED,
};

/** The store's names of the two openable types. */
export const STORE_TYPE = Object.freeze({
  [FILE_SYSTEM.LOCALTEMPORARY]: 'temporary',
  [FILE_SYSTEM.LOCALPERSISTENT]: 'persistent',
});

/**
 * `e` (a StoreError, or a bug) as a PP_Error. Anything that is not a
 * StoreError is a runtime bug: reported to the embedder, PP_ERROR_FAILED
 * to the plugin.
 */
export function ppError(b, e) {
  const code = PP_OF[e?.code];
  if (code !== undefined && e?.name === 'StoreError') return code;
  b.embedder.log?.('error', 'pexe', `runtime bug in a file operation: ${e?.stack ?? e}`);
  return PP.ERROR_FAILED;
}

/**
 * Runs `op(alive)` as a pending operation of resource `r`: resolves with
 * its result, a thrown StoreError as its PP_Error, or PP_ERROR_ABORTED as
 * soon as `abortAll(r)` runs (Close, the last release). `op` checks
 * `alive()` before writing guest memory, so an aborted call writes
 * nothing.
 */
export function pending(b, r, op) {
  let aborted = false;
  return new Promise((resolve) => {
    const entry = {
      abort() {
        aborted = true;
        resolve(PP.ERROR_ABORTED);
      },
    };
    r.pending.add(entry);
    const done = (v) => {
      if (aborted) return;
      r.pending.delete(entry);
      resolve(v);
    };
    Promise.resolve()
      .then(() => op(() => !aborted))
      .then(done, (e) => done(ppError(b, e)));
  });
}

/** Aborts every pending operation of `r` (their callbacks get PP_ERROR_ABORTED). */
export function abortAll(r) {
  const all = [...r.pending];
  r.pending.clear();
  for (const p of all) p.abort();
}

/** Writes store record `st` as a PP_FileInfo at `ptr`. */
export function writeFileInfo(mem, ptr, st, systemType) {
  mem.check(ptr, PP_FILE_INFO.SIZE);
  const view = mem.view();
  const at = ptr >>> 0;
  view.setBigInt64(at + PP_FILE_INFO.size, BigInt(st.size), true);
  view.setInt32(at + PP_FILE_INFO.type, st.type === 'directory' ? FILE_TYPE.DIRECTORY : FILE_TYPE.REGULAR, true);
  view.setInt32(at + PP_FILE_INFO.system_type, systemType, true);
  view.setFloat64(at + PP_FILE_INFO.creation_time, st.ctime / 1000, true);
  view.setFloat64(at + PP_FILE_INFO.last_access_time, st.atime / 1000, true);
  view.setFloat64(at + PP_FILE_INFO.last_modified_time, st.mtime / 1000, true);
}

/** PP_Time (seconds, a double) → store time (ms); NaN and infinities become now. */
export function storeTime(t) {
  const ms = Number(t) * 1000;
  return Number.isFinite(ms) ? ms : Date.now();
}

export default (b) => {
  const fileSystem = (id) => b.resources.get(id, 'FileSystem');
  return {
    'PPB_FileSystem;1.0:Create'(cx, instance, type) {
      if (instance !== INSTANCE_ID) return 0;
      if (!(type >= FILE_SYSTEM.EXTERNAL && type <= FILE_SYSTEM.ISOLATED)) return 0;
      return b.resources.add('FileSystem', {
        type,
        called: false,
        store: null,
        pending: new Set(),
        destroy() {
          abortAll(this);
        },
      });
    },
    'PPB_FileSystem;1.0:IsFileSystem'(cx, id) {
      return fileSystem(id) ? 1 : 0;
    },
    'PPB_FileSystem;1.0:Open'(cx, id, expectedSize, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const fs = fileSystem(id);
      if (!fs) return c.finish(PP.ERROR_BADRESOURCE);
      if (fs.called) return c.finish(PP.ERROR_FAILED);
      fs.called = true;
      const type = STORE_TYPE[fs.type];
      if (!type) return c.finish(PP.ERROR_FAILED);
      return c.finish(
        pending(b, fs, async () => {
          try {
            fs.store = await b.storage.get(type);
          } catch (e) {
            b.embedder.log?.('error', 'pexe', `the ${type} file system could not be opened: ${e?.message ?? e}`);
            return PP.ERROR_FAILED;
          }
          return PP.OK;
        }),
      );
    },
    'PPB_FileSystem;1.0:GetType'(cx, id) {
      return fileSystem(id)?.type ?? FILE_SYSTEM.INVALID;
    },
  };
};
