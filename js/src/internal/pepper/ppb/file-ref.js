// PPB_FileRef;1.0, 1.1, 1.2: names of files and directories in a file
// system (file-system.js), and what can be done by name.
//
//   PP_Resource Create(PP_Resource file_system, const char* path)
//   PP_Bool IsFileRef(PP_Resource resource)
//   PP_FileSystemType GetFileSystemType(PP_Resource file_ref)
//   struct PP_Var GetName(PP_Resource file_ref)
//   struct PP_Var GetPath(PP_Resource file_ref)
//   PP_Resource GetParent(PP_Resource file_ref)
//   int32_t MakeDirectory(PP_Resource directory_ref, PP_Bool make_ancestors,
//       struct PP_CompletionCallback callback)                         (1.0, 1.1)
//   int32_t MakeDirectory(PP_Resource directory_ref, int32_t make_directory_flags,
//       struct PP_CompletionCallback callback)                         (1.2)
//   int32_t Touch(PP_Resource file_ref, PP_Time last_access_time, PP_Time last_modified_time,
//       struct PP_CompletionCallback callback)
//   int32_t Delete(PP_Resource file_ref, struct PP_CompletionCallback callback)
//   int32_t Rename(PP_Resource file_ref, PP_Resource new_file_ref, struct PP_CompletionCallback callback)
//   int32_t Query(PP_Resource file_ref, struct PP_FileInfo* info, struct PP_CompletionCallback callback)  (1.1)
//   int32_t ReadDirectoryEntries(PP_Resource file_ref, struct PP_ArrayOutput output,
//       struct PP_CompletionCallback callback)                         (1.1)
//
// Chrome's rules (ppapi/proxy/file_ref_resource.cc, ppapi/shared_impl/
// file_ref_util.cc, content/browser/renderer_host/pepper/
// pepper_internal_file_ref_backend.cc): a path must be UTF-8, start with
// "/" and have no ".." component, else Create answers 0; a trailing "/"
// is dropped; the name of "/" is "/"; the parent of "/" is "/". A file
// ref holds a reference to its file system; operations fail
// (PP_ERROR_FAILED) until the file system is open. MakeDirectory 1.0/1.1
// takes make_ancestors (never exclusive); 1.2 takes
// PP_MakeDirectoryFlags. Delete removes a file or an empty directory.
// Rename moves within one file system, replacing a file or an empty
// directory of the same kind (same path: nothing to do). Query fills a
// PP_FileInfo; ReadDirectoryEntries gives PP_DirectoryEntry records, each
// with a new file ref (one reference for the plugin), through the
// PP_ArrayOutput (ppb/array-output.js).

import { FILE_TYPE, MKDIR, PP, PP_ARRAY_OUTPUT, PP_DIRECTORY_ENTRY, PP_FILE_INFO, VAR } from '../defs.js';
import { MAX_PATH_BYTES } from '../storage/paths.js';
import { makeVar } from '../vars.js';
import { abortAll, pending, storeTime, writeFileInfo } from './file-system.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The C string at `ptr` as a file ref path, or null when Chrome refused it
 * (not UTF-8, not absolute, a ".." component, longer than MAX_PATH_BYTES).
 * A pointer outside guest memory faults the plugin.
 */
export function readPath(mem, ptr) {
  mem.check(ptr, 1);
  const u8 = mem.u8();
  const start = ptr >>> 0;
  const end = Math.min(u8.length, start + MAX_PATH_BYTES + 1);
  let i = start;
  while (i < end && u8[i] !== 0) i++;
  if (i === u8.length) mem.check(ptr, i - start + 1); // no NUL before the end of memory: the guest's fault
  if (i === end) return null;
  let path;
  try {
    path = utf8.decode(u8.slice(start, i));
  } catch {
    return null;
  }
  return checkedPath(path);
}

/** `path` as Chrome kept it (trailing "/" dropped), or null when invalid. */
export function checkedPath(path) {
  if (!path.startsWith('/') || path.split('/').includes('..')) return null;
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/** The last component of a file ref path ("/" for the root). */
export function nameOf(path) {
  return path === '/' ? '/' : path.slice(path.lastIndexOf('/') + 1);
}

/** The parent's path ("/" for the root and its children). */
export function parentPath(path) {
  const at = path.lastIndexOf('/');
  return at <= 0 ? '/' : path.slice(0, at);
}

export default (b) => {
  const { resources, vars, mem } = b;
  const fileRef = (id) => resources.get(id, 'FileRef');

  /** A new file ref for `path` in file system `fsId` (it takes a reference to it). */
  const newRef = (fsId, path) => {
    const fs = resources.get(fsId, 'FileSystem');
    resources.addRef(fsId);
    return resources.add('FileRef', {
      fsId,
      fsType: fs.type,
      path,
      pending: new Set(),
      destroy() {
        abortAll(this);
        resources.release(this.fsId);
      },
    });
  };

  /** The open store of a file ref's file system, or null (not open yet). */
  const storeOf = (ref) => resources.get(ref.fsId, 'FileSystem')?.store ?? null;

  /**
   * The common shape of the operations: the callback first, then the
   * ref, then its file system; `op(store, alive)` runs as a pending
   * operation of the ref.
   */
  const operation = (cx, id, callback, op) => {
    const c = b.completion(cx.tid, callback);
    if (c.error) return c.error;
    const ref = fileRef(id);
    if (!ref) return c.finish(PP.ERROR_BADRESOURCE);
    const store = storeOf(ref);
    if (!store) return c.finish(PP.ERROR_FAILED);
    return c.finish(pending(b, ref, (alive) => op(store, alive, ref)));
  };

  const makeDirectory = (cx, id, flags, callback) =>
    operation(cx, id, callback, async (store, alive, ref) => {
      await store.mkdir(ref.path, { recursive: (flags & MKDIR.WITH_ANCESTORS) !== 0, exclusive: (flags & MKDIR.EXCLUSIVE) !== 0 });
      return PP.OK;
    });

  return {
    'PPB_FileRef;1.0:Create'(cx, fsId, pathPtr) {
      const fs = resources.get(fsId, 'FileSystem');
      if (!fs) return 0;
      const path = readPath(mem, pathPtr);
      if (path === null) return 0;
      return newRef(fsId, path);
    },
    'PPB_FileRef;1.0:IsFileRef'(cx, id) {
      return fileRef(id) ? 1 : 0;
    },
    'PPB_FileRef;1.0:GetFileSystemType'(cx, id) {
      return fileRef(id)?.fsType ?? 0;
    },
    'PPB_FileRef;1.0:GetName'(cx, ret, id) {
      const ref = fileRef(id);
      vars.write(ret, ref ? vars.string(nameOf(ref.path)) : makeVar(VAR.UNDEFINED));
    },
    'PPB_FileRef;1.0:GetPath'(cx, ret, id) {
      const ref = fileRef(id);
      vars.write(ret, ref ? vars.string(ref.path) : makeVar(VAR.UNDEFINED));
    },
    'PPB_FileRef;1.0:GetParent'(cx, id) {
      const ref = fileRef(id);
      if (!ref || !resources.get(ref.fsId, 'FileSystem')) return 0;
      return newRef(ref.fsId, parentPath(ref.path));
    },
    'PPB_FileRef;1.0:MakeDirectory'(cx, id, makeAncestors, callback) {
      return makeDirectory(cx, id, makeAncestors ? MKDIR.WITH_ANCESTORS : MKDIR.NONE, callback);
    },
    'PPB_FileRef;1.2:MakeDirectory'(cx, id, flags, callback) {
      return makeDirectory(cx, id, flags, callback);
    },
    'PPB_FileRef;1.0:Touch'(cx, id, atime, mtime, callback) {
      return operation(cx, id, callback, async (store, alive, ref) => {
        await store.touch(ref.path, storeTime(atime), storeTime(mtime));
        return PP.OK;
      });
    },
    'PPB_FileRef;1.0:Delete'(cx, id, callback) {
      return operation(cx, id, callback, async (store, alive, ref) => {
        await store.remove(ref.path, { recursive: false });
        return PP.OK;
      });
    },
    'PPB_FileRef;1.0:Rename'(cx, id, newId, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const ref = fileRef(id);
      if (!ref) return c.finish(PP.ERROR_BADRESOURCE);
      const target = fileRef(newId);
      if (!target) return c.finish(PP.ERROR_BADRESOURCE);
      const store = storeOf(ref);
      // Both in one file system (Chrome: FileSystemURL::IsInSameFileSystem).
      if (!store || storeOf(target) !== store) return c.finish(PP.ERROR_FAILED);
      const to = target.path;
      return c.finish(
        pending(b, ref, async () => {
          await store.rename(ref.path, to);
          return PP.OK;
        }),
      );
    },
    'PPB_FileRef;1.1:Query'(cx, id, info, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const ref = fileRef(id);
      if (!ref) return c.finish(PP.ERROR_BADRESOURCE);
      if (info === 0) return c.finish(PP.ERROR_BADARGUMENT);
      mem.check(info, PP_FILE_INFO.SIZE);
      const store = storeOf(ref);
      if (!store) return c.finish(PP.ERROR_FAILED);
      return c.finish(
        pending(b, ref, async (alive) => {
          const st = await store.stat(ref.path);
          if (alive()) writeFileInfo(mem, info, st, ref.fsType);
          return PP.OK;
        }),
      );
    },
    'PPB_FileRef;1.1:ReadDirectoryEntries'(cx, id, output, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const ref = fileRef(id);
      if (!ref) return c.finish(PP.ERROR_BADRESOURCE);
      // The output is passed by value: a copy the caller owns for the call only.
      mem.check(output, PP_ARRAY_OUTPUT.SIZE);
      const getDataBuffer = mem.getU32(output + PP_ARRAY_OUTPUT.GetDataBuffer);
      const userData = mem.getU32(output + PP_ARRAY_OUTPUT.user_data);
      if (getDataBuffer === 0) return c.finish(PP.ERROR_BADARGUMENT);
      const store = storeOf(ref);
      if (!store) return c.finish(PP.ERROR_FAILED);
      const dir = ref.path === '/' ? '' : ref.path;
      const fsId = ref.fsId;
      const outcome = (async () => {
        let entries;
        const r = await pending(b, ref, async () => {
          entries = await store.readdir(ref.path);
          return PP.OK;
        });
        // The file system may have gone with the ref (released meanwhile).
        if (r !== PP.OK || !resources.get(fsId, 'FileSystem')) return { result: r === PP.OK ? PP.ERROR_ABORTED : r, output: null };
        const bytes = new Uint8Array(entries.length * PP_DIRECTORY_ENTRY.SIZE);
        const view = new DataView(bytes.buffer);
        const refs = entries.map((e, i) => {
          const child = newRef(fsId, `${dir}/${e.name}`);
          view.setInt32(i * PP_DIRECTORY_ENTRY.SIZE + PP_DIRECTORY_ENTRY.file_ref, child, true);
          view.setInt32(i * PP_DIRECTORY_ENTRY.SIZE + PP_DIRECTORY_ENTRY.file_type, e.type === 'directory' ? FILE_TYPE.DIRECTORY : FILE_TYPE.REGULAR, true);
          return child;
        });
        return {
          result: PP.OK,
          output: {
            bytes,
            count: entries.length,
            size: PP_DIRECTORY_ENTRY.SIZE,
            getDataBuffer,
            userData,
            drop: () => refs.forEach((r2) => resources.release(r2)),
          },
        };
      })();
      return b.completeWithOutput(cx.tid, c, outcome);
    },
  };
};
