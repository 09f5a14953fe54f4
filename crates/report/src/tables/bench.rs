//! Specs of the benchmark tables (paper Tables 22–23) and the choice of bench run
//! that fills each column.
//!
//! The paper embedded with OpenAI `text-embedding-3-small`; our runs use `hash-v1`
//! (or a local neural embedder), so no row is compared — the columns sit side by side.
//! "Ours (paper profile)" = protocol `paper`, reference graph, core profile `paper`,
//! preferring the run that reproduces the shared edge objects (REPRODUCE.md
//! discrepancy B2);
//! "ours (corrected)" = protocol `clean`, preferring core profile `corrected`.

use serde_json::Value;

use sims::paper::extract::{fixed, opt};

use super::{Kind, Paper, RowSpec, Source, TableSpec};
use crate::data::{num, Doc, Profile, Results};

/// Reads a string field.
fn s<'a>(d: &'a Doc, ptr: &str) -> Option<&'a str> {
    d.opt(ptr).and_then(Value::as_str)
}

/// Score of a run for a column (higher is better; `None` = not eligible).
fn score(d: &Doc, dataset: &str, profile: Profile) -> Option<i64> {
    if s(d, "/dataset")? != dataset {
        return None;
    }
    if d.opt("/parameters/split").is_some_and(|v| !v.is_null()) {
        return None;
    }
    let protocol = s(d, "/protocol")?;
    let core = s(d, "/core_profile").unwrap_or("paper");
    let builder_ok = s(d, "/graph_builder").is_none_or(|b| b == "reference");
    let shared = d
        .opt("/parameters/shared_edge_state")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let hash = s(d, "/embedder").is_some_and(|e| e == "hash-v1");
    let full = d
        .opt("/dataset_queries")
        .and_then(num)
        .map_or(0, |n| n as i64);
    let mut sc = full.min(100_000);
    match profile {
        Profile::Paper => {
            if protocol != "paper" || core != "paper" || !builder_ok {
                return None;
            }
            sc += if shared { 10_000_000 } else { 0 };
        }
        Profile::Corrected => {
            if protocol != "clean" || !builder_ok {
                return None;
            }
            sc += if core == "corrected" { 10_000_000 } else { 0 };
            sc += if shared { 0 } else { 1_000_000 };
        }
    }
    Some(sc + if hash { 100_000 } else { 0 })
}

/// The bench run that fills a column for `dataset` (`HotPotQA`, `MultiHop-RAG`).
pub fn select<'a>(results: &'a Results, dataset: &str, profile: Profile) -> Option<&'a Doc> {
    results
        .bench
        .values()
        .filter_map(|d| score(d, dataset, profile).map(|sc| (sc, d)))
        .max_by_key(|(sc, _)| *sc)
        .map(|(_, d)| d)
}

/// A method's metrics, `/`-joined, 4 decimals; our method names are `crabpath_*`,
/// the paper's `openclawbrain_*`.
fn metrics(d: &Value, method: &str, names: &[&str]) -> Option<String> {
    let alt = method.replace("openclawbrain_", "crabpath_");
    let base = [method, alt.as_str()]
        .into_iter()
        .find(|m| opt(d, &format!("/method_metrics/{m}")).is_some())?;
    let v: Option<Vec<String>> = names
        .iter()
        .map(|n| fixed(d, &format!("/method_metrics/{base}/{n}"), 4))
        .collect();
    v.map(|v| v.join(" / "))
}

fn table(
    number: u32,
    title: &str,
    dataset: &'static str,
    slug: &str,
    names: &'static [&'static str],
    paper: [&str; 4],
) -> TableSpec {
    let methods = [
        "embedding_topk",
        "openclawbrain_cold",
        "openclawbrain_learning",
        "openclawbrain_pg_learning",
    ];
    TableSpec {
        paper: Paper::OpenClawBrain,
        number,
        title: title.into(),
        command: format!("cargo run --release -p bench -- run --dataset {slug} --protocol paper --shared-edge-state (and --protocol clean --core-profile corrected)"),
        figure: Some(format!("bench/{slug}-hash-v1-protocols.png")),
        columns: names.join(" / "),
        rows: methods
            .iter()
            .zip(paper)
            .map(|(m, p)| {
                let label = m.to_string();
                let m = m.to_string();
                RowSpec::new(Source::Bench(dataset), &label, p, "— (paper used OpenAI embeddings)", move |d| metrics(d, &m, names))
                    .kind(Kind::Uncomparable)
            })
            .collect(),
    }
}

/// Tables 22 (MultiHop-RAG) and 23 (HotPotQA).
pub fn specs() -> Vec<TableSpec> {
    vec![
        table(
            22,
            "Method metrics for MultiHop-RAG (max_hops=3, beam_width=4)",
            "MultiHop-RAG",
            "multihop-rag",
            &[
                "full_hit_rate",
                "partial_hit_rate",
                "evidence_recall_at_10",
                "mrr",
            ],
            [
                "0.5660 / 0.9800 / 0.8058 / 0.7942",
                "0.6430 / 0.9770 / 0.8224 / 0.7933",
                "0.4770 / 0.8530 / 0.6658 / 0.6916",
                "0.4070 / 0.7890 / 0.5900 / 0.6534",
            ],
        ),
        table(
            23,
            "Method metrics for HotPotQA distractor (max_hops=3, beam_width=4)",
            "HotPotQA",
            "hotpotqa",
            &[
                "sp_recall_at_5",
                "sp_recall_at_10",
                "single_sp_hit_at_5",
                "distractor_suppression",
                "mrr",
            ],
            [
                "0.6340 / 0.8080 / 0.9760 / 0.8202 / 0.8969",
                "0.9700 / 0.9840 / 0.9740 / 0.7623 / 0.8961",
                "0.9520 / 0.9840 / 0.9740 / 0.7656 / 0.8961",
                "0.8980 / 0.9780 / 0.9740 / 0.7519 / 0.8945",
            ],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn selection_prefers_the_reproducing_run() {
        let mk = |protocol: &str, core: &str, shared: bool| {
            json!({"dataset": "HotPotQA", "protocol": protocol, "core_profile": core, "embedder": "hash-v1",
                   "graph_builder": "reference", "dataset_queries": 500,
                   "parameters": {"shared_edge_state": shared, "split": null},
                   "method_metrics": {"crabpath_cold": {"sp_recall_at_5": 0.5}}})
        };
        let mut r = Results::default();
        for (k, v) in [
            ("a", mk("paper", "paper", false)),
            ("b", mk("paper", "paper", true)),
            ("c", mk("clean", "paper", false)),
            ("d", mk("clean", "corrected", false)),
        ] {
            r.bench.insert(k.into(), Doc::new(k, v));
        }
        assert_eq!(
            select(&r, "HotPotQA", Profile::Paper).map(|d| d.name.as_str()),
            Some("b")
        );
        assert_eq!(
            select(&r, "HotPotQA", Profile::Corrected).map(|d| d.name.as_str()),
            Some("d")
        );
        assert!(select(&r, "MultiHop-RAG", Profile::Paper).is_none());
        let d = &r.bench["b"];
        assert_eq!(
            metrics(&d.value, "openclawbrain_cold", &["sp_recall_at_5"]).as_deref(),
            Some("0.5000")
        );
    }
}
