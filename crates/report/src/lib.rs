//! Figures, tables and `REPRODUCE.md`, regenerated from the JSON results that the
//! `sims` and `bench` binaries write under `results/`.
//!
//! Everything here is a pure function of the JSON inputs: the same files give the
//! same bytes (PNG, SVGZ, CSV, Markdown), so the rendered artefacts can be committed
//! and [`artifact::check`] can tell when one of them is stale.
//!
//! Layout of the inputs (`--results`, default `results`):
//!
//! * `sims/paper/<sim>.json`: paper-profile simulation results, same structure as the
//!   reference program's `<sim>_results.json`;
//! * `sims/corrected/<sim>.json`: corrected-profile results (same structure plus a
//!   `claim` object and, for multi-seed runs, a `multi_seed` aggregate);
//! * `bench/<dataset>-<protocol>-<embedder>.json`: retrieval benchmark results;
//! * `scaling/<name>.json`: the scaling study (`sims scaling`);
//! * `repo-bench/<name>.json.gz`: `bench repo` reports on the reference repository
//!   (Tables 24/25) and its `--graph-out` workspace graph (Fig. 3, `figures/repo/`);
//! * `v2/<profile>/<experiment>.json.gz`, `v2/<profile>/deploy_simulation.json`,
//!   `v2/corrected_vs_myopic.json.gz`: the CrabPath paper's experiments on the v2
//!   engine (`sims v2 run`, [`sims::v2`]).
//!
//! Layout of the outputs (`--out`, default `figures`): `paper/`, `corrected/`,
//! `bench/`, `scaling/`, `repo/` and `v2/` hold one PNG and one SVG (gzip-compressed,
//! `.svgz`) per figure; `csv/` holds every figure's series, gzip-compressed (one
//! `.csv.gz` per panel of a multi-panel figure, `<figure>/<panel>.csv.gz`)
//! and every table as CSV (a corrected-profile series identical to the paper profile's is
//! stored once, under `csv/paper/`). The Markdown tables go to `<results>/sims/TABLES.md` (the
//! bench runs' paired tests to `<results>/bench/PAIRED.md`, their held-out and router tables
//! to `<results>/bench/HELDOUT.md`), and
//! the generated blocks of `REPRODUCE.md` are refreshed in place.
//!
//! Absent inputs are never an error: the figure or table cell is skipped and a note
//! says why ([`data::Notes`]).
#![warn(missing_docs)]

pub mod artifact;
pub mod data;
pub mod figures;
pub mod font;
pub mod heldout_view;
pub mod plot;
pub mod reproduce;
pub mod reproduce_autotune;
pub mod reproduce_v2;
pub mod tables;

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::artifact::Artifact;
use crate::data::{Notes, Results};

/// Where the inputs are read and the outputs written.
#[derive(Debug, Clone)]
pub struct Paths {
    /// The results directory (`results`).
    pub results: PathBuf,
    /// The figures directory (`figures`).
    pub out: PathBuf,
    /// The `REPRODUCE.md` whose generated blocks are refreshed.
    pub reproduce: PathBuf,
}

impl Paths {
    /// The Markdown tables file: `<results>/sims/TABLES.md`.
    pub fn tables_md(&self) -> PathBuf {
        self.results.join("sims").join("TABLES.md")
    }

    /// The held-out and router tables of the bench runs: `<results>/bench/HELDOUT.md`.
    pub fn heldout_md(&self) -> PathBuf {
        self.results.join("bench").join("HELDOUT.md")
    }

    /// The LoCoMo tables: `<results>/bench/LOCOMO.md`.
    pub fn locomo_md(&self) -> PathBuf {
        self.results.join("bench").join("LOCOMO.md")
    }

    /// The bench runs' paired-test tables: `<results>/bench/PAIRED.md`.
    pub fn paired_md(&self) -> PathBuf {
        self.results.join("bench").join("PAIRED.md")
    }

    /// The default layout relative to a repository root.
    pub fn under(root: &Path) -> Self {
        Self {
            results: root.join("results"),
            out: root.join("figures"),
            reproduce: root.join("REPRODUCE.md"),
        }
    }
}

/// Every figure (PNG, SVG and CSV of its series) that the inputs allow.
pub fn render_figures(paths: &Paths, notes: &mut Notes) -> Result<Vec<Artifact>> {
    let results = Results::load(&paths.results, notes);
    figures::render_all(&results, &paths.out, notes)
}

/// `TABLES.md`, every table as CSV, and `REPRODUCE.md` with refreshed generated
/// blocks.
pub fn render_tables(paths: &Paths, notes: &mut Notes) -> Result<Vec<Artifact>> {
    let results = Results::load(&paths.results, notes);
    let built = tables::build_all(&results);
    let mut out = tables::render(
        &built,
        &tables::claims::build(&results),
        &paths.tables_md(),
        &paths.out,
    )?;
    out.push(reproduce::render(&paths.reproduce, &built, &results)?);
    if let Some(text) = tables::paired::markdown(&results) {
        out.push(Artifact::new(paths.paired_md(), text));
    }
    if let Some(text) = tables::heldout::markdown(&results) {
        out.push(Artifact::new(paths.heldout_md(), text));
    }
    if let Some(text) = tables::locomo::markdown(&results) {
        out.push(Artifact::new(paths.locomo_md(), text));
    }
    Ok(out)
}
