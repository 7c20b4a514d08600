//! "nacl-irt-fdio-0.1" / "nacl-irt-dev-fdio-0.3": descriptor calls on the
//! host descriptors of the guest's table ([`crate::fs`]).

use super::errno;
use crate::ctx::Ctx;
use crate::fs::last_errno;
use crate::mem::Errno;
use crate::process;
use alloc::vec;
use alloc::vec::Vec;

/// The most bytes one read or write moves (a larger count is a short
/// transfer), as in the JavaScript runtime.
pub const MAX_IO: u32 = 16 << 20;

/// `struct nacl_abi_stat` (104 bytes): the host's stat, re-laid out.
// The host field types differ between x86-64 and AArch64.
#[allow(clippy::unnecessary_cast)]
pub fn write_stat(addr: u32, st: &libc::stat) -> Result<(), Errno> {
    let mut b = [0u8; 104];
    let mut put64 = |at: usize, x: i64| b[at..at + 8].copy_from_slice(&x.to_le_bytes());
    put64(0, st.st_dev as i64);
    put64(8, st.st_ino as i64);
    put64(32, st.st_rdev as i64);
    put64(40, st.st_size as i64);
    put64(56, st.st_atime as i64);
    put64(64, st.st_atime_nsec as i64);
    put64(72, st.st_mtime as i64);
    put64(80, st.st_mtime_nsec as i64);
    put64(88, st.st_ctime as i64);
    put64(96, st.st_ctime_nsec as i64);
    let mut put32 = |at: usize, x: u32| b[at..at + 4].copy_from_slice(&x.to_le_bytes());
    put32(16, st.st_mode);
    put32(20, st.st_nlink as u32);
    put32(24, st.st_uid);
    put32(28, st.st_gid);
    put32(48, st.st_blksize as u32);
    put32(52, st.st_blocks as u32);
    process().mem.write_bytes(addr, &b)
}

fn host_fd(fd: i32) -> Result<libc::c_int, Errno> {
    process().fs.lock().host(fd)
}

pub fn close(_ctx: &mut Ctx, fd: i32) -> i32 {
    errno(process().fs.lock().close(fd))
}

pub fn dup(_ctx: &mut Ctx, fd: i32, newfd: u32) -> i32 {
    errno((|| {
        process().mem.check_write(newfd, 4)?;
        let n = process().fs.lock().dup(fd)?;
        process().mem.write_i32(newfd, n)
    })())
}

pub fn dup2(_ctx: &mut Ctx, fd: i32, newfd: i32) -> i32 {
    errno(process().fs.lock().dup2(fd, newfd))
}

pub fn read(_ctx: &mut Ctx, fd: i32, buf: u32, count: u32, nread: u32) -> i32 {
    errno((|| {
        let h = host_fd(fd)?;
        let m = &process().mem;
        let len = count.min(MAX_IO);
        m.check_write(buf, u64::from(len))?;
        m.check_write(nread, 4)?;
        // SAFETY: the kernel writes into checked, writable guest memory.
        let n = unsafe { libc::read(h, m.host(buf).cast(), len as usize) };
        if n < 0 {
            return Err(last_errno());
        }
        m.write_u32(nread, n as u32)
    })())
}

pub fn write(_ctx: &mut Ctx, fd: i32, buf: u32, count: u32, nwrote: u32) -> i32 {
    errno((|| {
        let h = host_fd(fd)?;
        let m = &process().mem;
        let len = count.min(MAX_IO);
        m.check_read(buf, u64::from(len))?;
        m.check_write(nwrote, 4)?;
        // SAFETY: the kernel reads checked guest memory.
        let n = unsafe { libc::write(h, m.host(buf).cast(), len as usize) };
        if n < 0 {
            return Err(last_errno());
        }
        m.write_u32(nwrote, n as u32)
    })())
}

pub fn seek(_ctx: &mut Ctx, fd: i32, offset: i64, whence: i32, new_offset: u32) -> i32 {
    errno((|| {
        let h = host_fd(fd)?;
        process().mem.check_write(new_offset, 8)?;
        let w = match whence {
            0 => libc::SEEK_SET,
            1 => libc::SEEK_CUR,
            2 => libc::SEEK_END,
            _ => return Err(libc::EINVAL),
        };
        // SAFETY: lseek on our descriptor.
        let pos = unsafe { libc::lseek(h, offset, w) };
        if pos < 0 {
            return Err(last_errno());
        }
        process().mem.write_i64(new_offset, pos)
    })())
}

pub fn fstat(_ctx: &mut Ctx, fd: i32, st: u32) -> i32 {
    errno((|| {
        let h = host_fd(fd)?;
        process().mem.check_write(st, 104)?;
        // SAFETY: fstat into a zeroed buffer.
        let mut s: libc::stat = unsafe { core::mem::zeroed() };
        if unsafe { libc::fstat(h, &mut s) } != 0 {
            return Err(last_errno());
        }
        write_stat(st, &s)
    })())
}

/// `struct nacl_abi_dirent`: d_ino i64, d_off i64, d_reclen u16, d_name
/// (NUL-terminated, the record padded to 8 bytes).
pub fn getdents(_ctx: &mut Ctx, fd: i32, dirent: u32, count: u32, nread: u32) -> i32 {
    errno((|| {
        let h = host_fd(fd)?;
        let m = &process().mem;
        m.check_write(dirent, u64::from(count))?;
        m.check_write(nread, 4)?;
        let mut host = vec![0u8; (count as usize).clamp(64, 1 << 20)];
        // SAFETY: lseek on our descriptor (where to come back to).
        let before = unsafe { libc::lseek(h, 0, libc::SEEK_CUR) };
        // SAFETY: getdents64 into our buffer.
        let n = unsafe { libc::syscall(libc::SYS_getdents64, h, host.as_mut_ptr(), host.len()) };
        if n < 0 {
            return Err(last_errno());
        }
        let mut out = Vec::new();
        let mut at = 0usize;
        let mut resume: Option<i64> = None;
        while at + 19 <= n as usize {
            let ino = i64::from_le_bytes(host[at..at + 8].try_into().unwrap_or_default());
            let off = i64::from_le_bytes(host[at + 8..at + 16].try_into().unwrap_or_default());
            let reclen = u16::from_le_bytes([host[at + 16], host[at + 17]]) as usize;
            if reclen == 0 {
                break;
            }
            let name_area = &host[at + 19..(at + reclen).min(n as usize)];
            let name = &name_area[..name_area.iter().position(|&b| b == 0).unwrap_or(name_area.len())];
            let size = (18 + name.len() + 1).div_ceil(8) * 8;
            if out.len() + size > count as usize {
                // Read this one again next time.
                resume = Some(if out.is_empty() { -1 } else { prev_off(&out) });
                break;
            }
            let start = out.len();
            out.resize(start + size, 0);
            out[start..start + 8].copy_from_slice(&ino.to_le_bytes());
            out[start + 8..start + 16].copy_from_slice(&off.to_le_bytes());
            out[start + 16..start + 18].copy_from_slice(&(size as u16).to_le_bytes());
            out[start + 18..start + 18 + name.len()].copy_from_slice(name);
            at += reclen;
        }
        match resume {
            Some(-1) => {
                // Entries left but none fits: the buffer is too small.
                // SAFETY: back to where this call started.
                unsafe { libc::lseek(h, before, libc::SEEK_SET) };
                return Err(libc::EINVAL);
            }
            Some(off) => {
                // SAFETY: lseek on a directory descriptor to a d_off it gave.
                unsafe { libc::lseek(h, off, libc::SEEK_SET) };
            }
            None => {}
        }
        m.write_bytes(dirent, &out)?;
        m.write_u32(nread, out.len() as u32)
    })())
}

/// The `d_off` of the last record written.
fn prev_off(out: &[u8]) -> i64 {
    let mut at = 0;
    let mut last = 0;
    while at + 18 <= out.len() {
        last = i64::from_le_bytes(out[at + 8..at + 16].try_into().unwrap_or_default());
        let len = u16::from_le_bytes([out[at + 16], out[at + 17]]) as usize;
        if len == 0 {
            break;
        }
        at += len;
    }
    last
}

pub fn fchdir(_ctx: &mut Ctx, fd: i32) -> i32 {
    errno(process().fs.lock().fchdir(fd))
}

pub fn fchmod(_ctx: &mut Ctx, fd: i32, mode: u32) -> i32 {
    errno((|| {
        let h = host_fd(fd)?;
        // SAFETY: fchmod on our descriptor.
        if unsafe { libc::fchmod(h, mode & 0o7777) } != 0 {
            return Err(last_errno());
        }
        Ok(())
    })())
}

pub fn fsync(_ctx: &mut Ctx, fd: i32) -> i32 {
    errno((|| {
        let h = host_fd(fd)?;
        // SAFETY: fsync on our descriptor.
        if unsafe { libc::fsync(h) } != 0 {
            return Err(last_errno());
        }
        Ok(())
    })())
}

pub fn fdatasync(ctx: &mut Ctx, fd: i32) -> i32 {
    fsync(ctx, fd)
}

pub fn ftruncate(_ctx: &mut Ctx, fd: i32, length: i64) -> i32 {
    errno((|| {
        let h = host_fd(fd)?;
        if length < 0 {
            return Err(libc::EINVAL);
        }
        // SAFETY: ftruncate on our descriptor.
        if unsafe { libc::ftruncate(h, length) } != 0 {
            return Err(last_errno());
        }
        Ok(())
    })())
}

pub fn isatty(_ctx: &mut Ctx, fd: i32, result: u32) -> i32 {
    errno((|| {
        let h = host_fd(fd)?;
        process().mem.check_write(result, 4)?;
        // SAFETY: isatty on our descriptor.
        if unsafe { libc::isatty(h) } != 1 {
            return Err(libc::ENOTTY);
        }
        process().mem.write_i32(result, 1)
    })())
}
