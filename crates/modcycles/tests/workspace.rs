//! No module import cycle in the workspace's crates (see the crate docs for what counts as
//! an import). Every library and binary root of every member is read; a cycle anywhere
//! fails the test.

use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

/// The crate roots of the workspace: `(member dir, root file)` for `src/lib.rs`,
/// `src/main.rs` and `src/bin/*.rs` of `crates/*`, `sims` and `benchmarks`.
fn roots() -> Vec<(String, PathBuf)> {
    let root = workspace_root();
    let mut members: Vec<PathBuf> = vec![root.join("sims"), root.join("benchmarks")];
    for e in std::fs::read_dir(root.join("crates")).expect("crates/") {
        let p = e.expect("entry").path();
        if p.join("Cargo.toml").is_file() {
            members.push(p);
        }
    }
    members.sort();
    let mut out = Vec::new();
    for m in members {
        let name = m
            .strip_prefix(&root)
            .expect("inside the workspace")
            .display()
            .to_string();
        for f in ["src/lib.rs", "src/main.rs"] {
            if m.join(f).is_file() {
                out.push((name.clone(), m.join(f)));
            }
        }
        if let Ok(bins) = std::fs::read_dir(m.join("src/bin")) {
            let mut bins: Vec<PathBuf> = bins.map(|e| e.expect("entry").path()).collect();
            bins.sort();
            for b in bins
                .into_iter()
                .filter(|b| b.extension().is_some_and(|x| x == "rs"))
            {
                out.push((name.clone(), b));
            }
        }
    }
    out
}

#[test]
fn no_module_imports_a_module_that_imports_it_back() {
    let roots = roots();
    // the crates this test exists for are among them
    for must in [
        "benchmarks",
        "sims",
        "crates/report",
        "crates/results",
        "crates/crabpath",
        "crates/crabpath-brain",
        "crates/crabpath-embed",
        "crates/crabpath-mcp",
        "crates/pyformat",
    ] {
        assert!(roots.iter().any(|(m, _)| m == must), "{must} not found");
    }
    let mut failures = String::new();
    for (_, root) in &roots {
        let g = modcycles::crate_graph(root).unwrap_or_else(|e| panic!("{e}"));
        assert!(!g.modules.is_empty());
        let found = modcycles::cycles(&g);
        if found.is_empty() {
            continue;
        }
        failures.push_str(&format!(
            "{} ({} modules):\n{}",
            root.display(),
            g.modules.len(),
            modcycles::describe(&g, &found)
        ));
    }
    assert!(failures.is_empty(), "module import cycles:\n{failures}");
}

/// The checker finds the cycle this workspace once had between bench's `repo/clean` and
/// `repo/run` (a test that cannot fail is a defect: this one fails on a cycle).
#[test]
fn the_checker_sees_real_cycles() {
    let g = modcycles::crate_graph(&workspace_root().join("crates/modcycles/tests/fixture/lib.rs"))
        .expect("fixture");
    assert_eq!(
        modcycles::cycles(&g),
        vec![vec![
            "crate::repo::clean".to_string(),
            "crate::repo::run".to_string()
        ]]
    );
}
