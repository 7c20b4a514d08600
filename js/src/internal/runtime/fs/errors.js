// Errors of the file system: every operation either returns its result or
// throws `FsError(errno)`; the IRT layer (irt/fdio.js, irt/filename.js,
// irt/guard.js) turns that into the errno.

import { errno } from '../defs.js';

/** A failed file operation: `errno` is the positive NaCl errno. */
export class FsError extends Error {
  constructor(code, message) {
    super(message ?? `errno ${code}`);
    this.name = 'FsError';
    this.errno = code;
  }
}

/** Throws FsError(code). */
export const fail = (code) => {
  throw new FsError(code);
};

/** Converts a Node fs error (`err.code` like 'ENOENT') into an FsError. */
export function fromHostError(err) {
  if (err instanceof FsError) return err;
  const code = typeof err?.code === 'string' ? errno[err.code] : undefined;
  return new FsError(code ?? errno.EIO, err?.message);
}
