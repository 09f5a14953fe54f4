//! File output shared by every writer of the workspace: atomic replacement, one
//! backup generation, and the check of a user-given output path ([`check_output`]).

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Refusal, Result};

/// The database file of a brain (crate `crabpath-brain`'s `store::schema::DB_FILE`
/// names this constant): a directory holding it is a brain directory, and no
/// user-given output path may lead inside one ([`check_output`]).
pub const BRAIN_DB_FILE: &str = "brain.db";

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
/// symbolic link is written through (its target is replaced, not the link). A path
/// that holds something other than a regular file (a directory, a device such as
/// `/dev/null`, a FIFO) is refused ([`Error::Refused`]): a rename would replace it.
pub fn write_atomic(path: impl AsRef<Path>, bytes: &[u8]) -> Result<()> {
    stage_atomic(path, bytes)?.commit()
}

/// The first half of [`write_atomic`]: `bytes` written and flushed to a temporary file
/// next to `path`, which is not touched until [`Staged::commit`] renames it over. A
/// writer whose change has a second record (a state file and its journal) stages the
/// file, writes the record, then commits: when the record cannot be written, dropping
/// the stage removes the temporary file and `path` keeps its old content, so neither
/// record holds a change the other lacks. Errors and refusals as [`write_atomic`]'s.
pub fn stage_atomic(path: impl AsRef<Path>, bytes: &[u8]) -> Result<Staged> {
    let path = path.as_ref();
    if let Some(reason) = special_file(path) {
        return Err(refused(None, path, reason));
    }
    let target = resolve_link(path);
    let dir = parent_dir(&target);
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
    let (tmp, file) = create_temp(&dir, &name)?;
    let staged = Staged {
        tmp,
        target,
        dir,
        path: path.to_path_buf(),
        done: false,
    };
    fill(file, &staged.tmp, &staged.target, bytes)?;
    Ok(staged)
}

/// A file written by [`stage_atomic`] and not yet in place: [`Staged::commit`] puts it
/// there; dropping it uncommitted removes the temporary file.
#[derive(Debug)]
pub struct Staged {
    tmp: PathBuf,
    target: PathBuf,
    dir: PathBuf,
    path: PathBuf,
    done: bool,
}

impl Staged {
    /// Renames the staged file over its path (one `rename`, then an `fsync` of the
    /// directory). On error the temporary file is removed and the path keeps its old
    /// content.
    pub fn commit(mut self) -> Result<()> {
        fs::rename(&self.tmp, &self.target).map_err(|e| io_error(&self.path, e))?;
        self.done = true;
        sync_dir(&self.dir);
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.done {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Checks a path a user gave a command to write (e.g. `export --output`), before
/// anything is computed or written: it must be a new path or a regular file (a symbolic
/// link counts as what it points to), and not inside a brain directory (a directory
/// holding [`BRAIN_DB_FILE`], or any directory below one). Otherwise
/// [`Error::Refused`], naming `option` and the path and saying which: a directory, a
/// device, a FIFO, a socket, or the brain directory. Files a brain writes into its
/// own directory (its snapshots, a reference `state.json`) are not user-given paths
/// and are not checked here; [`write_atomic`] still refuses to replace anything but a
/// regular file.
///
/// Cost: one `stat` of the path and one per directory above it.
pub fn check_output(option: &str, path: &Path) -> Result<()> {
    if let Some(reason) = special_file(path) {
        return Err(refused(Some(option), path, reason));
    }
    // the directory the file will be in, links resolved
    let parent = parent_dir(&resolve_link(path));
    let Ok(dir) = fs::canonicalize(&parent) else {
        return Ok(()); // a missing directory: the write reports it
    };
    if let Some(brain) = dir.ancestors().find(|d| d.join(BRAIN_DB_FILE).is_file()) {
        return Err(refused(
            Some(option),
            path,
            Refusal::InsideBrain(brain.to_path_buf()),
        ));
    }
    Ok(())
}

/// The directory `path` is in (`.` for a bare file name).
fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// What is at `path` (links followed) when it is neither absent nor a regular file.
fn special_file(path: &Path) -> Option<Refusal> {
    let meta = fs::metadata(path).ok()?;
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some(Refusal::Directory);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return Some(Refusal::CharDevice);
        }
        if t.is_block_device() {
            return Some(Refusal::BlockDevice);
        }
        if t.is_fifo() {
            return Some(Refusal::Fifo);
        }
        if t.is_socket() {
            return Some(Refusal::Socket);
        }
    }
    Some(Refusal::NotRegular)
}

fn refused(option: Option<&str>, path: &Path, reason: Refusal) -> Error {
    let label = match option {
        Some(o) => format!("{o} {}", path.display()),
        None => path.display().to_string(),
    };
    Error::Refused {
        label,
        path: path.to_path_buf(),
        reason,
    }
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
    let dir = parent_dir(&bak);
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
    fn a_stage_dropped_uncommitted_leaves_the_file_and_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.json");
        write_atomic(&p, b"one").unwrap();
        let staged = stage_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"one", "not in place before commit");
        assert_eq!(entries(dir.path()).len(), 2, "the staged file beside it");
        drop(staged);
        assert_eq!(fs::read(&p).unwrap(), b"one");
        assert_eq!(entries(dir.path()), ["out.json"]);
        stage_atomic(&p, b"three").unwrap().commit().unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"three");
        assert_eq!(entries(dir.path()), ["out.json"]);
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
    fn refuses_what_is_not_a_regular_file_and_brain_directories() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let link = dir.path().join("null");
        std::os::unix::fs::symlink("/dev/null", &link).unwrap();
        for (p, want) in [
            (&fifo, Refusal::Fifo),
            (&link, Refusal::CharDevice),
            (&dir.path().to_path_buf(), Refusal::Directory),
        ] {
            match check_output("--output", p) {
                Err(Error::Refused { reason, label, .. }) => {
                    assert_eq!(reason, want);
                    assert!(label.starts_with("--output "), "{label}");
                }
                other => panic!("{other:?}"),
            }
        }
        // (never write_atomic through the link: a regression would replace /dev/null)
        for p in [&fifo, &dir.path().to_path_buf()] {
            assert!(matches!(write_atomic(p, b"x"), Err(Error::Refused { .. })));
        }
        // /dev/null stays a character device, the FIFO a FIFO
        use std::os::unix::fs::FileTypeExt;
        assert!(fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device());
        assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
        // a brain directory and a directory below it
        let brain = dir.path().join("b");
        fs::create_dir_all(brain.join("sub")).unwrap();
        fs::write(brain.join(BRAIN_DB_FILE), b"db").unwrap();
        for p in [
            brain.join(BRAIN_DB_FILE),
            brain.join("new.json"),
            brain.join("sub/x"),
        ] {
            match check_output("--output", &p) {
                Err(Error::Refused {
                    reason: Refusal::InsideBrain(d),
                    ..
                }) => assert_eq!(d, fs::canonicalize(&brain).unwrap()),
                other => panic!("{p:?}: {other:?}"),
            }
        }
        assert_eq!(fs::read(brain.join(BRAIN_DB_FILE)).unwrap(), b"db");
        // a new path and a regular file beside the brain are fine
        check_output("--output", &dir.path().join("new.json")).unwrap();
        fs::write(dir.path().join("old.json"), b"x").unwrap();
        check_output("--output", &dir.path().join("old.json")).unwrap();
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
