//! The database file's own bytes, read without dropping SQLite's locks.
//!
//! SQLite locks a database with POSIX advisory locks (`fcntl`), and POSIX releases
//! *every* lock a process holds on a file when the process closes *any* descriptor of
//! that file. SQLite guards its own connections against this (it shares one record
//! per file among them), but a descriptor opened beside them — to read the header
//! before SQLite opens the file ([`super::Store::open`]), to tell a database from a
//! state file — and closed again silently drops the locks of every connection the
//! process has to that database. A server holds two (its writer and its reader): once
//! their shared lock is gone, another program that closes its own connection to the
//! brain (the `sqlite3` shell, Python's `sqlite3` module) believes it is the last one,
//! checkpoints and deletes the write-ahead log and its index, and the server goes on
//! committing into a log nobody else can see: its acknowledged writes vanish when it
//! is killed, and two logs over one database can corrupt it.
//!
//! So every such read goes through one descriptor per file (by device and inode) for
//! the whole process, kept open while a [`Held`] handle of it lives (each
//! [`super::Store`] keeps one beside its connection and drops it after the
//! connection), and closed only when none does ([`with_file`] reads through it, or
//! through a descriptor of its own when no store has the file open).

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};

/// A file's identity: device and inode.
type Key = (u64, u64);

/// The one descriptor of a file the process reads, and who holds it.
struct Entry {
    file: Arc<File>,
    /// Descriptors of the same file opened while it was held (the file was replaced
    /// between its `stat` and its `open`): closing them would drop the holders' locks,
    /// so they are closed with the entry.
    extra: Vec<File>,
    holders: usize,
}

static OPEN: LazyLock<Mutex<HashMap<Key, Entry>>> = LazyLock::new(Default::default);

fn registry() -> MutexGuard<'static, HashMap<Key, Entry>> {
    // the map stays consistent whatever a panicking holder did (each change is one
    // insert, remove or counter update)
    OPEN.lock().unwrap_or_else(|e| e.into_inner())
}

fn key_of(m: &std::fs::Metadata) -> Key {
    (m.dev(), m.ino())
}

/// A descriptor of a database file, shared by every store of the process that has
/// that file open; closed when the last handle is dropped (see the module docs).
pub struct Held {
    key: Key,
    file: Option<Arc<File>>,
}

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Held").field("key", &self.key).finish()
    }
}

impl Held {
    /// A handle of the file at `path`: the process's descriptor of it when one is
    /// open, else a new one.
    ///
    /// # Errors
    /// The file cannot be opened for reading.
    pub fn open(path: &Path) -> std::io::Result<Held> {
        let mut map = registry();
        if let Ok(m) = std::fs::metadata(path) {
            if let Some(e) = map.get_mut(&key_of(&m)) {
                e.holders += 1;
                return Ok(Held {
                    key: key_of(&m),
                    file: Some(e.file.clone()),
                });
            }
        }
        let f = File::open(path)?;
        let key = key_of(&f.metadata()?);
        let file = match map.get_mut(&key) {
            Some(e) => {
                e.holders += 1;
                e.extra.push(f);
                e.file.clone()
            }
            None => {
                let file = Arc::new(f);
                map.insert(
                    key,
                    Entry {
                        file: file.clone(),
                        extra: Vec::new(),
                        holders: 1,
                    },
                );
                file
            }
        };
        Ok(Held {
            key,
            file: Some(file),
        })
    }

    /// The file's identity (device, inode) when it was opened.
    pub fn key(&self) -> (u64, u64) {
        self.key
    }

    /// Whether the file at `path` is another one now, or none: the file this handle
    /// has open was replaced (renamed over, as `crabpath init` and `import` do) or
    /// deleted.
    pub fn replaced_at(&self, path: &Path) -> bool {
        std::fs::metadata(path).map_or(true, |m| key_of(&m) != self.key)
    }

    /// The open file, shared: read it at an offset (`FileExt::read_at`), never
    /// through its cursor.
    pub fn file(&self) -> &File {
        self.file
            .as_deref()
            .expect("a handle keeps its file until dropped")
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut map = registry();
        let file = self.file.take();
        let last = match map.get_mut(&self.key) {
            Some(e) => {
                e.holders = e.holders.saturating_sub(1);
                e.holders == 0
            }
            None => false,
        };
        if last {
            map.remove(&self.key);
        }
        // closed (when last) while the registry is held: no store of this file can
        // open meanwhile and lose its locks to this close
        drop(file);
    }
}

/// Runs `read` on the file at `path` (which reads at offsets, `FileExt::read_at`:
/// the descriptor is shared) through the process's descriptor of it when a
/// store holds one, else through a descriptor opened for it and closed before any
/// store of the file can open (see the module docs).
///
/// # Errors
/// Opening the file, or `read`'s.
pub fn with_file<T>(
    path: &Path,
    read: impl FnOnce(&File) -> std::io::Result<T>,
) -> std::io::Result<T> {
    let mut map = registry();
    if let Ok(m) = std::fs::metadata(path) {
        if let Some(e) = map.get(&key_of(&m)) {
            return read(&e.file);
        }
    }
    let f = File::open(path)?;
    let key = key_of(&f.metadata()?);
    if let Some(e) = map.get_mut(&key) {
        let out = read(&e.file);
        e.extra.push(f);
        return out;
    }
    let out = read(&f);
    drop(f);
    drop(map);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileExt;

    #[test]
    fn one_descriptor_per_file_until_the_last_handle() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, b"0123456789").unwrap();
        let a = Held::open(&p).unwrap();
        let b = Held::open(&p).unwrap();
        assert!(Arc::ptr_eq(
            a.file.as_ref().unwrap(),
            b.file.as_ref().unwrap()
        ));
        let head = with_file(&p, |f| {
            let mut s = [0u8; 4];
            f.read_exact_at(&mut s, 0).map(|_| s)
        })
        .unwrap();
        assert_eq!(&head, b"0123");
        let key = a.key;
        drop(a);
        assert_eq!(registry().get(&key).map(|e| e.holders), Some(1));
        drop(b);
        assert!(registry().get(&key).is_none());
    }
}
