//! The per-question record of a `bench peers` run (issue 29, acceptance: "`bench check`
//! covers the committed JSON"): beside `peers.json`, `peers-questions.txt.xz` keeps, for
//! every system and question, what the derived numbers need — the question's category,
//! how many evidence ids it has, and how many of them were among the first 5/10/25/50
//! turn ids returned — plus each system's total characters. From it [`Record::scores`]
//! gives the recall tables, the recall@10 series of the paired tests and the mean
//! characters; `bench peers` writes those numbers through the same functions, and
//! `bench check` ([`crate::check::check_peers`]) recomputes them and compares.
//!
//! The text (benchmarks/README.md, "Peer memories through MCP", gives the format):
//!
//! ```text
//! crabpath peers record v1
//! ks 5 10 25 50
//! categories <one digit per question: its category code 1-5>
//! evidence <one base-36 digit per question: its evidence ids as released, duplicates kept>
//! system <name> complete=<0|1> conversations=<finished> chars=<total characters returned>
//! hits <per answered question four base-36 digits: evidence ids found in the first 5, 10, 25, 50>
//! ```
//!
//! (one `system`/`hits` pair per system, in the run's order), xz-compressed by
//! [`crate::trec::xz`] (deterministic bytes). About 5 KB for the full five-system run.

use std::path::Path;

use indexmap::IndexMap;
use serde_json::{json, Map, Value};

use super::run::{questions, SystemRun};
use crate::error::{Error, Result};
use crate::locomo::data::{Category, Locomo};
use crate::locomo::paper::{recall_row, table, KS};
use crate::significance::{test_all_pairs, tests_block, TEST_METRIC};

/// The record's file name, beside `peers.json`.
pub const RECORD_FILE: &str = "peers-questions.txt.xz";

/// The name of the row the others are tested against.
pub const CRABPATH: &str = "crabpath";

const HEADER: &str = "crabpath peers record v1";
const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";

/// One system's per-question results.
#[derive(Debug, Clone, PartialEq)]
pub struct SystemRecord {
    /// The adapter's name.
    pub name: String,
    /// Whether it finished every conversation.
    pub complete: bool,
    /// Conversations finished.
    pub conversations: usize,
    /// Characters of the search results' text, summed over the questions answered.
    pub chars: u64,
    /// Per question answered: evidence ids among the first k turn ids, for each k of [`KS`].
    pub hits: Vec<[u8; 4]>,
}

/// Every question's category and evidence count, and every system's results.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Per question of the input, in order.
    pub categories: Vec<Category>,
    /// Per question: its evidence ids as released (duplicates kept).
    pub evidence: Vec<u8>,
    /// The systems, in the run's order.
    pub systems: Vec<SystemRecord>,
}

/// The numbers of one system that derive from its per-question results.
#[derive(Debug, Clone)]
pub struct Scores {
    /// Slice → recall at [`KS`].
    pub recall: IndexMap<String, Vec<f64>>,
    /// Slice → questions.
    pub counts: IndexMap<String, usize>,
    /// recall@10 per question (the paired tests' series).
    pub r10: Vec<f64>,
    /// Mean characters of the search results' text per question.
    pub mean_chars: f64,
}

/// `x` to 3 decimals (recall in the JSON).
pub fn r3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// `x` to 1 decimal (characters, rates, times in the JSON).
pub fn r1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn digit(n: usize, what: &str) -> Result<char> {
    DIGITS
        .get(n)
        .map(|&d| d as char)
        .ok_or_else(|| Error::Internal(format!("{RECORD_FILE}: {what} {n} is over 35")))
}

impl Record {
    /// The record of `runs` on `data`.
    pub fn from_runs(data: &Locomo, runs: &[SystemRun]) -> Result<Record> {
        let all = questions(data, data.conversations.len());
        let evidence = all
            .iter()
            .map(|(_, ev)| u8::try_from(ev.len()).ok().filter(|&n| n < 36))
            .collect::<Option<Vec<u8>>>()
            .ok_or_else(|| {
                Error::Internal(format!(
                    "{RECORD_FILE}: a question has over 35 evidence ids"
                ))
            })?;
        let systems = runs
            .iter()
            .map(|r| SystemRecord {
                name: r.adapter.name.clone(),
                complete: r.complete(data.conversations.len()),
                conversations: r.answers.len(),
                chars: r.answers.iter().flatten().map(|a| a.chars as u64).sum(),
                hits: all
                    .iter()
                    .zip(r.answers.iter().flatten())
                    .map(|((_, ev), a)| {
                        let row = recall_row(ev, &a.ids);
                        // recall_row is found / evidence; found is a whole number
                        let n = ev.len() as f64;
                        row.map(|x| {
                            if ev.is_empty() {
                                0
                            } else {
                                (x * n).round() as u8
                            }
                        })
                    })
                    .collect(),
            })
            .collect();
        Ok(Record {
            categories: all.iter().map(|(c, _)| *c).collect(),
            evidence,
            systems,
        })
    }

    /// Questions of the input.
    pub fn questions(&self) -> usize {
        self.categories.len()
    }

    /// The numbers of system `s` (recall as [`recall_row`] gives it: found / evidence, a
    /// question without evidence 1).
    pub fn scores(&self, s: usize) -> Scores {
        let sys = &self.systems[s];
        let rows: Vec<(Category, [f64; 4])> = self
            .categories
            .iter()
            .zip(&self.evidence)
            .zip(&sys.hits)
            .map(|((c, &n), h)| {
                let r = h.map(|x| if n == 0 { 1.0 } else { x as f64 / n as f64 });
                (*c, r)
            })
            .collect();
        let (recall, counts) = table(&rows);
        Scores {
            recall,
            counts,
            r10: rows.iter().map(|(_, r)| r[1]).collect(),
            mean_chars: sys.chars as f64 / sys.hits.len().max(1) as f64 + 0.0,
        }
    }

    /// The systems that finished, CrabPath first (when it finished; else none): the
    /// paired tests' order, and the rows [`super::report`]'s targets compare.
    pub fn tested(&self) -> Vec<usize> {
        let complete: Vec<usize> = (0..self.systems.len())
            .filter(|&i| self.systems[i].complete)
            .collect();
        let Some(b) = complete
            .iter()
            .copied()
            .find(|&i| self.systems[i].name == CRABPATH)
        else {
            return Vec::new();
        };
        std::iter::once(b)
            .chain(complete.into_iter().filter(|&i| i != b))
            .collect()
    }

    /// CrabPath against each peer that finished, on recall@10
    /// ([`test_all_pairs`]: Holm over every pair, only CrabPath's pairs kept), with
    /// `(permutations, resamples, seed)`.
    pub fn paired_tests(
        &self,
        scores: &[Scores],
        tests: (usize, usize, u64),
    ) -> Vec<results::bench::PairTest> {
        let order = self.tested();
        if order.is_empty() {
            return Vec::new();
        }
        let series: Vec<Vec<f64>> = order.iter().map(|&i| scores[i].r10.clone()).collect();
        let (perm, res, seed) = tests;
        test_all_pairs(&series, perm, res, seed)
            .into_iter()
            .filter(|t| t.a == 0)
            .map(|t| {
                t.written(
                    |i| self.systems[order[i]].name.as_str(),
                    |i| scores[order[i]].recall["all"][1],
                )
            })
            .collect()
    }

    /// `peers.json`'s `paired_tests` block.
    pub fn tests_json(
        &self,
        pairs: Vec<results::bench::PairTest>,
        tests: (usize, usize, u64),
    ) -> Value {
        let block = tests_block(
            TEST_METRIC,
            self.questions(),
            "mean over questions of recall@10 (CrabPath) - recall@10 (peer)",
            "Holm over every pair of the systems that finished (only CrabPath's pairs written)",
            None,
            tests,
            pairs,
        );
        serde_json::to_value(&block).unwrap_or(Value::Null)
    }

    /// The fields of system `s` in `peers.json` that derive from its per-question results.
    pub fn system_json(&self, s: usize, sc: &Scores) -> Map<String, Value> {
        let sys = &self.systems[s];
        let recall: Map<String, Value> = sc
            .recall
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    json!(v.iter().map(|x| r3(*x)).collect::<Vec<_>>()),
                )
            })
            .collect();
        let mut m = Map::new();
        m.insert("name".into(), json!(sys.name));
        m.insert("complete".into(), json!(sys.complete));
        m.insert("conversations_finished".into(), json!(sys.conversations));
        m.insert("questions".into(), json!(sc.r10.len()));
        m.insert("recall".into(), Value::Object(recall));
        m.insert("questions_per_slice".into(), json!(sc.counts));
        m.insert("mean_chars_per_question".into(), json!(r1(sc.mean_chars)));
        m
    }

    /// The record's text (see the module docs).
    pub fn to_text(&self) -> Result<String> {
        let mut t = format!(
            "{HEADER}\nks {}\ncategories ",
            KS.map(|k| k.to_string()).join(" ")
        );
        t.extend(self.categories.iter().map(|c| (b'0' + c.code()) as char));
        t.push_str("\nevidence ");
        for &n in &self.evidence {
            t.push(digit(n as usize, "evidence count")?);
        }
        for s in &self.systems {
            t.push_str(&format!(
                "\nsystem {} complete={} conversations={} chars={}\nhits ",
                s.name, s.complete as u8, s.conversations, s.chars
            ));
            for h in s.hits.iter().flatten() {
                t.push(digit(*h as usize, "hit count")?);
            }
        }
        t.push('\n');
        Ok(t)
    }

    /// Writes the record, xz-compressed, to `path`.
    pub fn write(&self, path: &Path) -> Result<()> {
        let bytes = crate::trec::xz(self.to_text()?.as_bytes())?;
        std::fs::write(path, bytes).map_err(|e| Error::io(path, e))
    }

    /// Reads a record written by [`Record::write`]; a malformed one is one line naming the
    /// file and the line.
    pub fn read(path: &Path) -> Result<Record> {
        Record::parse(&crate::trec::read_text(path)?)
            .map_err(|e| Error::Usage(format!("{}: {e}", path.display())))
    }

    /// Parses the record's text.
    pub fn parse(text: &str) -> std::result::Result<Record, String> {
        let mut lines = text.lines().enumerate();
        let mut next = |key: &str| -> std::result::Result<(usize, String), String> {
            let (i, l) = lines
                .next()
                .ok_or_else(|| format!("ends before its `{key}` line"))?;
            let rest = l
                .strip_prefix(key)
                .ok_or_else(|| format!("line {}: expected `{key}`", i + 1))?;
            Ok((i + 1, rest.trim_start().to_string()))
        };
        let value = |c: u8, line: usize| -> std::result::Result<u8, String> {
            DIGITS
                .iter()
                .position(|&d| d == c)
                .map(|p| p as u8)
                .ok_or_else(|| format!("line {line}: `{}` is not a base-36 digit", c as char))
        };
        next(HEADER)?;
        let (l, ks) = next("ks")?;
        if ks != KS.map(|k| k.to_string()).join(" ") {
            return Err(format!("line {l}: ks `{ks}`, expected {KS:?}"));
        }
        let (l, cats) = next("categories")?;
        let categories = cats
            .bytes()
            .map(|b| Category::from_code(b.wrapping_sub(b'0') as u64))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| format!("line {l}: a category is not 1-5"))?;
        let (l, ev) = next("evidence")?;
        let evidence = ev
            .bytes()
            .map(|b| value(b, l))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        if evidence.len() != categories.len() {
            return Err(format!(
                "line {l}: {} evidence counts for {} questions",
                evidence.len(),
                categories.len()
            ));
        }
        let mut systems = Vec::new();
        while let Ok((l, head)) = next("system") {
            let f: Vec<&str> = head.split(' ').collect();
            let field = |i: usize, key: &str| -> std::result::Result<u64, String> {
                f.get(i)
                    .and_then(|x| x.strip_prefix(key))
                    .and_then(|x| x.parse().ok())
                    .ok_or_else(|| format!("line {l}: expected `{key}<number>`"))
            };
            let (name, complete, conversations, chars) = (
                f[0].to_string(),
                field(1, "complete=")? == 1,
                field(2, "conversations=")? as usize,
                field(3, "chars=")?,
            );
            let (l, h) = next("hits")?;
            let d = h
                .bytes()
                .map(|b| value(b, l))
                .collect::<std::result::Result<Vec<_>, _>>()?;
            if d.len() % 4 != 0 || d.len() / 4 > categories.len() {
                return Err(format!(
                    "line {l}: {} hit digits, not 4 per question",
                    d.len()
                ));
            }
            let hits: Vec<[u8; 4]> = d.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();
            if let Some(q) = hits
                .iter()
                .zip(&evidence)
                .position(|(h, &n)| h.windows(2).any(|w| w[0] > w[1]) || h[3] > n)
            {
                return Err(format!(
                    "line {l}: question {q}'s hits {:?} do not grow with k within its {} evidence ids",
                    hits[q], evidence[q]
                ));
            }
            systems.push(SystemRecord {
                name,
                complete,
                conversations,
                chars,
                hits,
            });
        }
        Ok(Record {
            categories,
            evidence,
            systems,
        })
    }
}

/// Fields of a system that come from the run's environment: checked for presence and
/// shape (a number) only.
pub const ENVIRONMENT_NUMBERS: [&str; 5] = [
    "ingest_turns_per_s",
    "query_ms_p50",
    "query_ms_p95",
    "peak_rss_mib",
    "seconds",
];

/// What `bench check` compares for a `peers.json`.
#[derive(Debug, Default)]
pub struct Rederived {
    /// `(json path, stored value, value recomputed from the record)`, compared exactly.
    pub pairs: Vec<(String, Value, Value)>,
    /// Problems found without comparing (missing record, fields of the wrong shape).
    pub problems: Vec<String>,
}

/// `bench check` on a `peers.json` (`stored`, read from `json_path`): recomputes from the
/// record beside it every number that derives from per-question results (each system's
/// recall table, questions per slice, questions answered, mean characters, and the paired
/// tests with the block's own permutations, resamples and seed); the environment's
/// numbers ([`ENVIRONMENT_NUMBERS`]) and the version strings are checked for presence
/// and shape only. A missing record is a problem: the check fails until a run writes it.
pub fn rederive(json_path: &Path, stored: &Value) -> Result<Rederived> {
    let mut out = Rederived::default();
    let rp = json_path.with_file_name(RECORD_FILE);
    if !rp.exists() {
        out.problems.push(format!(
            "{RECORD_FILE}: missing: the per-question record `bench peers` writes beside \
             peers.json (a run before it wrote none); re-run `bench peers` to write both"
        ));
        return Ok(out);
    }
    let rec = Record::read(&rp)?;
    let tests = &stored["paired_tests"];
    let n = |k: &str| tests[k].as_u64();
    let Some(settings) = (match (n("permutations"), n("resamples"), n("seed")) {
        (Some(p), Some(r), Some(s)) => Some((p as usize, r as usize, s)),
        _ => None,
    }) else {
        out.problems
            .push("paired_tests: expected numbers permutations, resamples, seed".into());
        return Ok(out);
    };
    let empty = Vec::new();
    let systems = stored["systems"].as_array().unwrap_or(&empty);
    if systems.len() != rec.systems.len() {
        out.problems.push(format!(
            "systems: {} in peers.json, {} in {RECORD_FILE}",
            systems.len(),
            rec.systems.len()
        ));
        return Ok(out);
    }
    let mut pair = |path: String, s: &Value, f: Value| out.pairs.push((path, s.clone(), f));
    pair(
        "input.questions".into(),
        &stored["input"]["questions"],
        json!(rec.questions()),
    );
    let scores: Vec<Scores> = (0..rec.systems.len()).map(|s| rec.scores(s)).collect();
    for (s, (sys, sc)) in systems.iter().zip(&scores).enumerate() {
        for (k, fresh) in rec.system_json(s, sc) {
            pair(format!("systems[{s}].{k}"), &sys[&k], fresh);
        }
    }
    let pairs = rec.paired_tests(&scores, settings);
    pair(
        "paired_tests".into(),
        tests,
        rec.tests_json(pairs, settings),
    );
    for (s, sys) in systems.iter().enumerate() {
        for k in ENVIRONMENT_NUMBERS {
            if !sys[k].is_number() {
                out.problems.push(format!(
                    "systems[{s}].{k}: expected a number (from the run's environment; not re-derived)"
                ));
            }
        }
        for k in ["version", "reported_by_server"] {
            if !sys[k].is_string() {
                out.problems.push(format!(
                    "systems[{s}].{k}: expected a string (from the run's environment; not re-derived)"
                ));
            }
        }
    }
    Ok(out)
}
