//! The brain's named operations: `learn`, `inject`, `maintain`, `sync` (everything
//! else goes through [`Brain::write`] with the functions of [`crate::service::command`]).

use std::path::Path;

use crabpath::graph::Metadata;
use crabpath::inject::{
    inject_correction, inject_node, CorrectionOptions, InjectConfig, InjectOptions, InjectReport,
};
use pyformat::pyjson::PyDict;
use serde_json::Value;

use super::engine::{Backend, Brain, Scope};
use crate::error::{Error, Result};
use crate::reference::journal::learn_event;
use crate::service::command::anchor;
use crate::service::command::learn::{learn_ids_tuned, LearnSummary};
use crate::service::command::maintain::{self, MaintainOptions, MaintainReport};
use crate::service::command::merge;
use crate::source::sync::{
    apply_sync, is_workspace_id, mapped_files, mass_delete_refusal, plan_sync, SyncGuard,
    SyncOptions, SyncReport, SYNC_FILES_KEY, WORKSPACE_KEY,
};
use crate::store::search::Searcher;
use crate::store::sql_error;

/// The one number a `SELECT COUNT(*)` of the brain's database gives.
fn count_rows(store: &crate::store::Store, sql: &str) -> Result<usize> {
    let n: i64 = store
        .conn()
        .query_row(sql, [], |r| r.get(0))
        .map_err(sql_error(store.path()))?;
    Ok(n as usize)
}

/// What `learn` reports (`{"edges_updated", "max_weight_delta"}`).
pub type LearnReport = LearnSummary;

/// A node to add (reference `crabpath/cli.py::cmd_inject`, `inject.py`).
#[derive(Debug, Clone)]
pub struct InjectRequest {
    /// The new node's id (nothing happens if it exists).
    pub id: String,
    /// Its text.
    pub content: String,
    /// `TEACHING`, `DIRECTIVE` or `CORRECTION` (its edges to the nodes it resembles
    /// inhibit them).
    pub node_type: String,
    /// Its summary (default: the content's first line).
    pub summary: Option<String>,
    /// Its vector (default: the embedding of the content).
    pub vector: Option<Vec<f64>>,
    /// Connect to this many most similar nodes.
    pub connect_top_k: usize,
    /// Minimum similarity of a connected node.
    pub connect_min_sim: f64,
    /// `metadata.source` (`cli_inject` from the command line).
    pub source: String,
}

/// The journal entry of an injection (corrected profile; issue 30 item 3), with what
/// the unlearning replay ([`Brain::relearn`]) needs to make its edges again:
/// `{"type": "inject", "id", "inhibit", "neighbours": [[id, score], ...]}` — the node,
/// whether its edges to its neighbours were made inhibitory (a correction's rule,
/// [`crabpath::inject::inhibit_neighbours`] with the default strength), and the
/// neighbours it was linked to in search order with their similarities
/// ([`crabpath::inject::link_neighbours`]). The reference journals no injection; its
/// readers skip unknown types.
pub fn inject_event(report: &InjectReport, inhibit: bool) -> PyDict {
    use pyformat::pyjson::PyValue;
    let mut e = PyDict::new();
    e.insert("type".into(), PyValue::Str(INJECT_EVENT.into()));
    e.insert("id".into(), PyValue::Str(report.node_id.clone()));
    e.insert("inhibit".into(), PyValue::Bool(inhibit));
    let neighbours = report
        .connected_to
        .iter()
        .zip(&report.similarities)
        .map(|(id, score)| PyValue::List(vec![PyValue::Str(id.clone()), PyValue::Float(*score)]))
        .collect();
    e.insert("neighbours".into(), PyValue::List(neighbours));
    e
}

/// The `type` of [`inject_event`].
pub const INJECT_EVENT: &str = "inject";

impl Brain {
    /// Whether a node with this id exists.
    pub fn has_node(&mut self, id: &str) -> Result<bool> {
        self.catch_up()?;
        match &mut self.backend {
            Backend::Json(_) => Ok(self.json_state()?.graph.get_node(id).is_some()),
            Backend::Store(s) => {
                if let Some(r) = &s.resident {
                    return Ok(r.loaded.graph.get_node(id).is_some());
                }
                let found: Option<i64> = s
                    .store
                    .conn()
                    .query_row("SELECT node_seq FROM nodes WHERE id = ?1", [id], |r| {
                        r.get(0)
                    })
                    .ok()
                    .flatten();
                Ok(found.is_some())
            }
        }
    }

    /// The number of vectors.
    pub fn vector_count(&mut self) -> Result<usize> {
        match &mut self.backend {
            Backend::Json(_) => Ok(self.json_state()?.index.len()),
            Backend::Store(s) => count_rows(&s.store, "SELECT COUNT(*) FROM vectors"),
        }
    }

    /// Teaches an outcome for the fired ids in order (reference
    /// `crabpath/cli.py::cmd_learn`, [`crate::service::command::learn::learn_ids`]),
    /// journaled. A database reads and writes only the rows of those nodes and their
    /// outgoing edges.
    pub fn learn(&mut self, ids: &[String], outcome: f64) -> Result<LearnReport> {
        let profile = self.profile;
        let tuning = self.tuning()?;
        self.write(Scope::Nodes(ids), |w| {
            let summary = learn_ids_tuned(w.graph, ids, outcome, profile, &tuning)?;
            let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
            w.journal(learn_event(&refs, outcome));
            Ok(summary)
        })
    }

    /// Adds a node connected to its most similar nodes, or a correction whose edges
    /// inhibit them (reference `crabpath/inject.py::inject_node`,
    /// `inject_correction`). An id that exists already is reported as skipped (the
    /// corrected profile writes nothing then). A database reads and writes only the
    /// new node and the nodes it connects to.
    pub fn inject(&mut self, req: &InjectRequest) -> Result<InjectReport> {
        self.inject_as(req, req.node_type == "CORRECTION")
    }

    /// [`Brain::inject`], with its edges to the nodes it resembles made inhibitory
    /// (`inhibit`, a correction's rule) or not (a guardrail's, see
    /// [`super::guardrail`]), whatever its `node_type`.
    pub(super) fn inject_as(&mut self, req: &InjectRequest, inhibit: bool) -> Result<InjectReport> {
        let profile = self.profile;
        let exists = self.has_node(&req.id)?;
        let vector = match (&req.vector, exists) {
            (Some(v), _) => Some(v.clone()),
            // an injected node has no document header: its content, as embedtext says
            (None, false) => Some(self.embedder()?.embed(
                &crate::source::embedtext::embedded_text_of(None, &req.content),
            )?),
            (None, true) => None,
        };
        // the nodes it will connect to, found before the write so that only they are read
        let mut scope: Vec<String> = vec![req.id.clone()];
        if let (Backend::Store(s), Some(v), false) = (&mut self.backend, &vector, exists) {
            if s.resident.is_none() {
                let path = s.store.path().to_path_buf();
                let searcher = Searcher::load(
                    s.store.conn(),
                    &s.dir,
                    s.store.layout(),
                    s.store.dim(),
                    s.store.nonce(),
                )
                .map_err(sql_error(&path))?;
                if s.store.dim() == 0 || v.len() == s.store.dim() {
                    for (sym, _) in searcher.search(v, req.connect_top_k.saturating_add(1)) {
                        let id: Option<String> = s
                            .store
                            .conn()
                            .query_row("SELECT id FROM nodes WHERE sym = ?1", [sym], |r| r.get(0))
                            .ok();
                        scope.extend(id);
                    }
                }
            } else if let Some(r) = &s.resident {
                for (sym, _) in r.searcher.search(v, req.connect_top_k.saturating_add(1)) {
                    if let Some(&n) = r.loaded.by_sym.get(&sym) {
                        scope.push(r.loaded.graph.name(n).to_string());
                    }
                }
            }
        }
        let correction = inhibit;
        self.write(Scope::Nodes(&scope), |w| {
            let mut metadata = Metadata::new();
            metadata.insert("source".into(), Value::from(req.source.as_str()));
            metadata.insert("type".into(), Value::from(req.node_type.as_str()));
            let options = InjectOptions {
                summary: req.summary.clone(),
                metadata,
                vector,
                embedder: None,
                connect_top_k: req.connect_top_k,
                connect_min_sim: req.connect_min_sim,
            };
            let report = if correction {
                inject_correction(
                    w.graph,
                    w.vectors,
                    &req.id,
                    &req.content,
                    options,
                    &CorrectionOptions::default(),
                    &InjectConfig::for_profile(profile),
                )?
            } else {
                inject_node(w.graph, w.vectors, &req.id, &req.content, options)?
            };
            if report.skipped && profile.fixes_bugs() {
                w.discard();
            }
            if !report.skipped && profile.fixes_bugs() {
                // the inputs the unlearning replay needs (issue 30 item 3)
                w.journal(inject_event(&report, correction));
            }
            Ok(report)
        })
    }

    /// Runs maintenance (reference `crabpath/maintain.py::run_maintenance`,
    /// [`maintain::run`]): on the brain, or on a throwaway copy in a dry run; its
    /// journal entries are written either way.
    pub fn maintain(&mut self, options: &MaintainOptions<'_>) -> Result<MaintainReport> {
        let profile = self.profile;
        // the health task runs the autotuner: a snapshot first when it will move a
        // parameter, as `crabpath autotune` takes (issue 31 item 3)
        let snapshot = if !options.dry_run && options.requested.iter().any(|t| t == "health") {
            self.snapshot_if_tuning_moves()?.map(|s| s.name)
        } else {
            None
        };
        let mut report = if options.dry_run {
            self.write_dry(Scope::All, |w| maintain::run(w, options, profile))
        } else {
            self.write(Scope::All, |w| {
                let r = maintain::run_after_snapshot(w, options, profile, snapshot.as_deref())?;
                if !r.should_save {
                    w.discard();
                }
                Ok(r)
            })
        }?;
        // death and merge of auto nodes (issue 31 item 1, seed 001 §2.8), journaled and
        // reported (corrected profile)
        let auto = self.neurogenesis_maintain(options.dry_run)?;
        if profile.fixes_bugs() {
            report.neurogenesis = Some(auto);
        }
        Ok(report)
    }

    /// The number of nodes.
    pub fn node_count(&mut self) -> Result<usize> {
        self.catch_up()?;
        match &mut self.backend {
            Backend::Json(_) => Ok(self.json_state()?.graph.node_count()),
            Backend::Store(s) => count_rows(
                &s.store,
                "SELECT COUNT(*) FROM nodes WHERE node_seq IS NOT NULL",
            ),
        }
    }

    /// One entry of the brain's `meta`, read without loading the graph.
    pub(super) fn meta_entry(&mut self, key: &str) -> Result<Option<Value>> {
        match &mut self.backend {
            Backend::Store(s) => crate::store::rows::meta_value(s.store.conn(), key)
                .map_err(sql_error(s.store.path())),
            Backend::Json(_) => Ok(self.json_state()?.meta.get(key).cloned()),
        }
    }

    /// The folder the brain records it was built from ([`WORKSPACE_KEY`]; corrected
    /// brains: written by `init` and by the first sync of a brain made before).
    pub fn recorded_workspace(&mut self) -> Result<Option<std::path::PathBuf>> {
        Ok(self
            .meta_entry(WORKSPACE_KEY)?
            .and_then(|v| v.as_str().map(std::path::PathBuf::from)))
    }

    /// Refuses a `sync` of a brain built from a conversation (`crabpath init
    /// --conversation`, `meta.source` = [`crate::source::conversation::CONVERSATION`]): it has
    /// no folder to sync ([`Error::SyncRefused`], saying how it grows instead).
    pub fn check_syncable(&mut self) -> Result<()> {
        let source = self.meta_entry(crate::source::conversation::SOURCE_KEY)?;
        if source.as_ref().and_then(Value::as_str)
            == Some(crate::source::conversation::CONVERSATION)
        {
            return Err(Error::SyncRefused(format!(
                "{} was built from a conversation (crabpath init --conversation): there is no folder to sync; add turns with `remember` (daemon or MCP), or build a new brain with init --conversation",
                self.path().display()
            )));
        }
        Ok(())
    }

    /// Brings the brain up to date with its folder (reference
    /// `crabpath/sync.py::sync_workspace`, [`crate::source::sync`]); `event` (the report's
    /// journal entry, built from it) is journaled. With `dry_run`, nothing is written
    /// or journaled.
    ///
    /// Corrected profile: a folder other than the one the brain records
    /// ([`Brain::recorded_workspace`]) is refused ([`Error::SyncRefused`]) unless
    /// `guard.rebase`, and so is a sync that would remove more than half of the nodes
    /// unless `guard.allow_mass_delete` (nothing is written; a dry run says so too).
    /// With either flag a snapshot is taken first (named in the report). A brain that
    /// records no folder records this one. Paths that cannot be read keep their nodes
    /// (both profiles; [`SyncReport::unreadable`]).
    ///
    /// A database that is not resident (corrected profile) reads only what the sync can
    /// change: the nodes of the files that are new, changed or gone and of the files
    /// the authority map names, with the nodes that have edges into them; the workspace
    /// nodes of the unchanged files are counted, not read. An unchanged folder ends
    /// after the walk. A brain built from a conversation is refused
    /// ([`Brain::check_syncable`]).
    pub fn sync(
        &mut self,
        workspace: &Path,
        authority_map: Vec<(String, String)>,
        dry_run: bool,
        on_embed: Option<&mut dyn FnMut(usize)>,
        event: &dyn Fn(&SyncReport) -> PyDict,
        guard: SyncGuard,
    ) -> Result<SyncReport> {
        self.check_syncable()?;
        let profile = self.profile;
        let lazy = matches!(&self.backend, Backend::Store(s) if s.resident.is_none())
            && profile.fixes_bugs();
        // the folder: the recorded one, or another with --rebase (checked before reading)
        let here = std::fs::canonicalize(workspace).ok();
        let mut record_here = None;
        if let (true, Some(here)) = (profile.fixes_bugs(), &here) {
            let text = here.to_string_lossy().into_owned();
            match self.recorded_workspace()? {
                Some(r) if r == *here => {}
                Some(r) if !guard.rebase => {
                    return Err(Error::SyncRefused(format!(
                        "the brain was built from {}, not {text}: nothing was changed; sync {} instead, or pass --rebase to make {text} its folder (a snapshot is taken first)",
                        r.display(),
                        r.display()
                    )));
                }
                _ => record_here = Some(text),
            }
        }
        let total = if profile.fixes_bugs() {
            self.node_count()?
        } else {
            0
        };
        // the plan: which files changed (read before the brain is)
        let recorded = {
            let mut m = Metadata::new();
            if let Some(v) = self.meta_entry(SYNC_FILES_KEY)? {
                m.insert(SYNC_FILES_KEY.into(), v);
            }
            m
        };
        let plan = plan_sync(workspace, profile, &recorded)?;
        let snapshot = if guard.any() && !dry_run {
            Some(self.snapshot_before("sync")?.name)
        } else {
            None
        };
        let deleted = plan.deleted(&recorded);
        let mut scope_ids: Vec<String> = Vec::new();
        let mut elsewhere: Option<usize> = None;
        if lazy {
            let Backend::Store(s) = &mut self.backend else {
                unreachable!("a database")
            };
            let conn = s.store.conn();
            let err = sql_error(s.store.path());
            let mut affected: std::collections::BTreeSet<String> =
                plan.resplit.iter().cloned().collect();
            affected.extend(deleted.iter().cloned());
            // every file of the brain's nodes that the folder no longer has, recorded or
            // not (a brain made without the record of its files): a resident graph's
            // sync removes their chunks (`apply_sync`); before, a lazy one removed only
            // those with an edge into a re-split file, so the same sync of the same
            // folder removed a file's chunks or not by what had been learned
            let present: std::collections::HashSet<&str> =
                plan.present.iter().map(String::as_str).collect();
            let mut files = conn
                .prepare("SELECT DISTINCT file FROM nodes WHERE node_seq IS NOT NULL AND file IS NOT NULL")
                .map_err(&err)?;
            let rows = files
                .query_map([], |r| r.get::<_, String>(0))
                .map_err(&err)?;
            for r in rows {
                let f = r.map_err(&err)?;
                if !present.contains(f.as_str()) {
                    affected.insert(f);
                }
            }
            affected.extend(
                mapped_files(&plan.present, &authority_map)
                    .into_iter()
                    .map(str::to_string),
            );
            // the nodes of the affected files and the chunks they now have
            let mut stmt = conn
                .prepare("SELECT id FROM nodes WHERE file = ?1 AND node_seq IS NOT NULL")
                .map_err(&err)?;
            for f in &affected {
                let rows = stmt
                    .query_map([f], |r| r.get::<_, String>(0))
                    .map_err(&err)?;
                for r in rows {
                    scope_ids.push(r.map_err(&err)?);
                }
            }
            scope_ids.extend(plan.texts.iter().map(|(id, _)| id.clone()));
            // the merged nodes, which may hold chunks of the re-split files
            // (`source::sync::merged_in_sync`)
            let mut merged = conn
                .prepare(&format!(
                    "SELECT id FROM nodes WHERE {}",
                    super::command::merge::MERGED_NODES_SQL
                ))
                .map_err(&err)?;
            let rows = merged
                .query_map([], |r| r.get::<_, String>(0))
                .map_err(&err)?;
            for r in rows {
                scope_ids.push(r.map_err(&err)?);
            }
            scope_ids.sort();
            scope_ids.dedup();
            // the nodes with an edge into them (their edges may be removed)
            let mut into = conn
                .prepare(
                    "SELECT DISTINCT s.id FROM nodes t JOIN edges e ON e.tgt = t.sym JOIN nodes s ON s.sym = e.src WHERE t.id = ?1",
                )
                .map_err(&err)?;
            let mut sources = Vec::new();
            for id in &scope_ids {
                let rows = into
                    .query_map([id], |r| r.get::<_, String>(0))
                    .map_err(&err)?;
                for r in rows {
                    sources.push(r.map_err(&err)?);
                }
            }
            scope_ids.extend(sources);
            scope_ids.sort();
            scope_ids.dedup();
            // the workspace nodes of the unchanged files, counted
            let unchanged: std::collections::HashSet<&str> = plan
                .present
                .iter()
                .map(String::as_str)
                .filter(|f| !plan.resplit.iter().any(|r| r == f))
                .collect();
            let mut all = conn
                .prepare(
                    "SELECT id, file FROM nodes WHERE node_seq IS NOT NULL AND file IS NOT NULL",
                )
                .map_err(&err)?;
            let mut n = 0usize;
            let rows = all
                .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
                .map_err(&err)?;
            for r in rows {
                let (id, file) = r.map_err(&err)?;
                if unchanged.contains(file.as_str()) && is_workspace_id(&id, &file) {
                    n += 1;
                }
            }
            elsewhere = Some(n);
        }
        let embedder = if plan.texts.is_empty() {
            None
        } else {
            Some(self.take_embedder()?)
        };
        let hash = crabpath::embed::HashEmbedder::new();
        let mut on_embed = on_embed;
        let mut report_embed = |n: usize| {
            if let Some(f) = on_embed.as_mut() {
                f(n)
            }
        };
        let run = |w: &mut crate::store::working::Working<'_>| -> Result<SyncReport> {
            let mut report = apply_sync(
                w,
                plan,
                SyncOptions {
                    profile,
                    authority_map,
                    embedder: embedder.as_deref().unwrap_or(&hash),
                    on_embed: Some(&mut report_embed),
                    merged: Some(&super::command::merge::merged_nodes),
                },
                elsewhere,
            )?;
            if profile.fixes_bugs() {
                if let Some(e) = mass_delete_refusal(report.nodes_removed, total, &guard) {
                    return Err(e);
                }
            }
            if let Some(text) = record_here {
                w.meta.insert(WORKSPACE_KEY.into(), Value::from(text));
            }
            report.snapshot = snapshot;
            if !dry_run {
                let mut entry = event(&report);
                if let Some(c) = &report.changes {
                    // what forget's replay repeats (`service::unlearn`)
                    c.record(&mut entry);
                }
                w.journal(entry);
            }
            Ok(report)
        };
        let scope = if lazy {
            Scope::NodesAndMeta(&scope_ids)
        } else {
            Scope::All
        };
        let r = if dry_run {
            self.write_dry(scope, run)
        } else {
            self.write(scope, run)
        };
        if let Some(e) = embedder {
            self.put_embedder(e);
        }
        r
    }

    /// Takes the embedder out (loaded if needed), for an operation that needs it while
    /// the brain is borrowed; give it back with [`Brain::put_embedder`].
    pub fn take_embedder(&mut self) -> Result<Box<dyn crabpath::embed::Embedder>> {
        self.embedder()?;
        self.embedder
            .take()
            .ok_or_else(|| Error::Invalid("no embedder".into()))
    }

    /// Gives back an embedder taken with [`Brain::take_embedder`].
    pub fn put_embedder(&mut self, e: Box<dyn crabpath::embed::Embedder>) {
        self.embedder = Some(e);
    }
}

impl Brain {
    /// `anchor` of one node ([`anchor::anchor`]) as one write: the corrected profile journals
    /// a change ([`anchor::anchor_event`]), so that `forget`'s replay repeats it where it
    /// happened (the reference journals none). Returns the authority to report.
    ///
    /// Errors: the node does not exist (the reference's message), SQLite or I/O.
    pub fn anchor(&mut self, id: &str, action: anchor::AnchorAction<'_>) -> Result<String> {
        let journal = self.profile().fixes_bugs();
        let ids = [id.to_string()];
        self.write(Scope::Nodes(&ids), |w| {
            let before = w
                .graph
                .get_node(id)
                .and_then(|n| n.metadata.get("authority").cloned());
            let (authority, changed) = anchor::anchor(w.graph, id, action)?;
            if !changed {
                w.discard();
            } else if journal {
                let after = w
                    .graph
                    .get_node(id)
                    .and_then(|n| n.metadata.get("authority").cloned());
                w.journal(anchor::anchor_event(id, before.as_ref(), after.as_ref()));
            }
            Ok(authority)
        })
    }
}

impl Brain {
    /// `connect` ([`merge::connect`]) as one write: the corrected profile journals the
    /// run ([`merge::CONNECT_EVENT`], with the number of edges it added), so that
    /// `forget`'s replay runs it again where it happened (the reference journals none).
    ///
    /// Errors: SQLite or I/O.
    pub fn connect_chunks(&mut self) -> Result<(Vec<merge::Connection>, usize)> {
        let journal = self.profile().fixes_bugs();
        self.write(Scope::All, |w| {
            let (list, added) = merge::connect(w.graph)?;
            if journal {
                let mut e = PyDict::new();
                e.insert(
                    "type".into(),
                    pyformat::pyjson::PyValue::Str(merge::CONNECT_EVENT.into()),
                );
                e.insert(
                    "added".into(),
                    pyformat::pyjson::PyValue::Int((added as i64).into()),
                );
                w.journal(e);
            }
            Ok((list, added))
        })
    }
}
