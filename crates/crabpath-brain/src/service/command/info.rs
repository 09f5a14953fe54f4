//! `crabpath info`: counts, embedder, tier shares, journal size and file size of a
//! state or graph file (reference `crabpath/cli.py::cmd_info`, commit 134c676).
//!
//! | # | reference (paper) | corrected | before → after |
//! |---|---|---|---|
//! | I1 | `version` is the constant `10.4.0` (the package is 11.2.1) | this program's version | `10.4.0` vs. `crabpath 0.1.0` |
//! | I2 | `--graph <dir>` reports the size of the directory entry | the size of the `graph.json` read | `4096` vs. the file's size |

use crabpath::graph::Graph;
use crabpath::health::measure_health;
use pyformat::pyjson::{PyDict, PyInt, PyValue};

/// The version the reference reports (its `__version__`).
pub const REFERENCE_VERSION: &str = "10.4.0";

/// The `info` payload, keys in the reference's order: version, node_count,
/// edge_count, embedder_name, embedder_dim, dormant_pct, habitual_pct, reflex_pct
/// (percentages), journal_entry_count (`None` → null), state_file_size.
pub fn info_payload(
    version: &str,
    graph: &Graph,
    embedder_name: PyValue,
    embedder_dim: PyValue,
    journal_entries: Option<usize>,
    file_size: u64,
) -> PyDict {
    let h = measure_health(graph);
    let int = |n: i64| PyValue::Int(PyInt::from(n));
    let mut d = PyDict::new();
    d.insert("version".into(), PyValue::Str(version.into()));
    d.insert("node_count".into(), int(graph.node_count() as i64));
    d.insert("edge_count".into(), int(graph.edge_count() as i64));
    d.insert("embedder_name".into(), embedder_name);
    d.insert("embedder_dim".into(), embedder_dim);
    d.insert("dormant_pct".into(), PyValue::Float(h.dormant_pct * 100.0));
    d.insert(
        "habitual_pct".into(),
        PyValue::Float(h.habitual_pct * 100.0),
    );
    d.insert("reflex_pct".into(), PyValue::Float(h.reflex_pct * 100.0));
    d.insert(
        "journal_entry_count".into(),
        journal_entries.map_or(PyValue::Null, |n| int(n as i64)),
    );
    d.insert("state_file_size".into(), int(file_size as i64));
    d
}
