//! "nacl-irt-dev-filename-0.3": calls that take paths, checked against the
//! exposed host directories ([`crate::fs::FileSystem::resolve`]).

use super::errno;
use super::fdio::write_stat;
use crate::ctx::Ctx;
use crate::fs::{last_errno, Fd, MAX_PATH};
use crate::mem::Errno;
use crate::process;
use alloc::ffi::CString;
use alloc::string::ToString;
use alloc::vec;

/// NaCl open flags (`NACL_ABI_O_*`, Linux x86 numbering) → host flags
/// (AArch64 Linux numbers O_DIRECTORY and friends differently).
fn host_oflag(o: i32) -> libc::c_int {
    let mut f = o & 0o3;
    for (nacl, host) in [
        (0o100, libc::O_CREAT),
        (0o200, libc::O_EXCL),
        (0o1000, libc::O_TRUNC),
        (0o2000, libc::O_APPEND),
        (0o4000, libc::O_NONBLOCK),
        (0o10000, libc::O_SYNC),
        (0o200000, libc::O_DIRECTORY),
    ] {
        if o & nacl != 0 {
            f |= host;
        }
    }
    f | libc::O_CLOEXEC
}

/// The guest path at `ptr`, resolved to a host path.
fn path(ptr: u32, follow: bool) -> Result<CString, Errno> {
    let p = process().mem.read_cstr(ptr, MAX_PATH, libc::ENAMETOOLONG)?;
    process().fs.lock().resolve(&p, follow)
}

fn check(r: libc::c_int) -> Result<(), Errno> {
    if r == 0 {
        Ok(())
    } else {
        Err(last_errno())
    }
}

pub fn open(_ctx: &mut Ctx, pathname: u32, oflag: i32, cmode: u32, newfd: u32) -> i32 {
    errno((|| {
        let p = path(pathname, true)?;
        process().mem.check_write(newfd, 4)?;
        // SAFETY: a NUL-terminated path.
        let h = unsafe { libc::open(p.as_ptr(), host_oflag(oflag), cmode & 0o7777) };
        if h < 0 {
            return Err(last_errno());
        }
        let guest_path = p.to_str().ok().map(str::to_string);
        let fd = process().fs.lock().insert(Fd { host: h, path: guest_path });
        let fd = fd.inspect_err(|_| {
            // SAFETY: the descriptor we just opened.
            unsafe { libc::close(h) };
        })?;
        process().mem.write_i32(newfd, fd)
    })())
}

fn stat_path(pathname: u32, st: u32, follow: bool) -> Result<(), Errno> {
    let p = path(pathname, follow)?;
    process().mem.check_write(st, 104)?;
    // SAFETY: stat into a zeroed buffer.
    let mut s: libc::stat = unsafe { core::mem::zeroed() };
    let r = unsafe { if follow { libc::stat(p.as_ptr(), &mut s) } else { libc::lstat(p.as_ptr(), &mut s) } };
    check(r)?;
    write_stat(st, &s)
}

pub fn stat(_ctx: &mut Ctx, pathname: u32, st: u32) -> i32 {
    errno(stat_path(pathname, st, true))
}

pub fn lstat(_ctx: &mut Ctx, pathname: u32, st: u32) -> i32 {
    errno(stat_path(pathname, st, false))
}

pub fn mkdir(_ctx: &mut Ctx, pathname: u32, mode: u32) -> i32 {
    // SAFETY (each call below): NUL-terminated paths.
    errno((|| check(unsafe { libc::mkdir(path(pathname, false)?.as_ptr(), mode & 0o7777) }))())
}

pub fn rmdir(_ctx: &mut Ctx, pathname: u32) -> i32 {
    errno((|| check(unsafe { libc::rmdir(path(pathname, false)?.as_ptr()) }))())
}

pub fn chdir(_ctx: &mut Ctx, pathname: u32) -> i32 {
    errno((|| {
        let p = process().mem.read_cstr(pathname, MAX_PATH, libc::ENAMETOOLONG)?;
        process().fs.lock().chdir(&p)
    })())
}

pub fn getcwd(_ctx: &mut Ctx, buf: u32, len: u32) -> i32 {
    errno((|| {
        let cwd = process().fs.lock().cwd().to_string();
        if (len as usize) < cwd.len() + 1 {
            return Err(libc::ERANGE);
        }
        let mut bytes = cwd.into_bytes();
        bytes.push(0);
        process().mem.write_bytes(buf, &bytes)
    })())
}

pub fn unlink(_ctx: &mut Ctx, pathname: u32) -> i32 {
    errno((|| check(unsafe { libc::unlink(path(pathname, false)?.as_ptr()) }))())
}

pub fn truncate(_ctx: &mut Ctx, pathname: u32, length: i64) -> i32 {
    errno((|| {
        if length < 0 {
            return Err(libc::EINVAL);
        }
        check(unsafe { libc::truncate(path(pathname, true)?.as_ptr(), length) })
    })())
}

pub fn link(_ctx: &mut Ctx, oldpath: u32, newpath: u32) -> i32 {
    errno((|| check(unsafe { libc::link(path(oldpath, false)?.as_ptr(), path(newpath, false)?.as_ptr()) }))())
}

pub fn rename(_ctx: &mut Ctx, oldpath: u32, newpath: u32) -> i32 {
    errno((|| check(unsafe { libc::rename(path(oldpath, false)?.as_ptr(), path(newpath, false)?.as_ptr()) }))())
}

/// The link's text is stored as given (resolving it is checked when the
/// link is followed).
pub fn symlink(_ctx: &mut Ctx, oldpath: u32, newpath: u32) -> i32 {
    errno((|| {
        let target = process().mem.read_cstr(oldpath, MAX_PATH, libc::ENAMETOOLONG)?;
        let target = CString::new(target).map_err(|_| libc::EINVAL)?;
        check(unsafe { libc::symlink(target.as_ptr(), path(newpath, false)?.as_ptr()) })
    })())
}

pub fn chmod(_ctx: &mut Ctx, p: u32, mode: u32) -> i32 {
    errno((|| check(unsafe { libc::chmod(path(p, true)?.as_ptr(), mode & 0o7777) }))())
}

pub fn access(_ctx: &mut Ctx, p: u32, amode: i32) -> i32 {
    errno((|| check(unsafe { libc::access(path(p, true)?.as_ptr(), amode & 7) }))())
}

pub fn readlink(_ctx: &mut Ctx, p: u32, buf: u32, count: u32, nread: u32) -> i32 {
    errno((|| {
        let host = path(p, false)?;
        let m = &process().mem;
        m.check_write(nread, 4)?;
        let mut target = vec![0u8; MAX_PATH];
        // SAFETY: readlink into our buffer.
        let n = unsafe { libc::readlink(host.as_ptr(), target.as_mut_ptr().cast(), target.len()) };
        if n < 0 {
            return Err(last_errno());
        }
        let n = (n as usize).min(count as usize);
        m.write_bytes(buf, &target[..n])?;
        m.write_u32(nread, n as u32)
    })())
}

/// `times`: two `struct timeval` (access, modification), or null for now.
pub fn utimes(_ctx: &mut Ctx, filename: u32, times: u32) -> i32 {
    errno((|| {
        let p = path(filename, true)?;
        let m = &process().mem;
        let tv = if times == 0 {
            None
        } else {
            let mut tv = [libc::timeval { tv_sec: 0, tv_usec: 0 }; 2];
            for (i, t) in tv.iter_mut().enumerate() {
                let at = times + 16 * i as u32;
                let sec = m.read_i64(at)?;
                let usec = m.read_u32(at + 8)? as i32;
                if !(0..1_000_000).contains(&usec) {
                    return Err(libc::EINVAL);
                }
                *t = libc::timeval { tv_sec: sec as libc::time_t, tv_usec: usec as libc::suseconds_t };
            }
            Some(tv)
        };
        // SAFETY: a NUL-terminated path and two timevals, or null.
        let r = unsafe { libc::utimes(p.as_ptr(), tv.as_ref().map_or(core::ptr::null(), |t| t.as_ptr())) };
        check(r)
    })())
}
