//! `bench peers`' outputs (issue 29, "Measured, side by side in one run"): `peers.json`
//! (the command, the input, every system's configuration and numbers, the paired tests)
//! and `PEERS.md` (the table overall and by category, a note line per system).
//!
//! Recall is the LoCoMo paper's ([`crate::locomo::paper`]: turn-level, evidence as
//! released, a question without evidence counts 1), computed by the same functions as the
//! product's headline row. The ranking test is CrabPath against each peer on recall@10
//! ([`crate::significance::test_all_pairs`]: paired randomization test, Holm, bootstrap
//! interval), on the systems that finished every conversation.

use indexmap::IndexMap;
use serde_json::{json, Value};

use super::run::{questions, SystemRun};
use crate::locomo::data::{Category, Locomo};
use crate::locomo::paper::{recall_row, slices, table, DEFINITION, KS};
use crate::repo::metrics::percentile;
use crate::significance::{test_all_pairs, tests_block, TEST_METRIC};

/// The name of the row the others are tested against.
pub const CRABPATH: &str = "crabpath";

/// One system's numbers.
#[derive(Debug, Clone)]
pub struct Row {
    /// Slice → recall at [`KS`].
    pub recall: IndexMap<String, Vec<f64>>,
    /// Slice → questions.
    pub counts: IndexMap<String, usize>,
    /// recall@10 per question (the paired tests' series).
    pub r10: Vec<f64>,
    /// Mean characters of the search results' text per question.
    pub mean_chars: f64,
    /// Turns stored per second of store calls.
    pub turns_per_s: f64,
    /// Search round trip, median and 95th percentile, ms.
    pub p50_ms: f64,
    /// See `p50_ms`.
    pub p95_ms: f64,
}

/// The numbers of `run` over the conversations it finished.
pub fn row(data: &Locomo, run: &SystemRun) -> Row {
    let qs = questions(data, run.answers.len());
    let answers: Vec<_> = run.answers.iter().flatten().collect();
    let rows: Vec<(Category, [f64; 4])> = qs
        .iter()
        .zip(&answers)
        .map(|((c, ev), a)| (*c, recall_row(ev, &a.ids)))
        .collect();
    let (recall, counts) = table(&rows);
    let n = answers.len().max(1) as f64;
    let ms: Vec<f64> = answers.iter().map(|a| a.ms).collect();
    Row {
        recall,
        counts,
        r10: rows.iter().map(|(_, r)| r[1]).collect(),
        mean_chars: answers.iter().map(|a| a.chars as f64).sum::<f64>() / n + 0.0,
        turns_per_s: if run.stored.1 > 0.0 {
            run.stored.0 as f64 / run.stored.1
        } else {
            0.0
        },
        p50_ms: percentile(&ms, 0.5),
        p95_ms: percentile(&ms, 0.95),
    }
}

/// The run's settings, for the JSON and the table's heading.
#[derive(Debug, Clone)]
pub struct Meta {
    /// The command that reproduces the run.
    pub command: String,
    /// The input file's name and SHA-256.
    pub input: (String, String),
    /// Results asked for (`${limit}`).
    pub limit: usize,
    /// `(permutations, resamples, seed)` of the paired tests.
    pub tests: (usize, usize, u64),
}

fn r3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn r1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// One line about how a system ran (errors, failure).
fn status(run: &SystemRun, conversations: usize) -> String {
    let mut s = Vec::new();
    if let Some((conv, e)) = &run.failure {
        s.push(format!(
            "FAILED in {conv} after {} of {conversations} conversations: {e}",
            run.answers.len()
        ));
    }
    for (what, (n, first)) in [
        ("store calls refused", &run.store_errors),
        ("search calls refused", &run.search_errors),
        ("results unreadable", &run.parse_errors),
    ] {
        if *n > 0 {
            s.push(format!(
                "{n} {what} (first: {})",
                first.as_deref().unwrap_or("")
            ));
        }
    }
    s.join("; ")
}

/// `peers.json` and `PEERS.md` of `runs` on `data`.
pub fn render(data: &Locomo, runs: &[SystemRun], meta: &Meta) -> (Value, String) {
    let conversations = data.conversations.len();
    let total: usize = data.conversations.iter().map(|c| c.questions.len()).sum();
    let rows: Vec<Row> = runs.iter().map(|r| row(data, r)).collect();
    // CrabPath against each peer that finished, on recall@10
    let complete: Vec<usize> = (0..runs.len())
        .filter(|&i| runs[i].complete(conversations))
        .collect();
    let base = complete
        .iter()
        .copied()
        .find(|&i| runs[i].adapter.name == CRABPATH);
    let mut tests = Vec::new();
    if let Some(b) = base {
        let order: Vec<usize> = std::iter::once(b)
            .chain(complete.iter().copied().filter(|&i| i != b))
            .collect();
        let series: Vec<Vec<f64>> = order.iter().map(|&i| rows[i].r10.clone()).collect();
        let (perm, res, seed) = meta.tests;
        let all = test_all_pairs(&series, perm, res, seed);
        let against: Vec<_> = all.into_iter().filter(|t| t.a == 0).collect();
        let written: Vec<_> = against
            .iter()
            .map(|t| {
                t.written(
                    |i| runs[order[i]].adapter.name.as_str(),
                    |i| rows[order[i]].recall["all"][1],
                )
            })
            .collect();
        tests = written;
    }
    let systems: Vec<Value> = runs
        .iter()
        .zip(&rows)
        .map(|(r, row)| {
            let a = &r.adapter;
            json!({
                "name": a.name,
                "version": a.version,
                "package": a.package,
                "reported_by_server": r.reported,
                "notes": a.notes,
                "rewrite": a.search.rewrite,
                "adapter": a.path.file_name().map(|f| f.to_string_lossy().to_string()).unwrap_or_default(),
                "configuration": {
                    "setup": a.setup.iter().map(|s| json!({"command": s.command, "env": s.env})).collect::<Vec<_>>(),
                    "server": {"command": a.server.command, "env": a.server.env,
                               "startup_timeout_s": a.server.startup_timeout(), "call_timeout_s": a.server.call_timeout()},
                    "store": {"tool": a.store.tool, "arguments": Value::Object(super::adapter::render(&a.store.arguments, &|_| None))},
                    "search": {"tool": a.search.tool, "arguments": Value::Object(super::adapter::render(&a.search.arguments, &|_| None))},
                    "results": {"format": a.results.format, "items": a.results.items, "id": a.results.id, "id_regex": a.results.id_regex},
                },
                "complete": r.complete(conversations),
                "conversations_finished": r.answers.len(),
                "status": status(r, conversations),
                "questions": row.r10.len(),
                "recall": row.recall.iter().map(|(k, v)| (k.clone(), json!(v.iter().map(|x| r3(*x)).collect::<Vec<_>>()))).collect::<serde_json::Map<_, _>>(),
                "questions_per_slice": row.counts,
                "mean_chars_per_question": r1(row.mean_chars),
                "ingest_turns_per_s": r1(row.turns_per_s),
                "query_ms_p50": r1(row.p50_ms),
                "query_ms_p95": r1(row.p95_ms),
                "peak_rss_mib": r1(r.peak_rss_kib as f64 / 1024.0),
                "seconds": r1(r.seconds),
            })
        })
        .collect();
    let block = tests_block(
        TEST_METRIC,
        total,
        "mean over questions of recall@10 (CrabPath) - recall@10 (peer)",
        "Holm over every pair of the systems that finished (only CrabPath's pairs written)",
        None,
        meta.tests,
        tests.clone(),
    );
    let doc = json!({
        "command": meta.command,
        "definition": DEFINITION,
        "input": {"file": meta.input.0, "sha256": meta.input.1, "conversations": conversations, "questions": total},
        "limit": meta.limit,
        "ks": KS,
        "systems": systems,
        "paired_tests": serde_json::to_value(&block).unwrap_or(Value::Null),
    });
    // the Markdown
    let mut md = String::new();
    md.push_str("# Peer memories on LoCoMo through MCP (issue 29)\n\n");
    md.push_str(&format!("Generated by `{}`.\n\n", meta.command));
    md.push_str(&format!(
        "{} conversations, {total} questions ({}; sha256 {}). Every turn stored through each \
         system's own store tool, every question asked unaltered through its search tool \
         (limit {}). Recall: {DEFINITION}.\n\n",
        conversations,
        meta.input.0,
        &meta.input.1[..meta.input.1.len().min(12)],
        meta.limit
    ));
    md.push_str("| system | version | R@5 | R@10 | R@25 | R@50 | chars / question | ingest turns/s | query p50 ms | query p95 ms | peak RSS MiB |\n");
    md.push_str("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (r, row) in runs.iter().zip(&rows) {
        let rec = |i: usize| {
            row.recall
                .get("all")
                .map_or("–".to_string(), |v| format!("{:.3}", v[i]))
        };
        let name = if r.complete(conversations) {
            r.adapter.name.clone()
        } else {
            format!("{} (FAILED)", r.adapter.name)
        };
        let measured = |x: f64, digits: usize| {
            if row.r10.is_empty() {
                "–".to_string()
            } else {
                format!("{x:.digits$}")
            }
        };
        md.push_str(&format!(
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.adapter.version,
            rec(0),
            rec(1),
            rec(2),
            rec(3),
            measured(row.mean_chars, 0),
            measured(row.turns_per_s, 1),
            measured(row.p50_ms, 1),
            measured(row.p95_ms, 1),
            measured(r.peak_rss_kib as f64 / 1024.0, 0)
        ));
    }
    md.push_str("\nRecall@10 by category (questions in brackets):\n\n| system |");
    let sl = slices();
    for s in &sl {
        let n = rows
            .first()
            .and_then(|r| r.counts.get(*s))
            .copied()
            .unwrap_or(0);
        md.push_str(&format!(" {s} ({n}) |"));
    }
    md.push_str("\n|---|");
    md.push_str(&"---|".repeat(sl.len()));
    md.push('\n');
    for (r, row) in runs.iter().zip(&rows) {
        md.push_str(&format!("| {} |", r.adapter.name));
        for s in &sl {
            md.push_str(
                &row.recall
                    .get(*s)
                    .map_or(" – |".to_string(), |v| format!(" {:.3} |", v[1])),
            );
        }
        md.push('\n');
    }
    md.push_str("\nCrabPath against each peer on recall@10 (paired randomization test, Holm; paired bootstrap 95% interval):\n\n");
    if tests.is_empty() {
        md.push_str("- no test: CrabPath and at least one peer must finish every conversation\n");
    }
    for t in &tests {
        md.push_str(&format!(
            "- {} − {}: {:+.3} [{:+.3}, {:+.3}], p (Holm) = {:.4}{}\n",
            t.a,
            t.b,
            t.diff,
            t.ci95_low,
            t.ci95_high,
            t.p_holm,
            if t.significant {
                ""
            } else {
                " (not significant)"
            }
        ));
    }
    if let Some(b) = base {
        let cr = &rows[b];
        let ahead = tests.iter().all(|t| t.diff > 0.0);
        let faster = complete
            .iter()
            .filter(|&&i| i != b)
            .all(|&i| cr.p50_ms <= rows[i].p50_ms);
        md.push_str(&format!(
            "\nTargets: CrabPath leads every peer on recall@10: {}; at least as fast at p50: {}.\n",
            if ahead { "met" } else { "NOT met" },
            if faster { "met" } else { "NOT met" }
        ));
    }
    md.push_str("\nSystems:\n\n");
    for r in runs {
        let a = &r.adapter;
        let st = status(r, conversations);
        md.push_str(&format!(
            "- **{}** {} (`{}`; the server reports `{}`; search rewrite: {}): {}{}\n",
            a.name,
            a.version,
            a.package,
            r.reported,
            a.search.rewrite,
            a.notes,
            if st.is_empty() {
                String::new()
            } else {
                format!(" — {st}")
            }
        ));
    }
    (doc, md)
}
