//! Advisory locking of a state file, so that concurrent writers never lose an update.
//!
//! The reference program has no lock (reference `crabpath/store.py::save_state`, commit
//! 134c676: a plain truncate-and-write): two `learn` processes on one state both read
//! the old file and the second save silently drops the first one's update. Every
//! read-modify-write of a state (`learn`, `inject`, `maintain`, `merge`, `sync`,
//! `replay`, …) holds a [`StateLock`] from before the load until after the save.
//! Readers (`query`, `health`, `info`) take no lock and never wait: saves replace the
//! file with an atomic rename ([`pyformat::io::write_atomic`]), so a reader sees the old
//! state or the new one, never a mix.
//!
//! The lock is an exclusive `flock`-style lock (std [`std::fs::File::lock`]) on a
//! companion file `<state>.lock`, not on the state itself: an atomic save replaces the
//! state's inode, and a lock held on the old inode would not exclude a process that
//! opens the new one. The lock is released when the [`StateLock`] is dropped or the
//! process dies (the kernel drops it; no stale lock survives a crash).

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use crate::error::io_error;
use crate::error::Result;

/// An exclusive advisory lock on a state file, held until dropped.
#[derive(Debug)]
pub struct StateLock {
    _file: File,
    path: PathBuf,
}

impl StateLock {
    /// The lock file of a state: `<state>.lock` beside it.
    pub fn lock_path(state: &Path) -> PathBuf {
        let mut name = state.as_os_str().to_os_string();
        name.push(".lock");
        PathBuf::from(name)
    }

    /// Takes the lock of `state`, waiting as long as another process holds it;
    /// `on_wait` is called once, before waiting, if the lock is busy (to tell the
    /// user why nothing happens). The lock file is created if missing (its directory
    /// must exist).
    ///
    /// Errors: `Error::Io` naming the lock file if it cannot be created or locked.
    pub fn acquire(state: &Path, on_wait: impl FnOnce(&Path)) -> Result<StateLock> {
        let (path, file) = Self::open(state)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                on_wait(&path);
                file.lock().map_err(|e| io_error(&path, e))?;
            }
            Err(TryLockError::Error(e)) => return Err(io_error(&path, e)),
        }
        Ok(StateLock { _file: file, path })
    }

    /// The lock file of `state`, opened (created if missing, never truncated).
    fn open(state: &Path) -> Result<(PathBuf, File)> {
        let path = Self::lock_path(state);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|e| io_error(&path, e))?;
        Ok((path, file))
    }

    /// Takes the lock only if it is free right now (`None` if another process holds
    /// it).
    pub fn try_acquire(state: &Path) -> Result<Option<StateLock>> {
        let (path, file) = Self::open(state)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(StateLock { _file: file, path })),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => Err(io_error(&path, e)),
        }
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exclusive_until_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state.json");
        let a = StateLock::acquire(&state, |_| panic!("free lock reported busy")).unwrap();
        assert_eq!(a.path(), dir.path().join("state.json.lock"));
        assert!(StateLock::try_acquire(&state).unwrap().is_none());
        drop(a);
        assert!(StateLock::try_acquire(&state).unwrap().is_some());
        // the state itself is not needed (nor touched)
        assert!(!state.exists());
    }

    #[test]
    fn a_waiter_is_told_and_then_gets_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("s.json");
        let held = StateLock::acquire(&state, |_| {}).unwrap();
        let s2 = state.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let t = std::thread::spawn(move || {
            let _l = StateLock::acquire(&s2, |p| tx.send(p.to_path_buf()).unwrap()).unwrap();
        });
        let told = rx.recv().unwrap();
        assert_eq!(told, dir.path().join("s.json.lock"));
        drop(held);
        t.join().unwrap();
    }
}
