//! The committed LoCoMo product-path report (issue 28): `bench check`'s re-derivation of
//! its headline table from the committed run file, qrels and question list agrees with the
//! report, and catches a number that does not.

use bench::locomo::headline::rederive_check;
use results::bench::{AnyReport, Sections};

const REPORT: &str = "results/bench/locomo-product-hash-v1.json";

fn committed() -> (std::path::PathBuf, AnyReport) {
    let path = testdata::committed(REPORT);
    let text = std::fs::read_to_string(&path).unwrap();
    let report: AnyReport = serde_json::from_str(&text).unwrap();
    (path.parent().unwrap().to_path_buf(), report)
}

#[test]
fn the_committed_headline_table_is_rederived_from_its_run_files() {
    let (dir, report) = committed();
    assert!(matches!(report.sections, Sections::Product(_)));
    assert_eq!(rederive_check(&dir, &report).unwrap(), Vec::<String>::new());
}

#[test]
fn a_number_that_the_run_files_do_not_give_is_reported() {
    let (dir, mut report) = committed();
    let Sections::Product(p) = &mut report.sections else {
        panic!("not a product report")
    };
    let head = p.locomo_product.headline.clone();
    p.paper_definition
        .recall
        .get_mut(&head)
        .unwrap()
        .get_mut("multi-hop")
        .unwrap()[1] += 0.01;
    let diffs = rederive_check(&dir, &report).unwrap();
    assert_eq!(diffs.len(), 1, "{diffs:?}");
    assert!(diffs[0].contains("multi-hop[@10]"), "{diffs:?}");
}
