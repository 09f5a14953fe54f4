//! Bringing a brain up to date with its folder (`crabpath sync`; reference
//! `crabpath/sync.py::sync_workspace`, commit 134c676).
//!
//! The workspace is split again ([`crate::source::bootstrap`]); chunk ids present in the
//! folder but not in the graph are **added**, ids in both are **updated** when the
//! chunk text changed (SHA-256 of the content) or **unchanged**; workspace nodes (id
//! `<file>::<n>` with `file` metadata `<file>`) whose id is no longer produced are
//! **removed** with their edges and vectors, unless their authority is
//! `constitutional` or `canonical`. Added and updated chunks are embedded (in sorted
//! id order) and written in place (updated) or appended (added), keeping their old
//! metadata with `file`, `chunk`, `kind` set and the authority of the authority map
//! (exact relative path first, then the file name).
//!
//! | # | reference (paper) | corrected (incremental) | before → after |
//! |---|---|---|---|
//! | S1 | every file is read and re-split on every sync | a file whose size and modification time, or else content hash, match the last sync's record (`meta.sync_files`) is skipped entirely | a sync of an unchanged 10,000-file folder reads every file vs. none |
//! | S2 | for every file present, all same-file `sibling` edges are deleted and the consecutive ones re-created at their initial weights: learned weights are lost, learned non-adjacent same-file edges deleted | unchanged files are not touched; in a re-split file, edges between surviving chunks keep their learned weights and only missing consecutive edges are created | after `learn` 0.49642 → 0.65142, a sync resets it to 0.49642 vs. keeps 0.65142 |
//! | S3 | the authority map applies only to added or updated chunks (a first sync after `init` sets none) | it applies to every chunk of a mapped file | `authority_set {}` vs. `{"canonical": 4}` |
//! | S4 | no account of files | the report also counts files re-split, unchanged and deleted | |
//! | S5 | a chunk that maintenance merged into a merged node is missing from the graph, so any re-split of its file adds it again beside the merged node; the merged node keeps the text the file no longer has | a chunk a merged node holds is not added again, and the merged node takes its chunks' texts as the file has them now, and loses the chunks the file no longer has (none left: it is removed) (`merged_in_sync`) | one edit of a file whose two chunks were merged: 2 chunks added, the edited-out text still answered vs. none added, the merged node's text updated |
//!
//! The embedding of a chunk depends only on its text, so skipping unchanged files
//! changes no vector.
//!
//! # What a sync will not do (both profiles unless said)
//!
//! * A path that exists but cannot be read (a directory that cannot be listed, a file
//!   that cannot be read, [`field@crate::source::workspace::Walk::unreadable`]) is
//!   *unreadable*, not deleted: the nodes of the files under it stay as they are, and
//!   the report lists it ([`SyncReport::unreadable`]); the command line then exits with
//!   status 3 (a partial sync). Before, `chmod 000 ws/notes` took a brain of 9 nodes to
//!   3 and lost their learned edges.
//! * Corrected profile: a brain records the folder it was built from
//!   ([`WORKSPACE_KEY`], written by `init`; a brain made before records the folder of
//!   its first sync). A sync of another folder is refused unless
//!   [`SyncGuard::rebase`], and a sync that would remove more than half of the brain's
//!   nodes unless [`SyncGuard::allow_mass_delete`]; either flag takes a snapshot first
//!   (`Brain::sync`). The paper profile keeps the reference's behaviour on readable
//!   folders.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::source::bootstrap::{build, chain_of, link_consecutive, split_walk};
use crate::source::embedtext::{embedded_text_of, header_of, HEADER_KEY};
use crate::source::workspace::{self, is_under, SkipReason, Skipped, SplitOptions};
use crate::store::working::Working;
use crabpath::embed::Embedder;
use crabpath::graph::{EdgeKind, Graph, Metadata, Node, NodeId};
use crabpath::maintain::{MERGED_PARTS_KEY, MERGE_JOIN};
use crabpath::profile::Profile;
use pyformat::pyjson::{PyDict, PyValue};
use pyformat::pystr;

/// The reference's default authority map (`sync.py::DEFAULT_AUTHORITY_MAP`).
pub const DEFAULT_AUTHORITY_MAP: [(&str, &str); 7] = [
    ("SOUL.md", "constitutional"),
    ("AGENTS.md", "constitutional"),
    ("USER.md", "canonical"),
    ("TOOLS.md", "canonical"),
    ("MEMORY.md", "canonical"),
    ("IDENTITY.md", "canonical"),
    ("HEARTBEAT.md", "canonical"),
];

/// The state `meta` key holding the per-file record of the last corrected sync.
pub const SYNC_FILES_KEY: &str = "sync_files";

/// The state `meta` key holding the folder a brain was built from (its canonical
/// path; corrected profile): `sync` of another folder needs [`SyncGuard::rebase`].
pub const WORKSPACE_KEY: &str = "workspace_dir";

/// What a sync may do beyond bringing a brain up to date with its own folder
/// (corrected profile; both default to no).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SyncGuard {
    /// Sync a folder other than the one the brain records (it then records this one).
    pub rebase: bool,
    /// Remove more than half of the brain's nodes.
    pub allow_mass_delete: bool,
}

impl SyncGuard {
    /// Whether a flag was given (a snapshot is taken before such a sync).
    pub fn any(&self) -> bool {
        self.rebase || self.allow_mass_delete
    }
}

/// The refusal of a sync that would remove `removed` of the brain's `total` nodes
/// (more than half) without [`SyncGuard::allow_mass_delete`]; `None` when it may go on.
pub fn mass_delete_refusal(removed: usize, total: usize, guard: &SyncGuard) -> Option<Error> {
    if guard.allow_mass_delete || removed * 2 <= total {
        return None;
    }
    Some(Error::SyncRefused(format!(
        "sync would remove {removed} of the brain's {total} nodes (more than half): nothing was changed; check the folder, or pass --allow-mass-delete (a snapshot is taken first)"
    )))
}

/// What a sync did (reference `SyncReport`, plus file counts).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SyncReport {
    /// Chunks added.
    pub nodes_added: usize,
    /// Chunks whose text changed.
    pub nodes_updated: usize,
    /// Workspace nodes removed.
    pub nodes_removed: usize,
    /// Chunks unchanged.
    pub nodes_unchanged: usize,
    /// Vectors computed.
    pub embeddings_computed: usize,
    /// Authority → number of nodes it was set on, in first-set order.
    pub authority_set: Vec<(String, usize)>,
    /// Files read and split (corrected: changed or new ones; paper: all).
    pub files_resplit: usize,
    /// Files skipped as unchanged (corrected only).
    pub files_unchanged: usize,
    /// Files whose nodes were removed because the file is gone.
    pub files_deleted: usize,
    /// Files left out (unreadable, binary, …; corrected only).
    pub skipped: Vec<Skipped>,
    /// Paths that exist but could not be read: the nodes of their files were kept
    /// (both profiles). Not empty: the sync was partial.
    pub unreadable: Vec<Skipped>,
    /// The snapshot taken before the sync (with a [`SyncGuard`] flag).
    pub snapshot: Option<String>,
    /// What the sync did to the graph, as `forget`'s replay repeats it (corrected
    /// profile; `None` in the paper profile).
    pub changes: Option<SyncChanges>,
}

/// The graph changes of one corrected sync, by node id, in the order the sync made
/// them: what its journal entry records so that `forget`'s replay
/// ([`crate::service::Brain::relearn`]) can repeat it without the folder. Contents are not
/// recorded: a re-split chunk keeps its id and place, and no edge depends on a text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SyncChanges {
    /// The chunks added (appended to the graph), in order.
    pub added: Vec<String>,
    /// The workspace nodes removed with their edges.
    pub removed: Vec<String>,
    /// The chunks whose text changed (same id, same place).
    pub updated: Vec<String>,
    /// Each affected file (in name order) with its chunks after the sync, in chunk
    /// order: consecutive ones are linked
    /// ([`crate::source::bootstrap::link_consecutive`]). `None`: a chunk
    /// forgotten since, which keeps its place.
    pub linked: Vec<(String, Vec<Option<String>>)>,
}

/// Python `int()` of a chunk suffix (ASCII digits with an optional sign and
/// surrounding whitespace).
fn parse_chunk(s: &str) -> Option<i64> {
    let t = pystr::strip(s);
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

/// `file::chunk` → (file, chunk) (reference `_split_node_id`).
pub fn split_node_id(id: &str) -> Option<(&str, i64)> {
    let (file, chunk) = id.rsplit_once("::")?;
    Some((file, parse_chunk(chunk)?))
}

/// Whether a node of id `id` whose `file` metadata is `file` is a workspace node
/// (`<file>::<n>`): what a sync may remove or count as unchanged.
pub fn is_workspace_id(id: &str, file: &str) -> bool {
    split_node_id(id).is_some_and(|(f, _)| f == file)
}

/// The files among `files` that the authority map names (by path, else by name).
pub fn mapped_files<'a>(files: &'a [String], map: &[(String, String)]) -> Vec<&'a str> {
    files
        .iter()
        .filter(|f| resolve_authority(f, map).is_some())
        .map(String::as_str)
        .collect()
}

fn is_workspace_node(node: &Node) -> bool {
    match split_node_id(&node.id) {
        Some((file, _)) => node.metadata.get("file").and_then(Value::as_str) == Some(file),
        None => false,
    }
}

fn is_protected(node: &Node) -> bool {
    node.metadata
        .get("authority")
        .and_then(Value::as_str)
        .is_some_and(|a| {
            let a = crabpath::embed::python_lower(a);
            a == "constitutional" || a == "canonical"
        })
}

fn node_file(node: &Node) -> Option<String> {
    match node.metadata.get("file").and_then(Value::as_str) {
        Some(f) if !f.is_empty() => Some(f.to_string()),
        _ => split_node_id(&node.id).map(|(f, _)| f.to_string()),
    }
}

fn resolve_authority<'a>(file: &str, map: &'a [(String, String)]) -> Option<&'a str> {
    if let Some((_, v)) = map.iter().find(|(k, _)| k == file) {
        return Some(v);
    }
    let name = crate::source::gitignore::path_name(file);
    map.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Options of [`sync_workspace`].
pub struct SyncOptions<'a> {
    /// Paper: the reference's full re-split; corrected: incremental (see the module
    /// docs).
    pub profile: Profile,
    /// File path or name → authority, in the order given.
    pub authority_map: Vec<(String, String)>,
    /// Embeds added and changed chunks (called once, with all of them).
    pub embedder: &'a dyn Embedder,
    /// Called with the number of chunks to embed before embedding them (progress).
    pub on_embed: Option<&'a mut dyn FnMut(usize)>,
    /// Corrected profile: the merged nodes of a graph and the chunk ids each holds
    /// (`service::command::merge::merged_nodes`). A chunk that maintenance merged
    /// away is no node of the graph; with this, a sync that re-splits its file does not
    /// add it again and updates the merged node's text instead (`merged_in_sync`; fix
    /// S5). `None`: every missing chunk is added (the reference).
    pub merged: Option<MergedNodes<'a>>,
}

/// The merged nodes of a graph with the chunk ids each holds, in node order
/// ([`SyncOptions::merged`]).
pub type MergedNodes<'a> = &'a dyn Fn(&Graph) -> Vec<(NodeId, Vec<String>)>;

/// One file as the last corrected sync saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileRecord {
    sha256: String,
    size: u64,
    mtime_ns: u128,
}

fn records(meta: &Metadata) -> BTreeMap<String, FileRecord> {
    let mut out = BTreeMap::new();
    if let Some(Value::Object(m)) = meta.get(SYNC_FILES_KEY) {
        for (k, v) in m {
            let r = (|| {
                Some(FileRecord {
                    sha256: v.get("sha256")?.as_str()?.to_string(),
                    size: v.get("size")?.as_u64()?,
                    mtime_ns: v.get("mtime_ns")?.as_str()?.parse().ok()?,
                })
            })();
            if let Some(r) = r {
                out.insert(k.clone(), r);
            }
        }
    }
    out
}

fn stat(path: &Path) -> Option<(u64, u128)> {
    let m = std::fs::metadata(path).ok()?;
    let t = m
        .modified()
        .ok()?
        .duration_since(UNIX_EPOCH)
        .ok()?
        .as_nanos();
    Some((m.len(), t))
}

/// The per-file record that the corrected `sync` compares against (`meta.sync_files`:
/// content hash, size and modification time of each file), for the files `rels` of
/// `workspace`: what `init` records, so that the first `sync` re-splits no unchanged
/// file. A file that cannot be read is left out (the next sync reads it).
pub fn file_records<'a>(workspace: &Path, rels: impl IntoIterator<Item = &'a str>) -> Value {
    let mut m = serde_json::Map::new();
    for rel in rels {
        let path = workspace.join(rel);
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let (size, mtime) = stat(&path).unwrap_or((bytes.len() as u64, 0));
        m.insert(
            rel.to_string(),
            json!({"sha256": sha256_hex(&bytes), "size": size, "mtime_ns": mtime.to_string()}),
        );
    }
    Value::Object(m)
}

/// What a sync found in the folder before touching the brain: the chunks of the files
/// to (re-)split, and which files were not read ([`plan_sync`]).
pub struct SyncPlan {
    /// Current (id, text) of every re-split file, in node order.
    pub texts: Vec<(String, String)>,
    /// The document header of each chunk of `texts` that has one (corrected;
    /// [`crate::source::embedtext`]), by id.
    pub headers: BTreeMap<String, String>,
    /// Relative paths of the files that were re-split.
    pub resplit: Vec<String>,
    /// Relative paths of files present but unchanged (not read).
    pub unchanged_files: Vec<String>,
    /// Every file present.
    pub present: Vec<String>,
    /// New per-file records (corrected).
    records: BTreeMap<String, FileRecord>,
    /// Files left out, and why.
    pub skipped: Vec<Skipped>,
    /// Paths that exist but could not be read: their files' nodes are kept.
    pub unreadable: Vec<Skipped>,
    profile: Profile,
}

/// Reads the folder as the brain's last sync left it recorded (`meta.sync_files`,
/// [`SYNC_FILES_KEY`]): which files are new or changed (read and split), unchanged (not
/// read, corrected) or gone. Nothing in the brain is touched.
pub fn plan_sync(workspace: &Path, profile: Profile, meta: &Metadata) -> Result<SyncPlan> {
    split_current(workspace, profile, &records(meta))
}

impl SyncPlan {
    /// Files of the last sync that are gone.
    pub fn deleted<'a>(&'a self, meta: &'a Metadata) -> Vec<String> {
        let present: std::collections::HashSet<&str> =
            self.present.iter().map(String::as_str).collect();
        records(meta)
            .into_keys()
            .filter(|f| !present.contains(f.as_str()))
            .collect()
    }

    /// Whether nothing is to be done to the brain (no file re-split or gone and no
    /// authority to set): the sync can end without reading the graph.
    pub fn is_unchanged(&self, meta: &Metadata) -> bool {
        self.profile.fixes_bugs() && self.resplit.is_empty() && self.deleted(meta).is_empty()
    }
}

fn split_current(
    workspace: &Path,
    profile: Profile,
    old: &BTreeMap<String, FileRecord>,
) -> Result<SyncPlan> {
    let options = SplitOptions::new(profile);
    if !profile.fixes_bugs() {
        let walk = workspace::walk(workspace, &options)?;
        let unreadable = walk.unreadable.clone();
        let boot = split_walk(walk, profile)?;
        let present: Vec<String> = boot.files.iter().map(|f| f.rel.clone()).collect();
        return Ok(SyncPlan {
            profile,
            texts: boot
                .texts()
                .map(|(i, t)| (i.to_string(), t.to_string()))
                .collect(),
            headers: headers_of(&boot),
            resplit: present.clone(),
            unchanged_files: Vec::new(),
            present,
            records: BTreeMap::new(),
            skipped: boot.skipped,
            unreadable,
        });
    }
    let walk = workspace::walk(workspace, &options)?;
    let mut skipped = walk.skipped;
    let mut unreadable = walk.unreadable;
    let mut to_build: Vec<(PathBuf, String, String)> = Vec::new();
    let mut unchanged_files = Vec::new();
    let mut present = Vec::new();
    let mut new_records = BTreeMap::new();
    for c in walk.files {
        present.push(c.rel.clone());
        let st = stat(&c.path);
        if let (Some(r), Some((size, mtime))) = (old.get(&c.rel), st) {
            if r.size == size && r.mtime_ns == mtime {
                new_records.insert(c.rel.clone(), r.clone());
                unchanged_files.push(c.rel);
                continue;
            }
        }
        let bytes = match std::fs::read(&c.path) {
            Ok(b) => b,
            Err(e) => {
                // unknown, not gone: its nodes and its record stay
                if let Some(r) = old.get(&c.rel) {
                    new_records.insert(c.rel.clone(), r.clone());
                }
                let s = Skipped {
                    rel: c.rel.clone(),
                    reason: SkipReason::UnreadableFile(e.to_string()),
                };
                skipped.push(s.clone());
                unreadable.push(s);
                unchanged_files.push(c.rel);
                continue;
            }
        };
        let sha = sha256_hex(&bytes);
        let (size, mtime) = st.unwrap_or((bytes.len() as u64, 0));
        let record = FileRecord {
            sha256: sha.clone(),
            size,
            mtime_ns: mtime,
        };
        if old.get(&c.rel).is_some_and(|r| r.sha256 == sha) {
            new_records.insert(c.rel.clone(), record);
            unchanged_files.push(c.rel);
            continue;
        }
        let text = match workspace::decode_text(bytes, &c.path) {
            Ok(t) => t,
            Err(Error::InvalidUtf8 { offset, .. }) => {
                skipped.push(Skipped {
                    rel: c.rel,
                    reason: SkipReason::InvalidUtf8 { offset },
                });
                continue;
            }
            Err(e) => return Err(e),
        };
        if text.contains('\0') {
            skipped.push(Skipped {
                rel: c.rel,
                reason: SkipReason::Binary,
            });
            continue;
        }
        new_records.insert(c.rel.clone(), record);
        to_build.push((c.path, c.rel, text));
    }
    // the recorded files under an unreadable directory: present as far as we know
    for (rel, r) in old {
        if !new_records.contains_key(rel) && unreadable.iter().any(|u| is_under(rel, &u.rel)) {
            new_records.insert(rel.clone(), r.clone());
            present.push(rel.clone());
            unchanged_files.push(rel.clone());
        }
    }
    let boot = build(
        to_build
            .iter()
            .map(|(p, r, t)| (p.as_path(), r.as_str(), t.as_str())),
        profile,
    )?;
    Ok(SyncPlan {
        profile,
        texts: boot
            .texts()
            .map(|(i, t)| (i.to_string(), t.to_string()))
            .collect(),
        headers: headers_of(&boot),
        resplit: to_build.into_iter().map(|(_, r, _)| r).collect(),
        unchanged_files,
        present,
        records: new_records,
        skipped,
        unreadable,
    })
}

/// Takes out of `split` every re-split file one of whose chunk ids names a node of
/// `graph` that is not a chunk of that file (its `file` metadata is another or none:
/// a turn `remember` was given that id, a node `inject` made under it). Applied, the
/// sync would overwrite that node's text and metadata with the chunk's, and the
/// acknowledged write would be gone. Such a file is not synced: its chunks are left
/// out, it counts as present and unread (its nodes kept, its last record kept so that
/// the next sync reads it again), and it is reported unreadable with
/// [`SkipReason::IdTaken`] (a partial sync). Returns the files held back.
fn hold_back_taken(
    split: &mut SyncPlan,
    graph: &Graph,
    old: &BTreeMap<String, FileRecord>,
) -> std::collections::HashSet<String> {
    let mut taken: BTreeMap<String, String> = BTreeMap::new();
    for (id, _) in &split.texts {
        let Some((file, _)) = split_node_id(id) else {
            continue;
        };
        let Some(node) = graph.get_node(id) else {
            continue;
        };
        if node.metadata.get("file").and_then(Value::as_str) != Some(file) {
            taken.entry(file.to_string()).or_insert_with(|| id.clone());
        }
    }
    for (file, id) in &taken {
        let s = Skipped {
            rel: file.clone(),
            reason: SkipReason::IdTaken(id.clone()),
        };
        split.skipped.push(s.clone());
        split.unreadable.push(s);
        split.resplit.retain(|f| f != file);
        split.unchanged_files.push(file.clone());
        match old.get(file) {
            Some(r) => {
                split.records.insert(file.clone(), r.clone());
            }
            None => {
                split.records.remove(file);
            }
        }
    }
    split
        .texts
        .retain(|(id, _)| split_node_id(id).is_none_or(|(f, _)| !taken.contains_key(f)));
    taken.into_keys().collect()
}

/// The document headers of a bootstrap's nodes, by id ([`crate::source::embedtext::header_of`]).
fn headers_of(boot: &crate::source::bootstrap::Bootstrap) -> BTreeMap<String, String> {
    boot.graph
        .nodes()
        .filter_map(|(_, n)| Some((n.id.clone(), header_of(&n.metadata)?.to_string())))
        .collect()
}

/// Syncs a brain with the folder `workspace` (see the module docs), in place: the
/// graph, its vectors and (corrected) the per-file record in `meta`. The caller saves
/// the brain (and journals the report).
///
/// Errors: the workspace walk or reading (see [`crate::source::workspace`]), the embedder, a
/// vector of the wrong dimension.
pub fn sync_workspace(
    w: &mut Working<'_>,
    workspace: &Path,
    options: SyncOptions<'_>,
) -> Result<SyncReport> {
    let split = split_current(workspace, options.profile, &records(w.meta))?;
    apply_sync(w, split, options, None)
}

/// Applies a [`plan_sync`] to the brain `w` (see the module docs). With
/// `unchanged_elsewhere` (corrected profile), the caller counts the workspace nodes of
/// the unchanged files itself (it did not read them into `w`), and the sync counts
/// none of them: the graph may then hold only the nodes of the affected files, the
/// nodes with edges into them and those of files the authority map names.
pub fn apply_sync(
    w: &mut Working<'_>,
    split: SyncPlan,
    mut options: SyncOptions<'_>,
    unchanged_elsewhere: Option<usize>,
) -> Result<SyncReport> {
    let fixes = options.profile.fixes_bugs();
    let mut split = split;
    // corrected: a file whose chunk id names a node that is not its chunk is held back
    let held_back = if fixes {
        hold_back_taken(&mut split, w.graph, &records(w.meta))
    } else {
        Default::default()
    };
    let graph = &mut *w.graph;
    let current: BTreeMap<&str, &str> = split
        .texts
        .iter()
        .map(|(i, t)| (i.as_str(), t.as_str()))
        .collect();
    let resplit: std::collections::HashSet<&str> =
        split.resplit.iter().map(String::as_str).collect();
    let present: std::collections::HashSet<&str> =
        split.present.iter().map(String::as_str).collect();

    let merged = match (fixes, options.merged) {
        (true, Some(merged)) => merged(graph),
        _ => Vec::new(),
    };
    let old_records = records(w.meta);
    let MergedInSync { held, remerges } = merged_in_sync(
        graph,
        &current,
        &merged,
        |f| resplit.contains(f),
        |f| old_records.contains_key(f) && !present.contains(f),
    );
    let mut added: Vec<String> = Vec::new();
    let mut changed: Vec<String> = Vec::new();
    let mut unchanged = 0usize;
    for (id, text) in &current {
        match graph.get_node(id) {
            None if held.contains(id) => unchanged += 1,
            None => added.push(id.to_string()),
            Some(n) => {
                // corrected: a chunk whose document header changed (a new title) is
                // embedded again (the paper profile compares contents only)
                let header = split.headers.get(*id).map(String::as_str);
                if sha256_hex(n.content.as_bytes()) != sha256_hex(text.as_bytes())
                    || (fixes && header_of(&n.metadata) != header)
                {
                    changed.push(id.to_string());
                } else {
                    unchanged += 1;
                }
            }
        }
    }
    // workspace nodes that are gone: of a re-split file but no longer produced, or of a
    // file that is no longer present (corrected: unchanged files keep theirs)
    let mut removed: Vec<NodeId> = Vec::new();
    let mut affected: std::collections::BTreeSet<String> = split.resplit.iter().cloned().collect();
    let mut deleted_files: std::collections::BTreeSet<String> = Default::default();
    for (ix, node) in graph.nodes() {
        if !is_workspace_node(node) || current.contains_key(node.id.as_str()) {
            continue;
        }
        let file = node
            .metadata
            .get("file")
            .and_then(Value::as_str)
            .unwrap_or("");
        let unknown = split.unreadable.iter().any(|u| is_under(file, &u.rel));
        if unknown || (fixes && !resplit.contains(file) && present.contains(file)) {
            // a held-back file was re-split as far as the caller knows: not counted there
            if unchanged_elsewhere.is_none() || held_back.contains(file) {
                unchanged += 1;
            }
            continue;
        }
        if is_protected(node) {
            continue;
        }
        removed.push(ix);
        if let Some(f) = node_file(node) {
            if !present.contains(f.as_str()) {
                deleted_files.insert(f.clone());
            }
            affected.insert(f);
        }
    }
    for id in changed.iter().chain(&added) {
        if let Some((f, _)) = split_node_id(id) {
            affected.insert(f.to_string());
        }
    }

    let mut targets: Vec<&str> = changed.iter().chain(&added).map(String::as_str).collect();
    targets.sort_unstable();
    // a merged node whose parts changed is embedded again (as a merge embeds it)
    let kept: Vec<&Remerge> = remerges.iter().filter(|r| !r.parts.is_empty()).collect();
    if let Some(cb) = options.on_embed.as_mut() {
        cb(targets.len() + kept.len());
    }
    let mut owned: Vec<std::borrow::Cow<'_, str>> = targets
        .iter()
        .map(|id| embedded_text_of(split.headers.get(*id).map(String::as_str), current[id]))
        .collect();
    owned.extend(kept.iter().map(|r| {
        let header = graph.node(r.ix).and_then(|n| header_of(&n.metadata));
        embedded_text_of(header, &r.content)
    }));
    let texts: Vec<&str> = owned.iter().map(|t| t.as_ref()).collect();
    let mut vectors = if texts.is_empty() {
        Vec::new()
    } else {
        options.embedder.embed_batch(&texts)?
    };
    if vectors.len() != texts.len() {
        return Err(Error::Invalid(format!(
            "the embedder returned {} vectors for {} texts",
            vectors.len(),
            texts.len()
        )));
    }
    let remerge_vectors = vectors.split_off(targets.len());
    let vector_of: std::collections::HashMap<&str, &Vec<f64>> =
        targets.iter().copied().zip(vectors.iter()).collect();

    unchanged += unchanged_elsewhere.unwrap_or(0);
    // the merged nodes: those left with no part go, the others take their parts'
    // texts as the folder has them now (their edges and what they learned stay)
    let mut remerged_ids = Vec::new();
    for (r, v) in kept.iter().zip(&remerge_vectors) {
        let Some(node) = graph.node_mut(r.ix) else {
            continue;
        };
        node.content = r.content.clone();
        node.summary = pystr::first_line(&r.content).to_string();
        node.metadata
            .insert(MERGED_PARTS_KEY.into(), json!(r.parts.clone()));
        let id = node.id.clone();
        w.vectors.upsert(&id, v)?;
        remerged_ids.push(id);
    }
    removed.extend(remerges.iter().filter(|r| r.parts.is_empty()).map(|r| r.ix));
    let mut report = SyncReport {
        nodes_added: added.len(),
        nodes_updated: changed.len() + remerged_ids.len(),
        nodes_removed: removed.len(),
        nodes_unchanged: unchanged,
        embeddings_computed: vectors.len() + remerge_vectors.len(),
        files_resplit: split.resplit.len(),
        files_unchanged: split.unchanged_files.len(),
        files_deleted: deleted_files.len(),
        skipped: split.skipped,
        unreadable: split.unreadable,
        ..SyncReport::default()
    };
    let count_authority = |a: &str, report: &mut SyncReport| match report
        .authority_set
        .iter_mut()
        .find(|(k, _)| k == a)
    {
        Some((_, n)) => *n += 1,
        None => report.authority_set.push((a.to_string(), 1)),
    };
    for id in changed.iter().chain(&added) {
        let Some((file, chunk)) = split_node_id(id) else {
            continue;
        };
        let content = current[id.as_str()];
        let mut metadata = graph
            .get_node(id)
            .map(|n| n.metadata.clone())
            .unwrap_or_default();
        metadata.insert("file".into(), json!(file));
        metadata.insert("chunk".into(), json!(chunk));
        if fixes {
            match split.headers.get(id.as_str()) {
                Some(h) => metadata.insert(HEADER_KEY.into(), json!(h)),
                None => metadata.remove(HEADER_KEY),
            };
        }
        let kind = metadata.get("kind").cloned().unwrap_or(json!("markdown"));
        metadata.insert("kind".into(), kind);
        if let Some(a) = resolve_authority(file, &options.authority_map) {
            metadata.insert("authority".into(), json!(a));
            count_authority(a, &mut report);
        }
        graph.add_node(Node {
            id: id.clone(),
            content: content.to_string(),
            summary: pystr::first_line(content).to_string(),
            metadata,
        });
        if let Some(v) = vector_of.get(id.as_str()) {
            w.vectors.upsert(id, v)?;
        }
    }
    if fixes {
        // S3: the map applies to every chunk of a mapped file
        let ids: Vec<NodeId> = graph.node_ids().collect();
        let fresh: std::collections::HashSet<&str> =
            changed.iter().chain(&added).map(String::as_str).collect();
        for ix in ids {
            let Some(node) = graph.node(ix) else { continue };
            if !is_workspace_node(node) || fresh.contains(node.id.as_str()) {
                continue;
            }
            let Some(file) = node.metadata.get("file").and_then(Value::as_str) else {
                continue;
            };
            let Some(a) = resolve_authority(file, &options.authority_map) else {
                continue;
            };
            if node.metadata.get("authority").and_then(Value::as_str) == Some(a) {
                continue;
            }
            let a = a.to_string();
            if let Some(n) = graph.node_mut(ix) {
                n.metadata.insert("authority".into(), json!(a));
            }
            count_authority(&a, &mut report);
        }
    }
    let mut removed_ids = Vec::with_capacity(removed.len());
    for ix in removed {
        let name = graph.name(ix).to_string();
        graph.remove_node(ix);
        w.vectors.remove(&name);
        removed_ids.push(name);
    }
    let mut linked = Vec::new();

    // sibling edges of the affected files
    let mut by_file: BTreeMap<&str, Vec<(i64, &str)>> = BTreeMap::new();
    for id in current.keys() {
        if let Some((f, c)) = split_node_id(id) {
            by_file.entry(f).or_default().push((c, id));
        }
    }
    for v in by_file.values_mut() {
        v.sort_by_key(|x| x.0);
    }
    for file in &affected {
        let ordered: Vec<&str> = by_file
            .get(file.as_str())
            .map(|v| v.iter().map(|x| x.1).collect())
            .unwrap_or_default();
        if !fixes {
            remove_file_sibling_edges(graph, file);
        }
        // a chunk a merged node holds is no node: it holds its place and links nothing
        // (the merged node has its edges)
        let ids: Vec<Option<&str>> = ordered
            .iter()
            .map(|id| Some(*id).filter(|id| !held.contains(id)))
            .collect();
        let chain = chain_of(graph, &ids);
        link_consecutive(graph, file, &chain, fixes)?;
        if fixes {
            linked.push((
                file.clone(),
                ids.iter().map(|id| id.map(str::to_string)).collect(),
            ));
        }
    }
    if fixes {
        report.changes = Some(SyncChanges {
            added: added.clone(),
            removed: removed_ids,
            updated: changed.iter().chain(&remerged_ids).cloned().collect(),
            linked,
        });
        let mut m = serde_json::Map::new();
        for (rel, r) in &split.records {
            m.insert(
                rel.clone(),
                json!({"sha256": r.sha256, "size": r.size, "mtime_ns": r.mtime_ns.to_string()}),
            );
        }
        w.meta.insert(SYNC_FILES_KEY.into(), Value::Object(m));
    }
    Ok(report)
}

/// A merged node whose parts a sync changed ([`MergedInSync::remerges`]).
#[derive(Debug)]
struct Remerge {
    /// The merged node.
    ix: NodeId,
    /// Its parts' texts as the folder has them now, joined as a merge joins them.
    content: String,
    /// The parts left (none: the merged node holds nothing any more and goes).
    parts: Vec<String>,
}

/// What the merged nodes of a graph are to a sync (fix S5, [`merged_in_sync`]).
#[derive(Debug, Default)]
struct MergedInSync<'c> {
    /// The chunk ids of the sync that are no node because a merged node holds them: a
    /// sync adds none of them again.
    held: std::collections::HashSet<&'c str>,
    /// The merged nodes whose parts' texts the sync changes.
    remerges: Vec<Remerge>,
}

/// The chunks of `current` (a sync's chunks and their texts) that the merged nodes of
/// `merged` (with their parts) hold, and the merged nodes whose parts' texts the sync
/// changes. Before, a sync that re-split a merged chunk's file (any edit of it) added
/// every merged chunk back beside the merged node, so the brain held and answered the
/// same text twice, and the merged node kept the text the file no longer had.
///
/// A merged node's content is its parts' texts joined by [`MERGE_JOIN`], in order. For
/// a part that is a chunk of a file the sync re-split (`resplit`) the text is the
/// chunk's now (`current`; the part is then held), or the part is gone when the file no
/// longer has that chunk, or the chunk is a node of the graph again (added back by a
/// sync before this fix: it holds its own text); a chunk of a deleted file (`deleted`)
/// is gone; other parts (chunks of unchanged files, turns, teachings) keep their text.
/// A merged node whose content does not split into as many texts as it has parts (a
/// part's own text holds a blank line) cannot be told apart and keeps its text; it
/// holds a chunk whose whole text stands in it between two blank lines (or an end), so
/// a chunk cut short is not taken for the longer text, and a changed chunk is added.
///
/// Cost: one pass over the merged nodes' contents.
fn merged_in_sync<'c>(
    graph: &Graph,
    current: &BTreeMap<&'c str, &'c str>,
    merged: &[(NodeId, Vec<String>)],
    resplit: impl Fn(&str) -> bool,
    deleted: impl Fn(&str) -> bool,
) -> MergedInSync<'c> {
    let mut out = MergedInSync::default();
    for (ix, parts) in merged {
        let Some(node) = graph.node(*ix) else {
            continue;
        };
        let texts: Vec<&str> = node.content.split(MERGE_JOIN).collect();
        if texts.len() != parts.len() {
            let content = format!("{MERGE_JOIN}{}{MERGE_JOIN}", node.content);
            for part in parts {
                if let Some((&id, &text)) = current.get_key_value(part.as_str()) {
                    if graph.get_node(id).is_none()
                        && content.contains(&format!("{MERGE_JOIN}{text}{MERGE_JOIN}"))
                    {
                        out.held.insert(id);
                    }
                }
            }
            continue;
        }
        let mut kept: Vec<(&str, &str)> = Vec::with_capacity(parts.len());
        for (part, text) in parts.iter().zip(texts) {
            match split_node_id(part) {
                Some((file, _)) if resplit(file) => {
                    if let Some((&id, &now)) = current.get_key_value(part.as_str()) {
                        if graph.get_node(id).is_none() {
                            out.held.insert(id);
                            kept.push((part, now));
                        }
                    }
                }
                Some((file, _)) if deleted(file) => {}
                _ => kept.push((part, text)),
            }
        }
        let content = kept
            .iter()
            .map(|(_, t)| *t)
            .collect::<Vec<_>>()
            .join(MERGE_JOIN);
        if content != node.content || kept.len() != parts.len() {
            out.remerges.push(Remerge {
                ix: *ix,
                content,
                parts: kept.iter().map(|(p, _)| p.to_string()).collect(),
            });
        }
    }
    out
}

/// The journal entry type of a sync (both profiles).
pub const SYNC_EVENT: &str = "sync";

/// Journal entry keys of [`SyncChanges`] (corrected profile).
const ADDED_KEY: &str = "added_ids";
const REMOVED_KEY: &str = "removed_ids";
const UPDATED_KEY: &str = "updated_ids";
const LINKED_KEY: &str = "linked_files";

impl SyncChanges {
    /// Adds the changes to a sync's journal entry `e` (`added_ids`, `removed_ids`,
    /// `linked_files`: `[file, [id or null, …]]` pairs).
    pub fn record(&self, e: &mut PyDict) {
        let ids = |v: &[String]| PyValue::List(v.iter().map(|i| PyValue::Str(i.clone())).collect());
        e.insert(ADDED_KEY.into(), ids(&self.added));
        e.insert(REMOVED_KEY.into(), ids(&self.removed));
        e.insert(UPDATED_KEY.into(), ids(&self.updated));
        let linked = self
            .linked
            .iter()
            .map(|(file, chunks)| {
                let chunks = chunks
                    .iter()
                    .map(|c| c.clone().map_or(PyValue::Null, PyValue::Str))
                    .collect();
                PyValue::List(vec![PyValue::Str(file.clone()), PyValue::List(chunks)])
            })
            .collect();
        e.insert(LINKED_KEY.into(), PyValue::List(linked));
    }

    /// The changes a sync entry records ([`SyncChanges::record`]); `None` when it
    /// holds none (the paper profile, or an entry written before they were recorded)
    /// or they are malformed.
    pub fn read(e: &PyDict) -> Option<SyncChanges> {
        let ids = |key: &str| -> Option<Vec<String>> {
            e.get(key)?
                .as_list()?
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect()
        };
        let linked = e
            .get(LINKED_KEY)?
            .as_list()?
            .iter()
            .map(|pair| match pair.as_list()? {
                [file, chunks] => Some((
                    file.as_str()?.to_string(),
                    chunks
                        .as_list()?
                        .iter()
                        .map(|c| match c {
                            PyValue::Null => Some(None),
                            other => other.as_str().map(|s| Some(s.to_string())),
                        })
                        .collect::<Option<Vec<_>>>()?,
                )),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Some(SyncChanges {
            added: ids(ADDED_KEY)?,
            removed: ids(REMOVED_KEY)?,
            updated: ids(UPDATED_KEY)?,
            linked,
        })
    }

    /// The same changes without the ids of `gone` (forgotten since): they are neither
    /// added nor removed, and hold their place among their file's chunks (`None`); a
    /// file none of whose chunks is left drops out. `None` when nothing named one.
    pub fn without(&self, gone: &std::collections::HashSet<&str>) -> Option<SyncChanges> {
        let named = |v: &[String]| v.iter().any(|i| gone.contains(i.as_str()));
        let linked_named = self
            .linked
            .iter()
            .any(|(_, c)| c.iter().flatten().any(|i| gone.contains(i.as_str())));
        if !named(&self.added) && !named(&self.removed) && !named(&self.updated) && !linked_named {
            return None;
        }
        let keep = |v: &[String]| -> Vec<String> {
            v.iter()
                .filter(|i| !gone.contains(i.as_str()))
                .cloned()
                .collect()
        };
        let linked = self
            .linked
            .iter()
            .map(|(f, c)| {
                let c: Vec<Option<String>> = c
                    .iter()
                    .map(|i| i.clone().filter(|i| !gone.contains(i.as_str())))
                    .collect();
                (f.clone(), c)
            })
            .filter(|(_, c)| c.iter().any(Option::is_some))
            .collect();
        Some(SyncChanges {
            added: keep(&self.added),
            removed: keep(&self.removed),
            updated: keep(&self.updated),
            linked,
        })
    }
}

/// Deletes every `sibling` edge between two ids of `file` (reference
/// `_remove_file_sibling_edges`: sources in bucket order, each bucket's edges in
/// order, ids matched by their `file::chunk` form).
fn remove_file_sibling_edges(graph: &mut Graph, file: &str) {
    let sources: Vec<NodeId> = graph.sources().collect();
    for s in sources {
        if split_node_id(graph.name(s)).map(|x| x.0) != Some(file) {
            continue;
        }
        let doomed: Vec<NodeId> = graph
            .bucket(s)
            .map(|b| {
                b.iter()
                    .filter(|(t, e)| {
                        e.kind == EdgeKind::Sibling
                            && split_node_id(graph.name(**t)).map(|x| x.0) == Some(file)
                    })
                    .map(|(t, _)| *t)
                    .collect()
            })
            .unwrap_or_default();
        for t in doomed {
            graph.remove_edge(s, t);
        }
    }
}

/// Parses an `--authority-map` value (reference `cli.py::_parse_authority_map`): a JSON
/// object of strings. Errors are the reference's messages (a parse error is Python's
/// `JSONDecodeError` text).
pub fn parse_authority_map(
    raw: Option<&str>,
) -> std::result::Result<Vec<(String, String)>, String> {
    let Some(raw) = raw else {
        return Ok(DEFAULT_AUTHORITY_MAP
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect());
    };
    let value =
        pyformat::pyjson::loads(raw).map_err(|e| format!("json.decoder.JSONDecodeError: {e}"))?;
    let pyformat::pyjson::PyValue::Dict(d) = value else {
        return Err("--authority-map must be a JSON object".into());
    };
    let mut out = Vec::new();
    for (k, v) in d {
        match v {
            pyformat::pyjson::PyValue::Str(s) => out.push((k, s)),
            _ => return Err("--authority-map must map string keys to string values".into()),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::bootstrap::split_workspace;
    use crabpath::embed::HashEmbedder;
    use crabpath::state::State;

    /// `merged_in_sync` on a merged node of three parts: an edited chunk takes its new text,
    /// a chunk the file lost goes, a chunk that is a node again (added back by a sync
    /// before fix S5) is let go, a part of an unchanged file keeps its text.
    #[test]
    fn a_merged_node_takes_its_chunks_texts_now() {
        let mut g = Graph::new();
        let node = |id: &str, content: &str| Node {
            id: id.into(),
            content: content.into(),
            summary: String::new(),
            metadata: Metadata::new(),
        };
        let m = g.add_node(node("merged:1", "one\n\ntwo\n\nthree\n\nfour"));
        g.add_node(node("a.md::3", "three"));
        let parts: Vec<String> = ["a.md::1", "a.md::2", "a.md::3", "b.md::0"]
            .map(String::from)
            .to_vec();
        let current: BTreeMap<&str, &str> =
            [("a.md::1", "one, edited"), ("a.md::3", "three")].into();
        let r = merged_in_sync(
            &g,
            &current,
            &[(m, parts.clone())],
            |f| f == "a.md",
            |_| false,
        );
        assert_eq!(r.held, ["a.md::1"].into());
        let r = r.remerges;
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].content, "one, edited\n\nfour");
        assert_eq!(r[0].parts, ["a.md::1", "b.md::0"]);
        // nothing of it changed: left as it is
        let same: BTreeMap<&str, &str> = [("a.md::1", "one"), ("a.md::2", "two")].into();
        let g2 = {
            let mut g2 = Graph::new();
            g2.add_node(node("merged:1", "one\n\ntwo"));
            g2
        };
        let m2 = g2.lookup("merged:1").unwrap();
        let two = parts[..2].to_vec();
        let r = merged_in_sync(&g2, &same, &[(m2, two.clone())], |f| f == "a.md", |_| false);
        assert!(r.remerges.is_empty());
        assert_eq!(r.held, ["a.md::1", "a.md::2"].into());
        // its file deleted: nothing left
        let r = merged_in_sync(
            &g2,
            &BTreeMap::new(),
            &[(m2, two)],
            |_| false,
            |f| f == "a.md",
        )
        .remerges;
        assert!(r[0].parts.is_empty());
        // a part's own text holds a blank line: the content cannot be told apart, and a
        // chunk is held only when its whole text stands in it between blank lines
        let mut g3 = Graph::new();
        let m3 = g3.add_node(node("merged:1", "one\n\nmore\n\ntwo"));
        let short: BTreeMap<&str, &str> = [("a.md::1", "one\n\nmore"), ("a.md::2", "tw")].into();
        let r = merged_in_sync(
            &g3,
            &short,
            &[(m3, two_parts())],
            |f| f == "a.md",
            |_| false,
        );
        assert!(r.remerges.is_empty());
        assert_eq!(r.held, ["a.md::1"].into());
    }

    fn two_parts() -> Vec<String> {
        vec!["a.md::1".into(), "a.md::2".into()]
    }

    #[test]
    fn node_ids_and_maps() {
        assert_eq!(split_node_id("a/b.md::3"), Some(("a/b.md", 3)));
        assert_eq!(split_node_id("x::y::12"), Some(("x::y", 12)));
        assert_eq!(split_node_id("fix::one"), None);
        assert_eq!(split_node_id("plain"), None);
        let m = parse_authority_map(Some(
            r#"{"docs/a.md": "canonical", "SOUL.md": "constitutional"}"#,
        ))
        .unwrap();
        assert_eq!(resolve_authority("docs/a.md", &m), Some("canonical"));
        assert_eq!(resolve_authority("x/SOUL.md", &m), Some("constitutional"));
        assert_eq!(
            parse_authority_map(Some("[1]")).unwrap_err(),
            "--authority-map must be a JSON object"
        );
        assert_eq!(
            parse_authority_map(Some(r#"{"a": 1}"#)).unwrap_err(),
            "--authority-map must map string keys to string values"
        );
        assert_eq!(parse_authority_map(None).unwrap().len(), 7);
    }

    fn brain(dir: &Path) -> State {
        let boot = split_workspace(dir, &SplitOptions::new(Profile::Corrected)).unwrap();
        let e = HashEmbedder::new();
        let mut index = crabpath::index::VectorIndex::new();
        for (id, t) in boot.texts() {
            index.upsert(id, e.embed(t).unwrap()).unwrap();
        }
        State::new(boot.graph, index)
    }

    #[test]
    fn corrected_sync_keeps_learning_and_skips_unchanged_files() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::write(ws.join("a.md"), "# A\n\n## One\nx\n\n## Two\ny\n").unwrap();
        std::fs::write(ws.join("b.md"), "# B\n\n## Three\nz\n").unwrap();
        let mut st = brain(ws);
        let (a0, a1) = (
            st.graph.lookup("a.md::0").unwrap(),
            st.graph.lookup("a.md::1").unwrap(),
        );
        st.graph.edge_mut(a0, a1).unwrap().weight = 0.9;
        let e = HashEmbedder::new();
        let opts = |p| SyncOptions {
            merged: None,
            profile: p,
            authority_map: parse_authority_map(None).unwrap(),
            embedder: &e,
            on_embed: None,
        };
        // paper: an unchanged sync resets the learned weight (reference A8)
        let mut paper = st.clone();
        let r = sync_workspace(
            &mut Working::of_state(&mut paper, &mut Vec::new()),
            ws,
            opts(Profile::Paper),
        )
        .unwrap();
        assert_eq!((r.nodes_added, r.nodes_updated, r.nodes_removed), (0, 0, 0));
        assert_ne!(paper.graph.weight(a0, a1), Some(0.9));
        // corrected: kept; a second sync reads no file
        let r = sync_workspace(
            &mut Working::of_state(&mut st, &mut Vec::new()),
            ws,
            opts(Profile::Corrected),
        )
        .unwrap();
        assert_eq!(st.graph.weight(a0, a1), Some(0.9));
        assert_eq!(r.files_resplit, 2);
        let r = sync_workspace(
            &mut Working::of_state(&mut st, &mut Vec::new()),
            ws,
            opts(Profile::Corrected),
        )
        .unwrap();
        assert_eq!(
            (r.files_resplit, r.files_unchanged, r.nodes_unchanged),
            (0, 2, 5)
        );
        // a changed file and a deleted one
        std::fs::write(ws.join("a.md"), "# A\n\n## One\nx changed\n\n## Two\ny\n").unwrap();
        std::fs::remove_file(ws.join("b.md")).unwrap();
        let r = sync_workspace(
            &mut Working::of_state(&mut st, &mut Vec::new()),
            ws,
            opts(Profile::Corrected),
        )
        .unwrap();
        assert_eq!(
            (r.nodes_updated, r.nodes_removed, r.files_deleted),
            (1, 2, 1)
        );
        assert_eq!(r.embeddings_computed, 1);
        assert_eq!(st.graph.weight(a0, a1), Some(0.9));
        assert!(st.graph.get_node("b.md::0").is_none() && !st.index.contains("b.md::0"));
    }
}
