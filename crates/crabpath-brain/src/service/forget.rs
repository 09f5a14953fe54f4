//! `forget`: removes a file's, a node's or a conversation's content from a database
//! brain so that none of it stays readable (issue 30, item 3).
//!
//! What goes, in one write transaction ([`scrub`]; an unknown file, node or chat is an
//! error and nothing changes):
//!
//! | table | what is deleted |
//! |---|---|
//! | `nodes` | the forgotten nodes (a file: every node whose `file` is it; a node: that one; a chat: the nodes its ledger rows name — corrections, teachings, directives — and the auto question nodes whose text is one of its queries; and every merged node that joined one of them, a chunk of the file or the node, which holds its text: [`crate::service::command::merge::parts_of`]) |
//! | `nodes_fts`, `aside_fts` | their postings (the `nodes` delete triggers), then `optimize`, which merges the segments and drops deleted terms for good |
//! | `edges` | every edge from or to them; edge endpoints left without any edge |
//! | `vectors` | theirs (with `vector_gone` rows for readers holding an index) |
//! | `turns` | the turns that fired one of them (their `query` is what found the content; for a file, its chunks a `sync` removed before count too: [`former_chunks`]), and every turn of the chat |
//! | `journal` | the entries naming one of them (any string equal to a forgotten id; for a file, also the chunks of it a `sync` removed before, which no node holds but a `learn` entry may name) or, for a chat, carrying its `chat_id`; an `inject` entry of a node that stays loses only its forgotten neighbours, a guardrail `correct` entry its forgotten unlinked nodes, a `replay` entry its episodes through a forgotten node, a `sync` entry the forgotten chunks it added, removed or linked (`null` holds a linked chunk's place; [`SyncChanges::without`]) (rewritten, not deleted) |
//! | `ledger` | rows naming a forgotten node, or the chat |
//!
//! Then nothing of it may stay in a file of the brain directory: the transaction runs
//! with `PRAGMA secure_delete = ON` (freed pages are overwritten with zeros), the
//! database is rebuilt by `VACUUM`, the write-ahead log is checkpointed and truncated
//! (`wal_checkpoint(TRUNCATE)`), and the derived `search.idx` is rebuilt from the
//! remaining vectors. **Snapshots are rewritten, not removed**: each
//! `snapshots/*.db` gets the same scrub (a target it does not hold is no error) and a
//! `VACUUM`, so the undo points stay usable and a `rollback` never brings the content
//! back. A state-file brain (`state.json`, the `paper` profile's format, with the
//! daemon's `<state>.wal`) is refused: its file is rewritten whole, and it keeps no
//! turn log; import it into a database first.
//!
//! Then the weights are rebuilt without the forgotten events ([`super::unlearn`]: the
//! init graph of the remaining nodes, a conversation's turns included, and the
//! remaining events — learns, injections, remembered turns, corrections, maintenance
//! and autotuner runs, syncs — replayed, the remaining
//! question nodes of neurogenesis set aside and put back as they are), when
//! the brain's history allows an exact replay; otherwise they are kept and the report
//! says why. The replay is a second write, after the removal committed.
//!
//! **Interrupted.** The removal's transaction also writes a pending mark
//! (`meta.forget_pending`: the target and its node ids); the rest — the replay, the
//! index, each snapshot, the `VACUUM` — can each run again, and the mark goes only when
//! all of them are done. A forget killed or refused (a full disk) after the removal
//! committed is finished by the next `forget` of any target (of the same target: that
//! is all it does, `ForgetReport::resumed`); before, the content stayed in the
//! snapshots for good, and the same command answered that the file was unknown.
//!
//! Limits: a node made by merging a forgotten node with another (`maintain`'s merge)
//! keeps the merged text under the other's id and file, and is not found; a `sync`
//! record of the file in `meta` is kept.
//!
//! Cost: O(n + e + t + j) row reads for n nodes of the target, e edges, t turns and j
//! journal entries (each entry parsed once), plus a `VACUUM` of the whole database
//! (a full copy: about a second per 100 MB) and of each snapshot.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use pyformat::pyjson::{self, PyValue};
use rusqlite::{params, Connection, OptionalExtension};

use super::command::merge::{parts_of, MERGED_NODES_SQL};
use super::engine::{Backend, Brain};
use super::unlearn::Relearned;
use crate::error::{Error, Result};
use crate::reference::journal::REPLAY_EVENT;
use crate::source::replay::EPISODES_KEY;
use crate::source::sync::{is_workspace_id, split_node_id, SyncChanges, SYNC_EVENT};
use crate::store::{sql_error, Store, Write};

/// What to forget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForgetTarget {
    /// Every node of a file (the `file` of its nodes, as `init`/`sync` record it:
    /// relative to the brain's folder; an absolute path inside that folder is taken too).
    File(String),
    /// One node, by id.
    Node(String),
    /// A conversation: its turns and the nodes it created.
    Chat(String),
}

impl ForgetTarget {
    /// `file`, `node` or `chat`.
    pub fn kind(&self) -> &'static str {
        match self {
            ForgetTarget::File(_) => "file",
            ForgetTarget::Node(_) => "node",
            ForgetTarget::Chat(_) => "chat",
        }
    }

    /// The target named by exactly one of three optional fields (the daemon's and the
    /// MCP tool's `file`, `node`, `chat`); the error says which rule was broken.
    pub fn from_fields(
        file: Option<String>,
        node: Option<String>,
        chat: Option<String>,
    ) -> std::result::Result<ForgetTarget, String> {
        let given: Vec<ForgetTarget> = [
            file.map(ForgetTarget::File),
            node.map(ForgetTarget::Node),
            chat.map(ForgetTarget::Chat),
        ]
        .into_iter()
        .flatten()
        .collect();
        match <[ForgetTarget; 1]>::try_from(given) {
            Ok([t]) if !t.value().trim().is_empty() => Ok(t),
            Ok([t]) => Err(format!("{} must not be blank", t.kind())),
            Err(v) if v.is_empty() => Err("give one of file, node or chat".into()),
            Err(_) => Err("give only one of file, node or chat".into()),
        }
    }

    /// The path, id or chat id.
    pub fn value(&self) -> &str {
        match self {
            ForgetTarget::File(s) | ForgetTarget::Node(s) | ForgetTarget::Chat(s) => s,
        }
    }
}

/// The rows one scrub deleted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ForgetCounts {
    /// Nodes (rows of `nodes` with a node position).
    pub nodes: usize,
    /// Edges from or to them.
    pub edges: usize,
    /// Vectors.
    pub vectors: usize,
    /// Conversation turns.
    pub turns: usize,
    /// Journal entries.
    pub journal: usize,
    /// Ledger rows.
    pub ledger: usize,
}

/// What `forget` did: the rows removed from the brain, the snapshots rewritten, and
/// whether the write-ahead log could be truncated (another process reading the brain,
/// e.g. a daemon mid-query, can keep it from being; it then holds only pages written
/// with zeros in place of the content, `secure_delete`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForgetReport {
    /// The rows removed from the brain.
    pub removed: ForgetCounts,
    /// The node ids removed.
    pub ids: Vec<String>,
    /// Snapshots rewritten without the content.
    pub snapshots: Vec<PathBuf>,
    /// Whether the write-ahead log was checkpointed and truncated.
    pub wal_truncated: bool,
    /// What was forgotten (the file as resolved against the brain's folder).
    pub target: ForgetTarget,
    /// Whether the weights were rebuilt without the forgotten events
    /// (`super::unlearn`).
    pub relearned: Relearned,
    /// Whether this call finished an earlier forget of the same target that was
    /// interrupted (killed, or a full disk) after its removal committed: the counts are
    /// then 0 (the rows went then), the rest was done now.
    pub resumed: bool,
}

impl ForgetReport {
    /// The report as the command line's `--json`, the daemon's `forget` and the MCP
    /// tool `forget` give it: `kind`, `target`, the counts (`nodes`, `edges`,
    /// `vectors`, `turns`, `journal`, `ledger`), `ids`, `snapshots` (paths),
    /// `wal_truncated`, `replayed` (recorded events replayed, or null) and `weights_kept`
    /// (why the weights were kept, or null).
    pub fn to_json(&self) -> serde_json::Value {
        let c = self.removed;
        serde_json::json!({
            "kind": self.target.kind(),
            "target": self.target.value(),
            "nodes": c.nodes,
            "edges": c.edges,
            "vectors": c.vectors,
            "turns": c.turns,
            "journal": c.journal,
            "ledger": c.ledger,
            "ids": self.ids,
            "snapshots": self.snapshots.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "wal_truncated": self.wal_truncated,
            "resumed": self.resumed,
            "replayed": match &self.relearned {
                Relearned::Replayed(n) => Some(*n),
                Relearned::Kept(_) => None,
            },
            "weights_kept": match &self.relearned {
                Relearned::Replayed(_) => None,
                Relearned::Kept(why) => Some(why.as_str()),
            },
        })
    }
}

impl Brain {
    /// Forgets `target` (see the module docs). Errors: a state-file brain, a brain
    /// opened for reading, an unknown file, node or chat ([`Error::Invalid`], nothing
    /// changed); a SQLite or I/O error.
    pub fn forget(&mut self, target: &ForgetTarget) -> Result<ForgetReport> {
        if !self.options.write {
            return Err(Error::Invalid(format!(
                "{}: opened for reading only",
                self.path().display()
            )));
        }
        let workspace = self.recorded_workspace()?;
        let snapshots: Vec<PathBuf> = self.snapshots()?.into_iter().map(|s| s.path).collect();
        let Backend::Store(s) = &mut self.backend else {
            return Err(Error::Invalid(format!(
                "forget needs a brain database: {} is a state file (import it with `crabpath import` first)",
                self.location.dir().display()
            )));
        };
        let target = resolve_file(target, workspace.as_deref());
        // an earlier forget whose removal committed but whose rest (the replay, the
        // index, the snapshots, the VACUUM) did not run is finished first: its target
        // is no longer in the brain, but it may still be in the snapshots and the
        // database file's old pages
        if let Some((earlier, ids)) = pending(s.store.conn()).map_err(sql_error(s.store.path()))? {
            let same = earlier == target;
            let (relearned, rewritten, wal_truncated) =
                self.finish_forget(&earlier, &ids, &snapshots)?;
            if same {
                return Ok(ForgetReport {
                    removed: ForgetCounts::default(),
                    ids,
                    snapshots: rewritten,
                    wal_truncated,
                    target,
                    relearned,
                    resumed: true,
                });
            }
        }
        let Backend::Store(s) = &mut self.backend else {
            unreachable!("a database, checked above")
        };
        let (removed, ids) = scrub_store(&mut s.store, &target, true)?;
        if let Some(r) = s.resident.as_mut() {
            r.stale = true;
        }
        let (relearned, rewritten, wal_truncated) =
            self.finish_forget(&target, &ids, &snapshots)?;
        Ok(ForgetReport {
            removed,
            ids,
            snapshots: rewritten,
            wal_truncated,
            target,
            relearned,
            resumed: false,
        })
    }

    /// What follows the removal of `target` (its nodes `ids`): the replay, the index,
    /// the database file and every snapshot without it; then the pending mark
    /// ([`PENDING_KEY`]) goes. Each step can run again: a forget interrupted in any of
    /// them is finished by the next.
    fn finish_forget(
        &mut self,
        target: &ForgetTarget,
        ids: &[String],
        snapshots: &[PathBuf],
    ) -> Result<(Relearned, Vec<PathBuf>, bool)> {
        let relearned = self.relearn(ids)?;
        let Backend::Store(s) = &mut self.backend else {
            return Err(Error::Invalid("forget needs a brain database".into()));
        };
        // the index first: its rebuild deletes `vector_gone` rows (ids only), so one
        // `VACUUM` after it covers every write (one `VACUUM` of the 79k-chunk tldr-pages
        // brain, 174 MB, takes 1.3 s alone)
        crate::store::search::rebuild(
            s.store.conn(),
            &s.dir,
            s.store.layout(),
            s.store.dim(),
            s.store.nonce(),
        )?;
        let mut rewritten = Vec::new();
        for path in snapshots {
            let mut snap = Store::open(path, true)?;
            scrub_store(&mut snap, target, false)?;
            wipe(snap.conn(), path)?;
            drop(snap);
            remove_sidecars(path);
            rewritten.push(path.clone());
        }
        wipe(s.store.conn(), s.store.path())?;
        // the mark names the target and its node ids (a file's path, a chat's id):
        // deleted with `secure_delete`, so that its cell is overwritten with zeros, and
        // the log that holds the page truncated again. Before, the names stayed in the
        // database's free space.
        let path = s.store.path().to_path_buf();
        let conn = s.store.conn();
        conn.pragma_update(None, "secure_delete", "ON")
            .map_err(sql_error(&path))?;
        let deleted = conn
            .execute("DELETE FROM meta WHERE key = ?1", [PENDING_KEY])
            .map_err(sql_error(&path));
        let _ = conn.pragma_update(None, "secure_delete", "OFF");
        deleted?;
        let wal_truncated = checkpoint(conn, &path)?;
        Ok((relearned, rewritten, wal_truncated))
    }
}

impl Brain {
    /// The target of a forget whose removal committed and whose rest did not finish
    /// (`meta.forget_pending`; the next `forget` finishes it), if any. `None` for a state
    /// file.
    /// Errors: SQLite.
    pub fn pending_forget(&self) -> Result<Option<ForgetTarget>> {
        let Backend::Store(s) = &self.backend else {
            return Ok(None);
        };
        Ok(pending(s.store.conn())
            .map_err(sql_error(s.store.path()))?
            .map(|p| p.0))
    }
}

/// The `meta` key of a forget whose removal committed and whose rest
/// (the replay, the index, the snapshots, the VACUUM) has not finished yet: `{"kind", "target", "ids"}`,
/// written in the removal's own transaction.
const PENDING_KEY: &str = "forget_pending";

/// Marks the forget of `target` (its nodes `ids`) as pending, inside the removal's
/// transaction `tx`.
fn mark_pending(tx: &Connection, target: &ForgetTarget, ids: &[String]) -> rusqlite::Result<()> {
    let v = serde_json::json!({"kind": target.kind(), "target": target.value(), "ids": ids});
    tx.execute(
        "INSERT OR REPLACE INTO meta(key, pos, value) VALUES (?1, (SELECT COALESCE(MAX(pos), -1) + 1 FROM meta), ?2)",
        params![PENDING_KEY, v.to_string()],
    )?;
    Ok(())
}

/// The pending forget of the brain, if one did not finish ([`PENDING_KEY`]).
pub(crate) fn pending(conn: &Connection) -> rusqlite::Result<Option<(ForgetTarget, Vec<String>)>> {
    let Some(v) = crate::store::rows::meta_value(conn, PENDING_KEY)? else {
        return Ok(None);
    };
    let value = v["target"].as_str().unwrap_or_default().to_string();
    let target = match v["kind"].as_str() {
        Some("file") => ForgetTarget::File(value),
        Some("node") => ForgetTarget::Node(value),
        _ => ForgetTarget::Chat(value),
    };
    let ids = v["ids"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    Ok(Some((target, ids)))
}

/// A file target given as a path inside the recorded workspace, made relative to it
/// (the form `init`/`sync` record); anything else unchanged.
fn resolve_file(target: &ForgetTarget, workspace: Option<&Path>) -> ForgetTarget {
    let ForgetTarget::File(f) = target else {
        return target.clone();
    };
    let p = Path::new(f);
    let rel = workspace.and_then(|ws| {
        let ws = ws.canonicalize().unwrap_or_else(|_| ws.to_path_buf());
        let abs = p.canonicalize().ok()?;
        abs.strip_prefix(&ws)
            .ok()
            .map(|r| r.to_string_lossy().into_owned())
    });
    ForgetTarget::File(rel.unwrap_or_else(|| f.clone()))
}

/// Runs [`scrub`] in one write transaction of `store` with `secure_delete` on, and
/// commits it.
fn scrub_store(
    store: &mut Store,
    target: &ForgetTarget,
    strict: bool,
) -> Result<(ForgetCounts, Vec<String>)> {
    let path = store.path().to_path_buf();
    store
        .conn()
        .pragma_update(None, "secure_delete", "ON")
        .map_err(sql_error(&path))?;
    let done = store.write().and_then(|mut w| {
        let out = scrub(&mut w, target, strict)?;
        if strict {
            // the brain itself (not a snapshot): the rest is owed until it is done
            mark_pending(w.tx(), target, &out.1).map_err(w.err())?;
        }
        w.commit()?;
        Ok(out)
    });
    // back to SQLite's default for this connection's later writes
    let _ = store.conn().pragma_update(None, "secure_delete", "OFF");
    done
}

/// Deletes what `target` names (the module docs' table) inside the write `w`. With
/// `strict`, a target that names nothing is an error (and `w`, dropped, rolls back).
pub fn scrub(
    w: &mut Write<'_>,
    target: &ForgetTarget,
    strict: bool,
) -> Result<(ForgetCounts, Vec<String>)> {
    let err = w.err();
    let tx = w.tx();
    let mut c = ForgetCounts::default();
    let (mut syms, mut ids) = target_nodes(tx, target).map_err(&err)?;
    let chat = match target {
        ForgetTarget::Chat(chat) => Some(chat.as_str()),
        _ => None,
    };
    // a file's chunks that a sync removed before (no node any more): the journal and
    // the turn log may still name them (a learn through one, the sync that added it),
    // and their entries go with the file's. Left there, the replay ran such a learn on
    // a stand-in of the chunk and kept its edges between the chunks that stay: a brain
    // unlike one that never had the file, with nothing said.
    let mut named = ids.clone();
    if let ForgetTarget::File(f) = target {
        let have: HashSet<&String> = ids.iter().collect();
        let former = former_chunks(tx, f).map_err(&err)?;
        named.extend(former.into_iter().filter(|id| !have.contains(id)));
    }
    // the turns and entries that found the content, and the questions they asked: an
    // auto question node ([`super::neurogenesis::AUTO_PREFIX`]) holding one of them goes too
    let (turns, mut queries) = matching_turns(tx, &named, chat).map_err(&err)?;
    queries.extend(matching_journal(tx, &named, chat).map_err(&err)?.queries);
    if strict && syms.is_empty() && turns.is_empty() && chat.is_some() {
        return Err(Error::Invalid(format!(
            "forget: no chat `{}` in {} (no turn and no node of it)",
            target.value(),
            w.path().display()
        )));
    }
    // a file no node holds any more but whose former chunks the history names (a
    // sync removed the file after learning through it): its learning is forgotten
    let former_only = named.len() > ids.len();
    if strict && syms.is_empty() && chat.is_none() && !former_only {
        return Err(Error::Invalid(format!(
            "forget: no {} `{}` in {}",
            target.kind(),
            target.value(),
            w.path().display()
        )));
    }
    for (sym, id) in auto_nodes(tx, &queries).map_err(&err)? {
        if !syms.contains(&sym) {
            syms.push(sym);
            named.push(id.clone());
            ids.push(id);
        }
    }
    let rev = w.rev;
    for &sym in &syms {
        c.edges += tx
            .execute("DELETE FROM edges WHERE src = ?1 OR tgt = ?1", [sym])
            .map_err(&err)?;
        let v = tx
            .execute("DELETE FROM vectors WHERE sym = ?1", [sym])
            .map_err(&err)?;
        if v > 0 {
            tx.execute(
                "INSERT INTO vector_gone(sym, rev) VALUES (?1, ?2)",
                params![sym, rev],
            )
            .map_err(&err)?;
        }
        c.vectors += v;
        c.nodes += tx
            .execute(
                "DELETE FROM nodes WHERE sym = ?1 AND node_seq IS NOT NULL",
                [sym],
            )
            .map_err(&err)?;
        tx.execute("DELETE FROM nodes WHERE sym = ?1", [sym])
            .map_err(&err)?;
    }
    // endpoints and sources left without edges
    tx.execute_batch(
        "DELETE FROM nodes WHERE node_seq IS NULL AND NOT EXISTS (SELECT 1 FROM edges WHERE src = nodes.sym OR tgt = nodes.sym);
         UPDATE nodes SET bucket_seq = NULL WHERE bucket_seq IS NOT NULL AND NOT EXISTS (SELECT 1 FROM edges WHERE src = nodes.sym);",
    )
    .map_err(&err)?;
    let (turns, _) = matching_turns(tx, &named, chat).map_err(&err)?;
    for (chat_id, turn) in &turns {
        c.turns += tx
            .execute(
                "DELETE FROM turns WHERE chat_id = ?1 AND turn = ?2",
                params![chat_id, turn],
            )
            .map_err(&err)?;
    }
    let found = matching_journal(tx, &named, chat).map_err(&err)?;
    for seq in &found.seqs {
        c.journal += tx
            .execute("DELETE FROM journal WHERE seq = ?1", [seq])
            .map_err(&err)?;
    }
    for (seq, text) in &found.rewrites {
        tx.execute(
            "UPDATE journal SET entry = ?1 WHERE seq = ?2",
            params![text, seq],
        )
        .map_err(&err)?;
    }
    for id in &named {
        c.ledger += tx
            .execute("DELETE FROM ledger WHERE node_id = ?1", [id])
            .map_err(&err)?;
    }
    if let Some(chat) = chat {
        c.ledger += tx
            .execute("DELETE FROM ledger WHERE chat_id = ?1", [chat])
            .map_err(&err)?;
    }
    for table in [
        crate::store::schema::LEXICAL_TABLE,
        crate::store::schema::ASIDE_LEXICAL_TABLE,
    ] {
        if has_table(tx, table).map_err(&err)? {
            tx.execute(
                &format!("INSERT INTO {table}({table}) VALUES ('optimize')"),
                [],
            )
            .map_err(&err)?;
        }
    }
    drop(err);
    w.count_nodes(-(c.nodes as i64));
    w.structure_changed();
    w.vectors_added();
    Ok((c, ids))
}

/// The chunk ids of `file` (`<file>::<n>`, [`is_workspace_id`]) that a journal entry
/// or a turn's fired list names, whether or not a node of that id is left.
fn former_chunks(conn: &Connection, file: &str) -> rusqlite::Result<Vec<String>> {
    fn walk(v: &serde_json::Value, file: &str, out: &mut BTreeSet<String>) {
        match v {
            serde_json::Value::String(s) if is_workspace_id(s, file) => {
                out.insert(s.clone());
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, file, out)),
            serde_json::Value::Object(o) => o.values().for_each(|x| walk(x, file, out)),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    for sql in ["SELECT entry FROM journal", "SELECT fired FROM turns"] {
        let mut stmt = conn.prepare(sql)?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        for row in rows {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&row?) {
                walk(&v, file, &mut out);
            }
        }
    }
    Ok(out.into_iter().collect())
}

/// The auto question nodes whose content is one of `queries`.
fn auto_nodes(conn: &Connection, queries: &[String]) -> rusqlite::Result<Vec<(i64, String)>> {
    let mut out = Vec::new();
    let mut stmt = conn.prepare(
        "SELECT sym, id FROM nodes WHERE content = ?1 AND substr(id, 1, length(?2)) = ?2 ORDER BY sym",
    )?;
    for q in queries {
        let rows = stmt.query_map(params![q, super::neurogenesis::AUTO_PREFIX], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
        for row in rows {
            let row = row?;
            if !out.contains(&row) {
                out.push(row);
            }
        }
    }
    Ok(out)
}

/// Whether `conn` has the table `name`.
fn has_table(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
        [name],
        |_| Ok(()),
    )
    .optional()
    .map(|o| o.is_some())
}

/// The `sym`s and ids of the nodes `target` names.
fn target_nodes(
    conn: &Connection,
    target: &ForgetTarget,
) -> rusqlite::Result<(Vec<i64>, Vec<String>)> {
    let mut out: Vec<(i64, String)> = Vec::new();
    let mut push_query = |sql: &str, arg: &str| -> rusqlite::Result<()> {
        let mut stmt = conn.prepare(sql)?;
        let rows = stmt.query_map([arg], |r| Ok((r.get(0)?, r.get(1)?)))?;
        for row in rows {
            let row = row?;
            if !out.contains(&row) {
                out.push(row);
            }
        }
        Ok(())
    };
    match target {
        ForgetTarget::File(f) => {
            push_query("SELECT sym, id FROM nodes WHERE file = ?1 ORDER BY sym", f)?
        }
        ForgetTarget::Node(id) => push_query("SELECT sym, id FROM nodes WHERE id = ?1", id)?,
        ForgetTarget::Chat(chat) => {
            push_query(
                "SELECT n.sym, n.id FROM ledger l JOIN nodes n ON n.id = l.node_id WHERE l.chat_id = ?1 ORDER BY n.sym",
                chat,
            )?;
        }
    }
    // a merged node holds the text of its parts: one that joined a chunk of the file,
    // or the node, goes with them (before, `forget --file` left the text of a file's
    // merged chunks readable in the merged node)
    let holds = |part: &str| match target {
        ForgetTarget::File(f) => split_node_id(part).is_some_and(|(file, _)| file == f),
        ForgetTarget::Node(id) => part == id,
        ForgetTarget::Chat(_) => out.iter().any(|(_, o)| o == part),
    };
    let mut merged: Vec<(i64, String)> = Vec::new();
    {
        let mut stmt = conn.prepare(&format!(
            "SELECT sym, id, metadata FROM nodes WHERE {MERGED_NODES_SQL} ORDER BY sym"
        ))?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
            ))
        })?;
        for row in rows {
            let (sym, id, metadata) = row?;
            let metadata: crabpath::graph::Metadata = metadata
                .as_deref()
                .and_then(|m| serde_json::from_str(m).ok())
                .unwrap_or_default();
            if parts_of(&id, &metadata).iter().any(|p| holds(p)) {
                merged.push((sym, id));
            }
        }
    }
    for m in merged {
        if !out.contains(&m) {
            out.push(m);
        }
    }
    Ok(out.into_iter().unzip())
}

/// A turn's key: (`chat_id`, `turn`).
type TurnKey = (String, i64);

/// The turns (`chat_id`, `turn`) that fired a node of `ids`, and every turn of `chat`;
/// with their queries.
fn matching_turns(
    conn: &Connection,
    ids: &[String],
    chat: Option<&str>,
) -> rusqlite::Result<(Vec<TurnKey>, Vec<String>)> {
    let gone: HashSet<&str> = ids.iter().map(String::as_str).collect();
    let (mut keys, mut queries) = (Vec::new(), Vec::new());
    let mut stmt = conn.prepare("SELECT chat_id, turn, fired, query FROM turns")?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, String>(3)?,
        ))
    })?;
    for row in rows {
        let (chat_id, turn, fired, query) = row?;
        let v: serde_json::Value = serde_json::from_str(&fired).unwrap_or_default();
        if chat == Some(chat_id.as_str()) || names_any(&v, &gone) {
            keys.push((chat_id, turn));
            queries.push(query);
        }
    }
    Ok((keys, queries))
}

/// What [`matching_journal`] found.
struct JournalMatch {
    /// The entries to delete.
    seqs: Vec<i64>,
    /// The `query` texts they hold.
    queries: Vec<String>,
    /// The `inject` and `correct` entries of nodes that stay, linked to a forgotten
    /// node: their new text, without it ([`without_links`]).
    rewrites: Vec<(i64, String)>,
}

/// The journal entries (`seq`) naming a node of `ids` or carrying `chat_id` = `chat`;
/// with the `query` texts they hold, and the injections to rewrite rather than delete.
fn matching_journal(
    conn: &Connection,
    ids: &[String],
    chat: Option<&str>,
) -> rusqlite::Result<JournalMatch> {
    let gone: HashSet<&str> = ids.iter().map(String::as_str).collect();
    let (mut seqs, mut queries, mut rewrites) = (Vec::new(), Vec::new(), Vec::new());
    let mut stmt = conn.prepare("SELECT seq, entry FROM journal")?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
    for row in rows {
        let (seq, entry) = row?;
        let v: serde_json::Value = match serde_json::from_str(&entry) {
            Ok(v) => v,
            // an entry that does not parse is checked as text
            Err(_) => serde_json::Value::String(entry.clone()),
        };
        let of_chat = chat.is_some_and(|c| has_chat(&v, c));
        if of_chat || names_any(&v, &gone) || mentions_as_text(&v, &gone) {
            if !of_chat {
                if let Some(text) = without_links(&entry, &gone) {
                    rewrites.push((seq, text));
                    continue;
                }
            }
            seqs.push(seq);
            if let Some(q) = v.get("query").and_then(|q| q.as_str()) {
                queries.push(q.to_string());
            }
        }
    }
    Ok(JournalMatch {
        seqs,
        queries,
        rewrites,
    })
}

/// The text of an entry of a node that stays whose list of linked nodes named a
/// forgotten one, without it (the link the forgotten node caused): an `inject` entry's
/// `neighbours` ([`super::ops::inject_event`]) or a `correct` entry's `unlinked`
/// ([`super::feedback::correct_event`]). `None` for any other entry, for one of a
/// forgotten node, and for one naming a forgotten id elsewhere (a correction of a path
/// through it: the whole event goes).
fn without_links(text: &str, gone: &HashSet<&str>) -> Option<String> {
    let PyValue::Dict(mut e) = pyjson::loads(text).ok()? else {
        return None;
    };
    match e.get("type").and_then(PyValue::as_str)? {
        REPLAY_EVENT => {
            // a replay's learning updates are events of their own: those through a
            // forgotten node go, the others stay
            let kept: Vec<PyValue> = e
                .get(EPISODES_KEY)?
                .as_list()?
                .iter()
                .filter(|ep| ep.to_json().is_some_and(|v| !names_any(&v, gone)))
                .cloned()
                .collect();
            e.insert(EPISODES_KEY.into(), PyValue::List(kept));
        }
        // a sync's chunks: forgotten ones are neither added nor removed, and hold their
        // place in their file's chain (`SyncChanges::without`)
        SYNC_EVENT => SyncChanges::read(&e)?.without(gone)?.record(&mut e),
        kind @ (super::ops::INJECT_EVENT | super::feedback::CORRECT_EVENT) => {
            let field = match kind {
                super::ops::INJECT_EVENT => "neighbours",
                _ => "unlinked",
            };
            if e.get("id")
                .and_then(PyValue::as_str)
                .is_none_or(|id| gone.contains(id))
            {
                return None;
            }
            // a neighbour is `[id, score]`, an unlinked node its id
            let linked = |v: &PyValue| match v {
                PyValue::List(p) => p.first().and_then(PyValue::as_str).map(str::to_string),
                other => other.as_str().map(str::to_string),
            };
            let kept: Vec<PyValue> = e
                .get(field)?
                .as_list()?
                .iter()
                .filter(|n| linked(n).is_none_or(|id| !gone.contains(id.as_str())))
                .cloned()
                .collect();
            e.insert(field.into(), PyValue::List(kept));
        }
        _ => return None,
    }
    let out = crate::store::rows::journal_text(&e).ok()?;
    // nothing else of it may name a forgotten node
    let v: serde_json::Value = serde_json::from_str(&out).ok()?;
    (!names_any(&v, gone)).then_some(out)
}

/// Whether any string in `v` equals an id of `gone`.
fn names_any(v: &serde_json::Value, gone: &HashSet<&str>) -> bool {
    match v {
        serde_json::Value::String(s) => gone.contains(s.as_str()),
        serde_json::Value::Array(a) => a.iter().any(|x| names_any(x, gone)),
        serde_json::Value::Object(o) => o.values().any(|x| names_any(x, gone)),
        _ => false,
    }
}

/// Whether an unparsed entry's text contains an id of `gone`.
fn mentions_as_text(v: &serde_json::Value, gone: &HashSet<&str>) -> bool {
    match v {
        serde_json::Value::String(s) => gone.iter().any(|id| s.contains(id)),
        _ => false,
    }
}

/// Whether any object in `v` has `chat_id` = `chat`.
fn has_chat(v: &serde_json::Value, chat: &str) -> bool {
    match v {
        serde_json::Value::Array(a) => a.iter().any(|x| has_chat(x, chat)),
        serde_json::Value::Object(o) => {
            o.get("chat_id").and_then(|c| c.as_str()) == Some(chat)
                || o.values().any(|x| has_chat(x, chat))
        }
        _ => false,
    }
}

/// Rebuilds the database file without free pages (`VACUUM`) and checkpoints the
/// write-ahead log, truncating it; returns whether the log could be truncated (a
/// reader elsewhere can hold it).
fn wipe(conn: &Connection, path: &Path) -> Result<bool> {
    conn.execute_batch("VACUUM").map_err(sql_error(path))?;
    checkpoint(conn, path)
}

/// Checkpoints the write-ahead log and truncates it; whether it could be truncated (a
/// reader elsewhere can hold it).
fn checkpoint(conn: &Connection, path: &Path) -> Result<bool> {
    let err = sql_error(path);
    let (busy, _, _): (i64, i64, i64) = conn
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .map_err(&err)?;
    Ok(busy == 0)
}

/// Removes a closed snapshot's empty `-wal`/`-shm` files (opening it for writing made
/// them).
fn remove_sidecars(db: &Path) {
    for ext in ["-wal", "-shm"] {
        let mut p = db.as_os_str().to_owned();
        p.push(ext);
        let p = PathBuf::from(p);
        if std::fs::metadata(&p).is_ok_and(|m| m.len() == 0) {
            let _ = std::fs::remove_file(&p);
        }
    }
}
