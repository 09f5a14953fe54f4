//! The papers' numbers, read from the data files beside the results they describe:
//! `results/sims/expected.json` (the OpenClawBrain paper, per simulation) and
//! `results/v2/expected.json` (the CrabPath paper's tables), both compiled in; `report`
//! reads the benchmark tables' files (`results/bench/expected.json`,
//! `results/repo-bench/expected.json`) through [`fill_from_file`] and [`file_coverage`].
//!
//! A card says which rows a table has and how to read our value for each
//! ([`Row`]); [`fill`] puts in each row's paper value, reference value, agreement and
//! note by (table, label). [`coverage`] lists the rows without expected values and the
//! expected values without a row — `sims check` / `sims v2 check` fail on any, and so do
//! the tests.

use std::sync::OnceLock;

use results::expected::{Expected, Rows, SimsFile, Tables, TablesFile};
use serde::de::DeserializeOwned;

use super::{Row, Table, SUMMARY_TABLE};

/// `results/sims/expected.json`, as compiled in.
pub const SIMS_JSON: &str = include_str!("../../../results/sims/expected.json");

/// `results/v2/expected.json`, as compiled in.
pub const V2_JSON: &str = include_str!("../../../results/v2/expected.json");

/// Where the simulations' expected values live (for messages).
pub const SIMS_PATH: &str = "results/sims/expected.json";

/// Where the v2 tables' expected values live (for messages).
pub const V2_PATH: &str = "results/v2/expected.json";

fn parse<T: DeserializeOwned>(text: &str, path: &str) -> T {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The simulations' expected values. Panics when the compiled-in file does not parse
/// (the tests parse it).
pub fn sims() -> &'static SimsFile {
    static FILE: OnceLock<SimsFile> = OnceLock::new();
    FILE.get_or_init(|| parse(SIMS_JSON, SIMS_PATH))
}

/// The v2 tables' expected values. Panics when the compiled-in file does not parse.
pub fn v2() -> &'static TablesFile {
    static FILE: OnceLock<TablesFile> = OnceLock::new();
    FILE.get_or_init(|| parse(V2_JSON, V2_PATH))
}

/// The tables of simulation `sim` (empty when the file has none).
pub fn sim_tables(sim: &str) -> &'static Tables {
    static EMPTY: OnceLock<Tables> = OnceLock::new();
    sims()
        .sims
        .get(sim)
        .map(|s| &s.tables)
        .unwrap_or_else(|| EMPTY.get_or_init(Tables::new))
}

/// The number the paper states for simulation `sim` under `key` (its `facts`). Panics
/// when it is missing or of another type: the simulation's own data, checked by the
/// tests of every simulation that reads one.
pub fn fact<T: DeserializeOwned>(sim: &str, key: &str) -> T {
    let value = sims()
        .sims
        .get(sim)
        .and_then(|s| s.facts.get(key))
        .unwrap_or_else(|| panic!("{SIMS_PATH}: no fact `{key}` for {sim}"));
    T::deserialize(value).unwrap_or_else(|e| panic!("{SIMS_PATH}: fact `{key}` of {sim}: {e}"))
}

/// Sets a row's expected values.
pub fn apply(row: &mut Row, e: &Expected) {
    row.paper.clone_from(&e.paper);
    row.reference.clone_from(&e.reference);
    row.paper_agrees = e.agrees;
    row.note.clone_from(&e.note);
}

/// Fills the rows of table `number` from `tables` (rows without an entry stay empty;
/// [`coverage`] reports them).
pub fn fill(tables: &Tables, number: u32, rows: &mut [Row]) {
    let Some(expected) = tables.get(&number.to_string()) else {
        return;
    };
    for row in rows {
        if let Some(e) = expected.get(&row.label) {
            apply(row, e);
        }
    }
}

/// Fills a card's tables and summary rows from simulation `sim`'s expected values.
pub fn fill_card(sim: &str, mut card: super::Card) -> super::Card {
    let tables = sim_tables(sim);
    for t in &mut card.tables {
        fill(tables, t.number, &mut t.rows);
    }
    fill(tables, SUMMARY_TABLE, &mut card.summary);
    card
}

/// `tables` with the expected values of `expected` filled into their rows.
pub fn fill_tables(expected: &Tables, mut tables: Vec<Table>) -> Vec<Table> {
    for t in &mut tables {
        fill(expected, t.number, &mut t.rows);
    }
    tables
}

/// The v2 tables with their expected values.
pub fn fill_v2(tables: Vec<Table>) -> Vec<Table> {
    fill_tables(&v2().tables, tables)
}

/// A file of expected values by table (`about` + `tables`, as `results/v2/expected.json`)
/// from its compiled-in `text`; panics naming `path` when it does not parse (every
/// reader's tests parse its file).
pub fn tables_file(text: &str, path: &str) -> TablesFile {
    parse(text, path)
}

/// `tables` filled from the compiled-in file of expected values `text` (at `path`, for
/// messages): what `report` does with the benchmark tables' files.
pub fn fill_from_file(text: &str, path: &str, tables: Vec<Table>) -> Vec<Table> {
    fill_tables(&tables_file(text, path).tables, tables)
}

/// [`coverage`] of `tables` against the compiled-in file of expected values `text` (at
/// `path`): rows without values, values without a row.
pub fn file_coverage(text: &str, path: &str, tables: &[Table]) -> Vec<String> {
    coverage(
        path,
        &tables_file(text, path).tables,
        &defined(tables, None),
    )
}

/// `(table number, row labels)` of defined tables.
pub type Defined = Vec<(u32, Vec<String>)>;

/// The rows of `tables` (and `summary`, the summary table's rows), as [`coverage`]
/// takes them.
pub fn defined(tables: &[Table], summary: Option<&[Row]>) -> Defined {
    let labels = |rows: &[Row]| rows.iter().map(|r| r.label.clone()).collect();
    let mut out: Defined = tables.iter().map(|t| (t.number, labels(&t.rows))).collect();
    if let Some(s) = summary {
        out.push((SUMMARY_TABLE, labels(s)));
    }
    out
}

/// What does not match between the rows a definition has and the expected values
/// `tables` holds (`what` names the owner in messages): rows without expected values,
/// expected values without a row, duplicate labels. Empty when they match.
pub fn coverage(what: &str, tables: &Tables, defined: &Defined) -> Vec<String> {
    let mut out = Vec::new();
    for (number, labels) in defined {
        let expected: Option<&Rows> = tables.get(&number.to_string());
        for (i, label) in labels.iter().enumerate() {
            if labels[..i].contains(label) {
                out.push(format!("{what}: Table {number} has two rows `{label}`"));
            }
            if !expected.is_some_and(|e| e.contains_key(label)) {
                out.push(format!(
                    "{what}: Table {number} row `{label}` has no expected values"
                ));
            }
        }
    }
    for (number, rows) in tables {
        let labels = defined
            .iter()
            .find(|(n, _)| n.to_string() == *number)
            .map(|(_, l)| l.as_slice())
            .unwrap_or_default();
        for label in rows.keys() {
            if !labels.contains(label) {
                out.push(format!(
                    "{what}: expected values for Table {number} row `{label}`, which it does not have"
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_files_parse() {
        assert!(!sims().sims.is_empty());
        assert!(!v2().tables.is_empty());
    }

    #[test]
    fn coverage_names_missing_orphan_and_duplicate_rows() {
        let tables: Tables = serde_json::from_str(
            r#"{"3": {"a": {"paper": "1", "reference": "1"},
                      "gone": {"paper": "2", "reference": "2"}}}"#,
        )
        .unwrap();
        let defined = vec![(3, vec!["a".to_string(), "b".to_string(), "a".to_string()])];
        let p = coverage("t", &tables, &defined);
        assert_eq!(
            p,
            [
                "t: Table 3 row `b` has no expected values",
                "t: Table 3 has two rows `a`",
                "t: expected values for Table 3 row `gone`, which it does not have",
            ]
        );
        let ok = vec![(3, vec!["a".to_string(), "gone".to_string()])];
        assert!(coverage("t", &tables, &ok).is_empty());
    }

    #[test]
    fn fill_sets_every_field_by_label() {
        let tables: Tables = serde_json::from_str(
            r#"{"3": {"a": {"paper": "1", "reference": "2", "agrees": false, "note": "n"}}}"#,
        )
        .unwrap();
        let mut rows = vec![Row::sim("x", "a", |_| None), Row::sim("x", "b", |_| None)];
        fill(&tables, 3, &mut rows);
        assert_eq!(
            (
                &*rows[0].paper,
                &*rows[0].reference,
                rows[0].paper_agrees,
                &*rows[0].note
            ),
            ("1", "2", false, "n")
        );
        assert_eq!((&*rows[1].paper, rows[1].paper_agrees), ("", true));
    }
}
