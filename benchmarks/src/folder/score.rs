//! Scoring a folder benchmark by page (issue 28, "A question set on a real folder"): an
//! answer is a ranked list of node ids; a node's page is its file, so the answer's pages
//! are the files of its nodes in rank order, each kept at its first place. A question is
//! answered at rank r when the r-th page is one of its acceptable files.
//!
//! success@k is the share of questions answered at a rank ≤ k; MRR the mean of 1 / r
//! (0 for a question not answered within the pages the answer lists).

use crabpath::graph::Graph;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// Every node's page: node id → its `file` (nodes of no file are left out).
pub fn page_map(graph: &Graph) -> FxHashMap<String, String> {
    graph
        .nodes()
        .filter_map(|(_, n)| n.file().map(|f| (n.id.clone(), f.to_string())))
        .collect()
}

/// The pages of a ranked answer: `page_of(id)` for each id in order (ids without a page
/// are skipped), each page kept at its first place.
pub fn ranked_pages<'a, I, F>(ids: I, page_of: F) -> Vec<String>
where
    I: IntoIterator<Item = &'a str>,
    F: Fn(&str) -> Option<String>,
{
    let mut pages: Vec<String> = Vec::new();
    for id in ids {
        if let Some(p) = page_of(id) {
            if !pages.contains(&p) {
                pages.push(p);
            }
        }
    }
    pages
}

/// The 1-based rank of the first acceptable page among `pages`, `None` if none is.
pub fn first_hit(pages: &[String], acceptable: &[String]) -> Option<usize> {
    pages
        .iter()
        .position(|p| acceptable.contains(p))
        .map(|i| i + 1)
}

/// The scores of one arm over a question set.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Scores {
    /// Questions scored.
    pub questions: usize,
    /// Share answered by the first page.
    pub success_at_1: f64,
    /// Share answered within the first 5 pages.
    pub success_at_5: f64,
    /// Share answered within the first 10 pages.
    pub success_at_10: f64,
    /// Mean reciprocal rank of the first acceptable page.
    pub mrr: f64,
}

impl Scores {
    /// The scores of the first-hit ranks of every question ([`first_hit`]); an empty
    /// list scores 0 everywhere.
    pub fn of(ranks: &[Option<usize>]) -> Scores {
        let n = ranks.len();
        let share = |k: usize| {
            if n == 0 {
                0.0
            } else {
                ranks.iter().filter(|r| r.is_some_and(|r| r <= k)).count() as f64 / n as f64
            }
        };
        let mrr = if n == 0 {
            0.0
        } else {
            ranks
                .iter()
                .map(|r| r.map_or(0.0, |r| 1.0 / r as f64))
                .sum::<f64>()
                / n as f64
        };
        Scores {
            questions: n,
            success_at_1: share(1),
            success_at_5: share(5),
            success_at_10: share(10),
            mrr,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn pages_keep_their_first_place_and_skip_ids_without_a_page() {
        let page = |id: &str| {
            id.split("::")
                .next()
                .filter(|f| *f != "none")
                .map(String::from)
        };
        let ids = [
            "b.md::2", "a.md::0", "b.md::0", "none::1", "c.md::4", "a.md::3",
        ];
        assert_eq!(ranked_pages(ids, page), s(&["b.md", "a.md", "c.md"]));
    }

    #[test]
    fn scores_count_ranks_within_k_and_average_reciprocal_ranks() {
        // ranks 1, 3, 7 and one miss: success@1 1/4, @5 2/4, @10 3/4,
        // MRR (1 + 1/3 + 1/7 + 0) / 4
        let pages = s(&["x", "y", "a", "z"]);
        assert_eq!(first_hit(&pages, &s(&["a", "q"])), Some(3));
        assert_eq!(first_hit(&pages, &s(&["q"])), None);
        let sc = Scores::of(&[Some(1), Some(3), Some(7), None]);
        assert_eq!(sc.questions, 4);
        assert_eq!(sc.success_at_1, 0.25);
        assert_eq!(sc.success_at_5, 0.5);
        assert_eq!(sc.success_at_10, 0.75);
        assert!((sc.mrr - (1.0 + 1.0 / 3.0 + 1.0 / 7.0) / 4.0).abs() < 1e-12);
        assert_eq!(Scores::of(&[]).mrr, 0.0);
    }
}
