// PPB_FileIO;1.0, 1.1: open files of a file system (file-system.js).
//
//   PP_Resource Create(PP_Instance instance)
//   PP_Bool IsFileIO(PP_Resource resource)
//   int32_t Open(PP_Resource file_io, PP_Resource file_ref, int32_t open_flags,
//       struct PP_CompletionCallback callback)
//   int32_t Query(PP_Resource file_io, struct PP_FileInfo* info, struct PP_CompletionCallback callback)
//   int32_t Touch(PP_Resource file_io, PP_Time last_access_time, PP_Time last_modified_time,
//       struct PP_CompletionCallback callback)
//   int32_t Read(PP_Resource file_io, int64_t offset, char* buffer, int32_t bytes_to_read,
//       struct PP_CompletionCallback callback)
//   int32_t Write(PP_Resource file_io, int64_t offset, const char* buffer, int32_t bytes_to_write,
//       struct PP_CompletionCallback callback)
//   int32_t SetLength(PP_Resource file_io, int64_t length, struct PP_CompletionCallback callback)
//   int32_t Flush(PP_Resource file_io, struct PP_CompletionCallback callback)
//   void Close(PP_Resource file_io)
//   int32_t ReadToArray(PP_Resource file_io, int64_t offset, int32_t max_read_length,
//       struct PP_ArrayOutput* output, struct PP_CompletionCallback callback)   (1.1)
//
// Chrome's rules (ppapi/proxy/file_io_resource.cc, ppapi/shared_impl/
// file_io_state_manager.cc and file_type_conversion.cc,
// content/browser/renderer_host/pepper/pepper_file_io_host.cc):
// - One Open per FileIO, ever (again, even after Close: PP_ERROR_FAILED);
//   the flags must make sense (TRUNCATE needs WRITE, APPEND excludes
//   WRITE: PP_ERROR_BADARGUMENT); CREATE|EXCLUSIVE on an existing file is
//   PP_ERROR_FILEEXISTS, a directory PP_ERROR_NOTAFILE, a missing file
//   without CREATE PP_ERROR_FILENOTFOUND.
// - Operations need an open file (PP_ERROR_FAILED before Open and after
//   Close). Reads may overlap reads and writes writes; anything else
//   while another operation is pending is PP_ERROR_INPROGRESS.
// - Read answers the bytes read (0 at the end; at most 32 MiB at once), a
//   negative count or offset is PP_ERROR_FAILED, so is reading a file
//   opened without READ; Write answers the bytes written (at the end of
//   the file with APPEND), and growing the file beyond the file system's
//   quota is PP_ERROR_NOQUOTA; SetLength grows (zeros) or shrinks.
// - Close (and releasing the last reference) aborts pending operations:
//   their callbacks run with PP_ERROR_ABORTED and write nothing.
// - ReadToArray reads like Read into the plugin's PP_ArrayOutput (its
//   GetDataBuffer runs on the calling thread, ppb/array-output.js).

import { FILE_SYSTEM, INSTANCE_ID, OPEN, PP, PP_ARRAY_OUTPUT, PP_FILE_INFO } from '../defs.js';
import { CODE } from '../storage/errors.js';
import { MAX_FILE_SIZE } from '../storage/store.js';
import { abortAll, pending, storeTime, writeFileInfo } from './file-system.js';

/** The most bytes one Read or Write moves (Chrome's kMaxReadWriteSize). */
export const MAX_READ_WRITE = 32 << 20;

/** FileIOStateManager's operation kinds. */
const OP = Object.freeze({ NONE: 0, EXCLUSIVE: 1, READ: 2, WRITE: 3 });

/**
 * PP_FileOpenFlags → store open flags, or null when Chrome refused the
 * combination (PepperFileOpenFlagsToPlatformFileFlags).
 */
export function openFlags(flags) {
  const read = (flags & OPEN.READ) !== 0;
  const write = (flags & OPEN.WRITE) !== 0;
  const append = (flags & OPEN.APPEND) !== 0;
  const truncate = (flags & OPEN.TRUNCATE) !== 0;
  if (append && write) return null;
  if (truncate && !write) return null;
  return {
    read,
    write,
    append,
    truncate,
    create: (flags & OPEN.CREATE) !== 0,
    exclusive: (flags & OPEN.CREATE) !== 0 && (flags & OPEN.EXCLUSIVE) !== 0,
  };
}

/** A 64-bit argument (BigInt, or a Number from a direct call) as a Number, clamped beyond the largest file. */
function int64(v) {
  const n = BigInt.asIntN(64, BigInt(v));
  if (n < 0n) return -1;
  return n > BigInt(MAX_FILE_SIZE) ? MAX_FILE_SIZE + 1 : Number(n);
}

export default (b) => {
  const { resources, mem } = b;
  const fileIO = (id) => resources.get(id, 'FileIO');

  /** FileIOStateManager.CheckOperationState. */
  const check = (io, op, mustBeOpen) => {
    if (mustBeOpen !== io.opened) return PP.ERROR_FAILED;
    if (io.op !== OP.NONE && (io.op !== op || io.op === OP.EXCLUSIVE)) return PP.ERROR_INPROGRESS;
    return PP.OK;
  };

  /**
   * Runs `work(alive)` as operation kind `op` of `io` (its result, or
   * PP_ERROR_ABORTED after Close); the store call itself is remembered so
   * Close waits for it before closing the handle.
   */
  const run = (io, op, work) => {
    io.op = op;
    io.ops++;
    let storeDone;
    const inflight = new Promise((resolve) => (storeDone = resolve));
    io.inflight.add(inflight);
    const p = pending(b, io, (alive) => work(alive).finally(() => {
      io.inflight.delete(inflight);
      storeDone();
    }));
    return p.finally(() => {
      if (--io.ops === 0) io.op = OP.NONE;
    });
  };

  /** Closes `io`'s file once the store calls under way have ended. */
  const close = (io) => {
    if (io.closed) return;
    io.closed = true;
    abortAll(io);
    const { store, handle } = io;
    io.handle = null;
    if (store && handle !== null) {
      Promise.allSettled([...io.inflight]).then(() => store.close(handle).catch(() => {}));
    }
  };

  /** The common start of Read and ReadToArray: validated arguments, or an error. */
  const startRead = (io, offset, length) => {
    const state = check(io, OP.READ, true);
    if (state !== PP.OK) return { error: state };
    if (length < 0) return { error: PP.ERROR_FAILED };
    if (io.closed) return { error: PP.ERROR_FAILED };
    const at = int64(offset);
    if (at < 0) return { error: PP.ERROR_FAILED };
    return { at, length: Math.min(length, MAX_READ_WRITE) };
  };

  /**
   * `work` for a read or a write: Chrome did those on the plugin's own
   * file handle, where any failure (no read access, …) was
   * PP_ERROR_FAILED — except the quota, checked before writing.
   */
  const onHandle = (work) => async (alive) => {
    try {
      return await work(alive);
    } catch (e) {
      if (e?.code === CODE.QUOTA) return PP.ERROR_NOQUOTA;
      if (e?.code === CODE.NO_SPACE) return PP.ERROR_NOSPACE;
      if (e?.name === 'StoreError') return PP.ERROR_FAILED;
      throw e;
    }
  };

  /** Reads `length` bytes at `at` (fewer at the end; none beyond the largest file). */
  const readBytes = async (io, at, length) => {
    if (at > MAX_FILE_SIZE) return new Uint8Array(0);
    return io.store.read(io.handle, at, Math.min(length, MAX_FILE_SIZE - at));
  };

  return {
    'PPB_FileIO;1.0:Create'(cx, instance) {
      if (instance !== INSTANCE_ID) return 0;
      return resources.add('FileIO', {
        opened: false,
        closed: false,
        op: OP.NONE,
        ops: 0,
        store: null,
        handle: null,
        fsType: FILE_SYSTEM.INVALID,
        pending: new Set(),
        inflight: new Set(),
        destroy() {
          close(this);
        },
      });
    },
    'PPB_FileIO;1.0:IsFileIO'(cx, id) {
      return fileIO(id) ? 1 : 0;
    },
    'PPB_FileIO;1.0:Open'(cx, id, refId, flags, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const io = fileIO(id);
      if (!io) return c.finish(PP.ERROR_BADRESOURCE);
      const ref = resources.get(refId, 'FileRef');
      if (!ref) return c.finish(PP.ERROR_BADRESOURCE);
      const state = check(io, OP.EXCLUSIVE, false);
      if (state !== PP.OK || io.closed) return c.finish(state !== PP.OK ? state : PP.ERROR_FAILED);
      const mode = openFlags(flags);
      if (!mode) return c.finish(PP.ERROR_BADARGUMENT);
      const store = resources.get(ref.fsId, 'FileSystem')?.store;
      if (!store) return c.finish(PP.ERROR_BADARGUMENT);
      const path = ref.path;
      // The ref stays alive while the file opens (Chrome held it too).
      resources.addRef(refId);
      const result = run(io, OP.EXCLUSIVE, async () => {
        try {
          const handle = await store.open(path, mode);
          if (io.closed) {
            await store.close(handle);
            return PP.ERROR_ABORTED;
          }
          io.store = store;
          io.handle = handle;
          io.fsType = ref.fsType;
          io.opened = true;
          return PP.OK;
        } finally {
          resources.release(refId);
        }
      });
      return c.finish(result);
    },
    'PPB_FileIO;1.0:Query'(cx, id, info, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const io = fileIO(id);
      if (!io) return c.finish(PP.ERROR_BADRESOURCE);
      const state = check(io, OP.EXCLUSIVE, true);
      if (state !== PP.OK) return c.finish(state);
      if (info === 0) return c.finish(PP.ERROR_BADARGUMENT);
      if (io.closed) return c.finish(PP.ERROR_FAILED);
      mem.check(info, PP_FILE_INFO.SIZE);
      return c.finish(
        run(io, OP.EXCLUSIVE, async (alive) => {
          const st = await io.store.fstat(io.handle);
          if (alive()) writeFileInfo(mem, info, st, io.fsType);
          return PP.OK;
        }),
      );
    },
    'PPB_FileIO;1.0:Touch'(cx, id, atime, mtime, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const io = fileIO(id);
      if (!io) return c.finish(PP.ERROR_BADRESOURCE);
      const state = check(io, OP.EXCLUSIVE, true);
      if (state !== PP.OK) return c.finish(state);
      if (io.closed) return c.finish(PP.ERROR_FAILED);
      return c.finish(
        run(io, OP.EXCLUSIVE, async () => {
          await io.store.ftouch(io.handle, storeTime(atime), storeTime(mtime));
          return PP.OK;
        }),
      );
    },
    'PPB_FileIO;1.0:Read'(cx, id, offset, buffer, length, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const io = fileIO(id);
      if (!io) return c.finish(PP.ERROR_BADRESOURCE);
      const r = startRead(io, offset, length);
      if (r.error) return c.finish(r.error);
      if (r.length > 0) mem.check(buffer, r.length);
      return c.finish(
        run(
          io,
          OP.READ,
          onHandle(async (alive) => {
            const bytes = await readBytes(io, r.at, r.length);
            if (!alive()) return PP.ERROR_ABORTED;
            mem.write(buffer, bytes);
            return bytes.length;
          }),
        ),
      );
    },
    'PPB_FileIO;1.1:ReadToArray'(cx, id, offset, length, output, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const io = fileIO(id);
      if (!io) return c.finish(PP.ERROR_BADRESOURCE);
      const r = startRead(io, offset, length);
      if (r.error) return c.finish(r.error);
      if (output === 0) return c.finish(PP.ERROR_BADARGUMENT);
      mem.check(output, PP_ARRAY_OUTPUT.SIZE);
      const getDataBuffer = mem.getU32(output + PP_ARRAY_OUTPUT.GetDataBuffer);
      const userData = mem.getU32(output + PP_ARRAY_OUTPUT.user_data);
      if (getDataBuffer === 0) return c.finish(PP.ERROR_FAILED);
      let data = null;
      const outcome = run(
        io,
        OP.READ,
        onHandle(async () => {
          data = await readBytes(io, r.at, r.length);
          return data.length;
        }),
      ).then((result) => ({
        result,
        output: result >= 0 ? { bytes: data, count: data.length, size: 1, getDataBuffer, userData, drop: null } : null,
      }));
      return b.completeWithOutput(cx.tid, c, outcome);
    },
    'PPB_FileIO;1.0:Write'(cx, id, offset, buffer, length, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const io = fileIO(id);
      if (!io) return c.finish(PP.ERROR_BADRESOURCE);
      const at = int64(offset);
      if (buffer === 0 || at < 0 || length < 0 || !io.opened || io.closed) return c.finish(PP.ERROR_FAILED);
      const state = check(io, OP.WRITE, true);
      if (state !== PP.OK) return c.finish(state);
      // The plugin may reuse its buffer once the call returns: copy now.
      const bytes = mem.read(buffer, Math.min(length, MAX_READ_WRITE));
      return c.finish(run(io, OP.WRITE, onHandle(async () => io.store.write(io.handle, at, bytes))));
    },
    'PPB_FileIO;1.0:SetLength'(cx, id, length, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const io = fileIO(id);
      if (!io) return c.finish(PP.ERROR_BADRESOURCE);
      const state = check(io, OP.EXCLUSIVE, true);
      if (state !== PP.OK) return c.finish(state);
      const n = int64(length);
      if (n < 0 || io.closed) return c.finish(PP.ERROR_FAILED);
      return c.finish(
        run(
          io,
          OP.EXCLUSIVE,
          onHandle(async () => {
            await io.store.setLength(io.handle, n);
            return PP.OK;
          }),
        ),
      );
    },
    'PPB_FileIO;1.0:Flush'(cx, id, callback) {
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const io = fileIO(id);
      if (!io) return c.finish(PP.ERROR_BADRESOURCE);
      const state = check(io, OP.EXCLUSIVE, true);
      if (state !== PP.OK) return c.finish(state);
      if (io.closed) return c.finish(PP.ERROR_FAILED);
      return c.finish(
        run(io, OP.EXCLUSIVE, async () => {
          await io.store.flush(io.handle);
          return PP.OK;
        }),
      );
    },
    'PPB_FileIO;1.0:Close'(cx, id) {
      const io = fileIO(id);
      if (io) close(io);
    },
  };
};
