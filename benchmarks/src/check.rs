//! `bench check`: re-run committed results and compare them exactly.
//!
//! For every report `*.json` in the results directory (default `results/bench`, optionally
//! narrowed with `--only GLOB`), in name order:
//!
//! 1. read the command line the report records (`configuration.command`) and plan it;
//! 2. skip it — saying what it needs — when the data directory lacks its dataset file, or,
//!    for `--embedder minilm`, when the model or the embedding cache of its texts is absent
//!    (`bench embed` fills the cache; so does `--embed-missing`, before the re-run);
//! 3. run it into the fresh directory (default `out/bench`, same file name, run files in
//!    `runs/`);
//! 4. compare every field of the two JSON files exactly except the
//!    [`ENVIRONMENT_FIELDS`], and the decompressed text of
//!    every run file and qrels the report names; for a LoCoMo product-path report, also its
//!    headline's paper table re-derived from the committed run file, qrels and question
//!    list ([`crate::locomo::headline::rederive_check`]);
//! 5. print one line per report: `ok: <file>`, `differs: <file>: <json.path>: <stored> →
//!    <fresh>` (one line per difference, the first [`MAX_DIFFS_SHOWN`]), or `skipped:
//!    <file>: needs <what>`.
//!
//! Then the regression expectations ([`crate::expectations`], `results/bench/expectations.json`
//! unless `--expectations` names another file): every number they pin is compared, within
//! its tolerance, with the fresh report (or with the committed one when the report was not
//! re-run); each failure prints `expectation failed: <file>: <dataset / protocol / graph /
//! embedder>: <method> <metric>: expected <x> ± <tol>, got <y>`. Without `--only`, an
//! expectation that names a report absent from the results directory fails too.
//!
//! With `--update`, every report that differs is replaced by its fresh copy (with the run
//! files it names); after a complete update (no `--only`, nothing skipped) run files that no
//! report names any more are removed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use globset::{Glob, GlobSet, GlobSetBuilder};
use indicatif::{ProgressBar, ProgressDrawTarget};
use results::bench::AnyReport;
use serde_json::Value;

use crate::catalog;
use crate::data::locate::DataDir;
use crate::embed::{cache_misses, EmbedderArg, ModelOpts, TextEmbedder};
use crate::engine::set_threads;
use crate::error::{Error, Result};
use crate::expectations::{self, Expectations};
use crate::plan::{RunArgs, RUNS_DIR};
use crate::protocol::Skip;
use crate::report::{save, ENVIRONMENT_FIELDS};
use crate::run::run_with;
use crate::trec;

/// Differences printed per report (the count of the rest is printed after them).
pub const MAX_DIFFS_SHOWN: usize = 20;

/// Arguments of `bench check`.
#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    /// Directory of the committed reports.
    #[arg(long, value_name = "DIR", default_value = "results/bench")]
    pub results: PathBuf,

    /// Where the fresh runs are written (a report's file name is kept).
    #[arg(long, value_name = "DIR", default_value = "out/bench")]
    pub fresh_dir: PathBuf,

    /// Check only the reports whose file name matches GLOB (`*` and `?` wildcards; may be
    /// given several times).
    #[arg(long, value_name = "GLOB")]
    pub only: Vec<String>,

    /// Regression expectations to enforce (default: `<results>/expectations.json` when it
    /// exists); a file given here must exist.
    #[arg(long, value_name = "FILE")]
    pub expectations: Option<PathBuf>,

    /// Replace each committed report that differs (and its run files) by the fresh one.
    #[arg(long)]
    pub update: bool,

    /// Count a report that cannot be re-run here (missing dataset, model or embedding
    /// cache) as a failure instead of skipping it (also when CRABPATH_REQUIRE_DATA=1).
    #[arg(long)]
    pub require_data: bool,

    /// Model and embedding cache for the all-MiniLM-L6-v2 reports.
    #[command(flatten)]
    pub model: ModelOpts,

    /// Fill the embedding cache of an all-MiniLM-L6-v2 report's texts before re-running it
    /// (progress bar with the time left on stderr), instead of skipping a report whose
    /// texts are not all cached. Needs the model (`bench fetch-model`).
    #[arg(long)]
    pub embed_missing: bool,

    /// Draw progress bars of the runs.
    #[arg(long)]
    pub progress: bool,

    /// Worker threads (0 = rayon's default: one per core). Results do not depend on it.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
}

/// The verdict on one report.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Every deterministic field and every run file is the same.
    Ok,
    /// These differences, each `<json.path or run file>: <stored> → <fresh>`.
    Differs(Vec<String>),
    /// Not re-run: what it needs.
    Skipped(String),
}

/// One checked report.
#[derive(Debug, Clone)]
pub struct Checked {
    /// File name of the report.
    pub name: String,
    /// What the check found.
    pub verdict: Verdict,
    /// Whether `--update` replaced the committed files.
    pub updated: bool,
    /// Seconds the re-run took.
    pub seconds: f64,
    /// Failed regression expectations, one line each.
    pub expectation_failures: Vec<String>,
}

/// The outcome of `bench check`.
#[derive(Debug, Clone, Default)]
pub struct CheckSummary {
    /// Every report looked at, in name order.
    pub checked: Vec<Checked>,
    /// Run files removed by a complete `--update`.
    pub removed: Vec<String>,
    /// Whether skipped reports count as failures.
    pub require_data: bool,
    /// The expectations file used and how many numbers it pins.
    pub expectations: Option<(PathBuf, usize)>,
    /// Expectations naming a report that is not in the results directory.
    pub orphan_expectations: Vec<String>,
}

impl CheckSummary {
    /// Whether the check failed: any difference, or any skip with `--require-data`.
    pub fn failed(&self) -> bool {
        !self.orphan_expectations.is_empty()
            || self.checked.iter().any(|c| {
                !c.expectation_failures.is_empty()
                    || match &c.verdict {
                        Verdict::Ok => false,
                        Verdict::Differs(_) => !c.updated,
                        Verdict::Skipped(_) => self.require_data,
                    }
            })
    }

    /// The final line: counts of each verdict.
    pub fn totals(&self) -> String {
        let count = |f: fn(&Verdict) -> bool| self.checked.iter().filter(|c| f(&c.verdict)).count();
        let updated = self.checked.iter().filter(|c| c.updated).count();
        let mut s = format!(
            "bench check: {} ok, {} differ, {} skipped",
            count(|v| matches!(v, Verdict::Ok)),
            count(|v| matches!(v, Verdict::Differs(_))),
            count(|v| matches!(v, Verdict::Skipped(_))),
        );
        match &self.expectations {
            Some((path, n)) => {
                let failed: usize = self
                    .checked
                    .iter()
                    .map(|c| c.expectation_failures.len())
                    .sum::<usize>()
                    + self.orphan_expectations.len();
                s.push_str(&format!(
                    "; expectations ({}, {n} numbers): {failed} failed",
                    path.display()
                ));
            }
            None => s.push_str("; no expectations file"),
        }
        if updated > 0 || !self.removed.is_empty() {
            s.push_str(&format!(
                "; {updated} updated, {} stale run files removed",
                self.removed.len()
            ));
        }
        s
    }
}

impl Checked {
    /// The lines printed for this report.
    pub fn lines(&self) -> Vec<String> {
        let mut v = self.verdict_lines();
        v.extend(self.expectation_failures.iter().cloned());
        v
    }

    fn verdict_lines(&self) -> Vec<String> {
        match &self.verdict {
            Verdict::Ok => vec![format!("ok: {}", self.name)],
            Verdict::Skipped(why) => vec![format!("skipped: {}: needs {why}", self.name)],
            Verdict::Differs(d) => {
                let mut v: Vec<String> = d
                    .iter()
                    .take(MAX_DIFFS_SHOWN)
                    .map(|x| format!("differs: {}: {x}", self.name))
                    .collect();
                if d.len() > MAX_DIFFS_SHOWN {
                    v.push(format!(
                        "differs: {}: ... and {} more differences",
                        self.name,
                        d.len() - MAX_DIFFS_SHOWN
                    ));
                }
                if self.updated {
                    v.push(format!("updated: {}", self.name));
                }
                v
            }
        }
    }
}

fn globs(patterns: &[String]) -> Result<Option<GlobSet>> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        b.add(Glob::new(p).map_err(|e| Error::Usage(format!("--only {p}: {e}")))?);
    }
    b.build()
        .map(Some)
        .map_err(|e| Error::Usage(format!("--only: {e}")))
}

/// The report files of `dir` (name order) that `only` selects.
fn reports(dir: &Path, only: &Option<GlobSet>) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    let mut files = Vec::new();
    for e in entries {
        let p = e.map_err(|e| Error::io(dir, e))?.path();
        let Some(name) = p.file_name().and_then(|s| s.to_str()) else {
            continue;
        };
        if p.is_file()
            && name.ends_with(".json")
            && !expectations::NOT_REPORTS.contains(&name)
            && only.as_ref().is_none_or(|g| g.is_match(name))
        {
            files.push(p);
        }
    }
    files.sort();
    Ok(files)
}

/// Runs `bench check`; `print` receives each report's lines as soon as it is done.
pub fn cmd_check(
    data_dir: &DataDir,
    a: &CheckArgs,
    mut print: impl FnMut(&Checked),
) -> Result<CheckSummary> {
    set_threads(a.threads);
    let only = globs(&a.only)?;
    let files = reports(&a.results, &only)?;
    let peers = peers_report(&a.results, &only);
    if files.is_empty() && peers.is_none() {
        return Err(Error::Usage(format!(
            "no report in {} matches{}",
            a.results.display(),
            if a.only.is_empty() {
                String::new()
            } else {
                format!(" --only {}", a.only.join(" --only "))
            }
        )));
    }
    let require_data =
        a.require_data || std::env::var_os("CRABPATH_REQUIRE_DATA").is_some_and(|v| v == "1");
    let expected = match expectations::locate(a.expectations.as_deref(), &a.results) {
        Some(p) => Some((Expectations::load(&p)?, p)),
        None => None,
    };
    let mut summary = CheckSummary {
        require_data,
        expectations: expected.as_ref().map(|(e, p)| (p.clone(), e.numbers())),
        ..Default::default()
    };
    if let (Some((e, p)), None) = (&expected, &only) {
        let names: BTreeSet<String> = files
            .iter()
            .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        summary.orphan_expectations = e
            .reports
            .keys()
            .filter(|k| !names.contains(*k))
            .map(|k| {
                format!(
                    "expectation failed: {}: names {k}, which is not in {}",
                    p.display(),
                    a.results.display()
                )
            })
            .collect();
    }
    for path in &files {
        let t = Instant::now();
        let name = path
            .file_name()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        let (verdict, fresh) = check_one(data_dir, a, path, &name)?;
        let expectation_failures = match &expected {
            Some((e, _)) => {
                let (_, report) = read_report(fresh.as_deref().unwrap_or(path))?;
                e.failures(&name, &report)
            }
            None => Vec::new(),
        };
        let mut updated = false;
        if a.update {
            if let (Verdict::Differs(_), Some(fresh)) = (&verdict, &fresh) {
                replace(path, fresh)?;
                updated = true;
            }
        }
        let c = Checked {
            name,
            verdict,
            updated,
            seconds: t.elapsed().as_secs_f64(),
            expectation_failures,
        };
        print(&c);
        summary.checked.push(c);
    }
    if let Some(path) = &peers {
        let t = Instant::now();
        let c = Checked {
            name: PEERS_REPORT.to_string(),
            verdict: check_peers(path)?,
            updated: false,
            seconds: t.elapsed().as_secs_f64(),
            expectation_failures: Vec::new(),
        };
        print(&c);
        summary.checked.push(c);
    }
    let complete = only.is_none()
        && !summary
            .checked
            .iter()
            .any(|c| matches!(c.verdict, Verdict::Skipped(_)));
    if a.update && complete {
        summary.removed = remove_unreferenced(&a.results, &files)?;
    }
    Ok(summary)
}

/// `bench peers`' report, relative to the results directory (issue 29).
pub const PEERS_REPORT: &str = "peers/peers.json";

/// `<results>/peers/peers.json` when it exists and `only` selects it (by that path or
/// `peers.json`).
fn peers_report(results: &Path, only: &Option<GlobSet>) -> Option<PathBuf> {
    let p = results.join(PEERS_REPORT);
    let selected = only
        .as_ref()
        .is_none_or(|g| g.is_match(PEERS_REPORT) || g.is_match("peers.json"));
    (selected && p.is_file()).then_some(p)
}

/// `peers.json` is not re-run (an hour of servers): every number that derives from
/// per-question results is recomputed from the record beside it
/// ([`crate::peers::record::rederive`]) and compared exactly; the environment's numbers
/// only for shape. `--update` does not apply.
pub fn check_peers(path: &Path) -> Result<Verdict> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let stored: Value = serde_json::from_str(&text)
        .map_err(|e| Error::Usage(format!("{}: not JSON: {e}", path.display())))?;
    let r = crate::peers::record::rederive(path, &stored)?;
    let mut diffs = r.problems;
    for (p, s, f) in &r.pairs {
        compare_json(p, s, f, &mut diffs);
    }
    Ok(if diffs.is_empty() {
        Verdict::Ok
    } else {
        Verdict::Differs(diffs)
    })
}

/// The run files, qrels and query-id list a report names (paths relative to its
/// directory).
fn named_files(report: &AnyReport) -> Vec<String> {
    let mut v: Vec<String> = report.manifest.query_ids_file.iter().cloned().collect();
    if let Some(f) = report.files.value() {
        v.push(f.qrels.clone());
        v.extend(f.runs.values().cloned());
    }
    v
}

/// A report file as JSON (compared field by field) and as a typed report (read).
fn read_report(path: &Path) -> Result<(Value, AnyReport)> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let json_error = |e: serde_json::Error| Error::Json {
        file: path.to_path_buf(),
        row: None,
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    };
    let value = serde_json::from_str(&text).map_err(json_error)?;
    let report = serde_json::from_str(&text).map_err(json_error)?;
    Ok((value, report))
}

/// Embeds `texts` through the cache of `a.model` (`missing` of them are not cached), with
/// a progress bar on stderr that estimates the time left (drawn only on a terminal).
fn fill_cache(a: &CheckArgs, texts: &[&str], missing: usize) -> Result<()> {
    let embedder = TextEmbedder::open(EmbedderArg::Minilm, &a.model)?;
    eprintln!("bench check: embedding {missing} texts missing from the all-MiniLM-L6-v2 cache");
    let bar = ProgressBar::with_draw_target(Some(texts.len() as u64), ProgressDrawTarget::stderr());
    crate::embed::style_bar(&bar);
    bar.set_message("embed (cache)");
    let (_, stats) = embedder.embed(texts, &bar)?;
    bar.finish_and_clear();
    eprintln!("bench check: {}", stats.describe());
    Ok(())
}

/// Re-runs one report; returns the verdict and the fresh report's path (when it ran).
fn check_one(
    data_dir: &DataDir,
    a: &CheckArgs,
    path: &Path,
    name: &str,
) -> Result<(Verdict, Option<PathBuf>)> {
    let (stored, stored_report) = read_report(path)?;
    let mut args = RunArgs::from_command_line(stored_report.command())?;
    args.model = a.model.clone();
    args.no_progress = !a.progress;
    args.out = Some(a.fresh_dir.join(name));
    if let Some(input) = args.data.input.take() {
        // A report made from `--input FILE` names the file; it is looked for in the data
        // directory (and must have the same content: `provenance.dataset.content_sha256`).
        let p = data_dir.path.join(&input);
        if !p.is_file() {
            return Ok((
                Verdict::Skipped(format!(
                    "the input file {} in {}",
                    input.display(),
                    data_dir.path.display()
                )),
                None,
            ));
        }
        args.data.input = Some(p);
    }
    let file = catalog::known_file(args.data.dataset, args.data.variant)?;
    if args.data.input.is_none() && data_dir.locate(file).is_err() {
        return Ok((
            Verdict::Skipped(format!(
                "the dataset file {} in {} (point --data-dir or CRABPATH_DATA_DIR at the data)",
                file.rel_path,
                data_dir.path.display()
            )),
            None,
        ));
    }
    if args.embedder == EmbedderArg::Minilm {
        let dir = a.model.model_dir();
        if crabpath_embed::model::check_model_dir(&dir).is_err() {
            return Ok((
                Verdict::Skipped(format!(
                    "the all-MiniLM-L6-v2 model in {} (fetch it with `cargo run -q -p \
                     crabpath-embed -- fetch-model`)",
                    dir.display()
                )),
                None,
            ));
        }
    }
    let cache_gate = |texts: &[&str]| -> Result<Option<Skip>> {
        if args.embedder != EmbedderArg::Minilm {
            return Ok(None);
        }
        let Some(missing) = cache_misses(&a.model, texts)?.filter(|&m| m > 0) else {
            return Ok(None);
        };
        if a.embed_missing {
            fill_cache(a, texts, missing)?;
            return Ok(None);
        }
        Ok(Some(Skip(format!(
            "the all-MiniLM-L6-v2 embedding cache of its texts ({missing} missing; fill \
                     it with `bench embed --dataset {} --variant {}`)",
            args.data.dataset.slug(),
            args.data.variant.as_str()
        ))))
    };
    let written = match run_with(data_dir, &args, a.progress, &cache_gate) {
        Ok(Ok(w)) => w,
        Ok(Err(Skip(why))) => return Ok((Verdict::Skipped(why), None)),
        Err(e @ Error::NotFound { .. }) => return Ok((Verdict::Skipped(e.to_string()), None)),
        Err(e) => return Err(e),
    };
    let fresh_path = written.json_path.clone();
    let mut diffs = Vec::new();
    compare_json("", &stored, &written.report, &mut diffs);
    let stored_dir = path.parent().unwrap_or(Path::new("."));
    let stored_files = named_files(&stored_report);
    let (_, fresh_report) = read_report(&fresh_path)?;
    for rel in named_files(&fresh_report) {
        if !stored_files.contains(&rel) {
            continue; // already reported as a difference of `files`
        }
        compare_text(
            &rel,
            &stored_dir.join(&rel),
            &a.fresh_dir.join(&rel),
            &mut diffs,
        )?;
    }
    // a product-path LoCoMo report's paper table, re-derived from its committed run
    // files (issue 28: `bench check` re-derives every committed LoCoMo number)
    diffs.extend(crate::locomo::headline::rederive_check(
        stored_dir,
        &stored_report,
    )?);
    let verdict = if diffs.is_empty() {
        Verdict::Ok
    } else {
        Verdict::Differs(diffs)
    };
    Ok((verdict, Some(fresh_path)))
}

/// A short rendering of a JSON value for a difference line.
fn short(v: Option<&Value>) -> String {
    match v {
        None => "(absent)".into(),
        Some(v) => {
            let s = v.to_string();
            if s.chars().count() > 60 {
                format!("{}…", s.chars().take(60).collect::<String>())
            } else {
                s
            }
        }
    }
}

/// Appends `path: stored → fresh` for every difference between `stored` and `fresh` below
/// `path` (dotted keys, `[i]` for array elements), skipping the environment fields.
pub fn compare_json(path: &str, stored: &Value, fresh: &Value, out: &mut Vec<String>) {
    if ENVIRONMENT_FIELDS.contains(&path) {
        return;
    }
    let child = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    match (stored, fresh) {
        (Value::Object(s), Value::Object(f)) => {
            let keys: BTreeSet<&String> = s.keys().chain(f.keys()).collect();
            for k in keys {
                let p = child(k);
                match (s.get(k), f.get(k)) {
                    (Some(x), Some(y)) => compare_json(&p, x, y, out),
                    (x, y) if !ENVIRONMENT_FIELDS.contains(&p.as_str()) => {
                        out.push(format!("{p}: {} → {}", short(x), short(y)));
                    }
                    _ => {}
                }
            }
        }
        (Value::Array(s), Value::Array(f)) if s.len() == f.len() => {
            for (i, (x, y)) in s.iter().zip(f).enumerate() {
                compare_json(&format!("{path}[{i}]"), x, y, out);
            }
        }
        (s, f) if s != f => out.push(format!("{path}: {} → {}", short(Some(s)), short(Some(f)))),
        _ => {}
    }
}

/// Compares the text of two run files (or qrels), plain or gzip; appends the first
/// differing line.
fn compare_text(rel: &str, stored: &Path, fresh: &Path, out: &mut Vec<String>) -> Result<()> {
    if !stored.is_file() {
        out.push(format!("{rel}: (absent) → written"));
        return Ok(());
    }
    let (s, f) = (trec::read_text(stored)?, trec::read_text(fresh)?);
    if s == f {
        return Ok(());
    }
    let (mut sl, mut fl) = (s.lines(), f.lines());
    let mut line = 1;
    loop {
        match (sl.next(), fl.next()) {
            (Some(x), Some(y)) if x == y => line += 1,
            (x, y) => {
                out.push(format!(
                    "{rel}: line {line}: {} → {}",
                    x.unwrap_or("(end of file)"),
                    y.unwrap_or("(end of file)")
                ));
                return Ok(());
            }
        }
    }
}

/// Copies the fresh report `fresh` over the committed `stored`, with the run files it names.
fn replace(stored: &Path, fresh: &Path) -> Result<()> {
    let (_, report) = read_report(fresh)?;
    let (from, to) = (
        fresh.parent().unwrap_or(Path::new(".")),
        stored.parent().unwrap_or(Path::new(".")),
    );
    for rel in named_files(&report) {
        let bytes = std::fs::read(from.join(&rel)).map_err(|e| Error::io(&from.join(&rel), e))?;
        save(&to.join(&rel), &bytes)?;
    }
    let bytes = std::fs::read(fresh).map_err(|e| Error::io(fresh, e))?;
    save(stored, &bytes)
}

/// Removes the files of `<results>/runs` that none of `reports` names; returns their paths
/// relative to `results`.
fn remove_unreferenced(results: &Path, reports: &[PathBuf]) -> Result<Vec<String>> {
    let mut named = BTreeSet::new();
    for r in reports {
        named.extend(named_files(&read_report(r)?.1));
    }
    let dir = results.join(RUNS_DIR);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(Vec::new());
    };
    let mut removed = Vec::new();
    for e in entries {
        let p = e.map_err(|e| Error::io(&dir, e))?.path();
        let Some(name) = p.file_name().and_then(|s| s.to_str()) else {
            continue;
        };
        let rel = format!("{RUNS_DIR}/{name}");
        if p.is_file() && !named.contains(&rel) {
            std::fs::remove_file(&p).map_err(|e| Error::io(&p, e))?;
            removed.push(rel);
        }
    }
    removed.sort();
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn compare_names_every_difference_but_the_environment() {
        let a = json!({"x": 1.0, "m": {"a": [1, 2, {"b": 0.5}]}, "timings_s": {"t": 1},
                       "provenance": {"git_commit": "a", "dataset": {"content_sha256": "s"}}});
        let b = json!({"x": 1.0, "m": {"a": [1, 3, {"b": 0.25}]}, "timings_s": {"t": 2},
                       "provenance": {"git_commit": "b", "dataset": {"content_sha256": "t"}},
                       "new": true});
        let mut d = Vec::new();
        compare_json("", &a, &b, &mut d);
        assert_eq!(
            d,
            [
                "m.a[1]: 2 → 3",
                "m.a[2].b: 0.5 → 0.25",
                "new: (absent) → true",
                "provenance.dataset.content_sha256: \"s\" → \"t\"",
            ]
        );
        let mut none = Vec::new();
        compare_json("", &a, &a, &mut none);
        assert!(none.is_empty());
    }
}
