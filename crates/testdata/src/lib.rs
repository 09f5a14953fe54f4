//! # testdata — where tests find their inputs
//!
//! One home for locating test inputs, so that no test has its own search logic and no
//! test passes without checking. Std only: every crate of the workspace can take it as
//! a dev-dependency without pulling anything else in.
//!
//! Two kinds of input:
//!
//! * **Committed** files (reference outputs under `results/reference/`, fixtures under
//!   `datasets/fixtures/`, committed results): [`committed`] and [`reference()`] return
//!   their path inside this checkout and panic if the file is missing — a clone of the
//!   repository always has them, so such tests are never ignored.
//! * **External** inputs (the staged datasets, the all-MiniLM-L6-v2 weights, anything a
//!   download or `../shared` provides): a test that needs one is marked
//!   `#[ignore = "needs <what>; run with: cargo test --workspace -- --ignored"]`, so that
//!   `cargo test --workspace` reports it as ignored with its reason, and calls
//!   [`external`] or [`external_dir`], which panic with a message naming the missing
//!   input and how to get it. Such a test never returns early and passes.
//!
//! [`data_required`] reads `CRABPATH_REQUIRE_DATA`: programs that would otherwise skip
//! work whose data is absent (`./reproduce`, `bench check`) fail instead when it is `1`;
//! `.ci/run` sets it.
#![warn(missing_docs)]

use std::fmt::Display;
use std::path::{Path, PathBuf};

/// The environment variable that turns "skipped: needs …" into a failure.
pub const REQUIRE_DATA_ENV: &str = "CRABPATH_REQUIRE_DATA";

/// The workspace root (the directory of the top-level `Cargo.toml`), from where this
/// crate's sources are compiled.
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| here.to_path_buf())
}

/// A committed file or directory of the repository, by path relative to the workspace
/// root (e.g. `datasets/fixtures/hotpotqa_tiny.json`).
///
/// # Panics
/// When it does not exist: a committed input is part of every checkout.
pub fn committed(rel: impl AsRef<Path>) -> PathBuf {
    let path = workspace_root().join(rel.as_ref());
    if !path.exists() {
        panic!(
            "committed test input {} is missing from this checkout (it is tracked by git; \
             restore it with `git checkout -- {}`)",
            path.display(),
            rel.as_ref().display()
        );
    }
    path
}

/// A committed reference output: `results/reference/<rel>` (each folder there has a
/// README giving the program, commit, command and environment that produced it).
///
/// # Panics
/// When it does not exist (see [`committed`]).
pub fn reference(rel: impl AsRef<Path>) -> PathBuf {
    committed(Path::new("results/reference").join(rel))
}

/// The text of a committed reference output `results/reference/<rel>`, read from the
/// file itself or, when only `<rel>.xz` is committed (the larger outputs, kept
/// compressed; `results/reference/cli/make_reference.py` writes them so), decompressed.
///
/// # Panics
/// When neither exists (see [`committed`]), or the file is not UTF-8 or not valid xz.
pub fn reference_text(rel: impl AsRef<Path>) -> String {
    let plain = workspace_root()
        .join("results/reference")
        .join(rel.as_ref());
    if plain.exists() {
        return std::fs::read_to_string(&plain)
            .unwrap_or_else(|e| panic!("{}: {e}", plain.display()));
    }
    let mut name = rel.as_ref().as_os_str().to_owned();
    name.push(".xz");
    let xz = reference(PathBuf::from(name));
    let file = std::fs::File::open(&xz).unwrap_or_else(|e| panic!("{}: {e}", xz.display()));
    let mut text = String::new();
    std::io::Read::read_to_string(&mut liblzma::read::XzDecoder::new(file), &mut text)
        .unwrap_or_else(|e| panic!("{}: {e}", xz.display()));
    text
}

/// The value of an external input that `found` located, or a panic naming `what` is
/// missing, why (`found`'s error) and `how` to get it.
///
/// # Panics
/// When `found` is an error.
pub fn external<T, E: Display>(what: &str, how: &str, found: Result<T, E>) -> T {
    match found {
        Ok(v) => v,
        Err(e) => panic!("missing external test input: {what}: {e}\nto get it: {how}"),
    }
}

/// An external directory (e.g. the staged datasets), or a panic naming `what` is
/// missing and `how` to get it.
///
/// # Panics
/// When `dir` is not a directory.
pub fn external_dir(what: &str, how: &str, dir: impl Into<PathBuf>) -> PathBuf {
    let dir = dir.into();
    let found = if dir.is_dir() {
        Ok(dir.clone())
    } else {
        Err(format!("{} is not a directory", dir.display()))
    };
    external(what, how, found)
}

/// The environment variable naming the staged data directory.
pub const DATA_DIR_ENV: &str = "CRABPATH_DATA_DIR";

/// The staged data directory the external-input tests read: `$CRABPATH_DATA_DIR` if set
/// (a relative value is taken from the workspace root, since `cargo test` runs each test
/// in its crate's directory), else `../shared/datasets` beside the workspace. Whether it
/// holds what a test needs is the test's to check, through [`external`] or
/// [`external_dir`].
pub fn data_dir() -> PathBuf {
    match std::env::var_os(DATA_DIR_ENV).filter(|v| !v.is_empty()) {
        Some(d) => workspace_root().join(d),
        None => workspace_root().join("..").join("shared").join("datasets"),
    }
}

/// Whether `CRABPATH_REQUIRE_DATA=1`: absent external data must be an error, not a skip.
pub fn data_required() -> bool {
    std::env::var(REQUIRE_DATA_ENV).is_ok_and(|v| v == "1")
}

/// The PostgreSQL server a test talks to (issue 32, "A real server in the tests"):
/// `CRABPATH_POSTGRES`, an address `crabpath_pg::connect` takes, which `.ci/postgres`
/// sets after starting a throwaway cluster. `None` when instead
/// `CRABPATH_SKIP_POSTGRES` gives the reason the test cannot run (printed: never a silent
/// skip). Panics, saying how to start a server, when neither is set.
pub fn postgres() -> Option<String> {
    if let Some(a) = std::env::var_os("CRABPATH_POSTGRES").filter(|a| !a.is_empty()) {
        return Some(a.to_string_lossy().into_owned());
    }
    if let Some(why) = std::env::var_os("CRABPATH_SKIP_POSTGRES").filter(|w| !w.is_empty()) {
        eprintln!("not run: CRABPATH_SKIP_POSTGRES={}", why.to_string_lossy());
        return None;
    }
    panic!(
        "this test needs a PostgreSQL server: set CRABPATH_POSTGRES to its address \
         (`source .ci/postgres` starts a throwaway one and sets it; README, \"Tests\"), \
         or CRABPATH_SKIP_POSTGRES to the reason it cannot run"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_is_the_workspace() {
        let manifest = std::fs::read_to_string(workspace_root().join("Cargo.toml")).unwrap();
        assert!(manifest.lines().any(|l| l.trim() == "[workspace]"));
        assert!(committed("crates/testdata/src/lib.rs").is_file());
    }

    #[test]
    #[should_panic(expected = "committed test input")]
    fn a_missing_committed_file_panics() {
        committed("no/such/file.json");
    }

    #[test]
    #[should_panic(
        expected = "missing external test input: the widgets: nowhere\nto get it: make widgets"
    )]
    fn a_missing_external_input_panics_with_how_to_get_it() {
        external::<(), _>("the widgets", "make widgets", Err("nowhere"));
    }

    #[test]
    #[should_panic(expected = "is not a directory")]
    fn a_missing_external_directory_panics() {
        external_dir("a directory", "mkdir", workspace_root().join("no/such/dir"));
    }

    #[test]
    fn found_inputs_are_returned() {
        assert_eq!(external::<_, String>("x", "y", Ok(3)), 3);
        let root = workspace_root();
        assert_eq!(external_dir("x", "y", root.clone()), root);
    }
}
