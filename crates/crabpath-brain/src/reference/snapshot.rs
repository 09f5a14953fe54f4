//! Snapshots of a brain's learned state and rollback to them (`crabpath snapshot`,
//! `crabpath rollback`; not in the reference). A learning memory needs an undo: a bad
//! batch of outcomes, an unwanted merge or a sync gone wrong is one `rollback` away.
//!
//! A snapshot is a copy of the state file in `<state>.snapshots/<name>.json`. Taking
//! one copies the current file; restoring one checks that it loads, keeps the current
//! state as `<state>.bak` and replaces the state atomically. Names are letters,
//! digits, `.`, `_` and `-` (default: the UTC time, `YYYYMMDDTHHMMSSZ`).

use std::path::{Path, PathBuf};

use crate::error::io_error;
use crate::error::{Error, Result};
use pyformat::io::{keep_backup, write_atomic};

/// One snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// Its name.
    pub name: String,
    /// Its file.
    pub path: PathBuf,
    /// Its size in bytes.
    pub size: u64,
}

/// The directory of a state's snapshots: `<state>.snapshots`.
pub fn snapshot_dir(state: &Path) -> PathBuf {
    let mut s = state.as_os_str().to_os_string();
    s.push(".snapshots");
    PathBuf::from(s)
}

/// Checks a snapshot name: letters, digits, `.`, `_` and `-`, not starting with `.`.
pub fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(Error::Invalid(format!(
            "snapshot name `{name}`: use letters, digits, `.`, `_` and `-`"
        )))
    }
}

/// The default snapshot name for Unix time `secs`: `YYYYMMDDTHHMMSSZ`.
pub fn default_name(secs: i64) -> String {
    let (y, m, d) = pyformat::pytime::civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    format!(
        "{y:04}{m:02}{d:02}T{:02}{:02}{:02}Z",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// Copies the state file to a new snapshot (an existing name is an error).
pub fn take(state: &Path, name: &str) -> Result<Snapshot> {
    check_name(name)?;
    let bytes = std::fs::read(state).map_err(|e| io_error(state, e))?;
    crate::reference::statefile::parse_check(&bytes, state)?;
    let dir = snapshot_dir(state);
    std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
    let path = dir.join(format!("{name}.json"));
    if path.exists() {
        return Err(Error::Invalid(format!(
            "snapshot `{name}` exists already ({})",
            path.display()
        )));
    }
    write_atomic(&path, &bytes)?;
    Ok(Snapshot {
        name: name.to_string(),
        path,
        size: bytes.len() as u64,
    })
}

/// The snapshots of a state, oldest name first.
pub fn list(state: &Path) -> Result<Vec<Snapshot>> {
    let dir = snapshot_dir(state);
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_error(&dir, e)),
    };
    let mut out: Vec<Snapshot> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.strip_suffix(".json")?.to_string();
            if name.starts_with('.') {
                return None;
            }
            let size = e.metadata().ok()?.len();
            Some(Snapshot {
                name,
                path: e.path(),
                size,
            })
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Restores a snapshot (`None`: the latest by name) over the state, keeping the
/// current state as `<state>.bak`. The snapshot must load as a state.
pub fn restore(state: &Path, name: Option<&str>) -> Result<Snapshot> {
    let all = list(state)?;
    let snap = match name {
        Some(n) => all.into_iter().find(|s| s.name == n).ok_or_else(|| {
            Error::Invalid(format!(
                "no snapshot `{n}` in {}",
                snapshot_dir(state).display()
            ))
        })?,
        None => all.into_iter().next_back().ok_or_else(|| {
            Error::Invalid(format!(
                "no snapshot in {}: take one with `crabpath snapshot`",
                snapshot_dir(state).display()
            ))
        })?,
    };
    let bytes = std::fs::read(&snap.path).map_err(|e| io_error(&snap.path, e))?;
    crate::reference::statefile::parse_check(&bytes, &snap.path)?;
    keep_backup(state)?;
    write_atomic(state, &bytes)?;
    Ok(snap)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_list_restore() {
        let dir = tempfile::tempdir().unwrap();
        let s = dir.path().join("state.json");
        std::fs::write(
            &s,
            r#"{"graph": {"nodes": [], "edges": []}, "index": {}, "meta": {"v": 1}}"#,
        )
        .unwrap();
        assert_eq!(default_name(0), "19700101T000000Z");
        take(&s, "one").unwrap();
        assert!(take(&s, "one").is_err());
        assert!(take(&s, "../x").is_err());
        std::fs::write(
            &s,
            r#"{"graph": {"nodes": [], "edges": []}, "index": {}, "meta": {"v": 2}}"#,
        )
        .unwrap();
        take(&s, "two").unwrap();
        assert_eq!(
            list(&s)
                .unwrap()
                .iter()
                .map(|x| x.name.as_str())
                .collect::<Vec<_>>(),
            ["one", "two"]
        );
        let r = restore(&s, Some("one")).unwrap();
        assert_eq!(r.name, "one");
        assert!(std::fs::read_to_string(&s).unwrap().contains("\"v\": 1"));
        assert!(std::fs::read_to_string(dir.path().join("state.json.bak"))
            .unwrap()
            .contains("\"v\": 2"));
        assert!(restore(&s, Some("zzz")).is_err());
        assert_eq!(restore(&s, None).unwrap().name, "two");
        // a damaged state cannot be snapshot
        std::fs::write(&s, "{").unwrap();
        assert!(take(&s, "three").is_err());
    }
}
