//! Where the global variables live in linear memory, and the data image
//! that puts their initializers there.
//!
//! Globals are laid out from [`GLOBAL_BASE`] (the first 64 KiB stay a zero
//! guard page), each aligned to its alignment (unspecified = 1), in
//! declaration order. Relocations are resolved here: a function's address is
//! its table index (`pexe_table_base` + id), a global's is where it was
//! placed, plus the addend, wrapped to 32 bits. `__heap_base` is the end of
//! the globals rounded up to 64 KiB.
//!
//! The image is a list of [`Segment`]s with the zero runs left out (the
//! runtime's memory starts zeroed), so a large zero-filled global costs
//! nothing and the image is never larger than the initializers' data.

use super::TranslateError;
use crate::ir::{Initializer, Module, ValueId};

/// Address of the first global.
pub const GLOBAL_BASE: u32 = 0x1_0000;
/// WebAssembly page size.
pub const PAGE_SIZE: u64 = 0x1_0000;
/// A run of at least this many zero bytes ends a data segment (a segment
/// costs about this much in the data section and in `__pexe_init_data`).
const MIN_ZERO_GAP: u64 = 32;

/// Bytes to copy to `addr`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub addr: u32,
    pub bytes: Vec<u8>,
}

/// The placed globals.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    /// Address of each global, by global index.
    pub addrs: Vec<u32>,
    /// First byte after the globals, rounded up to [`PAGE_SIZE`].
    pub heap_base: u32,
    pub segments: Vec<Segment>,
}

impl Layout {
    pub fn new(m: &Module, pexe_table_base: u32) -> Result<Layout, TranslateError> {
        let (addrs, heap_base) = Self::place(m)?;
        let segments = Self::image(m, &addrs, pexe_table_base);
        Ok(Layout { addrs, heap_base, segments })
    }

    /// The data image of globals placed at `addrs` ([`Layout::place`]).
    pub fn image(m: &Module, addrs: &[u32], pexe_table_base: u32) -> Vec<Segment> {
        let mut image = ImageBuilder::default();
        let num_funcs = m.functions.len() as u64;
        let reloc_value = |target: ValueId, addend: i64| {
            let t = u64::from(target.0);
            let base = if t < num_funcs {
                u64::from(pexe_table_base) + t
            } else {
                // Verified: an existing global.
                addrs.get((t - num_funcs) as usize).map_or(0, |&a| u64::from(a))
            };
            (base as i64).wrapping_add(addend) as u32
        };
        // A compound global's parts are assembled into `run` and scanned
        // once: the segments split memory at its zero runs wherever the
        // pieces are cut (`put` merges across short gaps), so one piece per
        // run instead of one per part gives the same segments with one
        // `put` per span rather than per part. A long zero fill ends a run.
        let mut run = Vec::new();
        for (g, &addr) in m.globals.iter().zip(addrs) {
            let at = u64::from(addr);
            match &g.init[..] {
                [] | [Initializer::ZeroFill(_)] => {}
                [data @ Initializer::Data(_)] => image.data(at, data.data(m).unwrap_or_default()),
                [Initializer::Reloc { target, addend }] => image.word(at, reloc_value(*target, *addend)),
                parts => {
                    let (mut run_at, mut at) = (at, at);
                    run.clear();
                    for init in parts {
                        match (init, init.data(m)) {
                            (Initializer::Data(_), Some(bytes)) => run.extend_from_slice(bytes),
                            (Initializer::Reloc { target, addend }, _) => {
                                run.extend_from_slice(&reloc_value(*target, *addend).to_le_bytes())
                            }
                            (&Initializer::ZeroFill(n), _) if n < MIN_ZERO_GAP => {
                                run.resize(run.len() + n as usize, 0)
                            }
                            _ => {
                                image.data(run_at, &run);
                                run.clear();
                                run_at = at + init.size();
                            }
                        }
                        at += init.size();
                    }
                    image.data(run_at, &run);
                }
            }
        }
        image.finish()
    }

    /// Where each global goes (by global index) and `__heap_base`, without
    /// the image: all that function bodies need, so a body translator's
    /// context reads no initializer byte.
    pub fn place(m: &Module) -> Result<(Vec<u32>, u32), TranslateError> {
        let mut addrs = Vec::with_capacity(m.globals.len());
        let mut at = u64::from(GLOBAL_BASE);
        for g in &m.globals {
            let align = u64::from(g.align.max(1));
            at = at.div_ceil(align).saturating_mul(align);
            if at > u64::from(u32::MAX) {
                return Err(TranslateError::GlobalsTooLarge { bytes: at });
            }
            addrs.push(at as u32);
            at = at.saturating_add(g.size());
        }
        let heap_base = at.div_ceil(PAGE_SIZE).saturating_mul(PAGE_SIZE);
        // The runtime needs room above the globals for at least the stack.
        if heap_base > u64::from(u32::MAX) - PAGE_SIZE {
            return Err(TranslateError::GlobalsTooLarge { bytes: at });
        }
        Ok((addrs, heap_base as u32))
    }

    /// Pages the memory needs at instantiation: the image, and at least
    /// 17 (the guard page and 1 MiB).
    pub fn initial_pages(&self) -> u64 {
        (u64::from(self.heap_base) / PAGE_SIZE).max(17)
    }
}

/// Collects bytes at increasing addresses into segments, dropping zero runs
/// of [`MIN_ZERO_GAP`] bytes or more.
#[derive(Default)]
struct ImageBuilder {
    segments: Vec<Segment>,
}

impl ImageBuilder {
    fn data(&mut self, addr: u64, bytes: &[u8]) {
        let mut i = 0;
        while i < bytes.len() {
            // Skip zeros; a short run stays inside the segment being built.
            let nz = match first_nonzero(&bytes[i..]) {
                Some(k) => i + k,
                None => return,
            };
            // The span runs until a long zero run or the end. Eight bytes
            // at a time: a word's low zero bytes continue the run before
            // it, its high ones start the next (little-endian), so only
            // the tail is read byte by byte.
            let mut end = nz;
            let mut zeros = 0u64;
            let mut j = nz;
            // Dense data first: after a word with a non-zero byte at most
            // seven zeros are pending, and the next word adds at most seven,
            // so a run of non-zero words cannot reach the gap: only the
            // last one's high zero bytes matter.
            let mut last = 0u64;
            while let Some(word) = bytes.get(j..j + 8) {
                let w = u64::from_le_bytes(word.try_into().expect("8 bytes"));
                if w == 0 {
                    break;
                }
                last = w;
                j += 8;
            }
            if j > nz {
                let high = last.leading_zeros() / 8;
                end = j - high as usize;
                zeros = u64::from(high);
            }
            while let Some(word) = bytes.get(j..j + 8) {
                let w = u64::from_le_bytes(word.try_into().expect("8 bytes"));
                if w == 0 {
                    zeros += 8;
                } else {
                    zeros += u64::from(w.trailing_zeros() / 8);
                    if zeros < MIN_ZERO_GAP {
                        let high = w.leading_zeros() / 8;
                        end = j + 8 - high as usize;
                        zeros = u64::from(high);
                    }
                }
                if zeros >= MIN_ZERO_GAP {
                    break;
                }
                j += 8;
            }
            if zeros < MIN_ZERO_GAP {
                while j < bytes.len() {
                    if bytes[j] == 0 {
                        zeros += 1;
                        if zeros >= MIN_ZERO_GAP {
                            break;
                        }
                    } else {
                        zeros = 0;
                        end = j + 1;
                    }
                    j += 1;
                }
            }
            self.put(addr + nz as u64, &bytes[nz..end]);
            i = end;
        }
    }

    /// [`ImageBuilder::data`] of `value`'s four bytes (a relocation):
    /// its non-zero bytes, without the scan.
    fn word(&mut self, addr: u64, value: u32) {
        if value != 0 {
            let (low, high) = ((value.trailing_zeros() / 8) as usize, (value.leading_zeros() / 8) as usize);
            self.put(addr + low as u64, &value.to_le_bytes()[low..4 - high]);
        }
    }

    fn put(&mut self, addr: u64, bytes: &[u8]) {
        if let Some(last) = self.segments.last_mut() {
            let last_end = u64::from(last.addr) + last.bytes.len() as u64;
            if addr >= last_end && addr - last_end < MIN_ZERO_GAP {
                last.bytes.resize((addr - u64::from(last.addr)) as usize, 0);
                last.bytes.extend_from_slice(bytes);
                return;
            }
        }
        self.segments.push(Segment { addr: addr as u32, bytes: bytes.to_vec() });
    }

    fn finish(self) -> Vec<Segment> {
        self.segments
    }
}

/// Index of the first non-zero byte of `bytes`, eight at a time.
fn first_nonzero(bytes: &[u8]) -> Option<usize> {
    let words = bytes.chunks_exact(8);
    let tail = words.remainder();
    for (k, word) in words.enumerate() {
        let w = u64::from_le_bytes(word.try_into().expect("8 bytes"));
        if w != 0 {
            return Some(8 * k + (w.trailing_zeros() / 8) as usize);
        }
    }
    tail.iter().position(|&b| b != 0).map(|k| bytes.len() - tail.len() + k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::GlobalVar;
    use crate::BitPos;

    fn global(align: u32, init: Vec<Initializer>) -> GlobalVar {
        GlobalVar { align, is_const: false, compound: init.len() > 1, init: init.into(), name: None, pos: BitPos::default() }
    }

    #[test]
    fn globals_are_aligned_and_relocated() {
        let mut m = Module::default();
        let (d123, d9) = (m.push_data(&[1, 2, 3]), m.push_data(&[9]));
        m.globals.push(global(0, vec![d123]));
        m.globals.push(global(8, vec![Initializer::ZeroFill(100_000)]));
        m.globals
            .push(global(4, vec![Initializer::Reloc { target: ValueId(1), addend: 4 }, d9]));
        let l = Layout::new(&m, 53).unwrap();
        assert_eq!(l.addrs, vec![0x10000, 0x10008, 0x10008 + 100_000]);
        assert_eq!(l.heap_base, 0x30000);
        assert_eq!(l.initial_pages(), 17);
        assert_eq!(l.segments.len(), 2);
        assert_eq!(l.segments[0], Segment { addr: 0x10000, bytes: vec![1, 2, 3] });
        let reloc = (0x10008u32 + 4).to_le_bytes();
        assert_eq!(l.segments[1].addr, 0x10008 + 100_000);
        assert_eq!(l.segments[1].bytes, [&reloc[..], &[9]].concat());
    }

    #[test]
    fn long_zero_runs_split_segments() {
        let mut b = ImageBuilder::default();
        let mut bytes = vec![7u8; 4];
        bytes.extend([0; 10]);
        bytes.push(8);
        bytes.extend([0; 100]);
        bytes.push(9);
        b.data(0x10000, &bytes);
        let s = b.finish();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].bytes.len(), 15);
        assert_eq!(s[1], Segment { addr: 0x10000 + 115, bytes: vec![9] });
    }

    /// The word-at-a-time scan splits exactly where a byte-by-byte one does.
    #[test]
    fn word_scan_matches_byte_scan() {
        fn by_bytes(bytes: &[u8]) -> Vec<(usize, usize)> {
            let mut spans = Vec::new();
            let mut i = 0;
            while let Some(k) = bytes[i..].iter().position(|&b| b != 0) {
                let nz = i + k;
                let (mut end, mut zeros, mut j) = (nz, 0, nz);
                while j < bytes.len() {
                    if bytes[j] == 0 {
                        zeros += 1;
                        if zeros >= MIN_ZERO_GAP {
                            break;
                        }
                    } else {
                        zeros = 0;
                        end = j + 1;
                    }
                    j += 1;
                }
                spans.push((nz, end));
                i = end;
            }
            spans
        }
        let mut seed = 0x1234_5678u32;
        let mut next = move || {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
            seed >> 8
        };
        for round in 0..300 {
            let mut bytes = Vec::new();
            while bytes.len() < 200 + round {
                let run = (next() % 70) as usize;
                bytes.extend(std::iter::repeat(0u8).take(run));
                for _ in 0..next() % 12 {
                    bytes.push((next() % 255) as u8 + 1);
                }
            }
            for skip in 0..3 {
                let bytes = &bytes[skip..];
                let mut b = ImageBuilder::default();
                b.data(0, bytes);
                let mut want = ImageBuilder::default();
                for (start, end) in by_bytes(bytes) {
                    want.put(start as u64, &bytes[start..end]);
                }
                assert_eq!(b.finish(), want.finish(), "round {round}, skip {skip}");
            }
        }
    }

    /// Compound globals assembled into runs give the segments that
    /// building part by part does.
    #[test]
    fn runs_match_part_by_part() {
        let mut next = crate::test_rng(0x9e37_79b9_7f4a_7c15);
        for round in 0..200 {
            let mut m = Module::default();
            let num_globals = 1 + next(6);
            for _ in 0..num_globals {
                let mut parts = Vec::new();
                for _ in 0..1 + next(5) {
                    parts.push(match next(4) {
                        0 => Initializer::ZeroFill(next(80)),
                        1 => Initializer::Reloc { target: ValueId(next(num_globals) as u32), addend: next(3) as i64 - 1 },
                        _ => {
                            let bytes: Vec<u8> =
                                (0..next(60)).map(|_| if next(3) == 0 { 0 } else { 1 + next(255) as u8 }).collect();
                            m.push_data(&bytes)
                        }
                    });
                }
                m.globals.push(global(1 + next(8) as u32, parts));
            }
            let (addrs, _) = Layout::place(&m).unwrap();
            let mut want = ImageBuilder::default();
            for (g, &addr) in m.globals.iter().zip(&addrs) {
                let mut at = u64::from(addr);
                for init in &g.init {
                    match init {
                        Initializer::Data(_) => want.data(at, init.data(&m).unwrap()),
                        Initializer::ZeroFill(_) => {}
                        &Initializer::Reloc { target, addend } => {
                            let base = u64::from(addrs[target.0 as usize]);
                            want.word(at, (base as i64).wrapping_add(addend) as u32);
                        }
                    }
                    at += init.size();
                }
            }
            assert_eq!(Layout::image(&m, &addrs, 7), want.finish(), "round {round}");
        }
    }

    #[test]
    fn a_word_is_its_bytes() {
        for value in [0u32, 1, 0x100, 0x1_0000, 0x0100_0000, 0x0001_0100, 0x8000_0001, u32::MAX, 0x00ff_ff00] {
            for gap in [0u64, 5, 40] {
                let (mut a, mut b) = (ImageBuilder::default(), ImageBuilder::default());
                a.data(0x10000, &[3]);
                b.data(0x10000, &[3]);
                a.word(0x10001 + gap, value);
                b.data(0x10001 + gap, &value.to_le_bytes());
                assert_eq!(a.finish(), b.finish(), "{value:#x} after {gap}");
            }
        }
    }
}
