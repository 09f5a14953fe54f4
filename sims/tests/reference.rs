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
        let diffs = compare(&reference, &fresh);
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
