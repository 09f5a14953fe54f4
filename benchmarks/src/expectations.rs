//! Regression expectations: the headline numbers of the committed reports, with tolerances,
//! as data (`results/bench/expectations.json`), enforced by `bench check` on top of its exact
//! comparison — the "two-click reproduction" idea of Anserini's regression files (Lin et
//! al., "Toward reproducible baselines: the open-source IR reproducibility challenge", ECIR
//! 2016).
//!
//! The file maps each report file name (its provenance: the committed results file the
//! numbers were taken from) to what the report must say — dataset, protocol, graph builder,
//! embedder — and, per method and metric, the expected mean with a tolerance:
//!
//! ```json
//! {
//!   "about": "...",
//!   "reports": {
//!     "hotpotqa-sample1100-clean-minilm.json": {
//!       "dataset": "HotPotQA", "protocol": "clean", "graph": "reference", "embedder": "minilm",
//!       "tolerance": 0.001,
//!       "metrics": {"bm25_topk": {"recall_at_10": 0.8213}}
//!     }
//!   }
//! }
//! ```
//!
//! A number passes when `|got − expected| ≤ tolerance`. `bench check` checks the fresh
//! report when it re-ran one, else the committed report, and fails naming the report,
//! dataset, protocol, graph, embedder, method, metric, the expected value, the tolerance and
//! what it got. `bench check --update` never edits this file: a changed number must be
//! changed here by hand, on purpose.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use results::bench::AnyReport;
use serde::Deserialize;

use crate::error::{Error, Result};

/// The file name of the expectations in a results directory.
pub const FILE_NAME: &str = "expectations.json";

/// The JSON files of a results directory that are not reports: the expectations and
/// the paper's numbers of its tables (`expected.json`, which `report` reads).
pub const NOT_REPORTS: [&str; 2] = [FILE_NAME, "expected.json"];

/// The expectations file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expectations {
    /// What the file is and how its numbers were made.
    #[serde(default)]
    pub about: String,
    /// Report file name → its expectations.
    pub reports: IndexMap<String, ReportExpectation>,
}

/// What one report must say.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportExpectation {
    /// The report's `dataset`.
    pub dataset: String,
    /// The report's `protocol`.
    pub protocol: String,
    /// The report's `graph_builder`.
    pub graph: String,
    /// The report's `embedder`.
    pub embedder: String,
    /// Largest accepted `|got − expected|` for every number of this report.
    pub tolerance: f64,
    /// Method → metric → expected mean (`method_metrics.<method>.<metric>`).
    pub metrics: IndexMap<String, IndexMap<String, f64>>,
}

impl Expectations {
    /// Reads and validates the file (tolerances finite and ≥ 0, numbers finite).
    pub fn load(path: &Path) -> Result<Expectations> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let e: Expectations = serde_json::from_str(&text).map_err(|e| Error::Json {
            file: path.to_path_buf(),
            row: None,
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        for (name, r) in &e.reports {
            if !(r.tolerance.is_finite() && r.tolerance >= 0.0) {
                return Err(Error::Usage(format!(
                    "{}: reports.{name}.tolerance must be a finite number ≥ 0, got {}",
                    path.display(),
                    r.tolerance
                )));
            }
            for (m, metrics) in &r.metrics {
                for (k, v) in metrics {
                    if !v.is_finite() {
                        return Err(Error::Usage(format!(
                            "{}: reports.{name}.metrics.{m}.{k} must be a finite number",
                            path.display()
                        )));
                    }
                }
            }
        }
        Ok(e)
    }

    /// How many numbers the file pins.
    pub fn numbers(&self) -> usize {
        self.reports
            .values()
            .map(|r| r.metrics.values().map(IndexMap::len).sum::<usize>())
            .sum()
    }

    /// Every failure of `report` (the file `name`) against its expectations, one line each;
    /// empty when it passes or has no expectations.
    pub fn failures(&self, name: &str, report: &AnyReport) -> Vec<String> {
        self.reports
            .get(name)
            .map_or_else(Vec::new, |r| r.failures(name, report))
    }
}

impl ReportExpectation {
    fn failures(&self, name: &str, report: &AnyReport) -> Vec<String> {
        let mut out = Vec::new();
        for (field, got, want) in [
            ("dataset", &report.dataset, &self.dataset),
            ("protocol", &report.protocol, &self.protocol),
            ("graph", &report.graph_builder, &self.graph),
            ("embedder", &report.embedder, &self.embedder),
        ] {
            if got != want {
                out.push(format!(
                    "expectation failed: {name}: {field}: expected {want}, the report says {got}"
                ));
            }
        }
        let who = format!(
            "{} / {} / {} / {}",
            self.dataset, self.protocol, self.graph, self.embedder
        );
        for (method, metrics) in &self.metrics {
            for (metric, &want) in metrics {
                let got = report
                    .method_metrics()
                    .and_then(|m| m.get(method))
                    .and_then(|m| m.get(metric))
                    .copied();
                let ok = got.is_some_and(|g| (g - want).abs() <= self.tolerance);
                if !ok {
                    let got = got.map_or_else(|| "(absent)".to_string(), |g| format!("{g:.6}"));
                    out.push(format!(
                        "expectation failed: {name}: {who}: {method} {metric}: expected {want} ± \
                         {}, got {got}",
                        self.tolerance
                    ));
                }
            }
        }
        out
    }
}

/// Where `bench check` looks for the expectations: `explicit`, else `results/`
/// [`FILE_NAME`] when it exists; `None` when neither is given nor present.
pub fn locate(explicit: Option<&Path>, results: &Path) -> Option<PathBuf> {
    match explicit {
        Some(p) => Some(p.to_path_buf()),
        None => Some(results.join(FILE_NAME)).filter(|p| p.is_file()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use results::bench::Sections;
    use serde_json::json;

    fn expectations() -> Expectations {
        serde_json::from_value(json!({
            "reports": {"r.json": {
                "dataset": "HotPotQA", "protocol": "clean", "graph": "reference",
                "embedder": "hash-v1", "tolerance": 0.001,
                "metrics": {"bm25_topk": {"recall_at_10": 0.8213, "mrr": 0.5}}
            }}
        }))
        .unwrap()
    }

    /// A committed clean report with `bm25_topk`'s means set to these.
    fn report(recall: f64) -> AnyReport {
        let text = include_str!("../../results/bench/hotpotqa-first103-clean-hash-v1.json");
        let mut r: AnyReport = serde_json::from_str(text).unwrap();
        assert_eq!(
            (r.dataset.as_str(), r.protocol.as_str(), r.embedder.as_str()),
            ("HotPotQA", "clean", "hash-v1")
        );
        let Sections::Stream(s) = &mut r.sections else {
            panic!("a clean report has the stream sections")
        };
        s.method_metrics.insert(
            "bm25_topk".into(),
            [
                ("recall_at_10".to_string(), recall),
                ("mrr".to_string(), 0.5004),
            ]
            .into_iter()
            .collect(),
        );
        r
    }

    #[test]
    fn within_tolerance_passes_and_outside_names_everything() {
        let e = expectations();
        assert_eq!(e.numbers(), 2);
        assert!(e.failures("r.json", &report(0.8221)).is_empty());
        assert!(e.failures("other.json", &report(0.0)).is_empty());
        assert_eq!(
            e.failures("r.json", &report(0.8100)),
            [
                "expectation failed: r.json: HotPotQA / clean / reference / hash-v1: bm25_topk \
              recall_at_10: expected 0.8213 ± 0.001, got 0.810000"
            ]
        );
        let mut r = report(0.8213);
        r.embedder = "minilm".into();
        if let Sections::Stream(s) = &mut r.sections {
            s.method_metrics["bm25_topk"].shift_remove("mrr");
        }
        assert_eq!(
            e.failures("r.json", &r),
            [
                "expectation failed: r.json: embedder: expected hash-v1, the report says minilm",
                "expectation failed: r.json: HotPotQA / clean / reference / hash-v1: bm25_topk \
                 mrr: expected 0.5 ± 0.001, got (absent)",
            ]
        );
    }

    #[test]
    fn bad_files_are_rejected_with_their_path() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(FILE_NAME);
        std::fs::write(&p, r#"{"reports": {"r.json": {"dataset": "x"}}}"#).unwrap();
        let err = Expectations::load(&p).unwrap_err().to_string();
        assert!(err.contains(FILE_NAME), "{err}");
        let bad = json!({"reports": {"r.json": {"dataset": "x", "protocol": "p", "graph": "g",
                        "embedder": "e", "tolerance": -1.0, "metrics": {}}}});
        std::fs::write(&p, bad.to_string()).unwrap();
        let err = Expectations::load(&p).unwrap_err().to_string();
        assert!(err.contains("tolerance"), "{err}");
        assert_eq!(locate(None, dir.path()), Some(p.clone()));
        assert_eq!(locate(None, &dir.path().join("none")), None);
    }
}
