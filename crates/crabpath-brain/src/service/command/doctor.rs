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
//! 9. `journal_writable` (corrected: its detail names the malformed lines readers skip).
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

use crate::reference::embedder::EmbedderInfo;
use crate::service::EmbedderLoader;
use crate::{Brain, OpenOptions, QueryRequest};
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
        // corrected profile: name the lines readers skip (a torn append left by a crash
        // or a full disk; the next append starts on a line of its own, so nothing to do)
        let mut detail = journal.display().to_string();
        if fixes {
            if let Ok(j) = crate::reference::journal::read_journal(journal, Profile::Corrected) {
                if !j.malformed.is_empty() {
                    let lines: Vec<String> = j.malformed.iter().map(|l| l.to_string()).collect();
                    detail.push_str(&format!(
                        "; readers skip {} malformed line(s): {} (a torn append; nothing to do)",
                        lines.len(),
                        lines.join(", ")
                    ));
                }
            }
        }
        run.check(
            "journal_writable",
            ok,
            detail,
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

/// How `doctor` finds the embedder a brain's queries use: from the brain's `meta`, the
/// embedder (name, dimension) and a loader, or why there is none in this build (the
/// command line's rule, `crabpath query`'s; it lives with the embedders it knows).
pub type ResolveEmbedder<'a> =
    &'a dyn Fn(&crabpath::graph::Metadata) -> Result<(EmbedderInfo, EmbedderLoader), String>;

/// What fixes a brain whose rows are wrong (the schema is whole): `rollback` replaces
/// every row but the journal's with a snapshot's; `init` rebuilds from the folder.
const REPLACE_HINT: &str = "restore a snapshot taken before (`crabpath rollback --state <brain> --to <name>`) or rebuild the brain from its folder (`crabpath init --workspace <folder> --output <new dir>`)";

/// What fixes a schema that lacks a part while the brain can still be exported: a new
/// database of the whole schema, with the same nodes, edges, vectors and weights
/// (`rollback` would not do: it replaces rows, not tables).
const REEXPORT_HINT: &str = "export the brain and import it over itself (`crabpath export --state <brain> --output <file>.json`, then `crabpath import --state <file>.json --output <brain>`): nodes, edges and learned weights are kept, the query journal is not";

/// What fixes a schema that lacks a part the export reads (nodes, edges, vectors,
/// meta): the same through a snapshot (a whole database), or a rebuild.
const REBUILD_HINT: &str = "rebuild the brain from a snapshot (`crabpath export --state <brain>/snapshots/<name>.db --output <file>.json`, then `crabpath import --state <file>.json --output <brain>`) or from its folder (`crabpath init --workspace <folder> --output <new dir>`)";

/// What fixes a database that does not open (`rollback` opens it first, so it cannot).
const OPEN_HINT: &str = "rebuild the brain from a snapshot (`crabpath export --state <brain>/snapshots/<name>.db --output <file>.json`, then `crabpath import --state <file>.json --output <brain>`), from an exported state.json (`crabpath import`), or from its folder (`crabpath init --workspace <folder> --output <new dir>`)";

/// The hint of a check that cannot read its table or column.
const UNREADABLE_HINT: &str = "a table or column is missing: see schema_complete for what fixes it";

/// `doctor` on a brain database (`brain.db`), each failure with what fixes it:
///
/// 1. the program's version;
/// 2. `brain_database_opens`: a brain, of a schema this program reads (stops); an
///    older schema is migrated first, as any writer would migrate it;
/// 3. `integrity_check`: `PRAGMA integrity_check`;
/// 4. `schema_complete`: every table, column, index and trigger of the current schema
///    ([`crate::store::schema::schema_problems`]);
/// 5. `graph_has_nodes`; 6. `graph_has_edges`;
/// 7. `embedder_metadata_present`;
/// 8. `embedder_available`: `resolve` finds the recorded embedder in this build;
/// 9. `index_dimension_matches_embedder`;
/// 10. `edges_end_at_nodes`: both ends of every edge are nodes;
/// 11. `counts_agree`: the node count recorded in the `brain` row is the nodes', every
///     node has a vector and a text, every vector and text belongs to a node;
/// 12. `search_index` (sparse brains): `search.idx` passes its checksum and checks
///     ([`crate::store::search::PostingsFile::open`]); absent or stale is not a
///     failure (queries read the vectors it lacks);
/// 13. `query_works`: a query (the first node's text) through the [`Brain`] service,
///     opened read-only, answers;
/// 14. `journal_writable`;
/// 15. `forget_finished`: no `forget` stopped after its content left the brain (killed,
///     a full disk): until it is run again, snapshots and the file's old pages may
///     still hold that content.
///
/// A check that cannot read what it counts (a table is missing) fails with the
/// reason; none of them stops the run, so a broken schema is reported, not crashed on.
pub fn doctor_store(db: &Path, version: &str, resolve: ResolveEmbedder<'_>) -> DoctorReport {
    let mut run = Run {
        profile: Profile::Corrected,
        report: DoctorReport {
            checks: Vec::new(),
            passed: 0,
            total: 0,
        },
    };
    run.check("version", true, version, "");
    // a brain of an older schema is migrated first (opened once for writing), as
    // every writer would: the checks are those of the current schema
    let migrated = match crate::store::Store::open(db, false) {
        Ok(s) if s.schema_version() < crate::store::schema::SCHEMA_VERSION => {
            let from = s.schema_version();
            drop(s);
            crate::store::Store::open(db, true)
                .ok()
                .filter(|w| w.schema_version() == crate::store::schema::SCHEMA_VERSION)
                .map(|_| from)
        }
        _ => None,
    };
    let store = match crate::store::Store::open(db, false) {
        Ok(s) => {
            let detail = match migrated {
                Some(from) => format!(
                    "{} (schema {from} migrated to {})",
                    db.display(),
                    crate::store::schema::SCHEMA_VERSION
                ),
                None => db.display().to_string(),
            };
            run.check("brain_database_opens", true, detail, "");
            s
        }
        Err(e) => {
            run.check("brain_database_opens", false, e.to_string(), OPEN_HINT);
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
    let problems = crate::store::schema::schema_problems(conn);
    let schema_ok = matches!(&problems, Ok(p) if p.is_empty());
    match problems {
        Ok(p) if p.is_empty() => run.check(
            "schema_complete",
            true,
            format!("schema {}", crate::store::schema::SCHEMA_VERSION),
            "",
        ),
        Ok(p) => {
            // whether `export` still reads the brain decides which repair works
            let exports = open_read_only(db, None)
                .and_then(|mut b| crate::service::full_state(&mut b))
                .is_ok();
            let hint = if exports { REEXPORT_HINT } else { REBUILD_HINT };
            run.check("schema_complete", false, p.join("; "), hint)
        }
        Err(e) => run.check("schema_complete", false, e.to_string(), REBUILD_HINT),
    }
    // an interrupted `reembed` left its side table: not a fault (the brain answers
    // with its old embedder), said so only when there is one
    if let Ok(Some(p)) = crate::service::command::reembed::pending(conn) {
        run.check("reembed_unfinished", true, p.to_string(), "");
    }
    let count = |sql: &str| -> Result<i64, String> {
        conn.query_row(sql, [], |r| r.get(0))
            .map_err(|e| format!("cannot be read: {e}"))
    };
    match count("SELECT COUNT(*) FROM nodes WHERE node_seq IS NOT NULL") {
        Ok(nodes) => run.check(
            "graph_has_nodes",
            nodes > 0,
            format!("nodes={nodes}"),
            "the brain is empty: build it from a folder with `crabpath init --workspace <folder> --output <dir>`",
        ),
        Err(e) => run.check("graph_has_nodes", false, e, UNREADABLE_HINT),
    }
    match count("SELECT COUNT(*) FROM edges") {
        Ok(edges) => run.check(
            "graph_has_edges",
            edges > 0,
            format!("edges={edges}"),
            "no edges: run `crabpath connect --state <brain>` or learn from queries",
        ),
        Err(e) => run.check("graph_has_edges", false, e, UNREADABLE_HINT),
    }
    let meta = crate::store::rows::load_meta(conn).unwrap_or_default();
    let recorded = EmbedderInfo::from_meta(&meta);
    run.check(
        "embedder_metadata_present",
        recorded.is_some(),
        recorded
            .as_ref()
            .map_or_else(|| "missing".to_string(), |e| e.to_string()),
        "the brain does not say which embedder made its vectors: re-run `crabpath init`",
    );
    let embedder = resolve(&meta);
    match &embedder {
        Ok((info, _)) => run.check("embedder_available", true, info.to_string(), ""),
        Err(e) => run.check(
            "embedder_available",
            false,
            e.clone(),
            "queries cannot embed their text for these vectors: rebuild the brain with an embedder of this build (`crabpath init --workspace <folder> --output <dir> --embedder hash`) or restore a snapshot (`crabpath rollback --state <brain>`)",
        ),
    }
    let dim = store.dim();
    let matches = recorded.as_ref().is_none_or(|e| dim == 0 || e.dim == dim);
    run.check(
        "index_dimension_matches_embedder",
        matches,
        format!("vectors dim={dim}"),
        "the vectors are of another dimension than the embedder's: re-run `crabpath init` with the embedder",
    );
    check_edge_ends(&mut run, conn);
    check_counts(&mut run, conn);
    if store.layout() == crate::store::Layout::Sparse {
        check_search_index(&mut run, &store);
    }
    let data_hint = if schema_ok {
        REPLACE_HINT
    } else {
        UNREADABLE_HINT
    };
    let ran = match embedder {
        Ok((_, loader)) => query_once(db, conn, loader),
        // embedder_available said why and what to do
        Err(e) => Err((e, "see embedder_available")),
    };
    match ran {
        Ok(fired) => run.check("query_works", true, format!("fired={fired}"), ""),
        Err((e, hint)) => {
            let hint = if hint.is_empty() { data_hint } else { hint };
            run.check("query_works", false, e, hint)
        }
    }
    // asked of the file system, not by opening the file: closing a descriptor of it
    // would drop the locks of the connection open above (`store::raw`)
    let writable = crate::store::file_writable(db);
    run.check(
        "journal_writable",
        writable,
        db.display().to_string(),
        "the database is read-only: check the file's permissions",
    );
    match crate::service::forget::pending(conn) {
        Ok(None) => run.check("forget_finished", true, "none pending", ""),
        Ok(Some((t, _))) => {
            let (kind, target) = (t.kind(), t.value());
            run.check(
                "forget_finished",
                false,
                format!("a forget of {kind} `{target}` stopped after its content left the brain"),
                &format!(
                    "run `crabpath forget --state <brain> --{kind} {target}` again: the snapshots and the database file may still hold its content"
                ),
            )
        }
        Err(e) => run.check("forget_finished", false, e.to_string(), UNREADABLE_HINT),
    }
    run.report
}

/// Check 10 of [`doctor_store`]: both ends of every edge are nodes (an edge row may
/// name a symbol that is no node, or no symbol at all).
fn check_edge_ends(run: &mut Run, conn: &rusqlite::Connection) {
    // a missing row and a row without a node (`node_seq` NULL) both leave NULL here
    let found = conn.query_row(
        "SELECT COUNT(*), MIN(COALESCE(s.id, '#' || e.src) || ' -> ' || COALESCE(t.id, '#' || e.tgt)) \
         FROM edges e LEFT JOIN nodes s ON s.sym = e.src LEFT JOIN nodes t ON t.sym = e.tgt \
         WHERE s.node_seq IS NULL OR t.node_seq IS NULL",
        [],
        |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Option<String>>(1)?)),
    );
    match found {
        Ok((0, _)) => run.check("edges_end_at_nodes", true, "ok", ""),
        Ok((n, example)) => run.check(
            "edges_end_at_nodes",
            false,
            format!(
                "{n} edges end at no node, e.g. {}",
                example.unwrap_or_default()
            ),
            REPLACE_HINT,
        ),
        Err(e) => run.check(
            "edges_end_at_nodes",
            false,
            format!("cannot be read: {e}"),
            UNREADABLE_HINT,
        ),
    }
}

/// Check 11 of [`doctor_store`]: the node count recorded in the `brain` row, the nodes,
/// their vectors and their texts agree.
fn check_counts(run: &mut Run, conn: &rusqlite::Connection) {
    const NODE: &str =
        "EXISTS (SELECT 1 FROM nodes n WHERE n.sym = v.sym AND n.node_seq IS NOT NULL)";
    let sql = format!(
        "SELECT (SELECT nodes FROM brain WHERE id = 1), \
         (SELECT COUNT(*) FROM nodes WHERE node_seq IS NOT NULL), \
         (SELECT COUNT(*) FROM vectors), \
         (SELECT COUNT(*) FROM nodes WHERE node_seq IS NOT NULL AND content IS NOT NULL), \
         (SELECT COUNT(*) FROM nodes n WHERE n.node_seq IS NOT NULL AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.sym = n.sym)), \
         (SELECT COUNT(*) FROM vectors v WHERE NOT {NODE}), \
         (SELECT COUNT(*) FROM nodes WHERE node_seq IS NULL AND content IS NOT NULL)"
    );
    let read = conn.query_row(&sql, [], |r| {
        Ok([
            r.get::<_, Option<i64>>(0)?.unwrap_or(-1),
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            r.get(5)?,
            r.get(6)?,
        ])
    });
    let [recorded, nodes, vectors, texts, without_vector, stray_vectors, stray_texts] = match read {
        Ok(c) => c,
        Err(e) => {
            run.check(
                "counts_agree",
                false,
                format!("cannot be read: {e}"),
                UNREADABLE_HINT,
            );
            return;
        }
    };
    let mut problems = Vec::new();
    if recorded != nodes {
        problems.push(format!("the brain row says nodes={recorded}"));
    }
    if without_vector > 0 {
        problems.push(format!("nodes without a vector={without_vector}"));
    }
    if stray_vectors > 0 {
        problems.push(format!("vectors without a node={stray_vectors}"));
    }
    if texts != nodes {
        problems.push(format!("nodes without a text={}", nodes - texts));
    }
    if stray_texts > 0 {
        problems.push(format!("texts without a node={stray_texts}"));
    }
    let mut detail = format!("nodes={nodes}, vectors={vectors}, texts={texts}");
    for p in &problems {
        detail.push_str(", ");
        detail.push_str(p);
    }
    run.check("counts_agree", problems.is_empty(), detail, REPLACE_HINT);
}

/// Check 12 of [`doctor_store`]: the derived search index passes its checks, and how
/// much of the vectors it covers.
fn check_search_index(run: &mut Run, store: &crate::store::Store) {
    use crate::store::search::{index_path, IndexFault, PostingsFile, Searcher};
    let dir = store.dir();
    let path = index_path(&dir);
    if let Err(IndexFault::Damaged(why)) = PostingsFile::open(&path, store.dim()) {
        run.check(
            "search_index",
            false,
            format!("{}: {why}", path.display()),
            "nothing to run: it is derived from the database and is rebuilt automatically the next time the brain is opened for a query (doctor's own query below does it)",
        );
        return;
    }
    let loaded = Searcher::load(
        store.conn(),
        &dir,
        store.layout(),
        store.dim(),
        store.nonce(),
    );
    match loaded {
        Ok(s) if s.indexed() => {
            let len = s.len();
            let detail = format!("{} of {len} vectors in search.idx", s.in_index());
            run.check("search_index", true, detail, "");
        }
        Ok(s) => {
            let detail = format!(
                "search.idx absent or stale: queries read all {} vectors",
                s.len()
            );
            run.check("search_index", true, detail, "");
        }
        Err(e) => run.check(
            "search_index",
            false,
            format!("cannot be read: {e}"),
            UNREADABLE_HINT,
        ),
    }
}

/// The brain at `db` through the service, read-only (nothing is written, nothing
/// journaled), with `loader` as its embedder.
fn open_read_only(db: &Path, loader: Option<EmbedderLoader>) -> crate::error::Result<Brain> {
    let mut options = OpenOptions::new(Profile::Corrected);
    options.write = false;
    options.embedder = loader;
    Brain::open(crate::Location::Store(db.to_path_buf()), options)
}

/// Check 13 of [`doctor_store`]: one query (the first node's text, or `doctor` in an
/// empty brain) through the brain service opened read-only (nothing is journaled);
/// the number of nodes it fired, or the error and what fixes it.
fn query_once(
    db: &Path,
    conn: &rusqlite::Connection,
    loader: EmbedderLoader,
) -> Result<usize, (String, &'static str)> {
    let text: String = conn
        .query_row(
            "SELECT content FROM nodes WHERE node_seq IS NOT NULL ORDER BY node_seq LIMIT 1",
            [],
            |r| r.get::<_, Option<String>>(0),
        )
        .ok()
        .flatten()
        .map(|c| c.chars().take(200).collect())
        .filter(|c: &String| !c.trim().is_empty())
        .unwrap_or_else(|| "doctor".to_string());
    // the error and its own hint ("": the data's), the embedder's load apart: what
    // fixes a model missing on this machine is not in the brain
    let data = |e: crate::Error| (e.to_string(), "");
    let mut brain = open_read_only(db, Some(loader)).map_err(data)?;
    brain.embedder().map_err(|e| {
        (
            e.to_string(),
            "the embedder cannot be loaded on this machine: its message says what it lacks (MiniLM: its model files, see CRABPATH_MODEL_DIR)",
        )
    })?;
    let answer = brain.query(&QueryRequest::new(&text, 4)).map_err(data)?;
    Ok(answer.result.fired.len())
}
