//! Neurogenesis: the novelty gate, automatic node ids and the seed connection of a new
//! node (seed 000 §5; reference `crabpath/neurogenesis.py`, commit b028ad9, unchanged
//! through e752b95). Death is [`crate::graph::Graph::consolidate`].
//!
//! The code's gate differs from the paper's: the bands are 0.28 / 0.58 / 0.60 (the
//! paper's 0.30 / 0.85 appear in no code), with a dead band 0.58 < top1 < 0.60 that is
//! neither known nor novel, and a blocked-phrase rule that can never fire because every
//! blocked phrase has fewer than 3 tokens and is caught by the token rule first. The
//! corrected profile closes the dead band and checks blocked phrases first.

use sha1::{Digest, Sha1};

use crate::graph::{Graph, Id};

/// Phrases the gate refuses to turn into nodes.
pub const BLOCKED_PHRASES: [&str; 10] = [
    "hello", "thanks", "yes", "no", "ok", "hi", "bye", "got it", "sure", "yeah",
];

/// Gate thresholds and rule order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NoveltyConfig {
    /// top1 ≥ this is "known" (0.60).
    pub known_threshold: f64,
    /// Lower end of the novel band (0.28).
    pub novel_min: f64,
    /// Upper end of the novel band, inclusive (0.58 in the reference).
    pub novel_max: f64,
    /// top1 below this is "noise" (0.28).
    pub noise_threshold: f64,
    /// Queries with fewer tokens are blocked (3).
    pub min_tokens: usize,
    /// Whether the blocked-phrase rule runs before the token-count rule (corrected) or
    /// after it, where it is unreachable (reference).
    pub blocked_phrases_first: bool,
}

impl NoveltyConfig {
    /// The reference gate.
    pub fn paper() -> NoveltyConfig {
        NoveltyConfig {
            known_threshold: 0.60,
            novel_min: 0.28,
            novel_max: 0.58,
            noise_threshold: 0.28,
            min_tokens: 3,
            blocked_phrases_first: false,
        }
    }

    /// The gate without the dead band (novel up to, excluding, the known threshold) and
    /// with a reachable blocked-phrase rule.
    pub fn corrected() -> NoveltyConfig {
        NoveltyConfig {
            novel_max: f64::from_bits(0.60f64.to_bits() - 1),
            blocked_phrases_first: true,
            ..NoveltyConfig::paper()
        }
    }
}

/// The gate's band.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Band {
    /// Too short or a blocked phrase.
    Blocked,
    /// A node already covers the query.
    Known,
    /// Nothing is similar enough to matter.
    Noise,
    /// In the novel band: create a node.
    Novel,
    /// Between the novel band and the known threshold.
    NoveltyMiss,
}

impl Band {
    /// The reference's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Band::Blocked => "blocked",
            Band::Known => "known",
            Band::Noise => "noise",
            Band::Novel => "novel",
            Band::NoveltyMiss => "novelty_miss",
        }
    }
}

/// The gate's verdict (reference `NoveltyResult`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Novelty {
    /// Whether to create a node.
    pub should_create: bool,
    /// top1 (0.0 when blocked or when there were no hits).
    pub top_score: f64,
    /// The band.
    pub band: Band,
    /// Whether the query was blocked.
    pub blocked: bool,
    /// `too_few_tokens`, `blocked_phrase`, `outside_novel_band` or none.
    pub reason: Option<&'static str>,
}

/// The normalised query: runs of `[A-Za-z0-9']`, each lower-cased, joined by one space.
pub fn normalize(text: &str) -> String {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '\''))
        .filter(|t| !t.is_empty())
        .map(|t| t.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `auto:` + the first 12 hex digits of SHA-1 of the normalised text.
pub fn auto_id(query: &str) -> String {
    let digest = Sha1::digest(normalize(query).as_bytes());
    format!("auto:{}", &hex::encode(digest)[..12])
}

/// Assesses a query given the score of its best raw hit (`None` when there was none).
pub fn assess_novelty(query: &str, top1: Option<f64>, config: &NoveltyConfig) -> Novelty {
    let norm = normalize(query);
    let tokens = norm.split_whitespace().count();
    let blocked = |reason| Novelty {
        should_create: false,
        top_score: 0.0,
        band: Band::Blocked,
        blocked: true,
        reason: Some(reason),
    };
    let is_phrase = BLOCKED_PHRASES.contains(&norm.as_str());
    if config.blocked_phrases_first && is_phrase {
        return blocked("blocked_phrase");
    }
    if tokens < config.min_tokens {
        return blocked("too_few_tokens");
    }
    if is_phrase {
        return blocked("blocked_phrase");
    }
    let top = top1.unwrap_or(0.0);
    let verdict = |band, should_create, reason| Novelty {
        should_create,
        top_score: top,
        band,
        blocked: false,
        reason,
    };
    if top >= config.known_threshold {
        verdict(Band::Known, false, None)
    } else if top < config.noise_threshold {
        verdict(Band::Noise, false, None)
    } else if config.novel_min <= top && top <= config.novel_max {
        verdict(Band::Novel, true, None)
    } else {
        verdict(Band::NoveltyMiss, false, Some("outside_novel_band"))
    }
}

/// Seed connection: an edge `seed -> new_node` of `weight` (0.15 in the adapter) from
/// every seed other than the node itself, replacing existing edges.
pub fn connect_new_node(graph: &mut Graph, new_node: &str, seeds: &[String], weight: f64) {
    for s in seeds {
        if s != new_node {
            graph.add_edge(s, new_node, weight);
        }
    }
}

/// The id of an auto node in `graph`, if present.
pub fn auto_node(graph: &Graph, query: &str) -> Option<Id> {
    graph.id(&auto_id(query)).filter(|&i| graph.contains(i))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_ids_of_the_spec() {
        // Reference `crabpath/neurogenesis.py::deterministic_auto_id` (b028ad9); the same ids are in
        // results/reference/v2/b028ad9/neurogenesis_vectors.json.
        assert_eq!(auto_id("giraffe codeword sequence"), "auto:5092bf85cad2");
        assert_eq!(
            auto_id("  Giraffe concept for codeword  "),
            "auto:cd19ddc6f571"
        );
        assert_eq!(auto_id(""), "auto:da39a3ee5e6b");
    }

    #[test]
    fn corrected_gate_fixes_the_dead_band_and_the_blocked_rule() {
        // Quirks log Q-NEURO-GAP (0.59 -> novelty_miss) and Q-NEURO-BLOCK.
        let p = NoveltyConfig::paper();
        let c = NoveltyConfig::corrected();
        let q = "giraffe codeword sequence";
        assert_eq!(assess_novelty(q, Some(0.59), &p).band, Band::NoveltyMiss);
        assert_eq!(assess_novelty(q, Some(0.59), &c).band, Band::Novel);
        assert_eq!(assess_novelty(q, Some(0.5999999), &c).band, Band::Novel);
        assert_eq!(assess_novelty(q, Some(0.60), &c).band, Band::Known);
        assert_eq!(
            assess_novelty("hello", None, &p).reason,
            Some("too_few_tokens")
        );
        assert_eq!(
            assess_novelty("hello", None, &c).reason,
            Some("blocked_phrase")
        );
        assert_eq!(
            assess_novelty("got it", None, &c).reason,
            Some("blocked_phrase")
        );
    }
}
