//! The PNaCl wrapper header: `PEXE`, a field count, a byte count, fields.

use super::{BitPos, Error, ErrorKind};

/// Tag of the PNaCl version field.
pub const TAG_PNACL_VERSION: u16 = 1;
/// Tag of the align-bitcode-records flag (readable but unsupported).
pub const TAG_ALIGN_BITCODE_RECORDS: u16 = 2;

/// Field data kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldType {
    Buffer,
    UInt32,
    Flag,
}

/// One header field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderField {
    pub tag: u16,
    pub ftype: FieldType,
    pub data: Vec<u8>,
}

/// The validated header of a pexe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub fields: Vec<HeaderField>,
    /// The PNaCl bitcode version (always 2 once validated).
    pub version: u32,
    /// Bytes the header occupies; the bitstream starts here.
    pub size: usize,
    /// The header bytes as read, for listings and round trips.
    pub bytes: Vec<u8>,
}

/// Why a prefix of the input is not yet known to be a header.
pub enum HeaderStatus {
    Complete(Header),
    NeedMoreData,
}

fn err(pos: u64, msg: impl Into<String>) -> Error {
    Error::new(BitPos::from_byte(pos), ErrorKind::Header(msg.into()))
}

/// Parses the header at the start of `data`. `eof` says no more bytes come.
pub fn parse(data: &[u8], eof: bool) -> Result<HeaderStatus, Error> {
    let need = |n: usize| -> Result<bool, Error> {
        if data.len() >= n {
            Ok(true)
        } else if eof {
            Err(err(data.len() as u64, format!("file ends inside the pexe header ({} bytes)", data.len())))
        } else {
            Ok(false)
        }
    };
    // Recognise the magic from whatever prefix has arrived.
    let magic_len = data.len().min(4);
    if &data[..magic_len] != &b"PEXE"[..magic_len] {
        const LLVM: &[u8] = b"BC\xC0\xDE";
        const WRAPPER: &[u8] = b"\xDE\xC0\x17\x0B";
        if &data[..magic_len] == &LLVM[..magic_len] || &data[..magic_len] == &WRAPPER[..magic_len] {
            return Err(err(
                0,
                "invalid PNaCl bitcode header: this is plain LLVM bitcode, not a pexe \
                 (bitcode must be finalized with pnacl-finalize)",
            ));
        }
        return Err(err(0, "invalid PNaCl bitcode header: the file does not start with 'PEXE'"));
    }
    if !need(8)? {
        return Ok(HeaderStatus::NeedMoreData);
    }
    let u16_at = |i: usize| u16::from_le_bytes([data[i], data[i + 1]]);
    let num_fields = u16_at(4) as usize;
    let num_bytes = u16_at(6) as usize;
    let size = 8 + num_bytes;
    if !need(size)? {
        return Ok(HeaderStatus::NeedMoreData);
    }
    let mut fields = Vec::new();
    let mut at = 8;
    for _ in 0..num_fields {
        if at + 4 > size {
            return Err(err(at as u64, "invalid PNaCl bitcode header: fields run past the header size"));
        }
        let fixed = u16_at(at);
        let len = u16_at(at + 2) as usize;
        let tag = fixed >> 4;
        let ftype = match fixed & 0xf {
            0 => FieldType::Buffer,
            1 => FieldType::UInt32,
            2 => FieldType::Flag,
            t => return Err(err(at as u64, format!("invalid PNaCl bitcode header: unknown field type {t}"))),
        };
        let data_at = at + 4;
        if data_at + len > size {
            return Err(err(at as u64, "invalid PNaCl bitcode header: field data runs past the header size"));
        }
        fields.push(HeaderField { tag, ftype, data: data[data_at..data_at + len].to_vec() });
        at = data_at + len.div_ceil(4) * 4;
    }
    let mut version = None;
    for (i, f) in fields.iter().enumerate() {
        if fields[..i].iter().any(|g| g.tag == f.tag) {
            return Err(err(8, format!("invalid PNaCl bitcode header: field {} specified multiple times", f.tag)));
        }
        match f.tag {
            TAG_PNACL_VERSION => {
                if f.ftype != FieldType::UInt32 || f.data.len() != 4 {
                    return Err(err(8, "invalid PNaCl bitcode header: the version field is not a uint32"));
                }
                version = Some(u32::from_le_bytes(f.data[..4].try_into().unwrap()));
            }
            TAG_ALIGN_BITCODE_RECORDS => {
                return Err(err(8, "unsupported PNaCl bitcode header: records aligned to bytes"))
            }
            t => return Err(err(8, format!("invalid PNaCl bitcode header: unknown field tag {t}"))),
        }
    }
    let version = version.ok_or_else(|| err(8, "invalid PNaCl bitcode header: no PNaCl version field"))?;
    if version != 2 {
        return Err(err(8, format!("unsupported PNaCl bitcode version {version} (only version 2 is supported)")));
    }
    if size % 4 != 0 {
        return Err(err(6, format!("invalid PNaCl bitcode header: size {size} is not a multiple of 4")));
    }
    Ok(HeaderStatus::Complete(Header { fields, version, size, bytes: data[..size].to_vec() }))
}
