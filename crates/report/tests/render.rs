//! End-to-end: render from the reference program's result files (committed in
//! `results/reference/sims/`, standing in for paper-profile results), check
//! determinism, the stale-file check, and that the reference values in the table specs
//! are what the extractors give on those files.

use std::fs;
use std::path::{Path, PathBuf};

use report::artifact::{self, Managed};
use report::data::Notes;
use report::Paths;

/// `<root>/results/sims/paper/<sim>.json` from the committed reference
/// `<sim>_results.json.gz` files.
fn results_from_reference(root: &Path) -> PathBuf {
    let reference = testdata::reference("sims");
    let results = root.join("results");
    let paper = results.join("sims/paper");
    fs::create_dir_all(&paper).unwrap();
    for name in report::data::sim_names() {
        let text = sims::reference::text(&reference, name).unwrap_or_else(|e| panic!("{e:#}"));
        fs::write(paper.join(format!("{name}.json")), text).unwrap();
    }
    results
}

#[test]
fn figures_and_tables_are_deterministic_and_checkable() {
    let tmp = tempfile::tempdir().unwrap();
    let paths = Paths {
        results: results_from_reference(tmp.path()),
        out: tmp.path().join("figures"),
        reproduce: tmp.path().join("REPRODUCE.md"),
    };
    let mut notes = Notes::default();
    let figs = report::render_figures(&paths, &mut notes).unwrap();
    // 15 sims × (PNG + SVGZ + CSV).
    let pngs = figs
        .iter()
        .filter(|a| a.path.extension().is_some_and(|x| x == "png"))
        .count();
    assert_eq!(pngs, 15, "notes: {:?}", notes.0);
    for a in &figs {
        if a.path.extension().is_some_and(|x| x == "png") {
            assert_eq!(&a.bytes[..8], b"\x89PNG\r\n\x1a\n");
        }
    }
    // Same input, same bytes.
    let again = report::render_figures(&paths, &mut Notes::default()).unwrap();
    assert_eq!(figs, again);
    let tabs = report::render_tables(&paths, &mut Notes::default()).unwrap();
    assert_eq!(
        tabs,
        report::render_tables(&paths, &mut Notes::default()).unwrap()
    );

    let managed = [Managed {
        dir: paths.out.clone(),
        extensions: &["png", "svgz", "csv"],
    }];
    let mut all = figs.clone();
    all.extend(tabs.clone());
    assert!(!artifact::check(&all, &managed).is_empty());
    artifact::write_all(&all, &managed).unwrap();
    assert!(artifact::check(&all, &managed).is_empty());
    // A changed input makes its figure stale, and only that one.
    let neg = paths.results.join("sims/paper/negation.json");
    let text = fs::read_to_string(&neg).unwrap().replace("-0.94", "-0.95");
    fs::write(&neg, text).unwrap();
    let mut fresh = report::render_figures(&paths, &mut Notes::default()).unwrap();
    fresh.extend(report::render_tables(&paths, &mut Notes::default()).unwrap());
    let stale: Vec<String> = artifact::check(&fresh, &managed)
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert!(
        stale.iter().any(|s| s.contains("negation.png")),
        "{stale:?}"
    );
    assert!(
        !stale.iter().any(|s| s.contains("deploy_pipeline")),
        "{stale:?}"
    );

    // The generated REPRODUCE.md and TABLES.md cite the reproduced numbers.
    let tables_md = fs::read_to_string(paths.tables_md()).unwrap();
    assert!(tables_md.contains("| Q1 | 0.425, 0.420, 0.416, 0.411 | 0.425, 0.420, 0.416, 0.270 | 0.425, 0.420, 0.416, 0.270 |"));
    let repro = fs::read_to_string(&paths.reproduce).unwrap();
    assert!(
        repro.contains("claim FAIL"),
        "pg/merge/structural fail in the paper profile"
    );
}

#[test]
fn empty_results_render_nothing_and_do_not_fail() {
    let tmp = tempfile::tempdir().unwrap();
    let paths = Paths::under(tmp.path());
    let mut notes = Notes::default();
    assert!(report::render_figures(&paths, &mut notes)
        .unwrap()
        .is_empty());
    assert!(notes.0.iter().any(|n| n.contains("paper")));
    let tabs = report::render_tables(&paths, &mut notes).unwrap();
    let md = String::from_utf8(
        tabs.iter()
            .find(|a| a.path.ends_with("TABLES.md"))
            .unwrap()
            .bytes
            .clone(),
    )
    .unwrap();
    assert!(md.contains("pending: no paper-profile result"));
}
