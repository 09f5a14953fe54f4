//! The paper's numeric tables, rebuilt from the results: every row shows the paper's
//! value, the reference program's value, this port's paper-profile value and its
//! corrected-profile value, and a verdict.
//!
//! The simulation tables (OpenClawBrain Tables 3, 5–20) are defined on the simulations'
//! cards ([`sims::paper`]); the benchmark tables (22–23) in [`mod@bench`]; the repository
//! benchmark tables (24–25) in [`repo`]. Tables 1, 2, 4 are not numeric results, and 21
//! (production brains) is not produced by this harness — [`NOT_PRODUCED`] says so in
//! `TABLES.md`. The paired significance tables of the bench runs go to
//! `results/bench/PAIRED.md` ([`paired`]).

pub mod bench;
pub mod claims;
pub mod heldout;
pub mod locomo;
pub mod locomo_product;
pub mod markdown;
pub mod paired;
pub mod repo;

use std::path::Path;

use anyhow::Result;
pub use markdown::{cell, md};
pub use sims::paper::{Kind, Paper, Row as RowSpec, Source, Table as TableSpec};

use crate::artifact::Artifact;
use crate::data::{Doc, Profile, Results};
use crate::plot::csv_bytes;
use serde::Deserialize;

/// Tables of the paper that the harness does not produce, with the reason.
pub const NOT_PRODUCED: [(u32, &str); 1] = [(
    21,
    "production maintenance of the author's three private brains; no public data",
)];

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

/// A built table: the definition's header with [`Row`]s.
pub type Table = sims::paper::Table<Row>;

impl sims::paper::Labelled for Row {
    fn label(&self) -> &str {
        &self.label
    }
}

fn doc_for(results: &Results, source: Source, profile: Profile) -> Option<&Doc> {
    match source {
        Source::Sim(name) => results.sim(profile, name),
        Source::Bench(dataset) => bench::select(results, dataset, profile),
        Source::Repo(commit) => {
            let protocol = match profile {
                Profile::Paper => "paper",
                Profile::Corrected => "clean",
            };
            results.repo.get(&format!("{protocol}-{commit}"))
        }
        Source::V2(name) => results.v2(profile, name),
    }
}

/// Builds one row against the results.
pub fn build_row(spec: &RowSpec, results: &Results) -> Row {
    let ours_paper =
        doc_for(results, spec.source, Profile::Paper).and_then(|d| (spec.extract)(&d.value));
    let corrected = spec.corrected.as_ref().unwrap_or(&spec.extract);
    let corrected_doc = doc_for(results, spec.source, Profile::Corrected);
    let ours_corrected = corrected_doc.and_then(|d| corrected(&d.value));
    let ours_corrected = match (corrected_doc, &spec.seeds) {
        (Some(d), Some(f)) => with_seeds(&d.value, f(&d.value), ours_corrected),
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
fn with_seeds(
    d: &serde_json::Value,
    agg: Option<String>,
    single: Option<String>,
) -> Option<String> {
    let multi = results::sims::Envelope::deserialize(d)
        .ok()
        .and_then(|e| e.multi_seed);
    let (Some(agg), Some(m)) = (agg, multi) else {
        return single;
    };
    let (n, seed) = (m.seeds.len(), m.document_seed.unwrap_or(42));
    let mut s = format!("{agg} (mean [95 % CI] over {n} seeds");
    let (k, total) = m.claim_holds();
    s.push_str(&format!("; corrected claim holds in {k}/{total} seeds"));
    if let Some(v) = single {
        s.push_str(&format!("; seed {seed}: {v}"));
    }
    s.push(')');
    Some(s)
}

/// Every table spec, in (paper, number) order: the simulations' cards, then the
/// benchmark tables.
pub fn specs() -> Vec<TableSpec> {
    let cards = sims::scenarios::cards()
        .into_iter()
        .map(|(_, c)| c)
        .collect();
    let mut v = sims::paper::tables(cards);
    v.extend(bench::specs());
    v.extend(repo::specs());
    v.extend(sims::v2::tables());
    v.sort_by_key(|t| (t.paper, t.number));
    v
}

/// Builds every table against the results.
pub fn build_all(results: &Results) -> Vec<Table> {
    specs()
        .into_iter()
        .map(|t| t.map_rows(|r| build_row(r, results)))
        .collect()
}

/// The Markdown of one table (heading, command, figure, rows).
pub fn table_markdown(t: &Table) -> String {
    let mut s = format!("### {}: {}\n\n", t.name(), t.title);
    s.push_str(&format!(
        "Values: {}. Produced by `{}`",
        t.columns, t.command
    ));
    if let Some(f) = &t.figure {
        s.push_str(&format!("; figure `figures/{f}`"));
    }
    s.push_str(&format!(
        "; CSV `figures/csv/tables/{}.csv`.\n\n",
        t.csv_stem()
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
         file or field yet.\n\n\
         The **CrabPath Tables** (the CrabPath paper, seed 000 §7) are read the same way: paper =\n\
         that paper as printed; reference program = the v2 engine behind it (jonathangu/crabpath,\n\
         Feb 2026; outputs in `results/reference/v2/`); ours = `results/v2/{paper,corrected}/`\n\
         (`sims v2 run`). Their \"tokens\" are characters of node content.\n\n",
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
                .join(format!("{}.csv", t.csv_stem())),
            csv_bytes(&table_csv(t))?,
        ));
    }
    md_text.push_str("### Tables not produced by this harness\n\n");
    for (n, why) in NOT_PRODUCED {
        md_text.push_str(&format!("* Table {n}: {why}.\n"));
    }
    for (n, why) in sims::v2::NOT_PRODUCED {
        md_text.push_str(&format!("* CrabPath Table {n}: {why}.\n"));
    }
    arts.push(Artifact::new(tables_md, md_text.into_bytes()));
    Ok(arts)
}
