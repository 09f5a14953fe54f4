//! The aggregate of a simulation run over several seeds (`multi_seed`, the last key of a
//! corrected-profile document).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// `multi_seed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MultiSeed {
    /// The seeds, in run order.
    pub seeds: Vec<u64>,
    /// The seed of the document the aggregate is appended to (the first).
    pub document_seed: Option<u64>,
    /// How the intervals are computed.
    pub interval: String,
    /// Headline metric → its values over the seeds.
    pub metrics: IndexMap<String, SeedMetric>,
    /// Each seed's claim verdict (`PASS`, `FAIL`, `N/A`).
    pub claim_verdicts: Vec<String>,
    /// The share of seeds with a checkable claim whose claim holds (`null`: none).
    pub claim_holds_share: Option<f64>,
    /// Aggregated series (mean and 95 % band per point); no simulation writes them
    /// today.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<IndexMap<String, SeriesBand>>,
}

/// A series aggregated over the seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesBand {
    /// x values (default: 1, 2, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<Vec<f64>>,
    /// Means.
    pub mean: Vec<f64>,
    /// Lower ends of the 95 % band.
    pub ci95_low: Vec<f64>,
    /// Upper ends.
    pub ci95_high: Vec<f64>,
    /// x axis label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x_label: Option<String>,
    /// y axis label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y_label: Option<String>,
}

/// One headline metric over the seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeedMetric {
    /// Where the metric is read in each seed's document (a JSON pointer: the metric's
    /// definition, recorded with it).
    pub pointer: String,
    /// Per seed (`null` where the seed's document lacks it).
    pub values: Vec<Option<f64>>,
    /// Seeds with a value.
    pub n: usize,
    /// Mean.
    pub mean: Option<f64>,
    /// Sample standard deviation.
    pub std: Option<f64>,
    /// Lower end of the 95 % t interval.
    pub ci95_low: Option<f64>,
    /// Upper end.
    pub ci95_high: Option<f64>,
}

impl MultiSeed {
    /// How many seeds' claims hold, of how many: `(holds, seeds)`.
    pub fn claim_holds(&self) -> (usize, usize) {
        let pass = self.claim_verdicts.iter().filter(|v| *v == "PASS").count();
        (pass, self.claim_verdicts.len())
    }

    /// The claim's verdict over the seeds: `PASS` only when it holds in every seed,
    /// `FAIL` when it fails in one or more, `N/A` when some seed has no checkable claim
    /// and none fails (or there is no seed). The document's own `claim.met` is one
    /// seed's verdict; this is the verdict of the claim as a statement about the runs.
    pub fn claim_verdict(&self) -> &'static str {
        let (holds, seeds) = self.claim_holds();
        if seeds > 0 && holds == seeds {
            "PASS"
        } else if self.claim_verdicts.iter().any(|v| v == "FAIL") {
            "FAIL"
        } else {
            "N/A"
        }
    }

    /// [`MultiSeed::claim_verdict`] with the count: `FAIL (holds in 157/200 seeds)`.
    pub fn claim_verdict_text(&self) -> String {
        let (holds, seeds) = self.claim_holds();
        format!("{} (holds in {holds}/{seeds} seeds)", self.claim_verdict())
    }

    /// How many seeds' claims hold, of the seeds with a checkable claim (`PASS` or
    /// `FAIL`); `None` when no seed has one.
    pub fn checkable_claim_holds(&self) -> Option<(usize, usize)> {
        let checkable = self
            .claim_verdicts
            .iter()
            .filter(|v| *v == "PASS" || *v == "FAIL")
            .count();
        let pass = self.claim_verdicts.iter().filter(|v| *v == "PASS").count();
        (checkable > 0).then_some((pass, checkable))
    }
}

impl SeedMetric {
    /// Whether the metric aggregates a single-predicate claim's value.
    pub fn is_claim_value(&self) -> bool {
        self.pointer == "/claim/value"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(verdicts: &[&str]) -> MultiSeed {
        MultiSeed {
            seeds: (0..verdicts.len() as u64).collect(),
            document_seed: Some(0),
            interval: String::new(),
            metrics: IndexMap::new(),
            claim_verdicts: verdicts.iter().map(|v| v.to_string()).collect(),
            claim_holds_share: None,
            series: None,
        }
    }

    #[test]
    fn the_claim_passes_over_the_seeds_only_when_it_holds_in_every_seed() {
        assert_eq!(with(&["PASS", "PASS"]).claim_verdict(), "PASS");
        let one_fails = with(&["PASS", "FAIL", "PASS"]);
        assert_eq!(one_fails.claim_verdict(), "FAIL");
        assert_eq!(one_fails.claim_verdict_text(), "FAIL (holds in 2/3 seeds)");
        assert_eq!(with(&["PASS", "N/A"]).claim_verdict(), "N/A");
        assert_eq!(with(&["N/A", "FAIL"]).claim_verdict(), "FAIL");
        assert_eq!(with(&[]).claim_verdict(), "N/A");
    }
}
