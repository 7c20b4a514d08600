//! `pexe run`'s translation cache: the module translated from a pexe, kept
//! so that running the same pexe again starts without translating it, as
//! Chrome kept its PNaCl translations.
//!
//! An entry is `<root>/translations/<key>.wasm`, where the key is the
//! SHA-256 of the translator's identity (`TRANSLATOR_ID`, a hash of this
//! build's sources, from build.rs), the options that shape the module, and
//! the pexe's bytes. The hash is cryptographic because the pexe is
//! untrusted: one crafted to collide with another's key would run the other
//! program's code. Only modules of pexes that verified clean are stored (a
//! failed translation never reaches [`TranslationCache::put`]), so a cache
//! hit skips nothing the user would have seen.
//!
//! Entries are written aside and renamed into place, so concurrent runs
//! never read half a module. A hit refreshes the entry's modification time;
//! after each store the oldest entries go until the cache is within
//! [`MAX_CACHED_TRANSLATIONS`] entries and [`MAX_TRANSLATION_CACHE_BYTES`].
//! Every failure (a read-only disk, a full one) only means translating
//! again: the cache is never the reason a run fails.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use pexe::limits::{MAX_CACHED_TRANSLATIONS, MAX_TRANSLATION_CACHE_BYTES};

// TRANSLATOR_ID: a hash of the crate's sources and Cargo.lock (build.rs).
include!(concat!(env!("OUT_DIR"), "/translator_id.rs"));

const EXT: &str = "wasm";

/// A writer's file not yet renamed into place; older than this, its run
/// has died and eviction removes it.
const STALE_TEMP: Duration = Duration::from_secs(3600);

/// The cache under one root directory.
pub(crate) struct TranslationCache {
    dir: PathBuf,
    max_entries: usize,
    max_bytes: u64,
}

/// A module found in, or stored into, the cache.
pub(crate) struct Entry {
    pub path: PathBuf,
    pub wasm: Vec<u8>,
}

impl TranslationCache {
    /// The cache in `root/translations`, created if need be.
    pub fn open(root: &Path) -> Option<TranslationCache> {
        let dir = root.join("translations");
        std::fs::create_dir_all(&dir).ok()?;
        Some(TranslationCache { dir, max_entries: MAX_CACHED_TRANSLATIONS, max_bytes: MAX_TRANSLATION_CACHE_BYTES })
    }

    /// The key of `pexe` translated with options described by `options`
    /// (every option that changes the module's bytes).
    pub fn key(pexe: &[u8], options: &str) -> String {
        let mut h = Sha256::new();
        h.update(TRANSLATOR_ID.to_le_bytes());
        h.update((options.len() as u64).to_le_bytes());
        h.update(options.as_bytes());
        h.update(pexe);
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.{EXT}"))
    }

    /// The module stored under `key`, if any (and if it is a wasm module at
    /// all: anything else in its place is ignored and replaced later).
    pub fn get(&self, key: &str) -> Option<Entry> {
        let path = self.path(key);
        let wasm = std::fs::read(&path).ok()?;
        if !wasm.starts_with(b"\0asm") {
            return None;
        }
        // Recently used: evicted last.
        if let Ok(file) = std::fs::File::options().append(true).open(&path) {
            let _ = file.set_modified(SystemTime::now());
        }
        Some(Entry { path, wasm })
    }

    /// Stores `wasm` under `key`, then evicts the oldest entries beyond the
    /// caps. The path of the stored entry, or None if it could not be written.
    pub fn put(&self, key: &str, wasm: &[u8]) -> Option<PathBuf> {
        let path = self.path(key);
        let temp = self.dir.join(format!("{key}.{}.tmp", std::process::id()));
        let stored = std::fs::write(&temp, wasm).and_then(|()| std::fs::rename(&temp, &path));
        if stored.is_err() {
            let _ = std::fs::remove_file(&temp);
            return None;
        }
        self.evict(&path);
        Some(path)
    }

    /// Removes the least recently used entries until the cache is within its
    /// caps (never `keep`, the entry just stored), and stale temporary files.
    /// Entries are listed and sorted: fine for the few dozen the caps allow.
    fn evict(&self, keep: &Path) {
        let Ok(dir) = std::fs::read_dir(&self.dir) else { return };
        let now = SystemTime::now();
        let mut entries = Vec::new();
        for entry in dir.flatten() {
            let path = entry.path();
            let Ok(meta) = entry.metadata() else { continue };
            let modified = meta.modified().unwrap_or(now);
            match path.extension().and_then(|e| e.to_str()) {
                Some(EXT) => entries.push((modified, meta.len(), path)),
                Some("tmp") if now.duration_since(modified).is_ok_and(|age| age > STALE_TEMP) => {
                    let _ = std::fs::remove_file(&path);
                }
                _ => {}
            }
        }
        let mut count = entries.len();
        let mut bytes: u64 = entries.iter().map(|e| e.1).sum();
        entries.sort();
        for (_, len, path) in entries {
            if count <= self.max_entries && bytes <= self.max_bytes {
                break;
            }
            if path != keep && std::fs::remove_file(&path).is_ok() {
                count -= 1;
                bytes -= len;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh_root(name: &str) -> PathBuf {
        let root = std::env::temp_dir().join(format!("pexe-cache-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        root
    }

    fn module(n: u8, len: usize) -> Vec<u8> {
        let mut m = b"\0asm\x01\0\0\0".to_vec();
        m.resize(len.max(8), n);
        m
    }

    #[test]
    fn keys_depend_on_the_pexe_and_the_options() {
        let a = TranslationCache::key(b"pexe one", "hinted");
        assert_eq!(a.len(), 64);
        assert_eq!(a, TranslationCache::key(b"pexe one", "hinted"));
        assert_ne!(a, TranslationCache::key(b"pexe two", "hinted"));
        assert_ne!(a, TranslationCache::key(b"pexe one", "dynamic"));
        // The options' length is hashed: moving bytes between them and the
        // pexe changes the key.
        assert_ne!(TranslationCache::key(b"bc", "a"), TranslationCache::key(b"c", "ab"));
    }

    #[test]
    fn a_stored_module_is_found_and_anything_else_is_not() {
        let root = fresh_root("get");
        let cache = TranslationCache::open(&root).unwrap();
        let key = TranslationCache::key(b"x", "o");
        assert!(cache.get(&key).is_none());
        let path = cache.put(&key, &module(1, 100)).unwrap();
        let hit = cache.get(&key).unwrap();
        assert_eq!((hit.path, hit.wasm), (path.clone(), module(1, 100)));
        // Not a module (a truncated or foreign file): a miss.
        std::fs::write(&path, b"\0as").unwrap();
        assert!(cache.get(&key).is_none());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn the_least_recently_used_entries_go_first() {
        let root = fresh_root("evict");
        let cache = TranslationCache::open(&root).unwrap();
        let keys: Vec<String> = (0..=MAX_CACHED_TRANSLATIONS).map(|i| TranslationCache::key(&[i as u8], "o")).collect();
        let start = SystemTime::now() - Duration::from_secs(1000);
        for (i, key) in keys.iter().enumerate().take(MAX_CACHED_TRANSLATIONS) {
            let path = cache.put(key, &module(i as u8, 16)).unwrap();
            let file = std::fs::File::options().append(true).open(&path).unwrap();
            file.set_modified(start + Duration::from_secs(i as u64)).unwrap();
        }
        // Entry 0 is the oldest, but using it makes entry 1 the oldest.
        assert!(cache.get(&keys[0]).is_some());
        // A stale temporary file of a run that died goes too.
        let stale = cache.dir.join("dead.123.tmp");
        std::fs::write(&stale, b"half").unwrap();
        std::fs::File::options().append(true).open(&stale).unwrap().set_modified(start - STALE_TEMP).unwrap();
        cache.put(&keys[MAX_CACHED_TRANSLATIONS], &module(9, 16)).unwrap();
        assert!(cache.get(&keys[0]).is_some());
        assert!(cache.get(&keys[1]).is_none());
        assert!(cache.get(&keys[2]).is_some());
        assert!(cache.get(&keys[MAX_CACHED_TRANSLATIONS]).is_some());
        assert!(!stale.exists());
        assert_eq!(std::fs::read_dir(&cache.dir).unwrap().count(), MAX_CACHED_TRANSLATIONS);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn bytes_are_capped_too_but_the_new_entry_stays() {
        let root = fresh_root("bytes");
        let cache = TranslationCache { max_bytes: 1000, ..TranslationCache::open(&root).unwrap() };
        let keys: Vec<String> = (0..3u8).map(|i| TranslationCache::key(&[i], "o")).collect();
        cache.put(&keys[0], &module(0, 400)).unwrap();
        cache.put(&keys[1], &module(1, 400)).unwrap();
        // 1200 bytes: the oldest goes.
        cache.put(&keys[2], &module(2, 400)).unwrap();
        assert!(cache.get(&keys[0]).is_none());
        assert!(cache.get(&keys[1]).is_some() && cache.get(&keys[2]).is_some());
        // Larger than the whole cache: it evicts everything else, not itself.
        let big = TranslationCache::key(b"big", "o");
        cache.put(&big, &module(3, 1001)).unwrap();
        assert!(cache.get(&keys[1]).is_none() && cache.get(&keys[2]).is_none());
        assert_eq!(cache.get(&big).unwrap().wasm.len(), 1001);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
