//! `bench peers`' outputs (issue 29, "Measured, side by side in one run"): `peers.json`
//! (the command, the input, every system's configuration and numbers, the paired tests)
//! and `PEERS.md` (the table overall and by category, a note line per system).
//!
//! Recall is the LoCoMo paper's ([`crate::locomo::paper`]: turn-level, evidence as
//! released, a question without evidence counts 1), computed by the same functions as the
//! product's headline row. The ranking test is CrabPath against each peer on recall@10
//! ([`crate::significance::test_all_pairs`]: paired randomization test, Holm, bootstrap
//! interval), on the systems that finished every conversation.

use serde_json::{json, Value};

use super::record::{r1, Record, Scores};
use super::run::SystemRun;
use crate::locomo::data::Locomo;
use crate::locomo::paper::{slices, DEFINITION, KS};
use crate::repo::metrics::percentile;

/// One system's numbers: those derived from its per-question results (the record's),
/// and those of the run's environment.
#[derive(Debug, Clone)]
pub struct Row {
    /// Recall, questions, the recall@10 series, mean characters ([`Record::scores`]).
    pub scores: Scores,
    /// Turns stored per second of store calls.
    pub turns_per_s: f64,
    /// Search round trip, median and 95th percentile, ms.
    pub p50_ms: f64,
    /// See `p50_ms`.
    pub p95_ms: f64,
}

/// The numbers of `run`, system `s` of `rec`, over the conversations it finished.
pub fn row(rec: &Record, s: usize, run: &SystemRun) -> Row {
    let ms: Vec<f64> = run.answers.iter().flatten().map(|a| a.ms).collect();
    Row {
        scores: rec.scores(s),
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

/// `peers.json` and `PEERS.md` of `runs` on `data`; `rec` is their record
/// ([`Record::from_runs`]), from which every per-question number is derived.
pub fn render(data: &Locomo, runs: &[SystemRun], rec: &Record, meta: &Meta) -> (Value, String) {
    let conversations = data.conversations.len();
    let total = rec.questions();
    let rows: Vec<Row> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| row(rec, i, r))
        .collect();
    let scores: Vec<Scores> = rows.iter().map(|r| r.scores.clone()).collect();
    // CrabPath (when it finished) first, then the peers that finished
    let tested = rec.tested();
    let tests = rec.paired_tests(&scores, meta.tests);
    let systems: Vec<Value> = runs
        .iter()
        .zip(&rows)
        .enumerate()
        .map(|(i, (r, row))| {
            let a = &r.adapter;
            let derived = rec.system_json(i, &row.scores);
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
                "complete": derived["complete"],
                "conversations_finished": derived["conversations_finished"],
                "status": status(r, conversations),
                "questions": derived["questions"],
                "recall": derived["recall"],
                "questions_per_slice": derived["questions_per_slice"],
                "mean_chars_per_question": derived["mean_chars_per_question"],
                "ingest_turns_per_s": r1(row.turns_per_s),
                "query_ms_p50": r1(row.p50_ms),
                "query_ms_p95": r1(row.p95_ms),
                "peak_rss_mib": r1(r.peak_rss_kib as f64 / 1024.0),
                "seconds": r1(r.seconds),
            })
        })
        .collect();
    let doc = json!({
        "command": meta.command,
        "definition": DEFINITION,
        "input": {"file": meta.input.0, "sha256": meta.input.1, "conversations": conversations, "questions": total},
        "limit": meta.limit,
        "ks": KS,
        "systems": systems,
        "paired_tests": rec.tests_json(tests.clone(), meta.tests),
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
            row.scores
                .recall
                .get("all")
                .map_or("–".to_string(), |v| format!("{:.3}", v[i]))
        };
        let name = if r.complete(conversations) {
            r.adapter.name.clone()
        } else {
            format!("{} (FAILED)", r.adapter.name)
        };
        let measured = |x: f64, digits: usize| {
            if row.scores.r10.is_empty() {
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
            measured(row.scores.mean_chars, 0),
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
            .and_then(|r| r.scores.counts.get(*s))
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
                &row.scores
                    .recall
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
    if let Some((&b, peers)) = tested.split_first() {
        let cr = &rows[b];
        let ahead = tests.iter().all(|t| t.diff > 0.0);
        let faster = peers.iter().all(|&i| cr.p50_ms <= rows[i].p50_ms);
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
