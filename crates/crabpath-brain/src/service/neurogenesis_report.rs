//! How `maintain` reports what it did to auto nodes (the lead's note: deaths and
//! merges were only journaled), in one place for the command line's `maintain` (text
//! and `--json`) and the daemon's `maintain` answer.

use pyformat::pyjson::{PyDict, PyInt, PyValue};

use super::neurogenesis::NeurogenesisMaintain;

impl NeurogenesisMaintain {
    /// `{"died": n, "merged": m, "died_ids": [...], "merged_ids": [[removed, kept], ...]}`.
    pub fn to_dict(&self) -> PyDict {
        let count = |n: usize| PyValue::Int(PyInt::from(n as i64));
        let s = |t: &str| PyValue::Str(t.to_string());
        let mut d = PyDict::new();
        d.insert("died".into(), count(self.died.len()));
        d.insert("merged".into(), count(self.merged.len()));
        d.insert(
            "died_ids".into(),
            PyValue::List(self.died.iter().map(|i| s(i)).collect()),
        );
        d.insert(
            "merged_ids".into(),
            PyValue::List(
                self.merged
                    .iter()
                    .map(|(gone, kept)| PyValue::List(vec![s(gone), s(kept)]))
                    .collect(),
            ),
        );
        d
    }

    /// `N died, M merged` (the text report's `auto nodes:` line).
    pub fn counts_text(&self) -> String {
        format!("{} died, {} merged", self.died.len(), self.merged.len())
    }
}
