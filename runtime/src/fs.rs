//! The guest's files: a descriptor table over host descriptors, and the
//! host directories the guest may see.
//!
//! As in the JavaScript runtime with `--dir`: guest paths are host paths,
//! but only inside the exposed directories (`PEXE_DIRS`, colon-separated;
//! `pexe run --dir` sets it). A path is made absolute against the guest's
//! working directory and `..` is resolved first; then the real path (of
//! the file, or of its parent for calls that do not follow a final
//! symlink) must still be inside an exposed directory, so a symlink cannot
//! lead out. Anything outside is ENOENT. With no directory exposed the
//! guest sees no files at all (the JavaScript runtime gives it an empty
//! in-memory tree instead). Descriptors 0, 1 and 2 are the host's.
//!
//! Errors are NaCl errno values, numbered as Linux numbers them
//! (`js/src/internal/runtime/defs.js`); host errors outside that set become EIO.

use crate::mem::Errno;
use crate::sys;
use alloc::ffi::CString;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

/// Most descriptors a guest may have open at once (as the JS runtime).
pub const MAX_FDS: usize = 1024;
/// Longest path accepted (bytes).
pub const MAX_PATH: usize = 4096;

/// The NaCl errno of a host errno.
pub fn nacl_errno(e: i32) -> Errno {
    use libc::*;
    const KNOWN: &[i32] = &[
        EPERM, ENOENT, ESRCH, EINTR, EIO, ENXIO, E2BIG, ENOEXEC, EBADF, ECHILD, EAGAIN, ENOMEM, EACCES, EFAULT, EBUSY,
        EEXIST, EXDEV, ENODEV, ENOTDIR, EISDIR, EINVAL, ENFILE, EMFILE, ENOTTY, EFBIG, ENOSPC, ESPIPE, EROFS, EMLINK,
        EPIPE, ERANGE, ENAMETOOLONG, ENOSYS, ENOTEMPTY, ELOOP, ETIMEDOUT,
    ];
    // Linux numbers these the same on x86-64 and AArch64, and as NaCl does.
    if KNOWN.contains(&e) {
        e
    } else {
        EIO
    }
}

/// The NaCl errno of the last failed host call.
pub fn last_errno() -> Errno {
    nacl_errno(sys::errno())
}

/// One open guest descriptor.
#[derive(Clone, Debug)]
pub struct Fd {
    pub host: libc::c_int,
    /// The guest path it was opened with (for `fchdir`).
    pub path: Option<String>,
}

struct Dir {
    /// As exposed, normalized.
    path: String,
    /// Its real path.
    real: String,
}

pub struct FileSystem {
    fds: Vec<Option<Fd>>,
    cwd: String,
    dirs: Vec<Dir>,
}

/// `/a/./b/../c` → `/a/c` (lexically; `..` at the root stays at the root).
pub fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    let mut out = String::with_capacity(path.len());
    for p in &parts {
        out.push('/');
        out.push_str(p);
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

fn within(path: &str, dir: &str) -> bool {
    dir == "/" || path == dir || (path.starts_with(dir) && path.as_bytes().get(dir.len()) == Some(&b'/'))
}

fn realpath(path: &str) -> Option<String> {
    sys::realpath(path)
}

fn parent(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) | None => "/",
        Some(i) => &path[..i],
    }
}

impl FileSystem {
    /// The descriptor table with 0, 1 and 2, and the exposed directories.
    pub fn new(dirs: &[String]) -> FileSystem {
        let mut fds = vec![None; 3];
        for (i, fd) in fds.iter_mut().enumerate() {
            *fd = Some(Fd { host: i as libc::c_int, path: None });
        }
        let dirs: Vec<Dir> = dirs
            .iter()
            .filter(|d| !d.is_empty())
            .filter_map(|d| {
                let abs = if d.starts_with('/') {
                    d.clone()
                } else {
                    format!("{}/{d}", sys::current_dir()?)
                };
                let path = normalize(&abs);
                let real = realpath(&path)?;
                Some(Dir { path, real })
            })
            .collect();
        let cwd = if dirs.is_empty() {
            "/".to_string()
        } else {
            sys::current_dir().unwrap_or_else(|| "/".into())
        };
        FileSystem { fds, cwd, dirs }
    }

    pub fn get(&self, fd: i32) -> Result<&Fd, Errno> {
        usize::try_from(fd).ok().and_then(|i| self.fds.get(i)).and_then(Option::as_ref).ok_or(libc::EBADF)
    }

    pub fn host(&self, fd: i32) -> Result<libc::c_int, Errno> {
        Ok(self.get(fd)?.host)
    }

    /// The lowest free descriptor number for `fd` (EMFILE if none).
    pub fn insert(&mut self, fd: Fd) -> Result<i32, Errno> {
        let at = match self.fds.iter().position(Option::is_none) {
            Some(i) => i,
            None if self.fds.len() < MAX_FDS => {
                self.fds.push(None);
                self.fds.len() - 1
            }
            None => return Err(libc::EMFILE),
        };
        self.fds[at] = Some(fd);
        Ok(at as i32)
    }

    pub fn close(&mut self, fd: i32) -> Result<(), Errno> {
        let i = usize::try_from(fd).map_err(|_| libc::EBADF)?;
        let entry = self.fds.get_mut(i).and_then(Option::take).ok_or(libc::EBADF)?;
        // The host's standard streams stay open for the runtime's own use.
        if entry.host > 2 {
            // SAFETY: a descriptor this table owns.
            unsafe { libc::close(entry.host) };
        }
        Ok(())
    }

    pub fn dup(&mut self, fd: i32) -> Result<i32, Errno> {
        let e = self.get(fd)?.clone();
        // SAFETY: duplicates a descriptor we own.
        let h = unsafe { libc::fcntl(e.host, libc::F_DUPFD_CLOEXEC, 3) };
        if h < 0 {
            return Err(last_errno());
        }
        self.insert(Fd { host: h, path: e.path }).inspect_err(|_| {
            // SAFETY: the duplicate we just made.
            unsafe { libc::close(h) };
        })
    }

    pub fn dup2(&mut self, fd: i32, newfd: i32) -> Result<(), Errno> {
        let e = self.get(fd)?.clone();
        let n = usize::try_from(newfd).map_err(|_| libc::EBADF)?;
        if n >= MAX_FDS {
            return Err(libc::EBADF);
        }
        if fd == newfd {
            return Ok(());
        }
        // SAFETY: duplicates a descriptor we own.
        let h = unsafe { libc::fcntl(e.host, libc::F_DUPFD_CLOEXEC, 3) };
        if h < 0 {
            return Err(last_errno());
        }
        if self.fds.len() <= n {
            self.fds.resize(n + 1, None);
        }
        if let Some(old) = self.fds[n].take() {
            if old.host > 2 {
                // SAFETY: a descriptor this table owned.
                unsafe { libc::close(old.host) };
            }
        }
        self.fds[n] = Some(Fd { host: h, path: e.path });
        Ok(())
    }

    pub fn cwd(&self) -> &str {
        &self.cwd
    }

    /// The host path for a guest path (see the module docs). With
    /// `follow`, a final symlink is followed (its target must be inside
    /// too); without, only the parent directory's real path is checked.
    pub fn resolve(&self, path: &[u8], follow: bool) -> Result<CString, Errno> {
        if path.is_empty() {
            return Err(libc::ENOENT);
        }
        if path.len() > MAX_PATH {
            return Err(libc::ENAMETOOLONG);
        }
        let path = core::str::from_utf8(path).map_err(|_| libc::ENOENT)?;
        let abs = if path.starts_with('/') { normalize(path) } else { normalize(&format!("{}/{path}", self.cwd)) };
        let dir = self.dirs.iter().find(|d| within(&abs, &d.path)).ok_or(libc::ENOENT)?;
        let inside_real = |p: &str| self.dirs.iter().any(|d| within(p, &d.real));
        let checked = if follow {
            match realpath(&abs) {
                Some(r) => inside_real(&r),
                // Not there (yet): its parent must be.
                None => realpath(parent(&abs)).is_none_or(|r| inside_real(&r)),
            }
        } else if abs == dir.path {
            true
        } else {
            realpath(parent(&abs)).is_none_or(|r| inside_real(&r))
        };
        if !checked {
            return Err(libc::EACCES);
        }
        CString::new(abs).map_err(|_| libc::ENOENT)
    }

    pub fn chdir(&mut self, path: &[u8]) -> Result<(), Errno> {
        let host = self.resolve(path, true)?;
        // SAFETY: a NUL-terminated path and a zeroed stat buffer.
        let mut st: libc::stat = unsafe { core::mem::zeroed() };
        if unsafe { libc::stat(host.as_ptr(), &mut st) } != 0 {
            return Err(last_errno());
        }
        if st.st_mode & libc::S_IFMT != libc::S_IFDIR {
            return Err(libc::ENOTDIR);
        }
        self.cwd = host.into_string().map_err(|_| libc::ENOENT)?;
        Ok(())
    }

    pub fn fchdir(&mut self, fd: i32) -> Result<(), Errno> {
        let path = self.get(fd)?.path.clone().ok_or(libc::ENOTDIR)?;
        self.chdir(path.as_bytes())
    }
}
