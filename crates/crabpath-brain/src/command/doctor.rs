//! `crabpath doctor`: checks that a state file is usable, one line per check, and
//! says what to do about each failure (reference `crabpath/cli.py::cmd_doctor`, commit
//! 134c676).
//!
//! Checks, in order (each stops the run when noted):
//! 1. the program's version (the reference checks Python ≥ 3.10; this port reports
//!    itself and passes);
//! 2. `state_file_exists` (stops);
//! 3. `state_json_valid`: the file is a JSON object (stops);
//! 4. the `graph` value is an object (stops; silent on success);
//! 5. `graph_has_nodes`, 6. `graph_has_edges`;
//! 7. `embedder_metadata_present` (`meta.embedder_name` a string, `embedder_dim` an
//!    integer);
//! 8. `index_dimension_matches_embedder`;
//! 9. `journal_writable`.
//!
//! | # | reference (paper) | corrected | before → after |
//! |---|---|---|---|
//! | D1 | check 4 counts in the total but never as passed: a healthy state scores `8/9` | counted as passed when it passes | `Summary: 8/9` vs. `Summary: 9/9` |
//! | D2 | a state that is a bare graph (`{"nodes", "edges"}`) fails `graph_has_nodes` although its nodes load | the loaded nodes are counted | `FAIL (nodes=19)` vs. `PASS (nodes=19)` |
//! | D3 | a failure says only what is wrong | each failure also says what to do ([`Check::hint`]) | |
//! | D4 | — | `index_covers_nodes`: every node has a vector and every vector a node (a merge leaves stale vectors, reference bug) | |

use std::path::Path;

use crabpath::graph::Graph;
use crabpath::profile::Profile;
use pyformat::pyjson::{self, PyDict, PyValue};
use pyformat::pyrepr::py_str;

/// One check's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// Label, e.g. `state_file_exists`.
    pub label: String,
    /// Passed?
    pub ok: bool,
    /// The detail in parentheses.
    pub detail: String,
    /// What to do about a failure (corrected profile).
    pub hint: Option<String>,
    /// Printed? (the reference's check 4 prints only on failure)
    pub shown: bool,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DoctorReport {
    /// Checks in order (silent ones included).
    pub checks: Vec<Check>,
    /// Checks counted as passed.
    pub passed: usize,
    /// Checks counted.
    pub total: usize,
}

impl DoctorReport {
    /// Exit status 1 if any check failed.
    pub fn failed(&self) -> bool {
        self.checks.iter().any(|c| !c.ok)
    }
}

struct Run {
    profile: Profile,
    report: DoctorReport,
}

impl Run {
    fn check(&mut self, label: &str, ok: bool, detail: impl Into<String>, hint: &str) {
        self.report.total += 1;
        if ok {
            self.report.passed += 1;
        }
        self.report.checks.push(Check {
            label: label.into(),
            ok,
            detail: detail.into(),
            hint: (!ok && self.profile.fixes_bugs()).then(|| hint.to_string()),
            shown: true,
        });
    }
}

/// The raw state payload as the reference reads it for `doctor` and `info`
/// (`cli.py::_load_json`): the error strings are the reference's.
pub fn load_payload(path: &Path, arg: &str) -> Result<PyDict, String> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(_) => return Err(format!("missing state file: {arg}")),
    };
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(_) => return Err(format!("invalid JSON in state file: {arg}")),
    };
    match pyjson::loads_lossy(&pyformat::pystr::universal_newlines(&text)) {
        Ok(PyValue::Dict(d)) => Ok(d),
        Ok(_) => Err(format!("state file payload must be an object: {arg}")),
        Err(_) => Err(format!("invalid JSON in state file: {arg}")),
    }
}

/// Runs the checks on the state at `path` (`arg` = the path as the user gave it, for
/// the messages); `journal` is the state's journal; `version` is this program's
/// version string, reported by check 1; `graph` loads the graph (the reference's
/// `--graph` reader) when check 4 passed.
pub fn doctor(
    path: &Path,
    arg: &str,
    journal: &Path,
    version: &str,
    profile: Profile,
    load_graph: impl FnOnce() -> Result<Graph, String>,
) -> Result<DoctorReport, String> {
    let fixes = profile.fixes_bugs();
    let mut run = Run {
        profile,
        report: DoctorReport {
            checks: Vec::new(),
            passed: 0,
            total: 0,
        },
    };
    let label = if fixes { "version" } else { "python_version" };
    run.check(label, true, version, "");
    let exists = path.exists();
    run.check(
        "state_file_exists",
        exists,
        path.display().to_string(),
        "check the path, or create a brain with `crabpath init --workspace <folder> --output <dir>`",
    );
    if !exists {
        return Ok(run.report);
    }
    let payload = match load_payload(path, arg) {
        Ok(p) => {
            run.check("state_json_valid", true, arg, "");
            p
        }
        Err(msg) => {
            run.check(
                "state_json_valid",
                false,
                msg,
                "the file is damaged: restore `<state>.bak` (kept by every save) or a snapshot (`crabpath rollback`), or re-run init",
            );
            return Ok(run.report);
        }
    };
    let graph_value = payload.get("graph");
    let graph_ok = matches!(graph_value, None | Some(PyValue::Dict(_)));
    run.report.total += 1;
    if graph_ok && fixes {
        run.report.passed += 1;
    }
    run.report.checks.push(Check {
        label: "state_json_valid".into(),
        ok: graph_ok,
        detail: if graph_ok {
            String::new()
        } else {
            "graph payload must be object".into()
        },
        hint: (!graph_ok && fixes).then(|| {
            "the `graph` key must hold {\"nodes\": [...], \"edges\": [...]}: restore `<state>.bak` or re-run init".to_string()
        }),
        shown: !graph_ok,
    });
    if !graph_ok {
        return Ok(run.report);
    }
    let graph = load_graph()?;
    let raw_nodes = match graph_value {
        Some(PyValue::Dict(g)) => truthy(g.get("nodes")),
        _ => false,
    };
    let has_nodes = if fixes {
        graph.node_count() > 0
    } else {
        raw_nodes
    };
    run.check(
        "graph_has_nodes",
        has_nodes,
        format!("nodes={}", graph.node_count()),
        "the brain is empty: is the workspace empty or all skipped? re-run init on a folder with .md/.txt/.py/... files",
    );
    run.check(
        "graph_has_edges",
        graph.edge_count() > 0,
        format!("edges={}", graph.edge_count()),
        "no edges: traversal cannot spread from the seeds; files with one chunk have no siblings — run `crabpath connect` or teach outcomes with `crabpath learn`",
    );
    let meta = match payload.get("meta") {
        Some(PyValue::Dict(m)) => m.clone(),
        _ => PyDict::new(),
    };
    let name = meta.get("embedder_name").cloned().unwrap_or(PyValue::Null);
    let dim = meta.get("embedder_dim").cloned().unwrap_or(PyValue::Null);
    let dim_int = match &dim {
        PyValue::Int(i) => i.as_i64(),
        PyValue::Bool(b) => Some(*b as i64),
        _ => None,
    };
    run.check(
        "embedder_metadata_present",
        matches!(name, PyValue::Str(_)) && dim_int.is_some(),
        format!("name={}, dim={}", py_str(&name), py_str(&dim)),
        "meta.embedder_name/embedder_dim are missing: re-run init, or add them to the file's meta",
    );
    const DIM_HINT: &str =
        "the vectors do not match the embedder: re-run init with the embedder the brain should use";
    let index = payload
        .get("index")
        .cloned()
        .unwrap_or(PyValue::Dict(PyDict::new()));
    match (dim_int, &index) {
        (None, _) => run.check(
            "index_dimension_matches_embedder",
            false,
            "missing embedder_dim",
            DIM_HINT,
        ),
        (Some(_), PyValue::Dict(ix)) if ix.is_empty() => run.check(
            "index_dimension_matches_embedder",
            false,
            "missing index payload",
            "the state has no vectors: queries cannot be seeded; re-run init",
        ),
        (Some(d), PyValue::Dict(ix)) => {
            let mut dims: Vec<usize> = Vec::new();
            let mut bad = None;
            for (id, v) in ix {
                match v {
                    PyValue::List(l) => {
                        if !dims.contains(&l.len()) {
                            dims.push(l.len());
                        }
                    }
                    _ => {
                        bad = Some(id.clone());
                        break;
                    }
                }
            }
            match bad {
                Some(id) => run.check(
                    "index_dimension_matches_embedder",
                    false,
                    format!("{id}: not a list"),
                    DIM_HINT,
                ),
                None => {
                    let ok = dims.len() == 1 && dims[0] as i64 == d;
                    run.check(
                        "index_dimension_matches_embedder",
                        ok,
                        format!("index_dim={}", dims[0]),
                        DIM_HINT,
                    )
                }
            }
        }
        (Some(_), _) => run.check(
            "index_dimension_matches_embedder",
            false,
            "index payload must be an object",
            DIM_HINT,
        ),
    }
    if fixes {
        if let PyValue::Dict(ix) = &index {
            let missing = graph
                .nodes()
                .filter(|(_, n)| !ix.contains_key(&n.id))
                .count();
            let stale = ix.keys().filter(|id| graph.get_node(id).is_none()).count();
            run.check(
                "index_covers_nodes",
                missing == 0 && stale == 0,
                format!("nodes_without_vector={missing}, vectors_without_node={stale}"),
                "queries cannot seed nodes without a vector: run `crabpath sync --state <state> --workspace <folder>` or re-run init",
            );
        }
    }
    if journal.exists() {
        let ok = std::fs::OpenOptions::new()
            .append(true)
            .open(journal)
            .is_ok();
        run.check(
            "journal_writable",
            ok,
            journal.display().to_string(),
            "the journal beside the state cannot be appended to: check its permissions (it must be a file)",
        );
    } else {
        run.check("journal_writable", true, "not present", "");
    }
    Ok(run.report)
}

/// Python truthiness of an optional value.
fn truthy(v: Option<&PyValue>) -> bool {
    match v {
        None | Some(PyValue::Null) => false,
        Some(PyValue::Bool(b)) => *b,
        Some(PyValue::Int(i)) => i.as_str() != "0",
        Some(PyValue::Float(f)) => *f != 0.0,
        Some(PyValue::Str(s)) => !s.is_empty(),
        Some(PyValue::List(l)) => !l.is_empty(),
        Some(PyValue::Dict(d)) => !d.is_empty(),
    }
}

/// `doctor` on a brain database (`brain.db`): the program's version; the database
/// opens (a brain, of a schema this program reads); `PRAGMA integrity_check`; the graph
/// has nodes and edges; the embedder is recorded and its dimension is the vectors';
/// every node has a vector and every vector a node; the derived search index is current
/// (informational: queries read the vectors it lacks); the brain is writable. Each
/// failure says what to do.
pub fn doctor_store(db: &Path, version: &str) -> DoctorReport {
    let mut run = Run {
        profile: Profile::Corrected,
        report: DoctorReport {
            checks: Vec::new(),
            passed: 0,
            total: 0,
        },
    };
    run.check("version", true, version, "");
    let store = match crate::store::Store::open(db, false) {
        Ok(s) => {
            run.check("brain_database_opens", true, db.display().to_string(), "");
            s
        }
        Err(e) => {
            run.check(
                "brain_database_opens",
                false,
                e.to_string(),
                "restore a snapshot (`crabpath rollback`), import an exported state.json (`crabpath import`), or re-run `crabpath init`",
            );
            return run.report;
        }
    };
    match store.integrity_check() {
        Ok(problems) if problems.is_empty() => run.check("integrity_check", true, "ok", ""),
        Ok(problems) => run.check(
            "integrity_check",
            false,
            problems.iter().take(3).cloned().collect::<Vec<_>>().join("; "),
            "the database file is damaged: restore a snapshot (`crabpath rollback`) or re-run `crabpath init`",
        ),
        Err(e) => run.check(
            "integrity_check",
            false,
            e.to_string(),
            "the database cannot be read: restore a snapshot or re-run `crabpath init`",
        ),
    }
    let conn = store.conn();
    let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap_or(-1) };
    let nodes = count("SELECT COUNT(*) FROM nodes WHERE node_seq IS NOT NULL");
    let edges = count("SELECT COUNT(*) FROM edges");
    run.check(
        "graph_has_nodes",
        nodes > 0,
        format!("nodes={nodes}"),
        "the brain is empty: build it from a folder with `crabpath init --workspace <folder> --output <dir>`",
    );
    run.check(
        "graph_has_edges",
        edges > 0,
        format!("edges={edges}"),
        "no edges: run `crabpath connect --state <brain>` or learn from queries",
    );
    let meta = crate::store::rows::load_meta(conn).unwrap_or_default();
    let recorded = crate::embedder::EmbedderInfo::from_meta(&meta);
    run.check(
        "embedder_metadata_present",
        recorded.is_some(),
        recorded
            .as_ref()
            .map_or_else(|| "missing".to_string(), |e| e.to_string()),
        "the brain does not say which embedder made its vectors: re-run `crabpath init`",
    );
    let dim = store.dim();
    let matches = recorded.as_ref().is_none_or(|e| dim == 0 || e.dim == dim);
    run.check(
        "index_dimension_matches_embedder",
        matches,
        format!("vectors dim={dim}"),
        "the vectors are of another dimension than the embedder's: re-run `crabpath init` with the embedder",
    );
    let without = count(
        "SELECT COUNT(*) FROM nodes n WHERE n.node_seq IS NOT NULL AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.sym = n.sym)",
    );
    let stale = count(
        "SELECT COUNT(*) FROM vectors v JOIN nodes n ON n.sym = v.sym WHERE n.node_seq IS NULL",
    );
    run.check(
        "index_covers_nodes",
        without == 0 && stale == 0,
        format!("nodes without a vector={without}, vectors without a node={stale}"),
        "run `crabpath sync --state <brain> --workspace <folder>` to embed missing nodes",
    );
    if store.layout() == crate::store::Layout::Sparse {
        let (indexed, unindexed, len) = crate::store::search::Searcher::load(
            conn,
            &store.dir(),
            store.layout(),
            dim,
            store.nonce(),
        )
        .map(|s| (s.indexed(), s.unindexed(), s.len()))
        .unwrap_or((false, 0, 0));
        let detail = if indexed {
            format!("{} of {len} vectors in search.idx", len - unindexed)
        } else {
            format!("search.idx absent or stale: queries read all {len} vectors")
        };
        run.check("search_index", true, detail, "");
    }
    let writable = std::fs::OpenOptions::new().append(true).open(db).is_ok();
    run.check(
        "journal_writable",
        writable,
        db.display().to_string(),
        "the database is read-only: check the file's permissions",
    );
    run.report
}
