//! What `bench repo` prints (reference `benchmarks/run_benchmark.py::main` and
//! `_print_table`, commit 134c676), and how two of its reports are compared.
//!
//! The report itself is [`results::repo::Report`]: the reference's keys in its order,
//! written like Python's `json.dumps(indent=2)` ([`pyformat::pyjson`], no trailing
//! newline) by the one report writer ([`crate::report`]). Timing fields (`generated_at`,
//! `init_timing_ms.*`, `methods.*.latency_ms.*`, `methods.*.per_query[*].latency_ms`) are
//! ours; `environment.python` is `null` (no Python ran) and `environment.platform` names
//! our OS and architecture ([`environment`]). Protocols other than the paper's add keys
//! after `methods` (`protocol`, `paired`, `verdict`) and per-method `budget_scores`; the
//! paper protocol writes none of them.

use serde_json::Value;

use results::repo::{Environment, InitTiming, Latency, Scores};

use super::error::{internal, Result};

/// This machine, as `environment` records it.
pub fn environment() -> Environment {
    Environment {
        python: None,
        platform: format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH),
        machine_notes: "Benchmarks are timing-sensitive and may vary across machines.".into(),
    }
}

/// The four preamble lines (reference `main`); `split_ms`/`embed_ms` printed with 3
/// decimals.
pub fn preamble_head(workspace: &str) -> String {
    format!("Splitting workspace: {workspace}\n")
}

/// Lines 2–4 of the preamble.
pub fn preamble_tail(nodes: usize, chunks: usize, t: InitTiming) -> String {
    format!(
        "Graph nodes: {nodes} | Chunks: {chunks}\nInit timings: split={:.3}ms embed={:.3}ms\n\
         Benchmark timings are machine-dependent and vary by hardware, OS, and runtime \
         conditions.\n",
        t.split, t.embed
    )
}

/// The reference's table (`_print_table`): an empty line, the header, 62 dashes, one
/// row per method (name padded to 22, never cut; the header does not line up with the
/// values, as in the reference).
pub fn table(rows: &[(&str, Scores, Latency)]) -> String {
    let mut s = String::from(
        "\nMethod                  Recall@3 Recall@5 Precision@3 MRR    p50_ms p95_ms\n",
    );
    s.push_str(&"-".repeat(62));
    s.push('\n');
    for (name, sc, lat) in rows {
        s.push_str(&format!(
            "{name:<22} {:.3}    {:.3}     {:.3}       {:.3}  {:7.3} {:7.3}\n",
            sc.recall_3, sc.recall_5, sc.precision_3, sc.mrr, lat.p50_ms, lat.p95_ms
        ));
    }
    s
}

/// Removes what legitimately differs between two runs of the same benchmark — timing
/// (`generated_at`, `init_timing_ms`, every `latency_ms`), machine (`environment`) and
/// path (`workspace`, `query_source`) fields — leaving what must be identical. The
/// result has the shape of the reference's `results.stripped.json` files committed under
/// `results/reference/repo-bench/`.
pub fn strip_volatile(report: &mut Value) {
    if let Value::Object(top) = report {
        for k in [
            "generated_at",
            "workspace",
            "query_source",
            "init_timing_ms",
            "environment",
        ] {
            top.shift_remove(k);
        }
        if let Some(Value::Object(methods)) = top.get_mut("methods") {
            for m in methods.values_mut() {
                if let Value::Object(m) = m {
                    m.shift_remove("latency_ms");
                    if let Some(Value::Array(pq)) = m.get_mut("per_query") {
                        for q in pq {
                            if let Value::Object(q) = q {
                                q.shift_remove("latency_ms");
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The printed output without what differs between runs: the workspace path of the
/// first line, the `Init timings` line, the two latency columns of the table and the
/// path after `Saved:`.
pub fn strip_volatile_stdout(stdout: &str) -> String {
    let mut out = String::new();
    for line in stdout.lines() {
        if line.starts_with("Splitting workspace: ") {
            out.push_str("Splitting workspace: <workspace>\n");
        } else if line.starts_with("Init timings: ") {
            continue;
        } else if line.starts_with("Saved: ") {
            out.push_str("Saved: <file>\n");
        } else {
            // a table row: name and four scores, then p50 and p95
            let fields: Vec<&str> = line.split_whitespace().collect();
            let is_row = fields.len() == 7 && fields[1..].iter().all(|f| f.parse::<f64>().is_ok());
            if is_row {
                let mut end = 0;
                for (i, (pos, _)) in line
                    .match_indices(|c: char| !c.is_whitespace())
                    .filter(|(pos, _)| *pos == 0 || line.as_bytes()[pos - 1] == b' ')
                    .enumerate()
                {
                    if i == 5 {
                        end = pos;
                        break;
                    }
                }
                out.push_str(line[..end].trim_end());
            } else {
                out.push_str(line);
            }
            out.push('\n');
        }
    }
    out
}

/// Reads a JSON file, gzip-compressed when its name ends in `.gz`.
pub fn read_json(path: &std::path::Path) -> Result<Value> {
    let bytes = std::fs::read(path).map_err(|e| super::error::RepoError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    let text = if path.extension().is_some_and(|e| e == "gz") {
        use std::io::Read as _;
        let mut s = String::new();
        flate2::read::MultiGzDecoder::new(bytes.as_slice())
            .read_to_string(&mut s)
            .map_err(|e| super::error::RepoError::Io {
                path: path.to_path_buf(),
                source: e,
            })?;
        s
    } else {
        String::from_utf8(bytes).map_err(internal)?
    };
    serde_json::from_str(&text).map_err(|e| internal(format!("{}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_the_reference_layout() {
        // rows of results/reference/repo-bench/134c676/stdout.txt
        let t = table(&[
            (
                "keyword_overlap",
                Scores::from([
                    0.23703703703703707,
                    0.4592592592592592,
                    0.1333333333333333,
                    0.272320025653359,
                ]),
                Latency {
                    p50_ms: 39.224,
                    p95_ms: 39.548,
                },
            ),
            (
                "crabpath_pg_with_replay",
                Scores::from([
                    0.23703703703703707,
                    0.4074074074074074,
                    0.1333333333333333,
                    0.2222222222222222,
                ]),
                Latency {
                    p50_ms: 73.19,
                    p95_ms: 78.983,
                },
            ),
        ]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "");
        assert_eq!(lines[1].len(), 74);
        assert_eq!(lines[2], "-".repeat(62));
        assert_eq!(
            lines[3],
            "keyword_overlap        0.237    0.459     0.133       0.272   39.224  39.548"
        );
        assert_eq!(
            lines[4],
            "crabpath_pg_with_replay 0.237    0.407     0.133       0.222   73.190  78.983"
        );
    }
}
