//! The paper's numeric tables, rebuilt from the results: every row shows the paper's
//! value, the reference program's value, this port's paper-profile value and its
//! corrected-profile value, and a verdict.
//!
//! Specs live in [`sims`] (Tables 3, 5–20) and [`bench`] (Tables 22–23); Tables 1, 2, 4
//! are not numeric results, and 21, 24, 25 (production brains, the repository-internal
//! benchmark) are not produced by this harness — [`NOT_PRODUCED`] says so in
//! `TABLES.md`.

pub mod bench;
pub mod claims;
pub mod extract;
pub mod sims;
pub mod values;

use std::path::Path;

use anyhow::Result;

use crate::artifact::Artifact;
use crate::data::{Doc, Profile, Results};
use crate::plot::csv_bytes;
use extract::Extract;

/// Tables of the paper that the harness does not produce, with the reason.
pub const NOT_PRODUCED: [(u32, &str); 3] = [
    (21, "production maintenance of the author's three private brains; no public data"),
    (24, "repository-internal benchmark (45 queries over the reference's own code base); not part of this harness"),
    (25, "learning curves of that internal benchmark; not part of this harness"),
];

/// How a row is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Deterministic: our paper-profile value must equal the reference program's.
    Exact,
    /// Wall-clock timing: machine-dependent, shown but not compared.
    Timing,
    /// No reference-program value exists (e.g. the paper's benchmarks used OpenAI
    /// embeddings); shown but not compared.
    Uncomparable,
}

/// One row to build.
pub struct RowSpec {
    /// Row label (first column).
    pub label: String,
    /// The paper's value, as printed.
    pub paper: String,
    /// The reference program's value, formatted as `extract` formats ours.
    pub reference: String,
    /// Whether the paper's value agrees with the reference program's (after the
    /// paper's rounding); `false` rows are paper/code discrepancies.
    pub paper_agrees: bool,
    /// Result document the value comes from: a sim name, or a bench selector.
    pub source: Source,
    /// Reads the value (applied to the paper- and the corrected-profile document).
    pub extract: Extract,
    /// Reads the corrected value, when it differs from `extract`.
    pub corrected: Option<Extract>,
    /// Reads the multi-seed aggregate (`multi_seed.metrics`: mean [95 % CI]) of the
    /// corrected-profile document, for rows backed by multi-seed metrics.
    pub seeds: Option<Extract>,
    /// How to judge it.
    pub kind: Kind,
    /// Short note (discrepancy reference, caveat).
    pub note: String,
}

/// Where a row's documents come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `results/sims/<profile>/<name>.json`.
    Sim(&'static str),
    /// A bench run of this dataset (`HotPotQA`, `MultiHop-RAG`), chosen by
    /// [`bench::select`].
    Bench(&'static str),
}

impl RowSpec {
    /// A deterministic row that agrees with the paper.
    pub fn new(
        label: &str,
        paper: &str,
        reference: &str,
        source: Source,
        extract: impl Fn(&Doc) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        Self {
            label: label.into(),
            paper: paper.into(),
            reference: reference.into(),
            paper_agrees: true,
            source,
            extract: Box::new(extract),
            corrected: None,
            seeds: None,
            kind: Kind::Exact,
            note: String::new(),
        }
    }

    /// Marks the paper's value as disagreeing with the code, with a note.
    pub fn differs(mut self, note: &str) -> Self {
        self.paper_agrees = false;
        self.note = note.into();
        self
    }

    /// Adds a note.
    pub fn note(mut self, note: &str) -> Self {
        self.note = note.into();
        self
    }

    /// Sets the kind.
    pub fn kind(mut self, kind: Kind) -> Self {
        self.kind = kind;
        self
    }

    /// The multi-seed aggregate shown in the corrected cell (when the corrected
    /// document has a `multi_seed` object), ahead of the document seed's value.
    pub fn seeds(mut self, f: impl Fn(&Doc) -> Option<String> + Send + Sync + 'static) -> Self {
        self.seeds = Some(Box::new(f));
        self
    }

    /// A different extractor for the corrected profile.
    pub fn corrected(mut self, f: impl Fn(&Doc) -> Option<String> + Send + Sync + 'static) -> Self {
        self.corrected = Some(Box::new(f));
        self
    }
}

/// One table to build.
pub struct TableSpec {
    /// Number in the paper.
    pub number: u32,
    /// The paper's caption.
    pub title: String,
    /// The command that produces the inputs.
    pub command: String,
    /// Figure file (relative to the figures directory), if any.
    pub figure: Option<String>,
    /// What the value columns mean.
    pub columns: String,
    /// Rows.
    pub rows: Vec<RowSpec>,
}

/// A built row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Label.
    pub label: String,
    /// Paper value.
    pub paper: String,
    /// Reference-program value.
    pub reference: String,
    /// Our paper-profile value, if the result exists.
    pub ours_paper: Option<String>,
    /// Our corrected-profile value, if the result exists.
    pub ours_corrected: Option<String>,
    /// Verdict text.
    pub verdict: String,
    /// Whether the verdict is a success (reproduces / matches the reference).
    pub ok: Option<bool>,
    /// Note.
    pub note: String,
}

/// A built table.
#[derive(Debug, Clone)]
pub struct Table {
    /// Number in the paper.
    pub number: u32,
    /// Caption.
    pub title: String,
    /// Command.
    pub command: String,
    /// Figure.
    pub figure: Option<String>,
    /// Column meaning.
    pub columns: String,
    /// Rows.
    pub rows: Vec<Row>,
}

impl Table {
    /// The row with this label.
    pub fn row(&self, label: &str) -> Option<&Row> {
        self.rows.iter().find(|r| r.label == label)
    }
}

fn doc_for(results: &Results, source: Source, profile: Profile) -> Option<&Doc> {
    match source {
        Source::Sim(name) => results.sim(profile, name),
        Source::Bench(dataset) => bench::select(results, dataset, profile),
    }
}

/// Builds one row against the results.
pub fn build_row(spec: &RowSpec, results: &Results) -> Row {
    let ours_paper = doc_for(results, spec.source, Profile::Paper).and_then(|d| (spec.extract)(d));
    let corrected = spec.corrected.as_ref().unwrap_or(&spec.extract);
    let corrected_doc = doc_for(results, spec.source, Profile::Corrected);
    let ours_corrected = corrected_doc.and_then(corrected);
    let ours_corrected = match (corrected_doc, &spec.seeds) {
        (Some(d), Some(f)) => with_seeds(d, f(d), ours_corrected),
        _ => ours_corrected,
    };
    let (verdict, ok) = match (&ours_paper, spec.kind) {
        (None, _) => ("pending: no paper-profile result".to_string(), None),
        (Some(_), Kind::Timing) => ("timing (machine-dependent, not compared)".to_string(), None),
        (Some(_), Kind::Uncomparable) => {
            ("no reference-program value to compare".to_string(), None)
        }
        (Some(v), Kind::Exact) if *v == spec.reference => {
            if spec.paper_agrees {
                ("reproduces".to_string(), Some(true))
            } else {
                (
                    "matches the reference program; the paper's value differs".to_string(),
                    Some(true),
                )
            }
        }
        (Some(_), Kind::Exact) => (
            "DIFFERS from the reference program".to_string(),
            Some(false),
        ),
    };
    Row {
        label: spec.label.clone(),
        paper: spec.paper.clone(),
        reference: spec.reference.clone(),
        ours_paper,
        ours_corrected,
        verdict,
        ok,
        note: spec.note.clone(),
    }
}

/// The corrected cell of a row backed by multi-seed metrics: the aggregate, the seed
/// count, the claim's seed share and the document seed's own value.
fn with_seeds(d: &Doc, agg: Option<String>, single: Option<String>) -> Option<String> {
    let (Some(agg), Some((n, seed))) = (agg, extract::seed_count(d)) else {
        return single;
    };
    let mut s = format!("{agg} (mean [95 % CI] over {n} seeds");
    if let Some((k, total)) = extract::claim_seeds(d) {
        s.push_str(&format!("; corrected claim holds in {k}/{total} seeds"));
    }
    if let Some(v) = single {
        s.push_str(&format!("; seed {seed}: {v}"));
    }
    s.push(')');
    Some(s)
}

/// Every table spec, in paper order.
pub fn specs() -> Vec<TableSpec> {
    let mut v = sims::specs();
    v.extend(bench::specs());
    v.sort_by_key(|t| t.number);
    v
}

/// Builds every table against the results.
pub fn build_all(results: &Results) -> Vec<Table> {
    specs()
        .into_iter()
        .map(|t| Table {
            number: t.number,
            title: t.title,
            command: t.command,
            figure: t.figure,
            columns: t.columns,
            rows: t.rows.iter().map(|r| build_row(r, results)).collect(),
        })
        .collect()
}

/// `—` for an absent value.
pub fn cell(v: &Option<String>) -> String {
    v.clone().unwrap_or_else(|| "—".into())
}

/// Escapes `|` for a Markdown table cell.
pub fn md(s: &str) -> String {
    s.replace('|', "\\|")
}

/// The Markdown of one table (heading, command, figure, rows).
pub fn table_markdown(t: &Table) -> String {
    let mut s = format!("### Table {}: {}\n\n", t.number, t.title);
    s.push_str(&format!(
        "Values: {}. Produced by `{}`",
        t.columns, t.command
    ));
    if let Some(f) = &t.figure {
        s.push_str(&format!("; figure `figures/{f}`"));
    }
    s.push_str(&format!(
        "; CSV `figures/csv/tables/table_{:02}.csv`.\n\n",
        t.number
    ));
    s.push_str("| row | paper | reference program | ours (paper profile) | ours (corrected) | verdict | note |\n");
    s.push_str("|---|---|---|---|---|---|---|\n");
    for r in &t.rows {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            md(&r.label),
            md(&r.paper),
            md(&r.reference),
            md(&cell(&r.ours_paper)),
            md(&cell(&r.ours_corrected)),
            md(&r.verdict),
            md(&r.note)
        ));
    }
    s
}

/// CSV rows of one table.
pub fn table_csv(t: &Table) -> Vec<Vec<String>> {
    let mut rows = vec![vec![
        "table".to_string(),
        "row".into(),
        "paper".into(),
        "reference_program".into(),
        "ours_paper_profile".into(),
        "ours_corrected_profile".into(),
        "verdict".into(),
        "note".into(),
    ]];
    for r in &t.rows {
        rows.push(vec![
            t.number.to_string(),
            r.label.clone(),
            r.paper.clone(),
            r.reference.clone(),
            r.ours_paper.clone().unwrap_or_default(),
            r.ours_corrected.clone().unwrap_or_default(),
            r.verdict.clone(),
            r.note.clone(),
        ]);
    }
    rows
}

/// `TABLES.md` and one CSV per table under `<out>/csv/tables/`.
pub fn render(
    tables: &[Table],
    claims: &[claims::ClaimRow],
    tables_md: &Path,
    out: &Path,
) -> Result<Vec<Artifact>> {
    let mut md_text = String::from(
        "# Paper tables: paper vs reference program vs this port\n\n\
         Generated by `cargo run -q -p report -- tables` from `results/`; do not edit by hand\n\
         (`cargo run -q -p report -- check` fails when this file is stale).\n\n\
         Columns: **paper** = the OpenClawBrain paper v11.2.1 as printed; **reference program** =\n\
         the published Python implementation (crabpath 11.2.1) run unchanged (its result files\n\
         in `results/reference/sims/`; timings: median of three `run_all.py` runs); **ours (paper profile)** = `results/sims/paper/` (must equal the\n\
         reference program); **ours (corrected)** = `results/sims/corrected/` (bug-fixed core).\n\
         For the four RNG sims (pg_vs_heuristic, noise_robustness, static_vs_learning,\n\
         scaling_analysis) the corrected cell of a row backed by multi-seed metrics shows\n\
         mean [95 % CI] over the seeds, how many seeds the sim's claim holds in, and the\n\
         document seed's (42) own value; other cells are seed 42's value. `—` = no result\n\
         file or field yet.\n\n",
    );
    let (ok, bad, pending) =
        tables
            .iter()
            .flat_map(|t| &t.rows)
            .fold((0, 0, 0), |acc, r| match r.ok {
                Some(true) => (acc.0 + 1, acc.1, acc.2),
                Some(false) => (acc.0, acc.1 + 1, acc.2),
                None => (acc.0, acc.1, acc.2 + 1),
            });
    md_text.push_str(&format!(
        "Summary: {ok} rows match the reference program, {bad} differ, {pending} not compared \
         (timing, no reference value, or no result yet).\n\n"
    ));
    let mut arts = Vec::new();
    if !claims.is_empty() {
        md_text.push_str(&claims::markdown(claims));
        md_text.push('\n');
        arts.push(Artifact::new(
            out.join("csv").join("tables").join("corrected_claims.csv"),
            csv_bytes(&claims::csv(claims))?,
        ));
    }
    for t in tables {
        md_text.push_str(&table_markdown(t));
        md_text.push('\n');
        arts.push(Artifact::new(
            out.join("csv")
                .join("tables")
                .join(format!("table_{:02}.csv", t.number)),
            csv_bytes(&table_csv(t))?,
        ));
    }
    md_text.push_str("### Tables not produced by this harness\n\n");
    for (n, why) in NOT_PRODUCED {
        md_text.push_str(&format!("* Table {n}: {why}.\n"));
    }
    arts.push(Artifact::new(tables_md, md_text.into_bytes()));
    Ok(arts)
}
