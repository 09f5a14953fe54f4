//! File output shared by every writer of the workspace: atomic replacement and one
//! backup generation.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

/// Wraps an I/O error with the path it concerned.
pub fn io_error(path: &Path, source: std::io::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `bytes` to `path` atomically: into a new temporary file in the same
/// directory, flushed to disk (`fsync`), then renamed over `path`. Readers see the old
/// content or the new one, never a partial file; on any error the temporary file is
/// removed and `path` is untouched. An existing file's permissions are kept, and a
/// symbolic link is written through (its target is replaced, not the link).
pub fn write_atomic(path: impl AsRef<Path>, bytes: &[u8]) -> Result<()> {
    let path = path.as_ref();
    let target = resolve_link(path);
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .ok_or_else(|| {
            io_error(
                path,
                std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file path"),
            )
        })?
        .to_string_lossy()
        .into_owned();
    let (tmp_path, file) = create_temp(&dir, &name)?;
    let result = fill(file, &tmp_path, &target, bytes)
        .and_then(|()| fs::rename(&tmp_path, &target).map_err(|e| io_error(path, e)));
    if result.is_err() {
        let _ = fs::remove_file(&tmp_path);
        return result;
    }
    sync_dir(&dir);
    Ok(())
}

/// The name of the backup [`keep_backup`] keeps: `<path>.bak`.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(".bak");
    PathBuf::from(name)
}

/// Keeps the current content of `path` as `<path>.bak` (one generation: an older
/// backup is replaced), before a writer replaces `path` with [`write_atomic`]. The
/// backup is a hard link to the current file (no copy; a copy where the file system
/// has no hard links), put in place with an atomic rename, so it is always a complete
/// earlier version. Nothing happens if `path` does not exist. Returns the backup's path
/// when one was made.
///
/// Cost: one link (or copy) and one rename.
pub fn keep_backup(path: impl AsRef<Path>) -> Result<Option<PathBuf>> {
    let path = resolve_link(path.as_ref());
    if !path.is_file() {
        return Ok(None);
    }
    let bak = backup_path(&path);
    let dir = match bak.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = bak
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // a fresh name for the link, then a rename over the old backup
    let (tmp, file) = create_temp(&dir, &name)?;
    drop(file);
    let _ = fs::remove_file(&tmp);
    if fs::hard_link(&path, &tmp).is_err() {
        fs::copy(&path, &tmp).map_err(|e| {
            let _ = fs::remove_file(&tmp);
            io_error(&path, e)
        })?;
    }
    if let Err(e) = fs::rename(&tmp, &bak) {
        let _ = fs::remove_file(&tmp);
        return Err(io_error(&bak, e));
    }
    sync_dir(&dir);
    Ok(Some(bak))
}

/// The file a path designates: the target of a symbolic link, else the path itself.
fn resolve_link(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// Creates a fresh hidden temporary file next to the destination.
fn create_temp(dir: &Path, name: &str) -> Result<(PathBuf, File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let pid = std::process::id();
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.{pid}.{n}.tmp"));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io_error(&tmp, e)),
        }
    }
}

fn fill(mut file: File, tmp: &Path, target: &Path, bytes: &[u8]) -> Result<()> {
    file.write_all(bytes).map_err(|e| io_error(tmp, e))?;
    if let Ok(meta) = fs::metadata(target) {
        file.set_permissions(meta.permissions())
            .map_err(|e| io_error(tmp, e))?;
    }
    file.sync_all().map_err(|e| io_error(tmp, e))
}

/// Makes the rename durable (best effort; not every platform can open a directory).
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn writes_replaces_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        assert_eq!(entries(dir.path()), ["out.json"]);
    }

    #[test]
    fn missing_directory_is_an_io_error_with_path() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("nope").join("out.json");
        match write_atomic(&p, b"x") {
            Err(Error::Io { path, .. }) => assert!(path.starts_with(dir.path().join("nope"))),
            other => panic!("{other:?}"),
        }
        assert_eq!(entries(dir.path()), Vec::<String>::new());
    }

    #[test]
    fn keep_backup_keeps_the_previous_version() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        assert_eq!(keep_backup(&p).unwrap(), None);
        write_atomic(&p, b"one").unwrap();
        let bak = keep_backup(&p).unwrap().unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&bak).unwrap(), b"one");
        keep_backup(&p).unwrap();
        write_atomic(&p, b"three").unwrap();
        assert_eq!(fs::read(&bak).unwrap(), b"two");
        assert_eq!(fs::read(&p).unwrap(), b"three");
        assert_eq!(entries(dir.path()), ["s.json", "s.json.bak"]);
    }

    #[cfg(unix)]
    #[test]
    fn keeps_permissions_and_writes_through_links() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        fs::write(&real, b"old").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read(&real).unwrap(), b"new");
        assert_eq!(
            fs::metadata(&real).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(entries(dir.path()), ["link.json", "real.json"]);
    }
}
