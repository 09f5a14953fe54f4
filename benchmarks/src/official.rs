//! The MultiHop-RAG benchmark's own retrieval metrics (Tang & Yang, "MultiHop-RAG:
//! Benchmarking Retrieval-Augmented Generation for Multi-Hop Queries", 2024; their
//! repository `yixuantt/MultiHop-RAG`, `retrieval_evaluate.py::calculate_metrics`):
//! Hits@4, Hits@10, MAP@10 and MRR@10 of retrieved corpus chunks against a query's evidence
//! facts.
//!
//! This is **not** what `bench run --dataset multihop-rag` reports (evidence-article recall
//! over the pooled evidence facts, `results/bench/README.md`); it is the scoring the official
//! protocol applies to chunks of `corpus.json`. The rules, as the official script applies
//! them:
//!
//! * spaces and newlines are deleted from every evidence fact and every retrieved text;
//! * a retrieved chunk is relevant when some evidence fact is a substring of it;
//! * Hits@k (k = 4, 10): 1 when a relevant chunk is among the first k;
//! * MRR@10: 1 / the rank of the first relevant chunk within the first 10, else 0;
//! * MAP@10: at each relevant rank r ≤ 10, the number of evidence facts found there for the
//!   first time (by their normalised text) divided by r, summed, divided by
//!   min(number of evidence items, 10) — the script's own form, not the textbook average
//!   precision (a chunk holding two new facts counts 2 / r);
//! * every metric is averaged over the queries given (the script skips `null_query` rows;
//!   a query without evidence scores 0 here, where the script would divide by zero).
//!
//! The official chunking (`simple_retrieval.py`: llama-index `SentenceSplitter` with
//! `chunk_size = 256` tokens over each article's body, the title, publication date and
//! source prepended as metadata) is [`crate::chunk`]; the run mode that retrieves chunks
//! and reports these metrics is [`crate::official_run`] (`bench run --dataset multihop-rag
//! --corpus FILE`).

/// The four official metrics, each a mean over queries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EvidenceMetrics {
    /// Hits@4.
    pub hits_at_4: f64,
    /// Hits@10.
    pub hits_at_10: f64,
    /// MAP@10 (the official script's form; see the module docs).
    pub map_at_10: f64,
    /// MRR@10.
    pub mrr_at_10: f64,
}

/// Deletes spaces and newlines (the official script's normalisation).
pub fn normalise(text: &str) -> String {
    text.chars().filter(|&c| c != ' ' && c != '\n').collect()
}

/// Per query `(hit@4, hit@10, AP@10, RR@10)` of `retrieved` texts (best first) against the
/// `gold` evidence facts.
pub fn score_query<S: AsRef<str>, G: AsRef<str>>(retrieved: &[S], gold: &[G]) -> [f64; 4] {
    let gold: Vec<String> = gold.iter().map(|g| normalise(g.as_ref())).collect();
    let (mut hit4, mut hit10, mut ap, mut first) = (false, false, 0.0, None);
    let mut found: Vec<&str> = Vec::new();
    for (i, text) in retrieved.iter().take(10).enumerate() {
        let rank = i + 1;
        let text = normalise(text.as_ref());
        if !gold.iter().any(|g| text.contains(g.as_str())) {
            continue;
        }
        hit10 = true;
        hit4 |= rank <= 4;
        first.get_or_insert(rank);
        let mut new = 0usize;
        for g in &gold {
            if text.contains(g.as_str()) && !found.contains(&g.as_str()) {
                new += 1;
                found.push(g);
            }
        }
        ap += new as f64 / rank as f64;
    }
    let denom = gold.len().min(10);
    [
        f64::from(u8::from(hit4)),
        f64::from(u8::from(hit10)),
        if denom > 0 { ap / denom as f64 } else { 0.0 },
        first.map_or(0.0, |r| 1.0 / r as f64),
    ]
}

/// The official metrics over queries: `retrieved[q]` (texts, best first) against `gold[q]`
/// (evidence facts). Empty input gives zeros.
pub fn evidence_metrics<S: AsRef<str>, G: AsRef<str>>(
    retrieved: &[Vec<S>],
    gold: &[Vec<G>],
) -> EvidenceMetrics {
    let n = retrieved.len().min(gold.len());
    let mut sum = [0.0; 4];
    for (r, g) in retrieved.iter().zip(gold) {
        for (s, x) in sum.iter_mut().zip(score_query(r, g)) {
            *s += x;
        }
    }
    let mean = |x: f64| if n > 0 { x / n as f64 } else { 0.0 };
    EvidenceMetrics {
        hits_at_4: mean(sum[0]),
        hits_at_10: mean(sum[1]),
        map_at_10: mean(sum[2]),
        mrr_at_10: mean(sum[3]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three hand-made queries; every expected number is worked out in the comments from the
    /// rules in the module docs.
    #[test]
    fn official_metrics_on_a_hand_made_fixture() {
        // q1: facts "Ab", "cd" (after deleting spaces); ranks 2 ("zzAb": "Ab" new, 1/2) and 4
        //     ("cdAb": only "cd" new, 1/4) are relevant: AP = (1/2 + 1/4) / 2 = 0.375,
        //     hit@4 = hit@10 = 1, RR = 1/2.
        // q2: fact "e" first at rank 6: hit@4 = 0, hit@10 = 1, AP = (1/6) / 1, RR = 1/6.
        // q3: fact "f" at rank 11 only: everything 0 (the first 10 count).
        let retrieved = vec![
            vec!["xx", "zz A b", "q", "c d\nAb"],
            vec!["1", "2", "3", "4", "5", "the e", "e again"],
            vec!["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "f"],
        ];
        let gold = vec![vec!["A b", "c d"], vec!["e"], vec!["f"]];
        let per = score_query(&retrieved[0], &gold[0]);
        assert_eq!(per, [1.0, 1.0, 0.375, 0.5]);
        assert_eq!(score_query(&retrieved[2], &gold[2]), [0.0; 4]);
        let m = evidence_metrics(&retrieved, &gold);
        assert_eq!(m.hits_at_4, 1.0 / 3.0);
        assert_eq!(m.hits_at_10, 2.0 / 3.0);
        assert!((m.map_at_10 - (0.375 + 1.0 / 6.0) / 3.0).abs() < 1e-15);
        assert!((m.mrr_at_10 - (0.5 + 1.0 / 6.0) / 3.0).abs() < 1e-15);
        // a chunk holding both facts of a query counts 2 / rank; no evidence scores 0
        assert_eq!(score_query(&["Ab cd"], &["Ab", "cd"]), [1.0, 1.0, 1.0, 1.0]);
        assert_eq!(score_query(&["x"], &[] as &[&str]), [0.0; 4]);
        let none: Vec<Vec<&str>> = Vec::new();
        assert_eq!(evidence_metrics(&none, &none).hits_at_10, 0.0);
    }
}
