//! Paper-profile outputs against the reference result files (reference `sims/*.py`,
//! committed in `results/reference/sims/`).

use std::path::{Path, PathBuf};

use serde_json::Value;
use sims::compare::compare;
use sims::pyjson;
use sims::scenarios::{registry, RUN_ALL_ORDER};
use sims::sim::{Profile, PAPER_SEED};

fn dir() -> PathBuf {
    testdata::reference("sims")
}

fn read(dir: &Path, name: &str) -> String {
    sims::reference::text(dir, name).unwrap_or_else(|e| panic!("{e:#}"))
}

/// The writer reproduces every reference file byte for byte after a parse round trip.
#[test]
fn python_json_writer_round_trips_every_reference_file() {
    let dir = dir();
    for name in RUN_ALL_ORDER {
        let text = read(&dir, name);
        let value: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{name}_results.json does not parse: {e}"));
        let out = pyjson::to_string(&value);
        let want = text.strip_suffix('\n').unwrap_or(&text);
        if out != want {
            let line = out
                .lines()
                .zip(want.lines())
                .position(|(a, b)| a != b)
                .map_or(0, |i| i + 1);
            panic!("{name}: re-serialized text differs from the reference, first at line {line}");
        }
    }
}

/// Every implemented sim's paper-profile document equals its reference file, field by
/// field (timing fields by type only) and, without timing fields, byte for byte.
#[test]
fn paper_profile_matches_reference_files() {
    let dir = dir();
    let mut failures = Vec::new();
    for sim in registry() {
        let name = sim.name();
        let text = read(&dir, name);
        let reference: Value = serde_json::from_str(&text).expect("reference parses");
        let fresh = match sim.run(Profile::Paper, PAPER_SEED) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{name}: run failed: {e:#}"));
                continue;
            }
        };
        let diffs = compare(&reference, &fresh, sim.timing_fields(Profile::Paper));
        for d in &diffs {
            failures.push(format!("{name}: {d}"));
        }
        if diffs.is_empty() && name != "scaling_analysis" {
            let want = text.strip_suffix('\n').unwrap_or(&text);
            if pyjson::to_string(&fresh) != want {
                failures.push(format!("{name}: same values but different text"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The fields exempt from exact comparison are exactly the reference's three timing
/// fields (all in scaling_analysis, listed in results/reference/sims/README.md), plus,
/// in the corrected profile, the fitted slope of those times; each one exists in the
/// documents, so the list cannot hide a renamed field.
#[test]
fn timing_fields_are_exactly_the_documented_ones() {
    const DOCUMENTED: [&str; 3] = [
        "average_nodes_fired_by_size[*].avg_traversal_ms",
        "scale_vs_size[*].time_ratio",
        "summary.is_sublinear_time_growth",
    ];
    let readme = std::fs::read_to_string(testdata::reference("sims/README.md")).unwrap();
    for path in DOCUMENTED {
        assert!(
            readme.contains(&format!("`{path}`")),
            "README does not document {path}"
        );
    }
    let dir = dir();
    for sim in registry() {
        let (paper, corrected) = (
            sim.timing_fields(Profile::Paper),
            sim.timing_fields(Profile::Corrected),
        );
        if sim.name() != "scaling_analysis" {
            assert!(paper.is_empty() && corrected.is_empty(), "{}", sim.name());
            continue;
        }
        assert_eq!(paper, DOCUMENTED);
        assert_eq!(corrected[..3], DOCUMENTED);
        assert_eq!(corrected[3..], ["time_loglog_slope"]);
        let reference = sims::reference::load(&dir, sim.name()).unwrap();
        let ours = sims::runner::read_json(&testdata::committed(
            "results/sims/corrected/scaling_analysis.json",
        ))
        .unwrap();
        for (doc, fields) in [(&reference, paper), (&ours, corrected)] {
            let present = leaf_paths(doc);
            for f in fields {
                assert!(present.contains(*f), "{f} is not a field of the document");
            }
        }
    }
}

/// Every leaf path of a document in the generic form (`a[*].b`).
fn leaf_paths(v: &Value) -> std::collections::BTreeSet<String> {
    fn walk(v: &Value, path: String, out: &mut std::collections::BTreeSet<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(x, p, out);
                }
            }
            Value::Array(xs) => xs.iter().for_each(|x| walk(x, format!("{path}[*]"), out)),
            _ => {
                out.insert(path);
            }
        }
    }
    let mut out = std::collections::BTreeSet::new();
    walk(v, String::new(), &mut out);
    out
}

/// Each card's reference column is what its extractor reads from the committed
/// reference file, and its recorded reference verdict is the verdict of that file.
#[test]
fn cards_match_the_reference_files() {
    let dir = dir();
    let mut checked = 0;
    for sim in sims::scenarios::reference_group() {
        let card = sim.card();
        let reference = sims::reference::load(&dir, sim.name()).unwrap();
        assert_eq!(
            sims::claims::verdict(&reference),
            card.reference_verdict,
            "{}",
            sim.name()
        );
        assert_eq!(
            card.reference_note.is_some(),
            card.reference_verdict != sims::claims::Verdict::Pass,
            "{}: a reference verdict other than PASS needs its reason",
            sim.name()
        );
        let rows = card
            .tables
            .iter()
            .flat_map(|t| &t.rows)
            .chain(&card.summary);
        for row in rows {
            assert_eq!(
                row.source,
                sims::paper::Source::Sim(sim.name()),
                "{}: {}",
                sim.name(),
                row.label
            );
            if row.kind != sims::paper::Kind::Exact {
                continue;
            }
            assert_eq!(
                (row.extract)(&reference).as_deref(),
                Some(row.reference.as_str()),
                "{}: row {}",
                sim.name(),
                row.label
            );
            checked += 1;
        }
    }
    assert!(checked >= 50, "{checked}");
}

/// Every claim on a card points at one of its table rows (whose paper column holds
/// the claim's number), and every card lists at least one figure.
#[test]
fn card_claims_point_at_rows() {
    for sim in registry() {
        let card = sim.card();
        assert!(!card.claims.is_empty(), "{}", sim.name());
        assert!(!card.figures.is_empty(), "{}", sim.name());
        for c in &card.claims {
            assert!(
                card.row(c.table, c.row).is_some(),
                "{}: claim {:?} → Table {} {}",
                sim.name(),
                c.text,
                c.table,
                c.row
            );
        }
        assert!(!card.paper_values().is_empty(), "{}", sim.name());
    }
}
