//! The CrabPath paper's own experiments (seed 000 §4.5 and §7) on the v2 engine
//! ([`crabpath_v2`]): the second paper's group of results. `sims v2 run` writes them
//! under [`DIR`], `sims v2 check` re-runs every stored file and compares it exactly,
//! and [`tables`] holds the paper's Tables 3–7 (paper value, reference-program value,
//! how to read ours) for the `report` crate.
//!
//! Result files (Python `json.dumps(indent=2)` text; `.json.gz` = gzip of that text):
//!
//! | file | what | paper |
//! |---|---|---|
//! | `<profile>/<experiment>.json.gz` | the four-arm comparison (static, RAG, CrabPath corrected, CrabPath myopic) on each of the eight experiments; the reference runner's document (reference `experiments/run_comparison.py`, commit 73444b2) | Tables 3, 4, 7 |
//! | `<profile>/deploy_simulation.json` | the deploy simulation, every episode (reference `experiments/run_deploy_sim.py`, commit cc70b59) | Table 6 |
//! | `corrected_vs_myopic.json.gz` | the multi-seed corrected-vs-myopic study (corrected profile, stochastic routing) | the §4.3 claim, never tested by the paper |
//!
//! `<profile>` is `paper` (the reference's behaviour bit for bit; the eight four-arm
//! documents are byte-identical to the reference runner's files under
//! `results/reference/v2/`) or `corrected` (the engine's bugs fixed, listed in
//! [`crabpath_v2`]'s crate documentation). The inputs are the datasets
//! `crabpath-v2/<experiment>.{graph.json,scenario.jsonl}` of the data directory
//! (`--data-dir`, `CRABPATH_DATA_DIR`, `datasets/`, `../shared/datasets`), verified by
//! SHA-256 before use.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use crabpath_v2::data::load_experiment;
pub use crabpath_v2::data::EXPERIMENTS;
use crabpath_v2::experiments::{self, MyopicOptions};
use crabpath_v2::runner::CompareOptions;
use crabpath_v2::EngineConfig;
use pyformat::pyjson::py_float_repr;
use serde_json::Value;

use crate::paper::{expected, Kind, Paper, Row, Source, Table};
use crate::sim::Profile;

/// Where the repository keeps the v2 results, relative to its root.
pub const DIR: &str = "results/v2";

/// Stem of the deploy simulation's result file.
pub const DEPLOY_SIM: &str = "deploy_simulation";

/// Stem of the corrected-vs-myopic study's result file.
pub const STUDY: &str = "corrected_vs_myopic";

/// Seeds of the committed study (paired: both arms of seed s share its generator).
pub const STUDY_SEEDS: usize = 200;

/// One result file of the group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    /// The four-arm comparison of one experiment.
    FourArm(&'static str),
    /// The deploy simulation.
    DeploySim,
    /// The corrected-vs-myopic study (corrected profile only).
    Study,
}

/// A result file: what and under which profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Job {
    /// What is run.
    pub item: Item,
    /// Engine profile.
    pub profile: Profile,
}

impl Job {
    /// The file's path relative to the results directory.
    pub fn rel(&self) -> PathBuf {
        match self.item {
            Item::FourArm(name) => Path::new(self.profile.as_str()).join(format!("{name}.json.gz")),
            Item::DeploySim => Path::new(self.profile.as_str()).join(format!("{DEPLOY_SIM}.json")),
            Item::Study => PathBuf::from(format!("{STUDY}.json.gz")),
        }
    }
}

/// Every result file of the group for `profiles`, in a fixed order: per profile the
/// eight experiments (paper table order) and the deploy simulation, then the study when
/// the corrected profile is included.
pub fn jobs(profiles: &[Profile]) -> Vec<Job> {
    let mut out = Vec::new();
    for &profile in profiles {
        for name in EXPERIMENTS {
            out.push(Job {
                item: Item::FourArm(name),
                profile,
            });
        }
        out.push(Job {
            item: Item::DeploySim,
            profile,
        });
    }
    if profiles.contains(&Profile::Corrected) {
        out.push(Job {
            item: Item::Study,
            profile: Profile::Corrected,
        });
    }
    out
}

/// Runs one job on the data in `data_dir`; the study with `seeds` seeds (run on the
/// current rayon pool; the document is the same for any thread count).
pub fn run_job(job: Job, data_dir: &Path, seeds: usize) -> Result<Value> {
    let config = EngineConfig::for_profile(job.profile);
    match job.item {
        Item::FourArm(name) => {
            let exp = load_experiment(data_dir, name)?;
            let opts = CompareOptions {
                config,
                ..CompareOptions::default()
            };
            Ok(
                experiments::compare(&exp.graph, name, &exp.scenarios, &opts)
                    .result
                    .to_json(),
            )
        }
        Item::DeploySim => {
            let exp = load_experiment(data_dir, "deploy_pipeline")?;
            Ok(
                experiments::deploy_sim(&exp.graph, &exp.scenarios, job.profile)
                    .to_json(job.profile.as_str()),
            )
        }
        Item::Study => {
            let opts = MyopicOptions {
                seeds,
                ..MyopicOptions::default()
            };
            Ok(experiments::corrected_vs_myopic(&opts)?.to_json())
        }
    }
}

/// The seeds a stored study document was run with (`seeds`).
pub fn stored_seeds(doc: &Value) -> Result<usize> {
    doc.get("seeds")
        .and_then(Value::as_u64)
        .and_then(|s| usize::try_from(s).ok())
        .context("the study document has no `seeds` count")
}

/// The file's text: Python `json.dump(…, indent=2)` exactly (no final newline), so the
/// paper profile's four-arm files are byte-identical to the reference runner's.
pub fn text(doc: &Value) -> String {
    crate::pyjson::to_string(doc)
}

/// Writes `doc` to `dir/rel` atomically, gzip-compressed (level 9, mtime 0) when
/// `rel` ends in `.gz`.
pub fn write(dir: &Path, rel: &Path, doc: &Value) -> Result<PathBuf> {
    let path = dir.join(rel);
    let text = text(doc);
    let bytes = if rel.extension().is_some_and(|e| e == "gz") {
        let mut gz = flate2::GzBuilder::new()
            .mtime(0)
            .operating_system(255)
            .write(Vec::new(), flate2::Compression::best());
        gz.write_all(text.as_bytes())
            .and_then(|_| gz.finish())
            .with_context(|| format!("compressing {}", path.display()))?
    } else {
        text.into_bytes()
    };
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    pyformat::io::write_atomic(&path, &bytes)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}

/// Outcome of checking one stored file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Checked {
    /// Same text.
    Same,
    /// The differing JSON paths (`stored → fresh`), first one first.
    Differs(Vec<String>),
}

/// Compares a stored file's text with a fresh document: identical text, or the
/// differing JSON paths (a difference only in formatting is reported as `(text)`).
pub fn compare_text(stored: &str, fresh: &Value) -> Result<Checked> {
    let fresh_text = text(fresh);
    if stored == fresh_text {
        return Ok(Checked::Same);
    }
    let stored_doc: Value = serde_json::from_str(stored).context("parsing the stored file")?;
    let mut diffs: Vec<String> = crate::compare::compare(&stored_doc, fresh, &[])
        .iter()
        .map(|d| d.to_string())
        .collect();
    if diffs.is_empty() {
        diffs.push("(text): same values, different formatting".into());
    }
    Ok(Checked::Differs(diffs))
}

/// A seed-000 table row read from the v2 result `name`.
fn row(
    name: &'static str,
    label: &str,
    extract: impl Fn(&Value) -> Option<String> + Send + Sync + 'static,
) -> Row {
    Row::new(Source::V2(name), label, extract)
}

/// An arm's average characters loaded per turn, as Python prints it.
fn avg(arm: &'static str) -> impl Fn(&Value) -> Option<String> + Send + Sync + 'static {
    move |d| {
        d.pointer(&format!("/arms/{arm}/avg_tokens"))
            .and_then(Value::as_f64)
            .map(py_float_repr)
    }
}

fn avg_of(d: &Value, arm: &str) -> Option<f64> {
    d.pointer(&format!("/arms/{arm}/avg_tokens"))
        .and_then(Value::as_f64)
}

/// `static / RAG / CrabPath corrected / CrabPath myopic` accuracies.
fn accuracies(d: &Value) -> Option<String> {
    let arms = ["static", "rag", "crabpath_corrected", "crabpath_myopic"];
    let v: Option<Vec<String>> = arms
        .iter()
        .map(|a| {
            d.pointer(&format!("/arms/{a}/accuracy"))
                .and_then(Value::as_f64)
                .map(|x| format!("{x:.3}"))
        })
        .collect();
    v.map(|v| v.join(" / "))
}

/// Table 3's experiments: (result stem, row label prefix).
const TABLE_3: [(&str, &str); 5] = [
    ("context_bloat", "Context Bloat"),
    ("gate_bloat", "Gate Bloat"),
    ("stale_context", "Stale Context"),
    ("negation", "Negation"),
    ("procedure", "Procedure"),
];

/// The episodes whose weights Table 6 prints.
const TABLE_6: [usize; 6] = [2, 3, 5, 10, 13, 15];

/// Table 7's experiments: (result stem, row label prefix).
const TABLE_7: [(&str, &str); 4] = [
    ("context_bloat", "Context Bloat"),
    ("gate_bloat", "Gate Bloat"),
    ("deploy_pipeline", "Deploy Pipeline"),
    ("negation", "Negation"),
];

/// The arms whose characters Tables 3 and 7 show: (arm, column label).
const ARMS: [(&str, &str); 3] = [
    ("static", "static"),
    ("rag", "RAG"),
    ("crabpath_corrected", "CrabPath"),
];

fn deploy_weight(d: &Value, episode: usize, key: &str) -> Option<String> {
    d.pointer(&format!("/episodes/{}/{key}", episode - 1))
        .and_then(Value::as_f64)
        .map(py_float_repr)
}

/// First episode after which w(deploy_root → `key`) satisfies `pred`.
fn first_episode(d: &Value, key: &str, pred: fn(f64) -> bool) -> Option<String> {
    let eps = d.get("episodes")?.as_array()?;
    let hit = eps
        .iter()
        .position(|e| e.get(key).and_then(Value::as_f64).is_some_and(pred));
    Some(hit.map_or("never".into(), |i| (i + 1).to_string()))
}

/// `cargo run --release -p sims -- v2 run`.
pub const COMMAND: &str = "cargo run --release -p sims -- v2 run";

fn table(number: u32, title: &str, figure: Option<&str>, columns: &str, rows: Vec<Row>) -> Table {
    Table {
        paper: Paper::CrabPath,
        number,
        title: title.into(),
        command: COMMAND.into(),
        figure: figure.map(str::to_string),
        columns: columns.into(),
        rows,
    }
}

/// Seed 000's Tables 3, 4, 6 and 7 (Table 5 has no public code: [`NOT_PRODUCED`]) with
/// their paper and reference values from `results/v2/expected.json`. Values are
/// node-content characters per turn ("tokens" in the paper). Reference values are the
/// reference runner's outputs (`results/reference/v2/`).
pub fn tables() -> Vec<Table> {
    expected::fill_v2(definition())
}

/// What does not match between the tables' rows and their expected values
/// (`results/v2/expected.json`): rows without values, values without a row. `sims v2
/// check` fails on any.
pub fn expected_problems() -> Vec<String> {
    expected::coverage(
        expected::V2_PATH,
        &expected::v2().tables,
        &expected::defined(&definition(), None),
    )
}

/// [`tables`] without the numbers: each table's rows and how to read our value.
fn definition() -> Vec<Table> {
    let mut t3 = Vec::new();
    for (name, label) in TABLE_3 {
        for (arm, col) in ARMS {
            t3.push(row(name, &format!("{label}: {col}"), avg(arm)));
        }
        t3.push(row(name, &format!("{label}: reduction"), |d| {
            let (s, c) = (avg_of(d, "static")?, avg_of(d, "crabpath_corrected")?);
            Some(format!("{:.0}%", 100.0 * (1.0 - c / s)))
        }));
        t3.push(row(
            name,
            &format!("{label}: accuracy static / RAG / CrabPath corrected / myopic"),
            accuracies,
        ));
    }
    let cost = |arm: &'static str| {
        move |d: &Value| avg_of(d, arm).map(|c| format!("${:.3}", c * 15.0 / 1e6))
    };
    let t4 = vec![
        row(
            "context_bloat",
            "Static context cost (chars x $15/M)",
            cost("static"),
        ),
        row(
            "context_bloat",
            "CrabPath context cost (chars x $15/M)",
            cost("crabpath_corrected"),
        ),
        row(
            "context_bloat",
            "CrabPath router cost (200 tok x $0.30/M)",
            |_| Some("not measured: no router call is made".into()),
        )
        .kind(Kind::Uncomparable),
    ];
    let mut t6 = Vec::new();
    for ep in TABLE_6 {
        t6.push(row(
            DEPLOY_SIM,
            &format!("episode {ep}: w(check_tests)"),
            move |d| deploy_weight(d, ep, "w_check_tests"),
        ));
        t6.push(row(
            DEPLOY_SIM,
            &format!("episode {ep}: w(skip_tests)"),
            move |d| deploy_weight(d, ep, "w_skip_tests"),
        ));
    }
    t6.push(row(
        DEPLOY_SIM,
        "safe path reflex (w > 0.8) from episode",
        |d| first_episode(d, "w_check_tests", |w| w > 0.8),
    ));
    t6.push(row(
        DEPLOY_SIM,
        "shortcut dormant (w < 0.3) from episode",
        |d| first_episode(d, "w_skip_tests", |w| w < 0.3),
    ));
    let mut t7 = Vec::new();
    for (name, label) in TABLE_7 {
        for (arm, col) in ARMS {
            t7.push(row(name, &format!("{label}: {col}"), avg(arm)));
        }
    }
    vec![
        table(
            3,
            "Context efficiency across benchmark tasks",
            Some("v2/four_arms.png"),
            "mean node-content characters loaded per turn (the paper's \"tokens\"); reduction = 1 − CrabPath/static",
            t3,
        ),
        table(
            4,
            "Two-tier cost comparison (router + context)",
            None,
            "dollars per turn from Table 3's Context Bloat characters",
            t4,
        ),
        table(
            6,
            "Deploy pipeline weight trajectory",
            Some("v2/deploy_simulation.png"),
            "w(deploy_root → check_tests / skip_tests) after the episode",
            t6,
        ),
        table(
            7,
            "When documents are semantically similar, RAG degrades to static loading",
            Some("v2/four_arms.png"),
            "mean node-content characters loaded per turn",
            t7,
        ),
    ]
}

/// Seed-000 tables the harness does not produce, with the reason.
pub const NOT_PRODUCED: [(u32, &str); 1] = [(
    5,
    "Giraffe test trajectory: not produced, no public code (the reference repository's experiment plan says it came from a private directory; every public giraffe run goes the other way: w(giraffe) rises, no crossover)",
)];

/// Resolves and checks the data directory: it must hold `crabpath-v2/`.
pub fn data_dir(flag: Option<&Path>) -> Result<PathBuf> {
    let dir = crabpath_v2::data::resolve_data_dir(flag);
    if !dir.join("crabpath-v2").is_dir() {
        bail!(
            "no crabpath-v2/ in the data directory {} (pass --data-dir or set CRABPATH_DATA_DIR to a directory holding crabpath-v2/; datasets/README.md says how to get it)",
            dir.display()
        );
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_has_the_papers_numbers_and_every_number_a_row() {
        let problems = expected_problems();
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn layout_has_every_experiment_per_profile_and_one_study() {
        let all = jobs(&Profile::ALL);
        assert_eq!(all.len(), 2 * (EXPERIMENTS.len() + 1) + 1);
        assert_eq!(all[0].rel(), Path::new("paper/context_bloat.json.gz"));
        assert_eq!(all[8].rel(), Path::new("paper/deploy_simulation.json"));
        assert_eq!(
            all.last().unwrap().rel(),
            Path::new("corrected_vs_myopic.json.gz")
        );
        assert!(jobs(&[Profile::Paper])
            .iter()
            .all(|j| j.item != Item::Study));
    }

    #[test]
    fn a_changed_value_is_named_by_its_path() {
        let doc: Value = serde_json::json!({"arms": {"static": {"avg_tokens": 6066.0}}});
        let stored = text(&doc);
        assert_eq!(compare_text(&stored, &doc).unwrap(), Checked::Same);
        let fresh: Value = serde_json::json!({"arms": {"static": {"avg_tokens": 6067.0}}});
        match compare_text(&stored, &fresh).unwrap() {
            Checked::Differs(d) => {
                assert!(d[0].starts_with("arms.static.avg_tokens: 6066.0"), "{d:?}")
            }
            Checked::Same => panic!("a change went unnoticed"),
        }
    }

    #[test]
    fn gzip_round_trip_and_the_table_extractors() {
        let tmp = std::env::temp_dir().join(format!("sims-v2-{}", std::process::id()));
        let doc: Value = serde_json::json!({"arms": {"static": {"avg_tokens": 546.0}}});
        let p = write(&tmp, Path::new("paper/x.json.gz"), &doc).unwrap();
        assert_eq!(crate::runner::read_text(&p).unwrap(), text(&doc));
        std::fs::remove_dir_all(&tmp).unwrap();
        let t = tables();
        assert_eq!(t.iter().map(|t| t.number).collect::<Vec<_>>(), [3, 4, 6, 7]);
        let r = t[0].row("Negation: static").unwrap();
        assert_eq!((r.extract)(&doc).as_deref(), Some("546.0"));
    }
}
