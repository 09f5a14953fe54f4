//! What the papers say about each simulation, kept with the simulation.
//!
//! Every simulation returns a [`Card`] ([`crate::sim::Simulation::card`]): its paper
//! section and figure numbers, the paper's tables it backs (each row: its label and how
//! to read our value from a result document), its rows of the paper's summary table, the
//! paper claims that `REPRODUCE.md` lists, the figures the `report` crate draws from its
//! documents, and the reference runner's verdict on it. The numbers — each row's value as
//! the paper prints it, the reference program's value, whether they agree, a note — are
//! data, `results/sims/expected.json` beside the results they describe ([`expected`]),
//! filled into the card by label; `sims check`, `sims claims`, `report` (`TABLES.md`,
//! `REPRODUCE.md`, figures) and the tests read them through the card, so adding a
//! simulation touches its own file and its entry of the data (plus a figure builder in
//! `report` for each figure it lists).
//!
//! Simulations are grouped by the [`Paper`] they back; table numbers are per paper. The
//! reference program's 15 simulations back the OpenClawBrain paper; the CrabPath paper's
//! experiments form a second group.

pub mod expected;
pub mod extract;

use serde_json::Value;

use crate::claims::Verdict;

/// The paper a group of simulations backs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Paper {
    /// "OpenClawBrain: Learned Graph Traversal for Retrieval Routing" (Gu, Feb 2026,
    /// v11.2.1; seed 002): its §5–6 simulations are the reference program's `sims/*.py`.
    OpenClawBrain,
    /// "CrabPath" (Gu, Feb 2026; seed 000): the original paper, whose experiments run on
    /// the v2 engine.
    CrabPath,
}

impl Paper {
    /// The paper's short name.
    pub fn name(self) -> &'static str {
        match self {
            Paper::OpenClawBrain => "OpenClawBrain",
            Paper::CrabPath => "CrabPath",
        }
    }
}

/// The number of the OpenClawBrain paper's summary table ("Section 6 result summary").
pub const SUMMARY_TABLE: u32 = 6;

/// A value extractor: result document → formatted table cell (`None` when a field is
/// missing).
pub type Extract = Box<dyn Fn(&Value) -> Option<String> + Send + Sync>;

/// How a table row is judged.
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

/// Where a row's documents come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `results/sims/<profile>/<name>.json`.
    Sim(&'static str),
    /// A bench run of this dataset (`HotPotQA`, `MultiHop-RAG`), chosen by the report.
    Bench(&'static str),
    /// A `bench repo` run on the reference repository at this commit (7 hex digits):
    /// `results/repo-bench/paper-<commit>` (paper profile) and `clean-<commit>`
    /// (corrected profile, fair protocol).
    Repo(&'static str),
    /// A v2-engine result `results/v2/<profile>/<name>.json[.gz]` (the CrabPath paper's
    /// experiments, [`crate::v2`]).
    V2(&'static str),
}

/// One row of a paper table.
pub struct Row {
    /// Row label (first column; with the table, the key of its expected values).
    pub label: String,
    /// The paper's value, as printed ([`expected`]).
    pub paper: String,
    /// The reference program's value, formatted as `extract` formats ours (checked
    /// against the committed reference files by `report`'s tests; [`expected`]).
    pub reference: String,
    /// Whether the paper's value agrees with the reference program's (after the
    /// paper's rounding); `false` rows are paper/code discrepancies ([`expected`]).
    pub paper_agrees: bool,
    /// Result document the value comes from.
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
    /// Short note (discrepancy reference, caveat; [`expected`]).
    pub note: String,
}

impl Row {
    /// A deterministic row read by `extract`; its paper and reference values come from
    /// the expected values ([`expected::fill`]).
    pub fn new(
        source: Source,
        label: &str,
        extract: impl Fn(&Value) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        Self {
            label: label.into(),
            paper: String::new(),
            reference: String::new(),
            paper_agrees: true,
            source,
            extract: Box::new(extract),
            corrected: None,
            seeds: None,
            kind: Kind::Exact,
            note: String::new(),
        }
    }

    /// [`Row::new`] for a row read from simulation `sim`'s documents.
    pub fn sim(
        sim: &'static str,
        label: &str,
        extract: impl Fn(&Value) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        Self::new(Source::Sim(sim), label, extract)
    }

    /// Sets the kind.
    pub fn kind(mut self, kind: Kind) -> Self {
        self.kind = kind;
        self
    }

    /// The multi-seed aggregate shown in the corrected cell (when the corrected
    /// document has a `multi_seed` object), ahead of the document seed's value.
    pub fn seeds(mut self, f: impl Fn(&Value) -> Option<String> + Send + Sync + 'static) -> Self {
        self.seeds = Some(Box::new(f));
        self
    }

    /// A different extractor for the corrected profile.
    pub fn corrected(
        mut self,
        f: impl Fn(&Value) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.corrected = Some(Box::new(f));
        self
    }
}

impl std::fmt::Debug for Row {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Row")
            .field("label", &self.label)
            .field("paper", &self.paper)
            .field("reference", &self.reference)
            .field("source", &self.source)
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

/// One table of a paper: its header and rows of type `R` — [`Row`] as defined (paper
/// value, reference value, extractor), or the rows `report` builds from them.
#[derive(Debug, Clone)]
pub struct Table<R = Row> {
    /// The paper it is in.
    pub paper: Paper,
    /// Its number in the paper.
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
    pub rows: Vec<R>,
}

/// A table row with a label (the first column).
pub trait Labelled {
    /// The row's label.
    fn label(&self) -> &str;
}

impl Labelled for Row {
    fn label(&self) -> &str {
        &self.label
    }
}

impl<R> Table<R> {
    /// The row with this label.
    pub fn row(&self, label: &str) -> Option<&R>
    where
        R: Labelled,
    {
        self.rows.iter().find(|r| r.label() == label)
    }

    /// The same table with every row mapped by `f`.
    pub fn map_rows<S>(self, f: impl FnMut(&R) -> S) -> Table<S> {
        Table {
            paper: self.paper,
            number: self.number,
            title: self.title,
            command: self.command,
            figure: self.figure,
            columns: self.columns,
            rows: self.rows.iter().map(f).collect(),
        }
    }

    /// `Table 8` (OpenClawBrain, the reference program's paper) or `CrabPath Table 8`.
    pub fn name(&self) -> String {
        match self.paper {
            Paper::OpenClawBrain => format!("Table {}", self.number),
            other => format!("{} Table {}", other.name(), self.number),
        }
    }

    /// File stem of its CSV: `table_08`, or `crabpath_table_08`.
    pub fn csv_stem(&self) -> String {
        match self.paper {
            Paper::OpenClawBrain => format!("table_{:02}", self.number),
            other => format!("{}_table_{:02}", other.name().to_lowercase(), self.number),
        }
    }
}

/// A claim of the paper, as `REPRODUCE.md` lists it: its evidence is one table row
/// (whose paper column holds the paper's number).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claim {
    /// The paper section making the claim (e.g. `6.2`).
    pub section: &'static str,
    /// The claim in words, without its number (the table row has it).
    pub text: &'static str,
    /// Table number (in the same paper).
    pub table: u32,
    /// Row label in that table.
    pub row: &'static str,
}

/// Everything the papers say about one simulation, and how to read our results for it.
#[derive(Debug)]
pub struct Card {
    /// The paper the simulation backs.
    pub paper: Paper,
    /// Its section in that paper (e.g. `6.2`; orders the summary rows).
    pub section: &'static str,
    /// The paper's figure numbers showing it.
    pub paper_figures: &'static [&'static str],
    /// One-line description of the scenario.
    pub description: &'static str,
    /// The paper's tables it backs.
    pub tables: Vec<Table>,
    /// Its rows of the paper's summary table ([`SUMMARY_TABLE`]).
    pub summary: Vec<Row>,
    /// The paper's claims it backs (`REPRODUCE.md`).
    pub claims: Vec<Claim>,
    /// Figure stems the `report` crate draws from each of its documents
    /// (`figures/<profile>/<stem>.png`, `.svgz`).
    pub figures: &'static [&'static str],
    /// The verdict the reference runner (`sims/run_all.py`) printed for it.
    pub reference_verdict: Verdict,
    /// Why that verdict is not PASS (REPRODUCE.md discrepancies), when it is not.
    pub reference_note: Option<&'static str>,
}

impl Card {
    /// `§6.2, Table 8, Fig. 7`.
    pub fn paper_ref(&self) -> String {
        let mut parts = vec![format!("{} §{}", self.paper.name(), self.section)];
        let tables: Vec<String> = self.tables.iter().map(|t| t.number.to_string()).collect();
        match tables.len() {
            0 => {}
            1 => parts.push(format!("Table {}", tables[0])),
            _ => parts.push(format!("Tables {}", tables.join("/"))),
        }
        match self.paper_figures.len() {
            0 => {}
            1 => parts.push(format!("Fig. {}", self.paper_figures[0])),
            _ => parts.push(format!("Figs. {}", self.paper_figures.join("/"))),
        }
        parts.join(", ")
    }

    /// The row `label` of table `table` (its own tables, or its summary rows for
    /// [`SUMMARY_TABLE`]).
    pub fn row(&self, table: u32, label: &str) -> Option<&Row> {
        if self.paper == Paper::OpenClawBrain && table == SUMMARY_TABLE {
            return self.summary.iter().find(|r| r.label == label);
        }
        self.tables
            .iter()
            .find(|t| t.number == table)
            .and_then(|t| t.row(label))
    }

    /// The paper's numbers for its claims: `<row>: <paper value>` (`Table <n> <row>`
    /// when two claims name rows with the same label), `; `-joined.
    pub fn paper_values(&self) -> String {
        let rows: Vec<(u32, &Row)> = self
            .claims
            .iter()
            .filter_map(|c| self.row(c.table, c.row).map(|r| (c.table, r)))
            .collect();
        rows.iter()
            .map(|(table, r)| {
                if rows.iter().filter(|(_, o)| o.label == r.label).count() > 1 {
                    format!("Table {table} {}: {}", r.label, r.paper)
                } else {
                    format!("{}: {}", r.label, r.paper)
                }
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// `cargo run --release -p sims -- run --sim <name>` (both profiles).
pub fn command(sim: &str) -> String {
    format!("cargo run --release -p sims -- run --sim {sim}")
}

/// A simulation table: the figure, when shown, is the simulation's paper-profile figure.
pub fn sim_table(
    number: u32,
    title: &str,
    sim: &str,
    figure: bool,
    columns: &str,
    rows: Vec<Row>,
) -> Table {
    Table {
        paper: Paper::OpenClawBrain,
        number,
        title: title.into(),
        command: command(sim),
        figure: Some(format!("paper/{sim}.png")).filter(|_| figure),
        columns: columns.into(),
        rows,
    }
}

/// Sort key of a section number: `6.12.1` → `[6, 12, 1]`.
pub fn section_key(section: &str) -> Vec<u32> {
    section
        .split('.')
        .map(|p| p.parse().unwrap_or(u32::MAX))
        .collect()
}

/// Every table the `cards` back, in (paper, number) order, the OpenClawBrain summary
/// table assembled from the cards' summary rows in section order.
pub fn tables(mut cards: Vec<Card>) -> Vec<Table> {
    cards.sort_by_key(|c| section_key(c.section));
    let mut summary = Vec::new();
    let mut out = Vec::new();
    for c in cards {
        if c.paper == Paper::OpenClawBrain {
            summary.extend(c.summary);
        }
        out.extend(c.tables);
    }
    out.push(Table {
        paper: Paper::OpenClawBrain,
        number: SUMMARY_TABLE,
        title: "Section 6 result summary".into(),
        command: "cargo run --release -p sims -- run".into(),
        figure: None,
        columns: "headline value".into(),
        rows: summary,
    });
    out.sort_by_key(|t| (t.paper, t.number));
    out
}

/// Every claim the cards back (each card with its simulation's name), with the
/// simulation and its first figure (`paper/<stem>.png`), in (paper, section) order.
pub fn claims(cards: &[(&'static str, Card)]) -> Vec<(&'static str, Paper, Claim, Option<String>)> {
    let mut out = Vec::new();
    for (name, card) in cards {
        let figure = card.figures.first().map(|f| format!("paper/{f}.png"));
        for c in &card.claims {
            out.push((*name, card.paper, *c, figure.clone()));
        }
    }
    out.sort_by_key(|(_, paper, c, _)| (*paper, section_key(c.section)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_sort_numerically() {
        let mut s = vec!["6.12.1", "6.2", "5.3", "6.10"];
        s.sort_by_key(|x| section_key(x));
        assert_eq!(s, ["5.3", "6.2", "6.10", "6.12.1"]);
    }
}
